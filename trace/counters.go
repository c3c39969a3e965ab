package trace

// Counter names of a bundle's CNTR section (Counter.Name). The writer
// (launch.LaunchResult.Counters, from a model.Result) and the readers
// (analysis, exporters) share these constants, so a renamed counter is a
// compile error on both sides rather than a silently missing value.
// Counters with SM ≥ 0 are per SM; SM −1 is the whole GPU.
const (
	CounterKernelCycles      = "kernel.cycles"       // launch cycles (SM −1)
	CounterKernelWarpInsts   = "kernel.warp_insts"   // warp-instructions issued
	CounterKernelThreadInsts = "kernel.thread_insts" // thread-instructions (active lanes)
	CounterKernelIPC         = "kernel.ipc"          // warp-instructions per cycle
	CounterKernelCTAs        = "kernel.ctas"         // CTAs run

	CounterSMActiveCycles = "sm.active_cycles" // per SM
	CounterSMIPC          = "sm.ipc"           // per SM: warp-instructions per active cycle

	CounterL1DHitRate   = "l1d.hit_rate" // hits / (hits + misses), 0 without accesses
	CounterL1DHits      = "l1d.hits"
	CounterL1DMisses    = "l1d.misses"
	CounterTexHitRate   = "tex.hit_rate"
	CounterTexHits      = "tex.hits"
	CounterTexMisses    = "tex.misses"
	CounterConstHitRate = "const.hit_rate"
	CounterConstHits    = "const.hits"
	CounterConstMisses  = "const.misses"
	CounterL2HitRate    = "l2.hit_rate"
	CounterL2Hits       = "l2.hits"
	CounterL2Misses     = "l2.misses"

	// Stall cycles by reason (model.Stalls), whole GPU and per SM.
	CounterStallPipeline     = "stall.pipeline"
	CounterStallInterconnect = "stall.interconnect"
	CounterStallScoreboard   = "stall.scoreboard"
	CounterStallMemory       = "stall.memory"
	CounterStallFence        = "stall.fence"
	CounterStallBarrier      = "stall.barrier"
	CounterStallNoWarp       = "stall.no_warp"

	CounterDRAMBytesRead    = "dram.bytes_read"
	CounterDRAMBytesWritten = "dram.bytes_written"
)
