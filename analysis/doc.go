// Package analysis computes the seed papers' analyses from a decoded trace,
// its ground truth and the model counters. It returns plain values and
// writes no files. It is the only implementation of these numbers:
// `ptxtrace report` prints AnalyzeContext's Result (its JSON form is the
// Result's), and the experiments (experiments/vr, hence `ptxtrace demo` and
// `ptxtrace sweep vr`) read theirs from it.
//
// # Definitions (seed 003 §6)
//
// All times are in timer units (cycles for %clock/%clock64). A load region
// is a region of kind "load" (one probed memory access); a user region is a
// --region BEGIN:END of the instrumentation (the demo and the sweep put one
// around the whole kernel body).
//
//   - Memory time of a warp (§6.1, §6.2: "メモリ参照時間"): the sum of the
//     durations (End − Start) of its load regions. When the kernel has user
//     regions only load regions inside an outermost user region count.
//   - Total (active) time of a warp: the summed durations of its outermost
//     user regions when the kernel has user regions, otherwise the warp's
//     span from its first begin to its last end record. Other time = total −
//     memory (0 if memory exceeds total).
//   - Memory share (§6.2, Fig. 5: "メモリ参照時間が全体の処理時間に占める
//     割合"): memory / total, per warp and overall as Σ memory / Σ total over
//     all warps (each warp's time counts once; warps run concurrently, so
//     this is a share of warp-time, not of kernel wall time).
//   - Mean memory time per access of a warp (§6.1: "各ワープの参照 1 回あたり
//     の平均所要時間", Fig. 10): memory time / number of load regions counted.
//     Warps without accesses have none (NaN; Fig. 10 draws no bar).
//   - Mean memory time per access of a run: the mean over the warps that
//     have accesses of their per-warp means (the seed averages per warp
//     first); AccessWeightedMean is Σ memory / Σ accesses.
//   - Memory-reference frequency (§6.3: "メモリ参照時間の逆数をとったメモリ
//     参照頻度"): the inverse of the run's mean memory time per access,
//     scaled to accesses per 1000 cycles: 1000 / MeanAccess. It is a measure
//     of memory efficiency (higher = faster accesses), not a rate of issue.
//   - Probe error (per probe mode of the load regions): over the load region
//     instances that carry ground truth, the mean measured duration and the
//     mean true latency (Complete − Issue of the probed access in the model),
//     their difference and relative error (measured − true) / true. A
//     completion probe (fence, dummy) measures the true latency plus its own
//     cost (docs/model.md: dummy ≈ 2 cycles, fence ≈ 1 + the fence latency);
//     a naive probe measures the issue only.
//   - Decomposition (Result.Decompose, per space/mode and per source line,
//     for load regions whose ground truth has the probe pair's stamps): mean
//     measured = issue wait (begin timer read → access issue) + true latency
//     (issue → data ready) + post wait (data ready → end timer read); the
//     post wait splits into the documented cost (Options.PostCost, e.g.
//     PostCost with the model's fence latency) and the excess. The parts
//     add up exactly per instance on a cycle timer (the stamps are the
//     cycles the timer reads issued); globaltimer traces are not decomposed.
//
// Per region (RegionStats): count, mean, population standard deviation,
// minimum and maximum are exact; median and 95th percentile (nearest rank)
// come from a log-linear histogram (values below 128 exact, above each
// power of two split into 64 buckets, reported as the bucket's midpoint:
// relative error below 0.8%). Slowest lines (LineStats) group the counted
// load regions by source line (.loc file:line, else the PTX line) and sort
// them by summed duration. WarpAccesses lists one warp's counted load
// regions (Fig. 11), the same ones its Share counts.
//
// # Invariants
//
// One streaming pass: AnalyzeContext holds one accumulator per region and
// source line and one WarpStats per warp, never the whole trace. The result
// is a function of the trace alone (sorted outputs, no map order, no
// clock). Fields that can be NaN (mean per access without accesses, truth
// mean without truth, relative error against a zero truth) are tagged
// json:"-" so that the JSON form always encodes.
//
// Pearson computes the sample correlation coefficient; it is used for the
// correlation of frequency with texture-cache hit rate and frame rate
// (§6.3, Figs. 6–9).
package analysis
