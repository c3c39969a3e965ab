package model

import (
	"errors"
	"math/bits"
)

// This file holds synthetic Kernel/CTA/Warp implementations: a program is a
// list of steps every warp runs in order; a step's addresses come from a
// function of (CTA, warp, lane).

type step struct {
	in     *Inst
	addr   func(cta, warp, lane int) uint64 // memory steps
	active uint32                           // 0: the warp's lanes
	texels func(cta, warp, lane int) []Texel
	tex    TexInfo
	bar    bool
	off    bool // predicated off in every lane
	fault  bool
}

type fakeKernel struct {
	ctas, threads, regs, shared int
	prog                        []step
	progOf                      func(cta, warp int) []step // overrides prog
	concurrent                  bool
	norecord                    bool        // do not record issue and clock cycles (benchmarks)
	made                        []*fakeWarp // every warp created, in NewCTA order
}

func (k *fakeKernel) NumCTAs() int          { return k.ctas }
func (k *fakeKernel) ThreadsPerCTA() int    { return k.threads }
func (k *fakeKernel) RegsPerThread() int    { return k.regs }
func (k *fakeKernel) SharedPerCTA() int     { return k.shared }
func (k *fakeKernel) ConcurrentIssue() bool { return k.concurrent }

func (k *fakeKernel) NewCTA(i, sm int) (CTA, error) {
	n := (k.threads + WarpSize - 1) / WarpSize
	c := &fakeCTA{}
	for w := 0; w < n; w++ {
		lanes := k.threads - w*WarpSize
		mask := ^uint32(0)
		if lanes < WarpSize {
			mask = uint32(1)<<uint(lanes) - 1
		}
		prog := k.prog
		if k.progOf != nil {
			prog = k.progOf(i, w)
		}
		fw := &fakeWarp{cta: i, id: w, mask: mask, prog: prog, addr: make([]uint64, WarpSize), record: !k.norecord}
		k.made = append(k.made, fw)
		c.warps = append(c.warps, fw)
	}
	return c, nil
}

type fakeCTA struct{ warps []Warp }

func (c *fakeCTA) Warps() []Warp { return c.warps }

type fakeWarp struct {
	cta, id int
	mask    uint32
	prog    []step
	pc      int
	addr    []uint64
	texels  [][]Texel
	eff     Effect
	record  bool
	clocks  []Time // Clocks.Cycle of each Inst.Clock step
	issues  []Time // issue cycle of every step
}

func (w *fakeWarp) ID() int { return w.id }

func (w *fakeWarp) Peek() *Inst {
	if w.pc >= len(w.prog) {
		return nil
	}
	return w.prog[w.pc].in
}

var errFault = errors.New("fake fault")

func (w *fakeWarp) Issue(c Clocks) (*Effect, error) {
	s := &w.prog[w.pc]
	w.pc++
	if s.fault {
		return nil, errFault
	}
	if w.record {
		w.issues = append(w.issues, c.Cycle)
		if s.in.Clock {
			w.clocks = append(w.clocks, c.Cycle)
		}
	}
	act := w.mask
	if s.active != 0 {
		act &= s.active
	}
	if s.off {
		act = 0
	}
	w.eff = Effect{Active: act, Exited: w.pc >= len(w.prog)}
	if s.addr != nil {
		for m := act; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			w.addr[l] = s.addr(w.cta, w.id, l)
		}
		w.eff.Addr = w.addr
	}
	if s.texels != nil {
		if w.texels == nil {
			w.texels = make([][]Texel, WarpSize)
		}
		for l := 0; l < WarpSize; l++ {
			w.texels[l] = nil
			if act&(1<<uint(l)) != 0 {
				w.texels[l] = s.texels(w.cta, w.id, l)
			}
		}
		w.eff.Texels = w.texels
		w.eff.TexFmt = s.tex
	}
	if s.bar {
		w.eff.Barrier = true
	}
	return &w.eff, nil
}

// Instruction builders.
func alu(c Class, dst []Reg, src ...Reg) *Inst {
	return &Inst{Class: c, Dst: dst, Src: src, Probe: -1}
}

func ld(space Space, dst Reg, src ...Reg) *Inst {
	return &Inst{Class: ClassLdSt, Mem: MemLoad, Space: space, Size: 4, Dst: []Reg{dst}, Src: src, Probe: -1}
}

func st(space Space, src ...Reg) *Inst {
	return &Inst{Class: ClassLdSt, Mem: MemStore, Space: space, Size: 4, Src: src, Probe: -1}
}

func clk(dst Reg) *Inst {
	return &Inst{Class: ClassInt, Dst: []Reg{dst}, Clock: true, Probe: -1}
}

func fence() *Inst { return &Inst{Class: ClassFence, Probe: -1} }

func regs(r ...Reg) []Reg { return r }

// oneWarp is a kernel of one CTA of one warp running prog.
func oneWarp(prog []step) *fakeKernel {
	return &fakeKernel{ctas: 1, threads: WarpSize, regs: 16, prog: prog}
}

// same returns an address function giving every lane address a.
func same(a uint64) func(int, int, int) uint64 {
	return func(int, int, int) uint64 { return a }
}

// strided returns lane*stride + base.
func strided(base, stride uint64) func(int, int, int) uint64 {
	return func(_, _, lane int) uint64 { return base + uint64(lane)*stride }
}
