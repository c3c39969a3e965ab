package replay

import "testing"

// TestFillSpecialTid: %tid.x/y/z of every lane of every warp, for block
// shapes whose rows and planes end inside a warp, equal the definition
// t%bx, t/bx%by, t/(bx*by) of the linear thread index t = warp*32+lane.
func TestFillSpecialTid(t *testing.T) {
	for _, b := range [][3]int{{256, 1, 1}, {80, 1, 1}, {7, 5, 3}, {1, 1, 64}, {3, 1, 20}, {33, 2, 2}, {16, 16, 1}} {
		k := &Kernel{l: Launch{Block: b, Grid: [3]int{1, 1, 1}}}
		n := b[0] * b[1] * b[2]
		for wi := 0; wi*32 < n; wi++ {
			w := &warp{warpCore: warpCore{k: k, id: wi}}
			for s, name := range map[special]string{srTidX: "x", srTidY: "y", srTidZ: "z"} {
				r := make([]uint64, 32)
				w.fillSpecial(r, s)
				for l := range r {
					tid := wi*32 + l
					want := map[special]int{srTidX: tid % b[0], srTidY: tid / b[0] % b[1], srTidZ: tid / (b[0] * b[1])}[s]
					if r[l] != uint64(want) {
						t.Fatalf("block %v warp %d lane %d: tid.%s = %d, want %d", b, wi, l, name, r[l], want)
					}
				}
			}
		}
	}
}
