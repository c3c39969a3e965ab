package dualflow

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
)

// ptxasRegs returns ptxas -v's register count per kernel of src, or nil
// (with a log line) when ptxas is absent.
func ptxasRegs(t *testing.T, name string, src []byte) map[string]int {
	tools := cudatool.Find()
	if tools.Ptxas == "" {
		t.Logf("ptxas not found: allocating with the minimum register count")
		return nil
	}
	f, err := Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	us, err := tools.Resources(context.Background(), name, f, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m := map[string]int{}
	for k, u := range us {
		m[k] = u.Regs
	}
	return m
}

// TestAllocateSamples: every sample allocated onto at most ptxas's
// register count (when the PTX-level liveness allows it) runs to the same
// output bytes as the original.
func TestAllocateSamples(t *testing.T) {
	for _, name := range sampleNames {
		t.Run(name, func(t *testing.T) {
			src := samplePTX(t, name)
			regs := ptxasRegs(t, name, src)
			f, err := Parse(name, src)
			if err != nil {
				t.Fatal(err)
			}
			out, allocs, err := AllocateFile(f, func(k string) int { return 0 })
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range allocs {
				n := regs[a.Func.Fn.Name]
				t.Logf("%s: %d words (%v) max live %d, ptxas N=%d, %d virtual regs", a.Func.Fn.Name, a.Words, a.Count, a.MaxLive, n, len(a.Func.Regs))
				if a.Words < a.MaxLive {
					t.Errorf("%s: %d words below the live-pressure bound %d", a.Func.Fn.Name, a.Words, a.MaxLive)
				}
				if n > 0 && a.Words > n {
					t.Logf("%s: PTX-level allocation needs %d > ptxas %d", a.Func.Fn.Name, a.Words, n)
				}
			}
			want, _ := runSample(t, name, src, nil)
			got, _ := runSample(t, name, []byte(out), nil)
			sameOutputs(t, name, want, got)
		})
	}
}
