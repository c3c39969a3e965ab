package model

// Presets are functions, not package variables, so no caller can change
// what a preset means for another. docs/model.md cites the source of every
// value.

// GTX480 is the Fermi GTX480-like GPU of seed 000's table (15 SMs, 2 SIMD
// units x 16 lanes, 1536 threads and 8 CTAs per SM, 16 KB shared / 48 KB L1,
// 768 KB L2, 6 channels FR-FCFS with 32-entry queues, 700 MHz), the rest
// from GPGPU-Sim's published configs/GTX480/gpgpusim.config.
func GTX480() Spec {
	return Spec{
		Name:          "gtx480",
		CoreMHz:       700,
		NumSMs:        15,
		GlobalTimerNs: 1,
		// device-side launch latency: an assumption (docs/model.md)
		DeviceLaunchNs: 5000,
		SM: SMSpec{
			MaxThreads: 1536, MaxWarps: 48, MaxCTAs: 8,
			Registers: 32768, RegAllocUnit: 64, SharedAllocUnit: 128,
			CTALaunchLatency: 64,
			Schedulers:       2, Scheduler: GTO, TwoLevelActive: 6,
			Units: Units{
				SP:   UnitSpec{Count: 2, Lanes: 16, ClockMul: 2},
				SFU:  UnitSpec{Count: 1, Lanes: 4, ClockMul: 2},
				LdSt: UnitSpec{Count: 1, Lanes: 16, ClockMul: 2},
			},
			Classes: Classes{
				Int:      ClassSpec{"sp", 4, 1},
				FP32:     ClassSpec{"sp", 4, 1},
				FP64:     ClassSpec{"sp", 8, 8},
				SFU:      ClassSpec{"sfu", 20, 1},
				Conv:     ClassSpec{"sp", 4, 1},
				Tensor:   ClassSpec{"sp", 4, 1}, // no tensor cores: never used by sm_20 code
				LdSt:     ClassSpec{"ldst", 1, 1},
				Branch:   ClassSpec{"sp", 4, 1},
				Barrier:  ClassSpec{"sp", 1, 1},
				Fence:    ClassSpec{"ldst", 1, 1},
				WarpSync: ClassSpec{"sp", 4, 1},
				Misc:     ClassSpec{"sp", 1, 1},
			},
			BarrierLatency: 4,
			FenceLatency:   10,
		},
		// 64 KB per SM split 16 KB shared / 48 KB L1 (seed 000's table) or,
		// for a kernel whose CTA needs more shared memory, 48 KB / 16 KB
		// (GPGPU-Sim's GTX480 config: 32 sets x 4 ways of 128 B)
		Shared: SharedSpec{Bytes: 16 << 10, Banks: 32, BankBytes: 4, Latency: 24, CyclesPerWay: 1,
			Carveouts: []Carveout{{SharedBytes: 48 << 10, L1DSets: 32, L1DWays: 4}}},
		L1D:   CacheSpec{Sets: 64, Ways: 6, LineBytes: 128, SectorBytes: 128, MSHRs: 32, Latency: 20, PerCycle: 1, CachesGlobal: true},
		Tex:   CacheSpec{Sets: 4, Ways: 24, LineBytes: 128, SectorBytes: 128, MSHRs: 128, Latency: 100, PerCycle: 4, TileX: 8, TileY: 4, TileZ: 4},
		Const: CacheSpec{Sets: 64, Ways: 2, LineBytes: 64, SectorBytes: 64, MSHRs: 2, Latency: 20, PerCycle: 1},
		Icnt:  IcntSpec{Latency: 8, FlitBytes: 32, HeaderBytes: 8, MissQueue: 8},
		L2: L2Spec{Slices: 12, Sets: 64, Ways: 8, LineBytes: 128, SectorBytes: 128, MSHRs: 32,
			Latency: 120, InterleaveBytes: 256, AtomicCycles: 2},
		DRAM: DRAMSpec{Channels: 6, Banks: 16, RowBytes: 2048, QueueSize: 32, Scheduler: "frfcfs",
			ClockMHz: 924, BytesPerClock: 32, TRCD: 12, TRP: 12, TCL: 12, TRAS: 28, TCCD: 2, Latency: 100},
	}
}

