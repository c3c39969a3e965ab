package replay

import (
	"sync"
	"testing"
	"unsafe"
)

// TestEntryFrameRegs checks the register arena: every slice is zeroed, has
// length and capacity n, and no two overlap, across chunk boundaries and
// from concurrent callers (the model builds warps on several SMs at once).
func TestEntryFrameRegs(t *testing.T) {
	for _, tc := range []struct{ nctas, nwarps, n, calls int }{
		{1, 1, 32, 5},           // first chunk of one warp: every call a new chunk
		{3, 2, 96, 40},          // chunks of 6, 12, 24, … warps
		{4096, 8, 960, 1100},    // vecadd 1M: huge-page-sized chunks
		{2, 4, 64 * 32, 33},     // a large frame
		{1000, 32, 256 * 32, 5}, // first chunk 32 MiB
	} {
		k := &Kernel{nctas: tc.nctas, nwarps: tc.nwarps}
		out := make([][]uint64, tc.calls)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < tc.calls; i += 4 {
					out[i] = k.entryFrameRegs(tc.n)
				}
			}()
		}
		wg.Wait()
		type span struct{ lo, hi uintptr }
		var spans []span
		for i, r := range out {
			if len(r) != tc.n || cap(r) != tc.n {
				t.Fatalf("%+v call %d: len %d cap %d, want %d", tc, i, len(r), cap(r), tc.n)
			}
			for j, v := range r {
				if v != 0 {
					t.Fatalf("%+v call %d: register %d = %d, want 0", tc, i, j, v)
				}
			}
			lo := uintptr(unsafe.Pointer(&r[0]))
			spans = append(spans, span{lo, lo + uintptr(8*tc.n)})
			for j := range r {
				r[j] = uint64(i + 1) // a later overlap would show as a non-zero register
			}
		}
		for i, a := range spans {
			for j, b := range spans[:i] {
				if a.lo < b.hi && b.lo < a.hi {
					t.Fatalf("%+v: calls %d and %d overlap", tc, j, i)
				}
			}
		}
	}
}
