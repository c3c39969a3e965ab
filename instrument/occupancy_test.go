package instrument

import (
	"fmt"
	"testing"
)

// Expected values computed by hand from the per-architecture limits of
// the CUDA C++ Programming Guide ("Technical Specifications per Compute
// Capability") with the CUDA Occupancy Calculator's allocation rules
// (registers per warp rounded up to the allocation unit, warps limited by
// registers rounded down to the warp allocation granularity, shared memory
// plus the 1 KB reserved per block on sm_80+ rounded up to the shared
// allocation unit). The arithmetic is in each comment.
func TestOccupancyTable(t *testing.T) {
	tests := []struct {
		sm, threads, regs, shared int
		blocks, warps             int
		limiter                   string
	}{
		// 8 warps/block; 64/8=8 by warps; 32*32=1024 regs/warp → 64 warps → 8 blocks.
		{52, 256, 32, 0, 8, 64, "warps"},
		// 64 regs: 2048 regs/warp → 32 warps → 4 blocks.
		{52, 256, 64, 0, 4, 32, "registers"},
		// 4 warps; 40*32=1280 → 51 warps → 48 (gran 4) → 12 blocks;
		// shared ⌈49152+1024⌉128 = 50176 → 167936/50176 = 3 blocks.
		{80, 128, 40, 49152, 3, 12, "shared memory"},
		// 32 warps/block, 32 warps per SM on sm_75 → 1 block.
		{75, 1024, 16, 0, 1, 32, "warps"},
		// 6 warps; 64/6 = 10; 63*32=2016 → 2048 → 32 warps → 5 blocks;
		// shared ⌈16000⌉256 = 16128 → 49152/16128 = 3 blocks.
		{35, 192, 63, 16000, 3, 18, "shared memory"},
		// Fermi: 8 warps; 48/8 = 6; 20*32=640 (unit 64) → 51 → 50 (gran 2) → 6 blocks.
		{20, 256, 20, 0, 6, 48, "warps"},
		// sm_90, no registers given: reserved 1 KB → 228 blocks by shared; 64/8 = 8.
		{90, 256, 0, 0, 8, 64, "warps"},
		// sm_86: 16 warps; 48/16 = 3; 1024 regs/warp → 64 warps → 4 blocks.
		{86, 512, 32, 0, 3, 48, "warps"},
		// sm_61, 96 threads = 3 warps, 128 regs: 4096/warp → 16 warps → 5 blocks;
		// 64/3 = 21 by warps.
		{61, 96, 128, 0, 5, 15, "registers"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("sm_%d/%dt/%dr/%ds", tt.sm, tt.threads, tt.regs, tt.shared), func(t *testing.T) {
			a, ok := LookupArch(tt.sm)
			if !ok {
				t.Fatalf("no arch %d", tt.sm)
			}
			o, err := a.Compute(tt.threads, tt.regs, tt.shared)
			if err != nil {
				t.Fatal(err)
			}
			if o.Blocks != tt.blocks || o.ActiveWarps != tt.warps || o.Limiter != tt.limiter {
				t.Errorf("got %d blocks, %d warps, limited by %s; want %d, %d, %s (%+v)",
					o.Blocks, o.ActiveWarps, o.Limiter, tt.blocks, tt.warps, tt.limiter, o)
			}
		})
	}
}

func TestOccupancyErrorsAndLookup(t *testing.T) {
	a, _ := LookupArch(80)
	for _, c := range [][3]int{{0, 10, 0}, {2048, 10, 0}, {128, 300, 0}, {128, 10, 1 << 20}} {
		if _, err := a.Compute(c[0], c[1], c[2]); err == nil {
			t.Errorf("Compute%v: no error", c)
		}
	}
	if b, ok := LookupArch(81); !ok || b.SM != 80 {
		t.Errorf("LookupArch(81) = %d, %v", b.SM, ok)
	}
	for _, sm := range []int{10, 40, 0} {
		if _, ok := LookupArch(sm); ok {
			t.Errorf("LookupArch(%d) found", sm)
		}
	}
}
