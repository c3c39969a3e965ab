package dualflow

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync/atomic"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

// Spilling, as ptxas does it: a spilled register lives in a per-thread
// .local slot (8 bytes each, array SpillArray); every instruction that
// reads it is preceded by a reload into a fresh temporary, every
// instruction that writes it is followed by a spill store from that
// temporary (a guarded definition also reads the register, so its
// temporary is reloaded first and a predicated-off lane stores back the
// old value). The temporaries live from the reload to the instruction and
// from the instruction to the store, so they hardly add pressure.
//
// Victim rule: at the first program point (in source order) of maximal
// live pressure, among the registers live across it that are not
// predicates, not already spilled and not spill temporaries, the one whose
// next use is furthest away along the CFG (Belady's rule, as linear-scan
// allocators use it); ties go to the wider class, then declaration order.
// Registers defined or read by the instructions at the point are not
// candidates (spilling them would not lower the pressure there). After
// each spill the function is rewritten from the original with all spills
// so far, re-analysed and coloured again; the first colouring within N
// wins. Every spill lowers the count of original registers, so the loop
// ends; when no candidate is left the budget is refused.

// SpillArray is the name of the .local array that holds spilled registers.
const SpillArray = "__ptxtrace_spill"

// spillTemp is the prefix of the temporaries spill code uses.
const spillTemp = "%__rs"

// spillUntilFits spills registers of f until the colouring fits limit.
func spillUntilFits(f *Func, first *Allocation, limit int) (*Allocation, error) {
	if strings.Contains(string(f.File.Src), SpillArray) || strings.Contains(string(f.File.Src), spillTemp) {
		return nil, fmt.Errorf("%s: %s: names %s/%s are taken; cannot spill", f.File.Name, f.Fn.Name, SpillArray, spillTemp)
	}
	var spilled []string
	cur := f
	for {
		v := spillVictim(cur, spilled)
		if v == "" {
			return nil, fmt.Errorf("%s: %s needs %d 32-bit registers (%d b16, %d b32, %d b64) and more than N=%d even with every register spilled",
				f.File.Name, f.Fn.Name, first.Words, first.Count[Class16], first.Count[Class32], first.Count[Class64], limit)
		}
		spilled = append(spilled, v)
		g, st, rl, err := spillFunc(f, spilled)
		if err != nil {
			return nil, err
		}
		a := colourFunc(g, limit)
		a.Orig, a.Unspilled = f, first.Words
		a.Spilled = append([]string(nil), spilled...)
		a.Stores, a.Reloads = st, rl
		if a.Words <= limit {
			return a, nil
		}
		cur = g
	}
}

// spillVictim chooses the next register of f to spill (the rule above), or
// "" when none is left.
func spillVictim(f *Func, spilled []string) string {
	nu := nextUses(f)
	isSpilled := map[string]bool{}
	for _, r := range spilled {
		isSpilled[r] = true
	}
	best, bestWords := "", -1
	var bestCands map[string]int
	for bi := range f.CFG.Blocks {
		insts := f.blockInsts(bi)
		live := copySet(f.LiveOut[bi])
		// walk backwards, recording the pressure just after each instruction
		type point struct {
			words int
			live  map[string]bool
		}
		pts := make([]point, len(insts))
		for i := len(insts) - 1; i >= 0; i-- {
			it := insts[i]
			all := copySet(live)
			for _, d := range it.Defs {
				all[d] = true
			}
			pts[i] = point{words: setWords(f, all), live: copySet(live)}
			for _, d := range it.Defs {
				delete(live, d)
			}
			for _, u := range it.Uses {
				live[u] = true
			}
		}
		for i, pt := range pts {
			if pt.words <= bestWords {
				continue
			}
			cands := map[string]int{}
			for r := range pt.live {
				if f.Class(r) == ClassPred || isSpilled[r] || strings.HasPrefix(r, spillTemp) ||
					contains(insts[i].Defs, r) || contains(insts[i].Uses, r) ||
					(i+1 < len(insts) && contains(insts[i+1].Uses, r)) {
					continue
				}
				cands[r] = nextUseAfter(f, nu, bi, i, r)
			}
			if len(cands) == 0 {
				continue
			}
			bestWords, bestCands = pt.words, cands
		}
	}
	far := -1
	for _, r := range f.Regs { // declaration order breaks the remaining ties
		d, ok := bestCands[r]
		if !ok {
			continue
		}
		if d > far || (d == far && f.Class(r) > f.Class(best)) {
			best, far = r, d
		}
	}
	return best
}

func copySet(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m))
	for r := range m {
		c[r] = true
	}
	return c
}

