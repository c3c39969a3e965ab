package dualflow

import (
	"fmt"
	"math/bits"
	"sync"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
)

// RingRegs is the number of physical ring slots per warp the D-FLOW
// timing names operands with (model.Reg values 0..RingRegs-1). A slot is
// reused RingRegs instructions later; a write to a slot whose previous
// value is still pending waits (the ring is full), which the model
// reports as a false-dependency stall.
const RingRegs = 1024

// maxWindow bounds Options.Window for D-FLOW (the Inst ring below).
const maxWindow = 32

// table is the static view of one kernel's Light encoding.
type table struct {
	prog  *Program
	enc   *Encoded
	code  []*model.Inst // lowered instructions by PC
	first []int32       // flat -> first PC
	npc   []int32       // flat -> number of PCs
	main  []int32       // flat -> PC of its main instruction
	srcs  [][]int32     // flat -> source register indices (deduplicated)
	defs  [][]int32     // flat -> destination register indices
	start []bool        // flat -> starts a segment (a block boundary)
	stop  []bool        // flat -> the window ends after it
	nregs int
	plain bool // the program's own registers name operands; PC = flat
}

// plainTable is the table of a program issued out of order as it is:
// every instruction its own entry, operands named by its registers (so
// WAR/WAW between window entries block reordering).
func plainTable(f *Func, code []*model.Inst) (*table, error) {
	if len(code) != len(f.Insts) {
		return nil, fmt.Errorf("dualflow: %s: %d lowered instructions, %d parsed", f.Fn.Name, len(code), len(f.Insts))
	}
	n := len(code)
	t := &table{code: code, first: make([]int32, n), npc: make([]int32, n), main: make([]int32, n),
		start: make([]bool, n), stop: make([]bool, n), plain: true}
	for i := range code {
		t.first[i], t.npc[i], t.main[i] = int32(i), 1, int32(i)
		t.stop[i] = isTerminator(f.Insts[i].In) || !reorderable(code[i])
	}
	for _, b := range f.CFG.Blocks {
		if len(b.Insts) > 0 {
			t.start[b.First] = true
		}
	}
	return t, nil
}

func newTable(p *Program, enc *Encoded, code []*model.Inst) (*table, error) {
	if len(code) != len(enc.PCs) {
		return nil, fmt.Errorf("dualflow: %s: %d lowered instructions, encoding has %d", p.Func.Fn.Name, len(code), len(enc.PCs))
	}
	n := len(enc.Flat)
	t := &table{prog: p, enc: enc, code: code, first: make([]int32, n), npc: make([]int32, n), main: make([]int32, n),
		srcs: make([][]int32, n), defs: make([][]int32, n), start: make([]bool, n), stop: make([]bool, n)}
	idx := map[string]int32{}
	for i, r := range p.Func.Regs {
		idx[r] = int32(i)
	}
	t.nregs = len(p.Func.Regs)
	for i := range t.first {
		t.first[i] = -1
	}
	for pc, f := range enc.PCs {
		if f < 0 {
			return nil, fmt.Errorf("dualflow: %s: PC %d belongs to no instruction (ring encoding?)", p.Func.Fn.Name, pc)
		}
		if t.first[f] < 0 {
			t.first[f] = int32(pc)
		}
		if int(t.first[f])+int(t.npc[f]) != pc {
			return nil, fmt.Errorf("dualflow: %s: instruction %d is not contiguous", p.Func.Fn.Name, f)
		}
		t.npc[f]++
		if enc.Main[pc] {
			t.main[f] = int32(pc)
		}
	}
	f := 0
	for _, s := range p.Segs {
		for j := range s.Insts {
			di := enc.Flat[f]
			t.start[f] = j == 0
			seen := map[string]bool{}
			for _, s := range di.Srcs {
				if !seen[s.Reg] {
					seen[s.Reg] = true
					t.srcs[f] = append(t.srcs[f], idx[s.Reg])
				}
			}
			for _, r := range di.Defs {
				t.defs[f] = append(t.defs[f], idx[r])
			}
			in := code[t.main[f]]
			t.stop[f] = di.Kind == KBra || di.Kind == KRet || (di.Kind == KInst && isTerminator(di.Inst.In)) || !reorderable(in)
			f++
		}
	}
	return t, nil
}

