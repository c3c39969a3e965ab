package model

import (
	"fmt"
	"math/bits"
)

// Host↔device transfer model (seed 001, Fujii et al.: data transfer
// offloaded to the GPU's on-chip microcontrollers). It is independent of
// the kernel timing model: a transfer's time is a closed formula of the
// TransferSpec, the method, the direction and the size (and, for the
// microcontroller methods, the addresses' alignment). Times are integer
// picoseconds. docs/transfer.md gives every formula and the source or
// assumption of every preset value.

// TransferMethod is how a buffer moves between host and device memory.
type TransferMethod string

// The methods of seed 001 §6.2.
const (
	// MethodDMA is the copy engine: API call, DMA setup (command push,
	// fence), then size / bandwidth.
	MethodDMA TransferMethod = "dma"
	// MethodIORW is the CPU loading or storing through a mapped window
	// (BAR): posted writes host→device, non-posted reads device→host.
	MethodIORW TransferMethod = "iorw"
	// MethodHUB is the HUB microcontroller's DMA through its data section.
	MethodHUB TransferMethod = "hub"
	// MethodGPC1 is one GPC microcontroller's DMA.
	MethodGPC1 TransferMethod = "gpc1"
	// MethodGPC4 splits the chunks over the GPC microcontrollers (4 on
	// GF100: TransferSpec.Micro.GPCs).
	MethodGPC4 TransferMethod = "gpc4"
)

// TransferMethods lists the single methods in the seed's order.
func TransferMethods() []TransferMethod {
	return []TransferMethod{MethodDMA, MethodIORW, MethodHUB, MethodGPC1, MethodGPC4}
}

// ParseTransferMethod parses a method name (dma, iorw, hub, gpc1, gpc4).
func ParseTransferMethod(s string) (TransferMethod, error) {
	for _, m := range TransferMethods() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown transfer method %q (want dma, iorw, hub, gpc1 or gpc4)", s)
}

// Micro reports whether m runs on the GPU's microcontrollers.
func (m TransferMethod) Micro() bool { return m == MethodHUB || m == MethodGPC1 || m == MethodGPC4 }

// Direction is a transfer's direction.
type Direction int

// Directions.
const (
	HostToDevice Direction = iota
	DeviceToHost
)

func (d Direction) String() string {
	if d == DeviceToHost {
		return "d2h"
	}
	return "h2d"
}

// ParseDirection parses "h2d" or "d2h".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "h2d":
		return HostToDevice, nil
	case "d2h":
		return DeviceToHost, nil
	}
	return 0, fmt.Errorf("unknown direction %q (want h2d or d2h)", s)
}

// TransferSpec holds a GPU's and host's transfer parameters. All
// durations are ns, bandwidths MB/s (10^6 bytes per second), clocks MHz.
type TransferSpec struct {
	Name string   `yaml:"name" json:"name"`
	Link LinkSpec `yaml:"link" json:"link"`
	// APINs is the runtime's cost per API call (entry, ioctl, return),
	// paid once by every transfer.
	APINs int64     `yaml:"api_ns" json:"api_ns"`
	DMA   DMASpec   `yaml:"dma" json:"dma"`
	IORW  IORWSpec  `yaml:"iorw" json:"iorw"`
	Micro MicroSpec `yaml:"micro" json:"micro"`
	// Notes are the sources and assumptions of the values, one per line.
	Notes []string `yaml:"notes,omitempty" json:"notes,omitempty"`
}

// LinkSpec is the host link: PCIe generation and lanes.
type LinkSpec struct {
	Gen   int `yaml:"gen" json:"gen"`
	Lanes int `yaml:"lanes" json:"lanes"`
}

// pcieLaneMBps is the usable bandwidth of one lane per generation after
// line coding, MB/s: 2.5 GT/s 8b/10b, 5 GT/s 8b/10b, then 8, 16, 32 GT/s
// 128b/130b (PCI-SIG base specifications 1.0–5.0).
var pcieLaneMBps = [...]int64{0, 250, 500, 984, 1969, 3938}

// RawMBps is the link's bandwidth after line coding (before packet
// overhead), or 0 for an unknown generation.
func (l LinkSpec) RawMBps() int64 {
	if l.Gen <= 0 || l.Gen >= len(pcieLaneMBps) {
		return 0
	}
	return pcieLaneMBps[l.Gen] * int64(l.Lanes)
}

