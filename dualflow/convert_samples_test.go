package dualflow

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
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

// TestConvertProfiledSamples: conversions placed by a profile (the
// original's thread-executions per instruction, counted on a model run)
// run as the ring emulation to the original's output bytes, at unlimited
// and a small distance.
func TestConvertProfiledSamples(t *testing.T) {
	for _, name := range []string{"pathfinder", "lud", "matmul", "hotspot", "bfs"} {
		t.Run(name, func(t *testing.T) {
			src := samplePTX(t, name)
			want, _ := runSample(t, name, src, nil)
			pc := &pcCounter{counts: map[string][]atomic.Uint64{}}
			ms := Table1()
			if _, err := RunSample(context.Background(), name, src, &ms, model.Options{Workers: 1, Wrap: pc.wrap}); err != nil {
				t.Fatal(err)
			}
			for _, d := range []int{0, 12} {
				f, err := Parse(name, src)
				if err != nil {
					t.Fatal(err)
				}
				out, progs, _, err := ConvertFileProfiled(f, d, Ring, pc.profile)
				if err != nil {
					t.Fatalf("D=%d: %v", d, err)
				}
				for k, p := range progs {
					t.Logf("D=%d %s: static %v", d, k, p.Static)
					if d > 0 && p.MaxDist > d {
						t.Errorf("D=%d %s: an operand at distance %d", d, k, p.MaxDist)
					}
				}
				got, _ := runSample(t, name, []byte(out), nil)
				sameOutputs(t, fmt.Sprintf("profiled D=%d", d), want, got)
			}
		})
	}
}

// TestConvertProfiledRefusesWrongLength: a profile that does not match the
// function is refused, not silently used.
func TestConvertProfiledRefusesWrongLength(t *testing.T) {
	file, err := Parse("loop.ptx", []byte(cfgHeader+cfgCases[1].body))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(file, file.Functions()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConvertProfiled(f, 0, make([]uint64, len(f.Insts)+1)); err == nil {
		t.Errorf("accepted a profile of the wrong length")
	}
	// an all-zero profile (nothing weighs) still converts
	if _, err := ConvertProfiled(f, 0, make([]uint64, len(f.Insts))); err != nil {
		t.Error(err)
	}
}
