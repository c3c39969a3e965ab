package model

import "fmt"

// Result is what one kernel launch on the model produced.
type Result struct {
	Spec        string  `json:"spec" yaml:"spec"`
	Cycles      Time    `json:"cycles" yaml:"cycles"` // launch to the last CTA's completion
	WarpInsts   uint64  `json:"warp_insts" yaml:"warp_insts"`
	ThreadInsts uint64  `json:"thread_insts" yaml:"thread_insts"` // active lanes summed over issued warp instructions
	IPC         float64 `json:"ipc" yaml:"ipc"`                   // warp instructions per cycle, whole GPU
	CTAs        int     `json:"ctas" yaml:"ctas"`
	// Quantum is the epoch length used (cycles).
	Quantum int `json:"quantum" yaml:"quantum"`
	// Carveout is the split of shared memory and L1D the launch ran with
	// when its CTA needed more shared memory than shared.bytes (nil: the
	// spec's own).
	Carveout *Carveout `json:"carveout,omitempty" yaml:"carveout,omitempty"`

	SMs []SMResult `json:"sms" yaml:"sms"`
	// Stalls sums the SMs' stall counts.
	Stalls Stalls `json:"stalls" yaml:"stalls"`

	L1D    CacheStats  `json:"l1d" yaml:"l1d"`
	Tex    CacheStats  `json:"tex" yaml:"tex"`
	Const  CacheStats  `json:"const" yaml:"const"`
	L2     CacheStats  `json:"l2" yaml:"l2"`
	Shared SharedStats `json:"shared" yaml:"shared"`
	Mem    MemStats    `json:"mem" yaml:"mem"`
	DRAM   DRAMStats   `json:"dram" yaml:"dram"`
	Icnt   IcntStats   `json:"icnt" yaml:"icnt"`

	// Probes is the ground truth of every probed access (Inst.Probe >= 0):
	// sorted by CTA, then warp, then issue order.
	Probes []ProbeAccess `json:"probes" yaml:"probes"`
}

// SMResult are one SM's counters.
type SMResult struct {
	ActiveCycles Time   `json:"active_cycles" yaml:"active_cycles"` // cycles with at least one resident CTA
	WarpInsts    uint64 `json:"warp_insts" yaml:"warp_insts"`
	ThreadInsts  uint64 `json:"thread_insts" yaml:"thread_insts"`
	CTAs         int    `json:"ctas" yaml:"ctas"`
	Stalls       Stalls `json:"stalls" yaml:"stalls"`
}

// Stalls counts scheduler-cycles (one per scheduler per active cycle) in
// which a scheduler issued nothing, by the reason of its most nearly ready
// warp. Reasons, from most to least nearly ready: Pipeline (a ready warp's
// execution unit or the memory pipeline was busy), Interconnect (the memory
// pipeline was blocked by a full miss queue towards the interconnect),
// Scoreboard (waiting for an ALU result), Memory (waiting for a load,
// atomic or texture result), Fence (membar waiting for the warp's memory
// operations), Barrier (bar.sync), NoWarp (no resident warp).
type Stalls struct {
	Pipeline     uint64 `json:"pipeline" yaml:"pipeline"`
	Interconnect uint64 `json:"interconnect" yaml:"interconnect"`
	Scoreboard   uint64 `json:"scoreboard" yaml:"scoreboard"`
	Memory       uint64 `json:"memory" yaml:"memory"`
	Fence        uint64 `json:"fence" yaml:"fence"`
	Barrier      uint64 `json:"barrier" yaml:"barrier"`
	NoWarp       uint64 `json:"no_warp" yaml:"no_warp"`
	// FalseDep (after Scoreboard in nearness): waiting only for an
	// earlier write of a register the instruction writes (WAW; WAR cannot
	// stall: operands are read at issue and issue is in order).
	FalseDep uint64 `json:"false_dep,omitempty" yaml:"false_dep,omitempty"`
}

// Total is the sum of all reasons.
func (s Stalls) Total() uint64 {
	return s.Pipeline + s.Interconnect + s.Scoreboard + s.Memory + s.Fence + s.Barrier + s.NoWarp + s.FalseDep
}

// StallReason is why a warp scheduler issued nothing in a cycle: the reason
// of its most nearly ready warp. The order is from most to least nearly
// ready, as in Stalls.
type StallReason uint8

// Stall reasons.
const (
	StallPipeline     StallReason = iota // a ready warp's unit or the memory pipeline was busy
	StallInterconnect                    // the memory pipeline waits for a miss-queue slot
	StallScoreboard                      // waiting for an ALU result (RAW) or a branch to resolve
	StallFalseDep                        // waiting only for an earlier write of a register it writes (WAW)
	StallMemory                          // waiting for a load, atomic or texture result
	StallFence                           // membar/fence waiting for the warp's memory operations
	StallBarrier                         // waiting at bar.sync for other warps
	StallNoWarp                          // no resident warp (or none that has not exited)
	NumStallReasons
)

var stallNames = [NumStallReasons]string{"pipeline", "interconnect", "scoreboard", "false_dep", "memory", "fence", "barrier", "no_warp"}