// DMASpec is the copy engine.
type DMASpec struct {
	// SetupNs: command submission, engine start and completion fence of
	// one copy, beyond the API call.
	SetupNs int64 `yaml:"setup_ns" json:"setup_ns"`
	H2DMBps int64 `yaml:"h2d_mbps" json:"h2d_mbps"`
	D2HMBps int64 `yaml:"d2h_mbps" json:"d2h_mbps"`
}

// IORWSpec is the CPU accessing device memory through a mapped window.
type IORWSpec struct {
	// WriteBytes per posted write (write-combined burst) and its cost.
	WriteBytes int64 `yaml:"write_bytes" json:"write_bytes"`
	WriteNs    int64 `yaml:"write_ns" json:"write_ns"`
	// FlushNs: the final flush (a read back) making the posted writes
	// visible to the device.
	FlushNs int64 `yaml:"flush_ns" json:"flush_ns"`
	// ReadBytes per non-posted read and its round trip.
	ReadBytes int64 `yaml:"read_bytes" json:"read_bytes"`
	ReadNs    int64 `yaml:"read_ns" json:"read_ns"`
}

// MicroSpec is the on-chip microcontrollers' DMA (seed 001 §5.2): each
// xfer moves 2^n bytes, 3 ≤ n ≤ 8, between external memory and the
// controller's data section, naturally aligned on both sides.
type MicroSpec struct {
	HUB ControllerSpec `yaml:"hub" json:"hub"`
	GPC ControllerSpec `yaml:"gpc" json:"gpc"`
	// GPCs is the number of GPC controllers GPC4 uses.
	GPCs int `yaml:"gpcs" json:"gpcs"`
	// Per controller per transfer, on the host: SetupNs binds the
	// controller's DMA to the context and loads the descriptor, CmdNs
	// sends the command (MMIO writes), PollNs is the completion read.
	SetupNs int64 `yaml:"setup_ns" json:"setup_ns"`
	CmdNs   int64 `yaml:"cmd_ns" json:"cmd_ns"`
	PollNs  int64 `yaml:"poll_ns" json:"poll_ns"`
	// One xfer's latency: reading host memory over the link, writing host
	// memory, reading or writing device memory.
	HostReadNs  int64 `yaml:"host_read_ns" json:"host_read_ns"`
	HostWriteNs int64 `yaml:"host_write_ns" json:"host_write_ns"`
	DevNs       int64 `yaml:"dev_ns" json:"dev_ns"`
	// XferMBps is the xfer engine's streaming rate.
	XferMBps int64 `yaml:"xfer_mbps" json:"xfer_mbps"`
}

// ControllerSpec is one kind of microcontroller.
type ControllerSpec struct {
	ClockMHz int64 `yaml:"clock_mhz" json:"clock_mhz"`
	// DispatchCycles: interrupt, enqueue, dequeue and decode of one
	// command (seed Fig. 7: sleep → ihbody → work).
	DispatchCycles int64 `yaml:"dispatch_cycles" json:"dispatch_cycles"`
	// CallCycles: one call of the transfer function (parameter registers,
	// start flag, wait), per chunk.
	CallCycles int64 `yaml:"call_cycles" json:"call_cycles"`
	// MergeCycles: merging a partial 8-byte block (read-modify-write).
	MergeCycles int64 `yaml:"merge_cycles" json:"merge_cycles"`
}