// reorderable mirrors the model's rule (model.Reorderable's doc).
func reorderable(in *model.Inst) bool {
	if in.Clock || in.Stamp != model.StampNone {
		return false
	}
	switch in.Class {
	case model.ClassInt, model.ClassFP32, model.ClassFP64, model.ClassSFU, model.ClassConv, model.ClassMisc:
		return true
	case model.ClassLdSt:
		return in.Mem == model.MemLoad || in.Mem == model.MemStore
	}
	return false
}

// Counts are dynamic counts of a D-FLOW run: thread-instructions per kind
// and warp-level issues per Dualflow instruction (for distance
// statistics). The model's SMs count into their own parts; finish sums
// them into the exported fields after the run.
type Counts struct {
	mu      sync.Mutex
	parts   []*part
	Threads [numKinds]uint64
	Warps   [numKinds]uint64
	// PerInst: kernel name -> warp-level issues per flat instruction.
	PerInst map[string][]uint64
	Progs   map[string]*Program
	Flat    map[string][]*DInst
}

// part is what the warps of one SM count during one launch.
type part struct {
	name           string
	t              *table
	threads, warps [numKinds]uint64
	per            []uint64
}

func (c *Counts) newPart(name string, t *table) *part {
	p := &part{name: name, t: t, per: make([]uint64, len(t.enc.Flat))}
	c.mu.Lock()
	c.parts = append(c.parts, p)
	c.mu.Unlock()
	return p
}

// finish sums the parts into the exported fields (after the runs).
func (c *Counts) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Threads, c.Warps = [numKinds]uint64{}, [numKinds]uint64{}
	c.PerInst, c.Progs, c.Flat = map[string][]uint64{}, map[string]*Program{}, map[string][]*DInst{}
	for _, p := range c.parts {
		for k := range c.Threads {
			c.Threads[k] += p.threads[k]
			c.Warps[k] += p.warps[k]
		}
		acc := c.PerInst[p.name]
		if acc == nil {
			acc = make([]uint64, len(p.per))
			c.PerInst[p.name] = acc
			c.Progs[p.name] = p.t.prog
			c.Flat[p.name] = p.t.enc.Flat
		}
		for i, v := range p.per {
			acc[i] += v
		}
	}
}

// dfKernel presents a replay kernel running a Light encoding to the model
// as a D-FLOW kernel.
type dfKernel struct {
	model.Kernel
	name   string
	t      *table
	counts *Counts
	bySM   []*part // NewCTA runs in the model's serial phases only
}

func (k *dfKernel) ConcurrentIssue() bool {
	ck, ok := k.Kernel.(model.ConcurrentKernel)
	return ok && ck.ConcurrentIssue()
}

func (k *dfKernel) NewCTA(i int, sm int) (model.CTA, error) {
	c, err := k.Kernel.NewCTA(i, sm)
	if err != nil {
		return nil, err
	}
	var p *part
	if k.counts != nil && !k.t.plain {
		for len(k.bySM) <= sm {
			k.bySM = append(k.bySM, nil)
		}
		if k.bySM[sm] == nil {
			k.bySM[sm] = k.counts.newPart(k.name, k.t)
		}
		p = k.bySM[sm]
	}
	return &dfCTA{c: c, k: k, p: p}, nil
}

type dfCTA struct {
	c model.CTA
	k *dfKernel
	p *part // nil: not counted
}

func (c *dfCTA) Warps() []model.Warp {
	ws := c.c.Warps()
	out := make([]model.Warp, len(ws))
	for i, w := range ws {
		dw := &dfWarp{inner: w, t: c.k.t, k: c.k, p: c.p, last: make([]int32, c.k.t.nregs)}
		for j := range dw.last {
			dw.last[j] = -1
		}
		out[i] = dw
	}
	return out
}

type entry struct {
	f     int32
	in    *model.Inst
	done  bool
	eff   model.Effect // Addr is kept in addr[:naddr] (entries move)
	addr  [32]uint64
	naddr int
}