func setWords(f *Func, m map[string]bool) int {
	n := 0
	for r := range m {
		n += f.Class(r).words()
	}
	return n
}

// nextUses returns per block the distance in instructions from its entry
// to the nearest use of each register along any path (absent: no use
// before a redefinition or the end), by a backward fixed point.
func nextUses(f *Func) []map[string]int {
	n := len(f.CFG.Blocks)
	in := make([]map[string]int, n)
	for i := range in {
		in[i] = map[string]int{}
	}
	for changed := true; changed; {
		changed = false
		for bi := n - 1; bi >= 0; bi-- {
			insts := f.blockInsts(bi)
			m := map[string]int{}
			for _, e := range f.CFG.Blocks[bi].Succs {
				for r, d := range in[e.Block.Index] {
					if old, ok := m[r]; !ok || d+len(insts) < old {
						m[r] = d + len(insts)
					}
				}
			}
			for i := len(insts) - 1; i >= 0; i-- {
				for _, r := range insts[i].Defs {
					delete(m, r)
				}
				for _, r := range insts[i].Uses {
					m[r] = i
				}
			}
			for r, d := range m {
				if old, ok := in[bi][r]; !ok || d < old {
					in[bi][r] = d
					changed = true
				}
			}
		}
	}
	return in
}

// nextUseAfter is the distance from just after instruction i of block bi to
// the next use of r (math.MaxInt32 for none).
func nextUseAfter(f *Func, nu []map[string]int, bi, i int, r string) int {
	insts := f.blockInsts(bi)
	for j := i + 1; j < len(insts); j++ {
		if contains(insts[j].Uses, r) {
			return j - i
		}
		if contains(insts[j].Defs, r) {
			return math.MaxInt32
		}
	}
	best := math.MaxInt32
	for _, e := range f.CFG.Blocks[bi].Succs {
		if d, ok := nu[e.Block.Index][r]; ok {
			best = min(best, len(insts)-i+d)
		}
	}
	return best
}

