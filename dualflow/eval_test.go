package dualflow

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// TestEvaluateSmall runs every model of a few samples on the Table 1 GPU:
// outputs equal the functional run's (Evaluate checks), the D-FLOW run has
// no false-dependency stall and counts every original instruction. (lud
// has heads that wait long while many younger instructions issue: a reused
// instruction view once corrupted its timing, showing as D-FLOW WAW.)
func TestEvaluateSmall(t *testing.T) {
	var falseDeps uint64
	defer func() {
		if falseDeps == 0 && !t.Failed() {
			t.Errorf("no WAR/WAW stall in any BASE-OoO run: the allocation creates no false dependency the window sees")
		}
	}()
	for _, name := range []string{"vecadd", "gaussian", "pathfinder", "nn", "lud"} {
		t.Run(name, func(t *testing.T) {
			r, err := Evaluate(context.Background(), name, samplePTX(t, name), Config{Spec: Table1(), Window: 8, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("cycles virtual %d base %d base-ooo %d (false-dep stalls %d) virtual-ooo %d dflow %d; speedup %.3f; insts +%.1f%%; base stalls %+v; dflow stalls %+v; dyn %v",
				r.Virtual.Cycles, r.Base.Cycles, r.BaseOoO.Cycles, r.BaseOoO.Stalls.FalseDep, r.VirtualOoO.Cycles, r.DFlow.Cycles, r.Speedup(), 100*r.InstIncrease(), r.Base.Stalls, r.DFlow.Stalls, r.Dyn)
			falseDeps += r.BaseOoO.Stalls.FalseDep
			if r.DFlow.Stalls.FalseDep != 0 {
				t.Errorf("D-FLOW has %d false-dependency stall cycles", r.DFlow.Stalls.FalseDep)
			}
			if r.Dyn[KInst] != r.Virtual.ThreadInsts {
				t.Errorf("D-FLOW executed %d original thread-instructions, the original %d", r.Dyn[KInst], r.Virtual.ThreadInsts)
			}
		})
	}
}

// TestEvaluateDeterministic: the D-FLOW timing does not depend on the
// number of model workers.
func TestEvaluateDeterministic(t *testing.T) {
	var cycles []uint64
	for _, w := range []int{1, 2} {
		r, err := Evaluate(context.Background(), "pathfinder", samplePTX(t, "pathfinder"), Config{Spec: Table1(), Window: 8, Workers: w, BaseOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		cycles = append(cycles, r.Base.Cycles, r.DFlow.Cycles, r.Dyn[KMov])
	}
	if cycles[0] != cycles[3] || cycles[1] != cycles[4] || cycles[2] != cycles[5] {
		t.Errorf("workers 1 vs 2: %v", cycles)
	}
}

// TestEvaluateSpilledBase: with a budget below what pathfinder_step needs
// unspilled (14 words), BASE runs spill code; the allocation adds exactly
// the spill stores and reloads, so BASE's thread-instructions are the
// original's plus the counted spill code (an independent cross-check of
// the counter), and the outputs stay those of the functional run.
func TestEvaluateSpilledBase(t *testing.T) {
	r, err := Evaluate(context.Background(), "pathfinder", samplePTX(t, "pathfinder"),
		Config{Spec: Table1(), Window: 8, Workers: 1, BaseOnly: true, RegLimit: func(string) int { return 10 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("static %v dynamic %v; BASE %d cycles, %d thread-insts; original %d", r.SpillStatic, r.SpillDyn, r.Base.Cycles, r.Base.ThreadInsts, r.Virtual.ThreadInsts)
	if r.SpillStatic[0] == 0 || r.SpillStatic[1] == 0 || r.SpillDyn[0] == 0 || r.SpillDyn[1] == 0 {
		t.Errorf("no spill code: static %v dynamic %v", r.SpillStatic, r.SpillDyn)
	}
	if w := r.Regs["pathfinder_step"][0]; w > 10 {
		t.Errorf("%d words > N=10", w)
	}
	if got, want := r.Base.ThreadInsts, r.Virtual.ThreadInsts+r.SpillDyn[0]+r.SpillDyn[1]; got != want {
		t.Errorf("BASE executed %d thread-instructions, original + spill code = %d", got, want)
	}
}

// TestSpillCounterNeutral: the warp wrapper that counts spill code does not
// change BASE's timing (same cycles with and without it).
func TestSpillCounterNeutral(t *testing.T) {
	file, err := Parse("pathfinder", samplePTX(t, "pathfinder"))
	if err != nil {
		t.Fatal(err)
	}
	alloc, allocs, err := AllocateFile(file, func(string) int { return 10 })
	if err != nil {
		t.Fatal(err)
	}
	ms := Table1()
	plain, err := RunSample(context.Background(), "pathfinder", []byte(alloc), &ms, model.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	sc := &spillCounter{kinds: map[string][]int8{}}
	for _, a := range allocs {
		sc.kinds[a.Func.Fn.Name] = a.spillKinds()
	}
	counted, err := RunSample(context.Background(), "pathfinder", []byte(alloc), &ms, model.Options{Workers: 1, Wrap: sc.wrap})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Cycles != counted.Cycles || sc.n[1].Load() == 0 {
		t.Errorf("cycles %d plain, %d counted; %d reloads counted", plain.Cycles, counted.Cycles, sc.n[1].Load())
	}
}
