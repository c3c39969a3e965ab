package instrument

import "testing"

// fermi16K is the gtx480 model's SM (model/presets.go): 48 warps, 8 blocks,
// 32768 registers in units of 64 per warp, 16 KB shared in units of 128.
var fermi16K = Arch{MaxWarpsPerSM: 48, MaxBlocksPerSM: 8, MaxThreadsPerBlock: 1024, RegsPerSM: 32768, RegAllocUnit: 64,
	WarpAllocGranularity: 1, MaxRegsPerThread: 255, SharedPerSM: 16384, MaxSharedPerBlock: 16384, SharedAllocUnit: 128}

// TestPlanStaging: expected values by hand (arithmetic in the comments).
func TestPlanStaging(t *testing.T) {
	sm80, _ := LookupArch(80)
	cases := []struct {
		name                               string
		a                                  Arch
		threads, regs, static, dyn, cap    int
		keep                               bool
		recs, off, bytes, dynTotal, blocks int
	}{
		// 8 warps, 8448 B static: 1 block (16384/8448). Spare 16384−8448 =
		// 7936 B = 8 × 992: (992−32)/16 = 60 records.
		{"stencil gtx480", fermi16K, 256, 0, 8448, 0, 64, true, 60, 0, 7936, 7936, 1},
		// 12288 B static: 1 block; spare 4096 = 8 × 512: (512−32)/16 = 30.
		{"scan gtx480", fermi16K, 256, 0, 12288, 0, 64, true, 30, 0, 4096, 4096, 1},
		// No shared: 6 blocks by warps (48/8). Per block ⌊16384/6⌋ = 2730 →
		// 2688 (unit 128) = 8 × 336: (336−32)/16 = 19 records.
		{"no shared keep", fermi16K, 256, 0, 0, 0, 64, true, 19, 0, 2688, 2688, 6},
		// Without keepOccupancy: 16384/8 = 2048: (2048−32)/16 = 126 → capacity 64;
		// 8 × 1056 = 8448 B: 1 block.
		{"no shared force", fermi16K, 256, 0, 0, 0, 64, false, 64, 0, 8448, 8448, 1},
		// Full: nothing to spare.
		{"full", fermi16K, 256, 0, 16384, 0, 64, true, 0, 0, 0, 0, 1},
		// sm_80, 4 warps, 32 regs: 16 blocks (64/4 by warps; registers
		// 65536/1024 = 64 warps). Shared per block ⌊167936/16⌋ = 10496 − 1 KB
		// reserved = 9472; the kernel's 1000 dynamic bytes → offset 1008;
		// spare 8464 = 4 × 2116: (2116−32)/16 = 130 → capacity 64:
		// 4 × (32 + 1024) = 4224 B, 1008 + 4224 = 5232 dynamic.
		{"sm_80 dynamic", sm80, 128, 32, 0, 1000, 64, true, 64, 1008, 4224, 5232, 16},
	}
	for _, c := range cases {
		p, err := PlanStaging(c.a, c.threads, c.regs, c.static, c.dyn, c.cap, c.keep)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Records != c.recs || p.Offset != c.off || p.Bytes != c.bytes || p.DynamicShared(c.dyn) != c.dynTotal || p.After.Blocks != c.blocks {
			t.Errorf("%s: records %d offset %d bytes %d dynamic %d blocks %d, want %d %d %d %d %d (%s)", c.name,
				p.Records, p.Offset, p.Bytes, p.DynamicShared(c.dyn), p.After.Blocks, c.recs, c.off, c.bytes, c.dynTotal, c.blocks, p.Reason)
		}
	}
	if _, err := PlanStaging(fermi16K, 2048, 0, 0, 0, 64, true); err == nil {
		t.Error("2048 threads per block: want an error")
	}
}

// TestPlanStagingKeepsOccupancy: on every architecture and many shapes,
// the plan keeps the blocks per SM, and one more record per warp would
// not (or would exceed the capacity or a block's limit).
func TestPlanStagingKeepsOccupancy(t *testing.T) {
	archs := append([]Arch{fermi16K}, archTable[:]...)
	staged := 0
	for _, a := range archs {
		for _, threads := range []int{32, 96, 256, 1024} {
			for _, regs := range []int{0, 40} {
				for _, static := range []int{0, 1000, 8192} {
					for _, cap := range []int{8, 64, 4096} {
						p, err := PlanStaging(a, threads, regs, static, 100, cap, true)
						if err != nil {
							continue // shape not launchable on a
						}
						if p.After.Blocks != p.Before.Blocks {
							t.Errorf("sm_%d %d threads: blocks %d → %d", a.SM, threads, p.Before.Blocks, p.After.Blocks)
						}
						if p.Records == 0 {
							continue
						}
						staged++
						warps := (threads + 31) / 32
						used := alignUp(static, 16) + 112
						if p.Bytes != warps*(32+16*p.Records) || p.Offset != 112 {
							t.Errorf("sm_%d: bytes %d offset %d for %d records", a.SM, p.Bytes, p.Offset, p.Records)
						}
						if p.Records < cap {
							more, err := a.Compute(threads, regs, used+warps*(32+16*(p.Records+1)))
							if err == nil && more.Blocks == p.Before.Blocks {
								t.Errorf("sm_%d %d threads %d static: %d records, %d would keep occupancy too", a.SM, threads, static, p.Records, p.Records+1)
							}
						}
					}
				}
			}
		}
	}
	if staged == 0 {
		t.Error("no shape staged")
	}
}