// spillFunc rewrites f with the registers in spilled held in local memory
// and returns the re-analysed function and the static store/reload counts.
func spillFunc(f *Func, spilled []string) (*Func, int, int, error) {
	slot := map[string]int{}
	for i, r := range spilled {
		slot[r] = i
	}
	var decls strings.Builder
	for _, r := range f.Regs {
		if _, ok := slot[r]; !ok {
			fmt.Fprintf(&decls, "\t.reg %s \t%s;\n", regTypeName(f.RegType[r]), r)
		}
	}
	byIn := map[*ptx.Instruction]*Inst{}
	for _, it := range f.Insts {
		byIn[it.In] = it
	}
	var body strings.Builder
	stores, reloads, ntemp := 0, 0, 0
	text := f.rewriteBody("", func(in *ptx.Instruction, text string) string {
		it := byIn[in]
		if it == nil {
			return text
		}
		ren := map[string]string{}
		var pre, post []string
		temp := func(r string) string {
			if t, ok := ren[r]; ok {
				return t
			}
			t := fmt.Sprintf("%s%d", spillTemp, ntemp)
			ntemp++
			ren[r] = t
			fmt.Fprintf(&body, "\t.reg %s \t%s;\n", regTypeName(f.RegType[r]), t)
			return t
		}
		for _, r := range it.Uses {
			if s, ok := slot[r]; ok {
				pre = append(pre, fmt.Sprintf("ld.local%s \t%s, [%s+%d];", regTypeName(f.RegType[r]), temp(r), SpillArray, 8*s))
				reloads++
			}
		}
		for _, r := range it.Defs {
			if s, ok := slot[r]; ok {
				post = append(post, fmt.Sprintf("\tst.local%s \t[%s+%d], %s;", regTypeName(f.RegType[r]), SpillArray, 8*s, temp(r)))
				stores++
			}
		}
		if len(ren) == 0 {
			return text
		}
		text = renameRegs(text, func(r string) (string, bool) {
			t, ok := ren[r]
			return t, ok
		})
		out := strings.Join(append(pre, text), "\n\t")
		if len(post) > 0 {
			out += "\n" + strings.Join(post, "\n")
		}
		return out
	})
	// the declarations go right after the function's opening brace
	head := fmt.Sprintf("%s\t.local .align 8 .b8 \t%s[%d];\n", decls.String()+body.String(), SpillArray, 8*len(spilled))
	open := strings.Index(text, "{\n")
	text = text[:open+2] + head + text[open+2:]
	src, err := RewriteFile(f.File, func(fn *ptx.Function) (string, error) {
		if fn == f.Fn {
			return text, nil
		}
		return "", nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	file, err := Parse(f.File.Name, []byte(src))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("dualflow: spill code for %s does not parse: %v", f.Fn.Name, err)
	}
	for _, fn := range file.Functions() {
		if fn.Name == f.Fn.Name && fn.Body != nil {
			g, err := Analyze(file, fn)
			return g, stores, reloads, err
		}
	}
	return nil, 0, 0, fmt.Errorf("dualflow: spill code lost function %s", f.Fn.Name)
}

// spillKinds marks, per instruction of a.Func (its PC once lowered), the
// spill code: 1 for a spill store, 2 for a reload, 0 otherwise.
func (a *Allocation) spillKinds() []int8 {
	ks := make([]int8, len(a.Func.Insts))
	if len(a.Spilled) == 0 {
		return ks
	}
	for i, it := range a.Func.Insts {
		in := it.In
		if in.Op == nil || !strings.Contains(a.Func.srcText(in), SpillArray) {
			continue
		}
		switch in.Op.Name {
		case "st":
			ks[i] = 1
		case "ld":
			ks[i] = 2
		}
	}
	return ks
}

// spillCounter counts the spill stores and reloads a run executes
// (thread-instructions; index 0 stores, 1 reloads), by wrapping every
// kernel's warps (Options.Wrap). Sums are order-independent, so the
// counts do not depend on the model's workers.
type spillCounter struct {
	kinds map[string][]int8 // kernel -> spillKinds
	n     [2]atomic.Uint64
}

func (s *spillCounter) wrap(k model.Kernel) model.Kernel {
	rk, ok := k.(*replay.Kernel)
	if !ok {
		return k
	}
	ks := s.kinds[rk.Code().Name]
	if ks == nil {
		return k
	}
	return &countKernel{Kernel: k, count: func(pc, lanes int) {
		if pc >= 0 && pc < len(ks) && ks[pc] > 0 {
			s.n[ks[pc]-1].Add(uint64(lanes))
		}
	}}
}

// pcCounter counts thread-executions per PC of every kernel of a run (the
// profile ConvertProfiled weighs with). Sums are order-independent.
type pcCounter struct {
	counts map[string][]atomic.Uint64 // kernel -> per PC; built in the model's serial wrap
}

func (p *pcCounter) wrap(k model.Kernel) model.Kernel {
	rk, ok := k.(*replay.Kernel)
	if !ok {
		return k
	}
	name := rk.Code().Name
	c := p.counts[name]
	if c == nil {
		c = make([]atomic.Uint64, len(rk.Code().Insts()))
		p.counts[name] = c
	}
	return &countKernel{Kernel: k, count: func(pc, lanes int) {
		if pc >= 0 && pc < len(c) {
			c[pc].Add(uint64(lanes))
		}
	}}
}

// profile returns the counts of kernel name as plain integers (nil if the
// kernel did not run).
func (p *pcCounter) profile(name string) []uint64 {
	c := p.counts[name]
	if c == nil {
		return nil
	}
	out := make([]uint64, len(c))
	for i := range c {
		out[i] = c[i].Load()
	}
	return out
}

// countKernel wraps a kernel so that every warp instruction issued calls
// count with its PC and active lanes; timing is unchanged.
type countKernel struct {
	model.Kernel
	count func(pc, lanes int)
}

func (k *countKernel) ConcurrentIssue() bool {
	ck, ok := k.Kernel.(model.ConcurrentKernel)
	return ok && ck.ConcurrentIssue()
}

func (k *countKernel) NewCTA(i, sm int) (model.CTA, error) {
	c, err := k.Kernel.NewCTA(i, sm)
	if err != nil {
		return nil, err
	}
	return &countCTA{CTA: c, k: k}, nil
}

type countCTA struct {
	model.CTA
	k *countKernel
}

func (c *countCTA) Release() {
	if r, ok := c.CTA.(model.Releaser); ok {
		r.Release()
	}
}

func (c *countCTA) Warps() []model.Warp {
	ws := c.CTA.Warps()
	out := make([]model.Warp, len(ws))
	for i, w := range ws {
		out[i] = &countWarp{Warp: w, k: c.k}
	}
	return out
}

type countWarp struct {
	model.Warp
	k *countKernel
}

func (w *countWarp) Window(buf []*model.Inst, n int) []*model.Inst {
	return model.Window(w.Warp, buf, n)
}

func (w *countWarp) Issue(c model.Clocks) (*model.Effect, error) {
	pc := -1
	if in := w.Warp.Peek(); in != nil {
		pc = in.PC
	}
	eff, err := w.Warp.Issue(c)
	if eff != nil {
		w.k.count(pc, bits.OnesCount32(eff.Active))
	}
	return eff, err
}