// Validate checks that every parameter is positive and the DMA bandwidth
// does not exceed the link's.
func (t *TransferSpec) Validate() error {
	pos := []struct {
		name string
		v    int64
	}{
		{"link.gen", int64(t.Link.Gen)}, {"link.lanes", int64(t.Link.Lanes)},
		{"api_ns", t.APINs}, {"dma.setup_ns", t.DMA.SetupNs}, {"dma.h2d_mbps", t.DMA.H2DMBps}, {"dma.d2h_mbps", t.DMA.D2HMBps},
		{"iorw.write_bytes", t.IORW.WriteBytes}, {"iorw.write_ns", t.IORW.WriteNs}, {"iorw.flush_ns", t.IORW.FlushNs},
		{"iorw.read_bytes", t.IORW.ReadBytes}, {"iorw.read_ns", t.IORW.ReadNs},
		{"micro.gpcs", int64(t.Micro.GPCs)}, {"micro.setup_ns", t.Micro.SetupNs}, {"micro.cmd_ns", t.Micro.CmdNs},
		{"micro.poll_ns", t.Micro.PollNs}, {"micro.host_read_ns", t.Micro.HostReadNs},
		{"micro.host_write_ns", t.Micro.HostWriteNs}, {"micro.dev_ns", t.Micro.DevNs}, {"micro.xfer_mbps", t.Micro.XferMBps},
		{"micro.hub.clock_mhz", t.Micro.HUB.ClockMHz}, {"micro.gpc.clock_mhz", t.Micro.GPC.ClockMHz},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("transfer spec %s: %s = %d must be positive", t.Name, p.name, p.v)
		}
	}
	for _, c := range []struct {
		name string
		c    ControllerSpec
	}{{"hub", t.Micro.HUB}, {"gpc", t.Micro.GPC}} {
		if c.c.DispatchCycles < 0 || c.c.CallCycles < 0 || c.c.MergeCycles < 0 {
			return fmt.Errorf("transfer spec %s: micro.%s cycles must be ≥ 0", t.Name, c.name)
		}
	}
	raw := t.Link.RawMBps()
	if raw == 0 {
		return fmt.Errorf("transfer spec %s: link.gen = %d is not PCIe 1 to 5", t.Name, t.Link.Gen)
	}
	if t.DMA.H2DMBps > raw || t.DMA.D2HMBps > raw || t.Micro.XferMBps > raw {
		return fmt.Errorf("transfer spec %s: a bandwidth exceeds the link's %d MB/s (PCIe %d x%d)", t.Name, raw, t.Link.Gen, t.Link.Lanes)
	}
	if t.Micro.GPCs > 64 {
		return fmt.Errorf("transfer spec %s: micro.gpcs = %d is over 64", t.Name, t.Micro.GPCs)
	}
	return nil
}

// MaxTransferBytes bounds one transfer's size (1 TiB): time stays far
// from int64 overflow for any valid spec.
const MaxTransferBytes = 1 << 40

// Microcontroller DMA granularity (seed 001 §5.2: 2^n bytes, 3 ≤ n ≤ 8).
const (
	MicroMinChunk = 8
	MicroMaxChunk = 256
)

// Chunk is one microcontroller xfer pair (external → data section →
// external) of a transfer.
type Chunk struct {
	Src, Dst uint64 // addresses of the block moved (8-aligned for RMW blocks)
	Size     int64  // a power of two, 8 … 256; Src and Dst are multiples of it
	// RMW: the 8-byte block extends beyond the transfer; the controller
	// reads the destination block too and merges the transfer's bytes.
	RMW bool
}