// String returns the reason's name as in Stalls' JSON fields.
func (r StallReason) String() string {
	if r < NumStallReasons {
		return stallNames[r]
	}
	return fmt.Sprintf("StallReason(%d)", int(r))
}

func stallsOf(a *[NumStallReasons]uint64) Stalls {
	return Stalls{a[StallPipeline], a[StallInterconnect], a[StallScoreboard], a[StallMemory], a[StallFence], a[StallBarrier], a[StallNoWarp], a[StallFalseDep]}
}

func (s *Stalls) add(o Stalls) {
	s.Pipeline += o.Pipeline
	s.Interconnect += o.Interconnect
	s.Scoreboard += o.Scoreboard
	s.Memory += o.Memory
	s.Fence += o.Fence
	s.Barrier += o.Barrier
	s.NoWarp += o.NoWarp
	s.FalseDep += o.FalseDep
}

// SharedStats counts shared-memory accesses.
type SharedStats struct {
	Insts uint64 `json:"insts" yaml:"insts"` // warp instructions
	// Cycles is the LD/ST pipeline cycles they took: Insts when every
	// access was conflict-free, n per n-way conflict.
	Cycles uint64 `json:"cycles" yaml:"cycles"`
}

// MemStats counts warp memory instructions and the transactions coalescing
// made of them (global, local and surface spaces).
type MemStats struct {
	LoadInsts   uint64 `json:"load_insts" yaml:"load_insts"`
	LoadTxns    uint64 `json:"load_txns" yaml:"load_txns"`
	StoreInsts  uint64 `json:"store_insts" yaml:"store_insts"`
	StoreTxns   uint64 `json:"store_txns" yaml:"store_txns"`
	AtomicInsts uint64 `json:"atomic_insts" yaml:"atomic_insts"`
	AtomicTxns  uint64 `json:"atomic_txns" yaml:"atomic_txns"`
	TexInsts    uint64 `json:"tex_insts" yaml:"tex_insts"`
	ConstInsts  uint64 `json:"const_insts" yaml:"const_insts"`
}

func (m *MemStats) add(o MemStats) {
	m.LoadInsts += o.LoadInsts
	m.LoadTxns += o.LoadTxns
	m.StoreInsts += o.StoreInsts
	m.StoreTxns += o.StoreTxns
	m.AtomicInsts += o.AtomicInsts
	m.AtomicTxns += o.AtomicTxns
	m.TexInsts += o.TexInsts
	m.ConstInsts += o.ConstInsts
}

// DRAMStats counts device-memory traffic.
type DRAMStats struct {
	Reads        uint64 `json:"reads" yaml:"reads"`
	Writes       uint64 `json:"writes" yaml:"writes"`
	BytesRead    uint64 `json:"bytes_read" yaml:"bytes_read"`
	BytesWritten uint64 `json:"bytes_written" yaml:"bytes_written"`
	RowHits      uint64 `json:"row_hits" yaml:"row_hits"`
	RowMisses    uint64 `json:"row_misses" yaml:"row_misses"` // activates (closed or conflicting row)
	// QueueWait sums the cycles requests spent in a channel's queue
	// between arriving and being scheduled.
	QueueWait uint64 `json:"queue_wait" yaml:"queue_wait"`
}

// IcntStats counts interconnect traffic.
type IcntStats struct {
	Requests  uint64 `json:"requests" yaml:"requests"`
	Responses uint64 `json:"responses" yaml:"responses"`
	Flits     uint64 `json:"flits" yaml:"flits"`
	// QueueCycles sums the cycles packets waited for an SM's injection
	// port (miss-queue residence).
	QueueCycles uint64 `json:"queue_cycles" yaml:"queue_cycles"`
}

// ProbeAccess is the ground truth of one probed memory access: when the
// warp issued it and when it completed (the loaded value was written back,
// or, for stores, the store was acknowledged).
type ProbeAccess struct {
	Probe    int    `json:"probe" yaml:"probe"`
	CTA      int    `json:"cta" yaml:"cta"`
	Warp     int    `json:"warp" yaml:"warp"` // warp ID within the CTA
	SM       int    `json:"sm" yaml:"sm"`
	PC       int    `json:"pc" yaml:"pc"`
	Space    Space  `json:"space" yaml:"space"`
	Active   uint32 `json:"active" yaml:"active"`
	Issue    Time   `json:"issue" yaml:"issue"`
	Complete Time   `json:"complete" yaml:"complete"`
	// Begin and End are when the probe pair's timer reads issued (the
	// instructions marked StampBegin before and StampEnd after the access
	// in the warp's stream); 0 when the code marks none. Issue − Begin is
	// the issue wait (operands, scheduling), End − Complete the post wait.
	Begin Time `json:"begin,omitempty" yaml:"begin,omitempty"`
	End   Time `json:"end,omitempty" yaml:"end,omitempty"`
}

// Latency is Complete - Issue.
func (p ProbeAccess) Latency() Time { return p.Complete - p.Issue }
