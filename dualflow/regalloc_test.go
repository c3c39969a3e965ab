package dualflow

import (
	"context"
	"strings"
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

// TestAllocateBudget: the diamond (cfg_test.go) needs 3 words by hand
// (%r1, %r2, %r3 never overlap: one b32; %rd1: two words); a budget of 2
// is refused, 3 is met; Verify catches two live registers sharing one.
func TestAllocateBudget(t *testing.T) {
	file, err := Parse("diamond.ptx", []byte(cfgHeader+cfgCases[0].body))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(file, file.Functions()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Allocate(f, 2); err == nil || !strings.Contains(err.Error(), "needs 3 32-bit registers") {
		t.Errorf("budget 2: %v", err)
	}
	a, err := Allocate(f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a.Words != 3 || a.Count[Class32] != 1 || a.Count[Class64] != 1 || a.Count[ClassPred] != 1 {
		t.Errorf("allocation %v (%d words)", a.Count, a.Words)
	}
	if err := a.Verify(); err != nil {
		t.Fatal(err)
	}
	// %r1 and %r2 never overlap: sharing is fine
	a.Phys["%r1"], a.Phys["%r2"] = 0, 0
	if err := a.Verify(); err != nil {
		t.Errorf("non-overlapping registers sharing: %v", err)
	}
	a.Count[Class32] = 2 // words no longer match the mapping
	a.Words = 4
	if err := a.Verify(); err == nil {
		t.Errorf("Verify accepted a count that differs from the mapping")
	}
}

// TestVerifyCatchesClash: in the loop case the sum %r2 and the counter %r3
// are live together; giving them one register must fail Verify.
func TestVerifyCatchesClash(t *testing.T) {
	file, err := Parse("loop.ptx", []byte(cfgHeader+cfgCases[1].body))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(file, file.Functions()[0])
	if err != nil {
		t.Fatal(err)
	}
	a, err := Allocate(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Count[Class32] != 3 {
		t.Errorf("%d b32 registers, want 3 (%%r1, %%r2, %%r3 all live in the loop)", a.Count[Class32])
	}
	a.Phys["%r3"] = a.Phys["%r2"]
	if err := a.Verify(); err == nil {
		t.Errorf("Verify accepted %%r2 and %%r3 in one register")
	}
}
