package model

import (
	"context"
	"testing"
)

// reorderWarp makes a fakeWarp Reorderable: its window is the rest of the
// program (fake programs are straight-line), executed in program order.
type reorderWarp struct {
	*fakeWarp
	done  []bool     // step executed functionally
	order []int      // steps in the order the model issued them
	effs  [][]uint64 // saved addresses of steps executed early
	saved []Effect
}

func (w *reorderWarp) Window(buf []*Inst, n int) []*Inst {
	for i := w.first(); i < len(w.prog) && n > 0; i++ {
		if w.issued(i) {
			continue
		}
		buf = append(buf, w.prog[i].in)
		n--
	}
	return buf
}

func (w *reorderWarp) issued(i int) bool {
	for _, j := range w.order {
		if j == i {
			return true
		}
	}
	return false
}

func (w *reorderWarp) first() int {
	for i := range w.prog {
		if !w.issued(i) {
			return i
		}
	}
	return len(w.prog)
}

func (w *reorderWarp) Peek() *Inst {
	if i := w.first(); i < len(w.prog) {
		return w.prog[i].in
	}
	return nil
}

func (w *reorderWarp) Issue(c Clocks) (*Effect, error) { return w.IssueAt(0, c) }

func (w *reorderWarp) IssueAt(k int, c Clocks) (*Effect, error) {
	if w.done == nil {
		w.done = make([]bool, len(w.prog))
		w.saved = make([]Effect, len(w.prog))
		w.effs = make([][]uint64, len(w.prog))
	}
	target := -1
	for i, n := w.first(), 0; i < len(w.prog); i++ {
		if w.issued(i) {
			continue
		}
		if n == k {
			target = i
			break
		}
		n++
	}
	for i := 0; i <= target; i++ { // in program order
		if !w.done[i] {
			eff, err := w.fakeWarp.Issue(c)
			if err != nil {
				return nil, err
			}
			w.done[i] = true
			w.saved[i] = *eff
			w.effs[i] = append([]uint64(nil), eff.Addr...)
			w.saved[i].Addr = w.effs[i]
		}
	}
	w.order = append(w.order, target)
	eff := w.saved[target]
	eff.Exited = len(w.order) == len(w.prog)
	return &eff, nil
}

func reorderWrap(ws *[]*reorderWarp) func(Kernel) Kernel {
	return func(k Kernel) Kernel { return &reorderKernel{k.(*fakeKernel), ws} }
}

type reorderKernel struct {
	*fakeKernel
	ws *[]*reorderWarp
}

func (k *reorderKernel) NewCTA(i, sm int) (CTA, error) {
	c, err := k.fakeKernel.NewCTA(i, sm)
	if err != nil {
		return nil, err
	}
	fc := c.(*fakeCTA)
	for j, w := range fc.warps {
		rw := &reorderWarp{fakeWarp: w.(*fakeWarp)}
		*k.ws = append(*k.ws, rw)
		fc.warps[j] = rw
	}
	return fc, nil
}

// TestOutOfOrderIssue: with a window, independent instructions issue
// while an older one waits for a load (rules in ooo.go); in order they
// wait behind it. The functional execution stays in program order.
func TestOutOfOrderIssue(t *testing.T) {
	prog := []step{
		{in: ld(SpaceGlobal, 1, 0), addr: strided(0x1000, 4)},
		{in: alu(ClassInt, regs(2), 1, 6)}, // RAW on the load
		{in: alu(ClassInt, regs(3), 0)},    // independent
		{in: alu(ClassInt, regs(4), 0)},    // independent
		{in: alu(ClassInt, regs(6), 0)},    // WAR with step 1
		{in: alu(ClassInt, regs(5), 3)},    // RAW on step 2 (ready soon)
	}
	run := func(window int) ([]int, *Result) {
		var ws []*reorderWarp
		r, err := Run(context.Background(), RTX3080(), oneWarp(prog), Options{Window: window, Wrap: reorderWrap(&ws)})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range ws[0].done {
			if !d {
				t.Fatalf("step %d never executed", i)
			}
		}
		return ws[0].order, r
	}
	inOrder, r1 := run(1)
	if want := []int{0, 1, 2, 3, 4, 5}; !equalInts(inOrder, want) {
		t.Errorf("window 1 issue order %v, want %v", inOrder, want)
	}
	ooo, r8 := run(8)
	// 2 and 3 pass the waiting step 1; 4 writes a register 1 reads (WAR):
	// it waits for 1, a false-dependency stall while nothing else can
	// issue; 5 needs 2's result, which is ready 4 cycles after 2.
	if want := []int{0, 2, 3, 5, 1, 4}; !equalInts(ooo, want) {
		t.Errorf("window 8 issue order %v, want %v", ooo, want)
	}
	if r8.Cycles >= r1.Cycles+1 {
		t.Errorf("out of order took %d cycles, in order %d", r8.Cycles, r1.Cycles)
	}
	if r8.Stalls.FalseDep == 0 {
		t.Errorf("no false-dependency stall reported for step 4: %+v", r8.Stalls)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