// dfWarp is one warp of a D-FLOW kernel: it names operands by ring slot
// (true dependencies only) and lets the model issue its window out of
// order while executing the inner warp strictly in program order.
type dfWarp struct {
	inner model.Warp
	t     *table
	k     *dfKernel
	rp    uint32
	last  []int32 // register index -> ring slot of its latest copy
	ents  []entry
	// free holds non-memory instruction views for reuse; the view of the
	// last issued one is recycled at the next IssueAt (the model is done
	// with it by then). Memory views are never reused: the model keeps
	// them until the access completes.
	free    []*model.Inst
	recycle *model.Inst
	p       *part // counts, nil for none
	exited  bool
	out     model.Effect // the last IssueAt's effect (valid until the next)
	outAddr [32]uint64
}

func (w *dfWarp) ID() int { return w.inner.ID() }

// nextFlat is the instruction that follows the window, or -1 when it is
// not known without executing.
func (w *dfWarp) nextFlat() int32 {
	if n := len(w.ents); n > 0 && !w.ents[n-1].done {
		e := w.ents[n-1].f
		if w.t.stop[e] || int(e)+1 >= len(w.t.stop) || w.t.start[e+1] {
			return -1
		}
		return e + 1
	}
	if w.exited {
		return -1
	}
	in := w.inner.Peek()
	if in == nil {
		return -1
	}
	if w.t.plain {
		return int32(in.PC)
	}
	return int32(w.t.enc.PCs[in.PC])
}

func (w *dfWarp) fill(n int) {
	for len(w.ents) < n {
		if m := len(w.ents); m > 0 && w.t.stop[w.ents[m-1].f] {
			return
		}
		f := w.nextFlat()
		if f < 0 {
			return
		}
		w.ents = append(w.ents, entry{f: f, in: w.name(f)})
	}
}

// view is an instruction view with its operand storage.
type view struct {
	in       model.Inst
	src, dst [4]model.Reg
}

// name builds the timing view of instruction f: the main instruction's
// class and memory kind, sources named by the ring slots of their latest
// copies and destinations by fresh slots.
func (w *dfWarp) name(f int32) *model.Inst {
	tmpl := w.t.code[w.t.main[f]]
	if w.t.plain {
		return tmpl
	}
	var in *model.Inst
	var src, dst []model.Reg
	if n := len(w.free); n > 0 && tmpl.Class != model.ClassLdSt {
		in = w.free[n-1]
		w.free = w.free[:n-1]
		src, dst = in.Src[:0], in.Dst[:0]
	} else {
		// a fresh view with room for its operands in one allocation (the
		// model keeps memory instructions until they complete: never reused)
		v := &view{}
		in, src, dst = &v.in, v.src[:0], v.dst[:0]
	}
	*in = *tmpl
	for _, r := range w.t.srcs[f] {
		if s := w.last[r]; s >= 0 {
			src = append(src, model.Reg(s))
		}
	}
	for i, r := range w.t.defs[f] {
		s := int32((w.rp + uint32(i)) % RingRegs)
		dst = append(dst, model.Reg(s))
		w.last[r] = s
	}
	w.rp += uint32(max(1, len(w.t.defs[f])))
	in.Src, in.Dst = src, dst
	return in
}

func (w *dfWarp) Peek() *model.Inst {
	w.fill(1)
	if len(w.ents) == 0 {
		return nil
	}
	return w.ents[0].in
}

func (w *dfWarp) Window(buf []*model.Inst, n int) []*model.Inst {
	n = min(n, maxWindow)
	w.fill(n)
	for i := range w.ents {
		if i >= n {
			break
		}
		buf = append(buf, w.ents[i].in)
	}
	return buf
}

func (w *dfWarp) Issue(c model.Clocks) (*model.Effect, error) { return w.IssueAt(0, c) }