// RTX3080 is the Ampere GA102 RTX3080-like GPU of seed 002's table (68 SMs
// at 1440 MHz, 4 GTO schedulers, 2048 threads, 64K registers, 128 KB
// shared, 64 KB 8-way L1 with 128 B lines, 4 MB L2 in 64 16-way slices,
// memory at 1523 MHz with 100 cycles latency), units from the GA102
// whitepaper.
func RTX3080() Spec {
	return Spec{
		Name:          "rtx3080",
		CoreMHz:       1440,
		NumSMs:        68,
		GlobalTimerNs: 1,
		// device-side launch latency: an assumption (docs/model.md)
		DeviceLaunchNs: 5000,
		SM: SMSpec{
			MaxThreads: 2048, MaxWarps: 64, MaxCTAs: 32,
			Registers: 65536, RegAllocUnit: 256, SharedAllocUnit: 128,
			CTALaunchLatency: 64,
			Schedulers:       4, Scheduler: GTO, TwoLevelActive: 8, Partitioned: true,
			Units: Units{
				SP:     UnitSpec{Count: 8, Lanes: 16, ClockMul: 1},
				INT:    UnitSpec{Count: 4, Lanes: 16, ClockMul: 1},
				DP:     UnitSpec{Count: 2, Lanes: 1, ClockMul: 1},
				SFU:    UnitSpec{Count: 4, Lanes: 4, ClockMul: 1},
				Tensor: UnitSpec{Count: 4, Lanes: 32, ClockMul: 1},
				LdSt:   UnitSpec{Count: 4, Lanes: 8, ClockMul: 1},
			},
			Classes: Classes{
				Int:      ClassSpec{"int", 4, 1},
				FP32:     ClassSpec{"sp", 4, 1},
				FP64:     ClassSpec{"dp", 8, 1},
				SFU:      ClassSpec{"sfu", 18, 1},
				Conv:     ClassSpec{"sfu", 8, 1},
				Tensor:   ClassSpec{"tensor", 32, 8},
				LdSt:     ClassSpec{"ldst", 1, 1},
				Branch:   ClassSpec{"int", 4, 1},
				Barrier:  ClassSpec{"int", 1, 1},
				Fence:    ClassSpec{"ldst", 1, 1},
				WarpSync: ClassSpec{"int", 8, 1},
				Misc:     ClassSpec{"int", 1, 1},
			},
			BarrierLatency: 4,
			FenceLatency:   10,
		},
		Shared: SharedSpec{Bytes: 128 << 10, Banks: 32, BankBytes: 4, Latency: 23, CyclesPerWay: 1},
		L1D:    CacheSpec{Sets: 64, Ways: 8, LineBytes: 128, SectorBytes: 32, MSHRs: 64, Latency: 33, PerCycle: 1, CachesGlobal: true},
		Tex:    CacheSpec{Sets: 64, Ways: 8, LineBytes: 128, SectorBytes: 32, MSHRs: 64, Latency: 90, PerCycle: 4, TileX: 8, TileY: 4, TileZ: 4},
		Const:  CacheSpec{Sets: 64, Ways: 2, LineBytes: 64, SectorBytes: 64, MSHRs: 8, Latency: 20, PerCycle: 1},
		Icnt:   IcntSpec{Latency: 20, FlitBytes: 32, HeaderBytes: 8, MissQueue: 16},
		L2: L2Spec{Slices: 64, Sets: 32, Ways: 16, LineBytes: 128, SectorBytes: 32, MSHRs: 64,
			Latency: 160, InterleaveBytes: 256, AtomicCycles: 2},
		DRAM: DRAMSpec{Channels: 16, Banks: 16, RowBytes: 2048, QueueSize: 32, Scheduler: "frfcfs",
			ClockMHz: 1523, BytesPerClock: 32, TRCD: 20, TRP: 20, TCL: 20, TRAS: 45, TCCD: 2, Latency: 100},
	}
}

