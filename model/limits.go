package model

import "fmt"

// Physical ranges of a Spec's fields, checked by Validate after the
// positivity checks. The upper bounds lie one to two orders of magnitude
// above any GPU built so far (H100: 132 SMs, 1.98 GHz, 50 MiB of L2 in 2 x
// 48 slices of 2048 sets, DRAM timings of tens of cycles), so every real
// or plausible design passes, while values that only a typo produces (a
// 1e9-set L2, 1e8 SMs, a 1e30 MHz clock, a 1e12-cycle latency) are refused
// with the field named instead of exhausting memory or running for hours.
const (
	MaxCoreMHz       = 10_000     // core_mhz, dram.clock_mhz: 10 GHz
	MaxNumSMs        = 1024       // num_sms
	MaxLatency       = 100_000    // any latency, interval or DRAM timing, in cycles
	MaxCacheSets     = 1 << 20    // sets of any cache (per L2 slice)
	MaxCacheWays     = 256        // ways of any cache
	MaxQueue         = 1 << 16    // MSHRs, miss and DRAM queues
	MaxSharedBytes   = 16 << 20   // shared.bytes per SM
	MaxRegisters     = 1 << 20    // sm.registers per SM
	MaxThreadsPerSM  = 1 << 14    // sm.max_threads
	MaxWarpsPerSM    = 1 << 9     // sm.max_warps
	MaxCTAsPerSM     = 1 << 9     // sm.max_ctas
	MaxSmallCount    = 1024       // schedulers, unit counts and lanes, slices, channels, banks, per-cycle ports, tiles
	MaxBytesField    = 1 << 20    // line/sector/row/interleave/flit bytes
	MaxTimerNs       = 1_000_000  // global_timer_ns, device_launch_ns
	MaxQuantumCycles = 10_000_000 // quantum_cycles
	// MaxStateBytes bounds the estimated memory of the simulated state
	// (EstimateStateBytes).
	MaxStateBytes = 4 << 30
)

// perLineBytes is the simulator's bookkeeping per cache line (tag, state,
// sector mask, LRU stamp), an upper estimate.
const perLineBytes = 48

// EstimateStateBytes estimates the memory the timing model allocates for
// s: cache tag arrays of every SM and L2 slice, per-SM register files,
// shared memory and warp slots, and DRAM bank state.
func (s *Spec) EstimateStateBytes() float64 {
	lines := func(c CacheSpec) float64 { return float64(c.Sets) * float64(c.Ways) }
	l1, shared := lines(s.L1D), float64(s.Shared.Bytes)
	for _, c := range s.Shared.Carveouts { // the largest of each, whichever a launch takes
		l1 = max(l1, float64(c.L1DSets)*float64(c.L1DWays))
		shared = max(shared, float64(c.SharedBytes))
	}
	perSM := (l1+lines(s.Tex)+lines(s.Const))*perLineBytes +
		float64(s.SM.Registers)*4 + shared + float64(s.SM.MaxWarps)*4096
	l2 := float64(s.L2.Slices) * float64(s.L2.Sets) * float64(s.L2.Ways) * perLineBytes
	dram := float64(s.DRAM.Channels) * float64(s.DRAM.Banks) * 64
	return float64(s.NumSMs)*perSM + l2 + dram
}