// PlanChunks decomposes a copy of size bytes from src to dst into
// microcontroller xfers: a partial 8-byte block at either end becomes an
// 8-byte read-modify-write chunk, and the aligned middle is covered
// greedily by the largest power of two ≤ 256 to which both the source and
// the destination address are aligned and which does not pass the end.
// The xfer engine cannot shift bytes, so src and dst must be congruent
// modulo 8; otherwise PlanChunks refuses.
func PlanChunks(src, dst uint64, size int64) ([]Chunk, error) {
	var out []Chunk
	err := eachChunk(src, dst, size, func(c Chunk) { out = append(out, c) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachChunk calls yield with PlanChunks' chunks in order, without
// materialising them (a 64 MB copy has 262,144).
func eachChunk(src, dst uint64, size int64, yield func(Chunk)) error {
	if size < 0 || size > MaxTransferBytes {
		return fmt.Errorf("transfer size %d out of range 0 … %d", size, int64(MaxTransferBytes))
	}
	if size == 0 {
		return nil
	}
	if (src-dst)%MicroMinChunk != 0 {
		return fmt.Errorf("microcontroller DMA: source %#x and destination %#x differ modulo 8 (the xfer engine moves aligned 2^n-byte blocks and cannot shift bytes)", src, dst)
	}
	if src > ^uint64(0)-uint64(size)-MicroMinChunk || dst > ^uint64(0)-uint64(size)-MicroMinChunk {
		return fmt.Errorf("microcontroller DMA: address range overflows")
	}
	delta := dst - src // modular: dst = src + delta
	end := src + uint64(size)
	lo, hi := src, end // aligned middle [lo, hi)
	if src%8 != 0 {
		b := src &^ 7
		yield(Chunk{Src: b, Dst: b + delta, Size: 8, RMW: true})
		lo = b + 8
	}
	tail := end%8 != 0
	if tail {
		hi = end &^ 7
	}
	if tail && hi < lo { // head and tail in one block
		return nil
	}
	for p := lo; p < hi; {
		n := uint64(MicroMaxChunk)
		for n > MicroMinChunk && (p%n != 0 || (p+delta)%n != 0 || p+n > hi) {
			n >>= 1
		}
		yield(Chunk{Src: p, Dst: p + delta, Size: int64(n)})
		p += n
	}
	if tail {
		yield(Chunk{Src: hi, Dst: hi + delta, Size: 8, RMW: true})
	}
	return nil
}

// psOf converts ns to ps.
func psOf(ns int64) int64 { return ns * 1000 }

// bytesPs is the time, ps rounded up, to move n bytes at mbps MB/s.
func bytesPs(n, mbps int64) int64 {
	// n·10^12 / (mbps·10^6) = n·10^6 / mbps; n ≤ 2^40 keeps this in int64.
	hi, lo := bits.Mul64(uint64(n), 1_000_000)
	q, r := bits.Div64(hi, lo, uint64(mbps))
	if r != 0 {
		q++
	}
	return int64(q)
}

// cyclesPs is the time, ps rounded up, of c cycles at mhz MHz.
func cyclesPs(c, mhz int64) int64 { return bytesPs(c, mhz) }

func xferCeil(a, b int64) int64 { return (a + b - 1) / b }

// TransferTime is the time, in ps, of copying size bytes in direction d by
// method m with the buffers at the given host and device addresses (which
// matter only to the microcontroller methods' chunking). A size of 0 costs
// nothing.
func (t *TransferSpec) TransferTime(m TransferMethod, d Direction, host, dev uint64, size int64) (int64, error) {
	if size < 0 || size > MaxTransferBytes {
		return 0, fmt.Errorf("transfer size %d out of range 0 … %d", size, int64(MaxTransferBytes))
	}
	if size == 0 {
		return 0, nil
	}
	switch m {
	case MethodDMA:
		return t.dmaPs(d, size), nil
	case MethodIORW:
		return t.iorwPs(d, size), nil
	case MethodHUB, MethodGPC1, MethodGPC4:
		src, dst := host, dev
		if d == DeviceToHost {
			src, dst = dev, host
		}
		mt, err := t.microTimeline(m, d, src, dst, size, 0)
		if err != nil {
			return 0, err
		}
		return mt.end, nil
	}
	return 0, fmt.Errorf("unknown transfer method %q", m)
}

// dmaPs = API + setup + size/bandwidth.
func (t *TransferSpec) dmaPs(d Direction, size int64) int64 {
	bw := t.DMA.H2DMBps
	if d == DeviceToHost {
		bw = t.DMA.D2HMBps
	}
	return psOf(t.APINs+t.DMA.SetupNs) + bytesPs(size, bw)
}

// iorwPs: host→device = API + ⌈size/WriteBytes⌉·WriteNs + FlushNs;
// device→host = API + ⌈size/ReadBytes⌉·ReadNs.
func (t *TransferSpec) iorwPs(d Direction, size int64) int64 {
	if d == DeviceToHost {
		return psOf(t.APINs + xferCeil(size, t.IORW.ReadBytes)*t.IORW.ReadNs)
	}
	return psOf(t.APINs + xferCeil(size, t.IORW.WriteBytes)*t.IORW.WriteNs + t.IORW.FlushNs)
}

// Controllers returns the controller kind and count of a microcontroller
// method.
func (t *TransferSpec) Controllers(m TransferMethod) (ControllerSpec, int) {
	switch m {
	case MethodHUB:
		return t.Micro.HUB, 1
	case MethodGPC4:
		return t.Micro.GPC, t.Micro.GPCs
	}
	return t.Micro.GPC, 1
}

// ChunkPs is the time, ps, one controller of kind c spends on chunk ch in
// direction d: the call, the xfer into the data section, the xfer out
// and, for a read-modify-write block, the destination read and the merge.
func (t *TransferSpec) ChunkPs(c ControllerSpec, d Direction, ch Chunk) int64 {
	in, out := t.Micro.HostReadNs, t.Micro.DevNs // host → device
	if d == DeviceToHost {
		in, out = t.Micro.DevNs, t.Micro.HostWriteNs
	}
	x := bytesPs(ch.Size, t.Micro.XferMBps)
	ps := cyclesPs(c.CallCycles, c.ClockMHz) + psOf(in) + x + psOf(out) + x
	if ch.RMW {
		rd := t.Micro.DevNs
		if d == DeviceToHost {
			rd = t.Micro.HostReadNs
		}
		ps += psOf(rd) + x + cyclesPs(c.MergeCycles, c.ClockMHz)
	}
	return ps
}

// microTimeline is one microcontroller transfer that the host starts at
// time t0 (ps): hostFree is when the host has issued every command, end
// when the host has seen every controller finish (polls included).
type microTimeline struct {
	hostFree, done, end int64
	controllers         int
}

// microTimeline simulates: the host pays the API call, then per controller
// the setup and the command (in controller order); controller i starts
// when its command arrives, dispatches it, and processes chunks i, i+k,
// i+2k, … (round robin) one after another; the host polls each controller
// once after the last finishes. Every controller of the method is set up
// and polled even if it gets no chunk (seed §6.2: GPC4 pays for
// instructing four controllers at every size).
func (t *TransferSpec) microTimeline(m TransferMethod, d Direction, src, dst uint64, size, t0 int64) (microTimeline, error) {
	c, k := t.Controllers(m)
	host := t0 + psOf(t.APINs)
	ct := make([]int64, k) // controller i's clock
	for i := range ct {
		host += psOf(t.Micro.SetupNs + t.Micro.CmdNs)
		ct[i] = host + cyclesPs(c.DispatchCycles, c.ClockMHz)
	}
	j := 0
	err := eachChunk(src, dst, size, func(ch Chunk) {
		ct[j%k] += t.ChunkPs(c, d, ch)
		j++
	})
	if err != nil {
		return microTimeline{}, err
	}
	done := int64(0)
	for _, x := range ct {
		done = max(done, x)
	}
	return microTimeline{hostFree: host, done: done, end: done + int64(k)*psOf(t.Micro.PollNs), controllers: k}, nil
}

// Pair is two transfers of the same size and direction (seed 001 §6.3):
// A then B on the host (Overlap false: both conventional, one after the
// other), or B a microcontroller method started asynchronously and A a
// conventional one run while it proceeds (Overlap true).
type Pair struct {
	A, B    TransferMethod
	Overlap bool
}

// String is "dma+dma" for a sequential pair, "dma|hub" for an overlap.
func (p Pair) String() string {
	if p.Overlap {
		return string(p.A) + "|" + string(p.B)
	}
	return string(p.A) + "+" + string(p.B)
}

// TransferPairs lists the seed's eight pairs (Fig. 12): DMA and IORW twice
// in sequence, and DMA or IORW overlapped with HUB, GPC1 or GPC4.
func TransferPairs() []Pair {
	ps := []Pair{{A: MethodDMA, B: MethodDMA}, {A: MethodIORW, B: MethodIORW}}
	for _, a := range []TransferMethod{MethodDMA, MethodIORW} {
		for _, b := range []TransferMethod{MethodHUB, MethodGPC1, MethodGPC4} {
			ps = append(ps, Pair{A: a, B: b, Overlap: true})
		}
	}
	return ps
}

// PairTime is the time, ps, of pair p moving two buffers of size bytes
// each (addresses 256-aligned). Sequential: A's time plus B's. Overlap:
// the host issues B (API, setup and command per controller), then runs A;
// B's controllers proceed meanwhile; the pair ends when A has returned and
// the host has polled B's controllers after they finished.
func (t *TransferSpec) PairTime(p Pair, d Direction, size int64) (int64, error) {
	a, err := t.TransferTime(p.A, d, 0, 0, size)
	if err != nil {
		return 0, err
	}
	if !p.Overlap {
		b, err := t.TransferTime(p.B, d, 0, 0, size)
		return a + b, err
	}
	if p.A.Micro() || !p.B.Micro() {
		return 0, fmt.Errorf("overlap pair %s: A must be dma or iorw and B a microcontroller method", p)
	}
	if size == 0 {
		return 0, nil
	}
	mt, err := t.microTimeline(p.B, d, 0, 0, size, 0)
	if err != nil {
		return 0, err
	}
	return max(mt.hostFree+a, mt.done) + int64(mt.controllers)*psOf(t.Micro.PollNs), nil
}

// BestTransfer returns the fastest method for size bytes in direction d
// (256-aligned buffers) and its time; ties go to the earlier method of
// TransferMethods.
func (t *TransferSpec) BestTransfer(d Direction, size int64) (TransferMethod, int64, error) {
	var best TransferMethod
	bt := int64(-1)
	for _, m := range TransferMethods() {
		ps, err := t.TransferTime(m, d, 0, 0, size)
		if err != nil {
			return "", 0, err
		}
		if bt < 0 || ps < bt {
			best, bt = m, ps
		}
	}
	return best, bt, nil
}
