package instrument

import (
	"fmt"
	"sort"
)

// Arch holds the per-SM limits that decide theoretical occupancy. The
// values are those of the CUDA Occupancy Calculator spreadsheet
// (CUDA_Occupancy_Calculator.xls, sheet "GPU Data") and of the CUDA C++
// Programming Guide, appendix "Compute Capabilities", table "Technical
// Specifications per Compute Capability". Shared memory per SM is the
// largest carveout the architecture offers (the driver picks the carveout a
// kernel needs), MaxSharedPerBlock the largest a block may use (opt-in above
// 48 KB for dynamic shared memory; static shared memory never exceeds 48 KB).
type Arch struct {
	SM                     int // 35 for sm_35
	MaxWarpsPerSM          int
	MaxBlocksPerSM         int
	MaxThreadsPerBlock     int
	RegsPerSM              int // 32-bit registers in the register file of one SM
	RegAllocUnit           int // registers are allocated per warp in units of this many
	WarpAllocGranularity   int // warps limited by registers are rounded down to a multiple of this
	MaxRegsPerThread       int
	SharedPerSM            int // bytes
	MaxSharedPerBlock      int // bytes
	SharedAllocUnit        int // bytes
	ReservedSharedPerBlock int // bytes the system reserves per block (1 KB on sm_80 and later)
}

// archTable lists the architectures by compute capability.
var archTable = [...]Arch{
	{SM: 20, MaxWarpsPerSM: 48, MaxBlocksPerSM: 8, MaxThreadsPerBlock: 1024, RegsPerSM: 32768, RegAllocUnit: 64, WarpAllocGranularity: 2, MaxRegsPerThread: 63, SharedPerSM: 49152, MaxSharedPerBlock: 49152, SharedAllocUnit: 128},
	{SM: 21, MaxWarpsPerSM: 48, MaxBlocksPerSM: 8, MaxThreadsPerBlock: 1024, RegsPerSM: 32768, RegAllocUnit: 64, WarpAllocGranularity: 2, MaxRegsPerThread: 63, SharedPerSM: 49152, MaxSharedPerBlock: 49152, SharedAllocUnit: 128},
	{SM: 30, MaxWarpsPerSM: 64, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 63, SharedPerSM: 49152, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 32, MaxWarpsPerSM: 64, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 49152, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 35, MaxWarpsPerSM: 64, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 49152, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 37, MaxWarpsPerSM: 64, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 131072, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 114688, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 50, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 65536, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 52, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 98304, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 53, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 65536, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 60, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 2, MaxRegsPerThread: 255, SharedPerSM: 65536, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 61, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 98304, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 62, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 65536, MaxSharedPerBlock: 49152, SharedAllocUnit: 256},
	{SM: 70, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 98304, MaxSharedPerBlock: 98304, SharedAllocUnit: 256},
	{SM: 72, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 98304, MaxSharedPerBlock: 98304, SharedAllocUnit: 256},
	{SM: 75, MaxWarpsPerSM: 32, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 65536, MaxSharedPerBlock: 65536, SharedAllocUnit: 256},
	{SM: 80, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 167936, MaxSharedPerBlock: 166912, SharedAllocUnit: 128, ReservedSharedPerBlock: 1024},
	{SM: 86, MaxWarpsPerSM: 48, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 102400, MaxSharedPerBlock: 101376, SharedAllocUnit: 128, ReservedSharedPerBlock: 1024},
	{SM: 87, MaxWarpsPerSM: 48, MaxBlocksPerSM: 16, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 167936, MaxSharedPerBlock: 166912, SharedAllocUnit: 128, ReservedSharedPerBlock: 1024},
	{SM: 89, MaxWarpsPerSM: 48, MaxBlocksPerSM: 24, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 102400, MaxSharedPerBlock: 101376, SharedAllocUnit: 128, ReservedSharedPerBlock: 1024},
	{SM: 90, MaxWarpsPerSM: 64, MaxBlocksPerSM: 32, MaxThreadsPerBlock: 1024, RegsPerSM: 65536, RegAllocUnit: 256, WarpAllocGranularity: 4, MaxRegsPerThread: 255, SharedPerSM: 233472, MaxSharedPerBlock: 232448, SharedAllocUnit: 128, ReservedSharedPerBlock: 1024},
}

// LookupArch returns the limits of compute capability sm (e.g. 52). An
// unlisted capability takes the nearest listed one below it of the same
// major version (sm_50 → sm_50, sm_81 → sm_80); ok is false when there is
// none.
func LookupArch(sm int) (Arch, bool) {
	i := sort.Search(len(archTable), func(i int) bool { return archTable[i].SM > sm }) - 1
	if i < 0 || archTable[i].SM/10 != sm/10 {
		return Arch{}, false
	}
	return archTable[i], true
}

