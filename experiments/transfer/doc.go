// Package transfer is the host↔device transfer advisor of seed paper 001
// (Fujii et al., data transfer offloaded to the GPU's microcontrollers):
// it sweeps model.TransferSpec over sizes (default 8 B … 64 MB, powers of
// two), both directions, the five methods (dma, iorw, hub, gpc1, gpc4)
// and the seed's eight pairs of two transfers (dma+dma, iorw+iorw, and
// dma or iorw overlapped with hub, gpc1 or gpc4), and reports a table, CSV,
// a log–log SVG chart with the crossovers marked, and a recommendation
// table per size band.
//
// # Model
//
// Every time comes from model.TransferSpec.TransferTime / PairTime with
// 256-aligned buffers; this package only compares them. The fastest of a
// group at a size is the smallest time, ties to the earlier method in
// model.TransferMethods / model.TransferPairs order. A crossover is a size
// at which the fastest method differs from the one at the size below; a
// band is a maximal run of sizes with one fastest method.
//
// # Invariants
//
//   - Deterministic: the same spec and sizes give byte-identical table,
//     CSV and SVG (integer picoseconds, no maps, no clock).
//   - The bands of a group tile its sizes in order; consecutive bands
//     differ in their fastest method, and their boundaries are exactly
//     the crossovers.
//   - No GPU is measured here: ptxtrace transfer --gpu refuses (no GPU
//     backend yet; docs/transfer.md).
package transfer
