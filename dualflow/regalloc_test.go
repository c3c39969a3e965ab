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

// TestAllocateSamples: every sample allocated with the minimum the PTX
// order allows and, when ptxas is present, onto ptxas -v's register count N
// (spilling where the order needs more) runs to the same output bytes as
// the original; the spilled allocation uses at most N words.
func TestAllocateSamples(t *testing.T) {
	for _, name := range sampleNames {
		t.Run(name, func(t *testing.T) {
			src := samplePTX(t, name)
			regs := ptxasRegs(t, name, src)
			want, _ := runSample(t, name, src, nil)
			limits := []func(string) int{func(string) int { return 0 }}
			if regs != nil {
				limits = append(limits, func(k string) int { return regs[k] })
			}
			for li, limit := range limits {
				f, err := Parse(name, src)
				if err != nil {
					t.Fatal(err)
				}
				out, allocs, err := AllocateFile(f, limit)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range allocs {
					k := a.Func.Fn.Name
					t.Logf("N=%d %s: %d words (%v) max live %d, %d spilled (%d stores, %d reloads), unspilled %d",
						limit(k), k, a.Words, a.Count, a.MaxLive, len(a.Spilled), a.Stores, a.Reloads, a.Unspilled)
					if a.Words < a.MaxLive {
						t.Errorf("%s: %d words below the live-pressure bound %d", k, a.Words, a.MaxLive)
					}
					if n := limit(k); n > 0 && a.Words > n {
						t.Errorf("%s: %d words > N=%d", k, a.Words, n)
					}
					if li == 0 && len(a.Spilled) > 0 {
						t.Errorf("%s: spilled without a budget", k)
					}
					if err := a.Verify(); err != nil {
						t.Error(err)
					}
				}
				got, _ := runSample(t, name, []byte(out), nil)
				sameOutputs(t, name, want, got)
			}
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

// TestSpillByHand: %r1, %r2, %r3 are live together after the third mov
// (3 b32 + the b64 address = 5 words). With N=4 the victim rule (first
// point of maximal pressure: after `mov %r3`; %r3 is defined there and
// %r2/%r3 read next, so %r1 is the only candidate, next use 2 ahead)
// spills %r1: one store after its mov, one reload before the second add;
// then at most two b32 values are live at once (2 + 2 = 4 words). N=3 is
// refused: each add reads two b32 registers at once and the store needs
// the two-word address.
func TestSpillByHand(t *testing.T) {
	src := cfgHeader + `.visible .entry sp(.param .u64 out)
{
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	mov.u32 %r1, 1;
	mov.u32 %r2, 2;
	mov.u32 %r3, 3;
	add.s32 %r4, %r2, %r3;
	add.s32 %r4, %r4, %r1;
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r4;
	ret;
}
`
	file, err := Parse("sp.ptx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Analyze(file, file.Functions()[0])
	if err != nil {
		t.Fatal(err)
	}
	if a, err := Allocate(f, 0); err != nil || a.Words != 5 {
		t.Fatalf("no budget: %v words, %v", a.Words, err)
	}
	a, err := Allocate(f, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Verify(); err != nil {
		t.Fatal(err)
	}
	if len(a.Spilled) != 1 || a.Spilled[0] != "%r1" || a.Stores != 1 || a.Reloads != 1 || a.Words != 4 || a.Count[Class32] != 2 || a.Unspilled != 5 {
		t.Errorf("spilled %v, %d stores, %d reloads, %d words %v, unspilled %d", a.Spilled, a.Stores, a.Reloads, a.Words, a.Count, a.Unspilled)
	}
	text := a.Rewrite()
	if strings.Count(text, "st.local.b32 \t[__ptxtrace_spill+0]") != 1 || strings.Count(text, "ld.local.b32") != 1 {
		t.Errorf("spill code:\n%s", text)
	}
	if _, err := Allocate(f, 3); err == nil || !strings.Contains(err.Error(), "even with every register spilled") {
		t.Errorf("N=3: %v", err)
	}
	// Verify rejects a spilled register that is still in the code
	a.Spilled = append(a.Spilled, "%r2")
	if err := a.Verify(); err == nil {
		t.Errorf("Verify accepted a spilled register left in the code")
	}
}