// Occupancy is the theoretical occupancy of one kernel shape on one SM.
type Occupancy struct {
	WarpsPerBlock  int
	BlocksByWarps  int // limit from MaxWarpsPerSM
	BlocksByRegs   int // limit from the register file
	BlocksByShared int // limit from shared memory
	BlocksBySM     int // MaxBlocksPerSM
	Blocks         int // active blocks per SM: the minimum of the four
	ActiveWarps    int // Blocks × WarpsPerBlock
	Ratio          float64
	SharedPerBlock int // allocated bytes per block (rounded, reserved part included)
	Limiter        string
}

func ceilTo(x, unit int) int {
	if unit <= 0 {
		return x
	}
	return (x + unit - 1) / unit * unit
}

func floorTo(x, unit int) int {
	if unit <= 0 {
		return x
	}
	return x / unit * unit
}

// Compute returns the theoretical occupancy of a kernel using regs
// registers per thread and sharedBytes bytes of shared memory per block
// (static plus dynamic) launched with threads threads per block. It follows
// the Occupancy Calculator's formulas:
//
//	warpsPerBlock  = ⌈threads / 32⌉
//	blocksByWarps  = ⌊MaxWarpsPerSM / warpsPerBlock⌋
//	regsPerWarp    = ⌈regs × 32⌉ to a multiple of RegAllocUnit
//	warpsByRegs    = ⌊RegsPerSM / regsPerWarp⌋ down to a multiple of WarpAllocGranularity
//	blocksByRegs   = ⌊warpsByRegs / warpsPerBlock⌋           (no limit when regs = 0)
//	sharedPerBlock = ⌈sharedBytes + ReservedSharedPerBlock⌉ to a multiple of SharedAllocUnit
//	blocksByShared = ⌊SharedPerSM / sharedPerBlock⌋           (no limit when sharedBytes = 0)
//	blocks         = min(blocksByWarps, blocksByRegs, blocksByShared, MaxBlocksPerSM)
func (a Arch) Compute(threads, regs, sharedBytes int) (Occupancy, error) {
	var o Occupancy
	if threads <= 0 || threads > a.MaxThreadsPerBlock {
		return o, fmt.Errorf("sm_%d: %d threads per block is outside 1..%d", a.SM, threads, a.MaxThreadsPerBlock)
	}
	if regs < 0 || regs > a.MaxRegsPerThread {
		return o, fmt.Errorf("sm_%d: %d registers per thread is outside 0..%d", a.SM, regs, a.MaxRegsPerThread)
	}
	if sharedBytes < 0 || sharedBytes > a.MaxSharedPerBlock {
		return o, fmt.Errorf("sm_%d: %d bytes of shared memory per block is outside 0..%d", a.SM, sharedBytes, a.MaxSharedPerBlock)
	}
	o.WarpsPerBlock = (threads + 31) / 32
	o.BlocksBySM = a.MaxBlocksPerSM
	o.BlocksByWarps = a.MaxWarpsPerSM / o.WarpsPerBlock
	o.BlocksByRegs = a.MaxBlocksPerSM
	if regs > 0 {
		regsPerWarp := ceilTo(regs*32, a.RegAllocUnit)
		warps := floorTo(a.RegsPerSM/regsPerWarp, a.WarpAllocGranularity)
		o.BlocksByRegs = warps / o.WarpsPerBlock
	}
	o.BlocksByShared = a.MaxBlocksPerSM
	if sharedBytes > 0 || a.ReservedSharedPerBlock > 0 {
		o.SharedPerBlock = ceilTo(sharedBytes+a.ReservedSharedPerBlock, a.SharedAllocUnit)
		o.BlocksByShared = a.SharedPerSM / o.SharedPerBlock
	}
	o.Blocks, o.Limiter = o.BlocksBySM, "blocks"
	for _, l := range []struct {
		n    int
		name string
	}{{o.BlocksByWarps, "warps"}, {o.BlocksByRegs, "registers"}, {o.BlocksByShared, "shared memory"}} {
		if l.n < o.Blocks {
			o.Blocks, o.Limiter = l.n, l.name
		}
	}
	o.ActiveWarps = o.Blocks * o.WarpsPerBlock
	o.Ratio = float64(o.ActiveWarps) / float64(a.MaxWarpsPerSM)
	return o, nil
}