// exec executes entry e's instructions on the inner warp and keeps the
// main one's effect.
func (w *dfWarp) exec(e *entry, c model.Clocks) error {
	t := w.t
	for pc := t.first[e.f]; pc < t.first[e.f]+t.npc[e.f]; pc++ {
		in := w.inner.Peek()
		if in == nil || in.PC != int(pc) {
			got := -1
			if in != nil {
				got = in.PC
			}
			return fmt.Errorf("dualflow: warp %d is at PC %d, its window predicted PC %d", w.inner.ID(), got, pc)
		}
		eff, err := w.inner.Issue(c)
		if err != nil {
			return err
		}
		if pc == t.main[e.f] {
			e.eff, e.naddr = model.Effect{}, -1
			if eff != nil {
				e.eff = *eff
				e.eff.Addr, e.naddr = nil, -1
				if eff.Addr != nil {
					e.naddr = copy(e.addr[:], eff.Addr)
				}
				if eff.Texels != nil && pc != t.first[e.f]+t.npc[e.f]-1 {
					return fmt.Errorf("dualflow: texture fetch inside an expanded instruction")
				}
			}
		}
		if eff != nil && eff.Exited {
			w.exited = true
			e.eff.Exited = true
		}
	}
	e.done = true
	if p := w.p; p != nil {
		kind := t.enc.Flat[e.f].Kind
		p.threads[kind] += uint64(bits.OnesCount32(e.eff.Active))
		p.warps[kind]++
		p.per[e.f]++
	}
	return nil
}

func (w *dfWarp) IssueAt(k int, c model.Clocks) (*model.Effect, error) {
	if w.recycle != nil {
		w.free = append(w.free, w.recycle)
		w.recycle = nil
	}
	w.fill(k + 1)
	if k >= len(w.ents) {
		return nil, fmt.Errorf("dualflow: issue of window entry %d of %d", k, len(w.ents))
	}
	for j := 0; j <= k; j++ {
		if !w.ents[j].done {
			if err := w.exec(&w.ents[j], c); err != nil {
				return nil, err
			}
		}
	}
	e := &w.ents[k]
	if !w.t.plain && e.in.Class != model.ClassLdSt {
		w.recycle = e.in
	}
	w.out = e.eff
	if e.naddr >= 0 {
		w.outAddr = e.addr
		w.out.Addr = w.outAddr[:e.naddr]
	}
	copy(w.ents[k:], w.ents[k+1:])
	w.ents = w.ents[:len(w.ents)-1]
	return &w.out, nil
}

// plainWrapper returns a model.Options.Wrap that issues the kernels of
// file (as parsed) out of order with their own register names.
func plainWrapper(funcs map[string]*Func, errp *error) func(model.Kernel) model.Kernel {
	return tableWrapper(nil, errp, func(name string, code []*model.Inst) (*table, error) {
		f := funcs[name]
		if f == nil {
			return nil, fmt.Errorf("dualflow: no function %s", name)
		}
		return plainTable(f, code)
	})
}

// wrapper returns a model.Options.Wrap that runs kernels as D-FLOW using
// the Light encodings in encs.
func wrapper(progs map[string]*Program, encs map[string]*Encoded, counts *Counts, errp *error) func(model.Kernel) model.Kernel {
	return tableWrapper(counts, errp, func(name string, code []*model.Inst) (*table, error) {
		p, e := progs[name], encs[name]
		if p == nil {
			return nil, fmt.Errorf("dualflow: no Dualflow program for %s", name)
		}
		return newTable(p, e, code)
	})
}

// tableWrapper returns a model.Options.Wrap that issues each replay kernel
// through the table build makes for its function (once per function name),
// counting into counts (nil: not counted). The first failure is stored in
// *errp and leaves the kernel unwrapped.
func tableWrapper(counts *Counts, errp *error, build func(name string, code []*model.Inst) (*table, error)) func(model.Kernel) model.Kernel {
	tabs := map[string]*table{}
	return func(k model.Kernel) model.Kernel {
		rk, ok := k.(*replay.Kernel)
		if !ok {
			*errp = fmt.Errorf("dualflow: kernel is not a replay kernel")
			return k
		}
		name := rk.Code().Name
		t := tabs[name]
		if t == nil {
			var err error
			if t, err = build(name, rk.Code().Insts()); err != nil {
				*errp = err
				return k
			}
			tabs[name] = t
		}
		return &dfKernel{Kernel: k, name: name, t: t, counts: counts}
	}
}