// checkLimits checks every field against its physical range and the total
// state against MaxStateBytes.
func (s *Spec) checkLimits() error {
	type lim struct {
		field string
		v     int
		max   int
	}
	sm := &s.SM
	ls := []lim{
		{"num_sms", s.NumSMs, MaxNumSMs},
		{"global_timer_ns", s.GlobalTimerNs, MaxTimerNs},
		{"device_launch_ns", s.DeviceLaunchNs, MaxTimerNs},
		{"quantum_cycles", s.QuantumCycles, MaxQuantumCycles},
		{"sm.max_threads", sm.MaxThreads, MaxThreadsPerSM},
		{"sm.max_warps", sm.MaxWarps, MaxWarpsPerSM},
		{"sm.max_ctas", sm.MaxCTAs, MaxCTAsPerSM},
		{"sm.registers", sm.Registers, MaxRegisters},
		{"sm.reg_alloc_unit", sm.RegAllocUnit, MaxRegisters},
		{"sm.shared_alloc_unit", sm.SharedAllocUnit, MaxSharedBytes},
		{"sm.cta_launch_latency", sm.CTALaunchLatency, MaxLatency},
		{"sm.schedulers", sm.Schedulers, MaxSmallCount},
		{"sm.two_level_active", sm.TwoLevelActive, MaxWarpsPerSM},
		{"sm.barrier_latency", sm.BarrierLatency, MaxLatency},
		{"sm.fence_latency", sm.FenceLatency, MaxLatency},
		{"shared.bytes", s.Shared.Bytes, MaxSharedBytes},
		{"shared.banks", s.Shared.Banks, MaxSmallCount},
		{"shared.bank_bytes", s.Shared.BankBytes, MaxBytesField},
		{"shared.latency", s.Shared.Latency, MaxLatency},
		{"shared.cycles_per_way", s.Shared.CyclesPerWay, MaxLatency},
		{"tex.tile_x", s.Tex.TileX, MaxSmallCount},
		{"tex.tile_y", s.Tex.TileY, MaxSmallCount},
		{"tex.tile_z", s.Tex.TileZ, MaxSmallCount},
		{"icnt.latency", s.Icnt.Latency, MaxLatency},
		{"icnt.flit_bytes", s.Icnt.FlitBytes, MaxBytesField},
		{"icnt.header_bytes", s.Icnt.HeaderBytes, MaxBytesField},
		{"icnt.miss_queue", s.Icnt.MissQueue, MaxQueue},
		{"l2.slices", s.L2.Slices, MaxSmallCount},
		{"l2.sets", s.L2.Sets, MaxCacheSets},
		{"l2.ways", s.L2.Ways, MaxCacheWays},
		{"l2.mshrs", s.L2.MSHRs, MaxQueue},
		{"l2.latency", s.L2.Latency, MaxLatency},
		{"l2.interleave_bytes", s.L2.InterleaveBytes, MaxBytesField},
		{"l2.atomic_cycles", s.L2.AtomicCycles, MaxLatency},
		{"dram.channels", s.DRAM.Channels, MaxSmallCount},
		{"dram.banks", s.DRAM.Banks, MaxSmallCount},
		{"dram.row_bytes", s.DRAM.RowBytes, MaxBytesField},
		{"dram.queue_size", s.DRAM.QueueSize, MaxQueue},
		{"dram.bytes_per_clock", s.DRAM.BytesPerClock, MaxBytesField},
		{"dram.t_rcd", s.DRAM.TRCD, MaxLatency},
		{"dram.t_rp", s.DRAM.TRP, MaxLatency},
		{"dram.t_cl", s.DRAM.TCL, MaxLatency},
		{"dram.t_ras", s.DRAM.TRAS, MaxLatency},
		{"dram.t_ccd", s.DRAM.TCCD, MaxLatency},
		{"dram.latency", s.DRAM.Latency, MaxLatency},
	}
	if len(s.Shared.Carveouts) > MaxSmallCount {
		return &FieldError{"shared.carveouts", fmt.Sprintf("must have at most %d entries, got %d", MaxSmallCount, len(s.Shared.Carveouts))}
	}
	for i, c := range s.Shared.Carveouts {
		name := fmt.Sprintf("shared.carveouts[%d]", i)
		ls = append(ls, lim{name + ".shared_bytes", c.SharedBytes, MaxSharedBytes}, lim{name + ".l1d_sets", c.L1DSets, MaxCacheSets},
			lim{name + ".l1d_ways", c.L1DWays, MaxCacheWays})
	}
	for i, u := range sm.Units.list() {
		name := "sm.units." + unitNames[i]
		ls = append(ls, lim{name + ".count", u.Count, MaxSmallCount}, lim{name + ".lanes", u.Lanes, MaxSmallCount},
			lim{name + ".clock_mul", u.ClockMul, MaxSmallCount})
	}
	for c := Class(0); c < NumClasses; c++ {
		cs := sm.Classes.of(c)
		name := "sm.classes." + classNames[c]
		ls = append(ls, lim{name + ".latency", cs.Latency, MaxLatency}, lim{name + ".interval", cs.Interval, MaxLatency})
	}
	for _, c := range []struct {
		name string
		c    *CacheSpec
	}{{"l1d", &s.L1D}, {"tex", &s.Tex}, {"const", &s.Const}} {
		ls = append(ls, lim{c.name + ".sets", c.c.Sets, MaxCacheSets}, lim{c.name + ".ways", c.c.Ways, MaxCacheWays},
			lim{c.name + ".mshrs", c.c.MSHRs, MaxQueue}, lim{c.name + ".latency", c.c.Latency, MaxLatency},
			lim{c.name + ".per_cycle", c.c.PerCycle, MaxSmallCount})
	}
	for _, l := range ls {
		if l.v > l.max {
			return &FieldError{l.field, fmt.Sprintf("must be at most %d, got %d", l.max, l.v)}
		}
	}
	if s.CoreMHz > MaxCoreMHz {
		return &FieldError{"core_mhz", fmt.Sprintf("must be at most %d, got %g", MaxCoreMHz, s.CoreMHz)}
	}
	if s.DRAM.ClockMHz > MaxCoreMHz {
		return &FieldError{"dram.clock_mhz", fmt.Sprintf("must be at most %d, got %g", MaxCoreMHz, s.DRAM.ClockMHz)}
	}
	if b := s.EstimateStateBytes(); b > MaxStateBytes {
		return &FieldError{"spec", fmt.Sprintf("simulated state would need about %.0f MiB, over the %d MiB limit (reduce num_sms or cache sizes)", b/(1<<20), MaxStateBytes>>20)}
	}
	return nil
}
