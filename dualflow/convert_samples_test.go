package dualflow

import (
	"fmt"
	"testing"
)

// TestConvertSamples: every sample converted to Dualflow form and run as
// the ring emulation (every operand read from the ring at its distance)
// and as the light form gives the original's output bytes, at unlimited,
// 64 and a small distance that forces spills.
func TestConvertSamples(t *testing.T) {
	for _, name := range sampleNames {
		t.Run(name, func(t *testing.T) {
			src := samplePTX(t, name)
			want, _ := runSample(t, name, src, nil)
			spills := 0
			for _, d := range []int{0, 64, 12} {
				for _, fm := range []Form{Ring, Light} {
					f, err := Parse(name, src)
					if err != nil {
						t.Fatal(err)
					}
					out, progs, _, err := ConvertFile(f, d, fm)
					if err != nil {
						t.Fatalf("D=%d: %v", d, err)
					}
					for k, p := range progs {
						if fm == Ring {
							t.Logf("D=%d %s: static %v, max distance %d, spilled %v", d, k, p.Static, p.MaxDist, p.Spilled)
						}
						if d > 0 && p.MaxDist > d {
							t.Errorf("D=%d %s: an operand at distance %d", d, k, p.MaxDist)
						}
						if d == 12 {
							spills += p.Static[KSpill]
						}
					}
					got, _ := runSample(t, name, []byte(out), nil)
					sameOutputs(t, fmt.Sprintf("D=%d form %d", d, fm), want, got)
				}
			}
			if spills == 0 {
				t.Logf("D=12 forces no spill in %s", name)
			}
		})
	}
}