// A100 is the NVIDIA A100 (SXM4 40 GB) from the A100 Tensor Core GPU
// Architecture whitepaper: 108 SMs at 1410 MHz boost, 64 FP32 / 64 INT32 /
// 32 FP64 lanes and 4 tensor cores per SM, 192 KB L1/shared per SM, 40 MB
// L2, 5 HBM2 stacks on 10 512-bit controllers at 1555 GB/s.
func A100() Spec {
	return Spec{
		Name:          "a100",
		CoreMHz:       1410,
		NumSMs:        108,
		GlobalTimerNs: 1,
		// device-side launch latency: an assumption (docs/model.md)
		DeviceLaunchNs: 5000,
		SM: SMSpec{
			MaxThreads: 2048, MaxWarps: 64, MaxCTAs: 32,
			Registers: 65536, RegAllocUnit: 256, SharedAllocUnit: 128,
			CTALaunchLatency: 64,
			Schedulers:       4, Scheduler: GTO, TwoLevelActive: 8, Partitioned: true,
			Units: Units{
				SP:     UnitSpec{Count: 4, Lanes: 16, ClockMul: 1},
				INT:    UnitSpec{Count: 4, Lanes: 16, ClockMul: 1},
				DP:     UnitSpec{Count: 4, Lanes: 8, ClockMul: 1},
				SFU:    UnitSpec{Count: 4, Lanes: 4, ClockMul: 1},
				Tensor: UnitSpec{Count: 4, Lanes: 32, ClockMul: 1},
				LdSt:   UnitSpec{Count: 4, Lanes: 8, ClockMul: 1},
			},
			Classes: Classes{
				Int:      ClassSpec{"int", 4, 1},
				FP32:     ClassSpec{"sp", 4, 1},
				FP64:     ClassSpec{"dp", 8, 1},
				SFU:      ClassSpec{"sfu", 18, 1},
				Conv:     ClassSpec{"sfu", 8, 1},
				Tensor:   ClassSpec{"tensor", 32, 8},
				LdSt:     ClassSpec{"ldst", 1, 1},
				Branch:   ClassSpec{"int", 4, 1},
				Barrier:  ClassSpec{"int", 1, 1},
				Fence:    ClassSpec{"ldst", 1, 1},
				WarpSync: ClassSpec{"int", 8, 1},
				Misc:     ClassSpec{"int", 1, 1},
			},
			BarrierLatency: 4,
			FenceLatency:   10,
		},
		Shared: SharedSpec{Bytes: 96 << 10, Banks: 32, BankBytes: 4, Latency: 23, CyclesPerWay: 1},
		L1D:    CacheSpec{Sets: 128, Ways: 6, LineBytes: 128, SectorBytes: 32, MSHRs: 128, Latency: 33, PerCycle: 1, CachesGlobal: true},
		Tex:    CacheSpec{Sets: 128, Ways: 6, LineBytes: 128, SectorBytes: 32, MSHRs: 128, Latency: 90, PerCycle: 4, TileX: 8, TileY: 4, TileZ: 4},
		Const:  CacheSpec{Sets: 64, Ways: 2, LineBytes: 64, SectorBytes: 64, MSHRs: 8, Latency: 20, PerCycle: 1},
		Icnt:   IcntSpec{Latency: 20, FlitBytes: 32, HeaderBytes: 8, MissQueue: 16},
		L2: L2Spec{Slices: 80, Sets: 256, Ways: 16, LineBytes: 128, SectorBytes: 32, MSHRs: 64,
			Latency: 160, InterleaveBytes: 256, AtomicCycles: 2},
		DRAM: DRAMSpec{Channels: 10, Banks: 32, RowBytes: 1024, QueueSize: 64, Scheduler: "frfcfs",
			ClockMHz: 1215, BytesPerClock: 128, TRCD: 14, TRP: 14, TCL: 14, TRAS: 33, TCCD: 2, Latency: 200},
	}
}

// H100 is the NVIDIA H100 SXM5 (80 GB) from the H100 Tensor Core GPU
// Architecture whitepaper: 132 SMs, 128 FP32 / 64 INT32 / 64 FP64 lanes
// and 4 tensor cores per SM, 256 KB L1/shared per SM, 50 MB L2, 5 HBM3
// stacks on 10 512-bit controllers at 3.35 TB/s; 1980 MHz max boost.
func H100() Spec {
	s := A100()
	s.Name = "h100"
	s.CoreMHz = 1980
	s.NumSMs = 132
	s.SM.Units.SP = UnitSpec{Count: 4, Lanes: 32, ClockMul: 1}
	s.SM.Units.DP = UnitSpec{Count: 4, Lanes: 16, ClockMul: 1}
	s.SM.Classes.Tensor = ClassSpec{"tensor", 32, 4}
	s.Shared.Bytes = 128 << 10
	s.L1D = CacheSpec{Sets: 256, Ways: 4, LineBytes: 128, SectorBytes: 32, MSHRs: 128, Latency: 33, PerCycle: 1, CachesGlobal: true}
	s.Tex = CacheSpec{Sets: 256, Ways: 4, LineBytes: 128, SectorBytes: 32, MSHRs: 128, Latency: 90, PerCycle: 4, TileX: 8, TileY: 4, TileZ: 4}
	s.L2 = L2Spec{Slices: 100, Sets: 256, Ways: 16, LineBytes: 128, SectorBytes: 32, MSHRs: 64,
		Latency: 200, InterleaveBytes: 256, AtomicCycles: 2}
	s.DRAM = DRAMSpec{Channels: 10, Banks: 32, RowBytes: 1024, QueueSize: 64, Scheduler: "frfcfs",
		ClockMHz: 2619, BytesPerClock: 128, TRCD: 24, TRP: 24, TCL: 24, TRAS: 55, TCCD: 2, Latency: 250}
	return s
}

// DefaultSpec is the preset used when none is named: gtx480.
func DefaultSpec() Spec { return GTX480() }

// Preset returns the preset named name.
func Preset(name string) (Spec, bool) {
	switch name {
	case "gtx480":
		return GTX480(), true
	case "rtx3080":
		return RTX3080(), true
	case "a100":
		return A100(), true
	case "h100":
		return H100(), true
	}
	return Spec{}, false
}

// PresetNames lists the preset names, sorted.
func PresetNames() []string { return []string{"a100", "gtx480", "h100", "rtx3080"} }
