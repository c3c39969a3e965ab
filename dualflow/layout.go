package dualflow

import "github.com/ptxtrace/ptxtrace/ptx"

// Join layouts. A join's layout says at which distance from its entry each
// live-in arrives; every incoming edge delivers exactly that layout with
// the fewest instructions edgeLen finds (values already at the right
// distance are left alone, the others get one mov each, gaps a nop).
//
// The canonical layout (the seed's Fig. 7) puts the k live-ins, in
// declaration order, at distances k+1 … 2 and leaves distance 1 for the
// branch (or a nop). Convert starts from it and then derives each join's
// layout from its primary edge, the edge that should get no code:
//
//   - a back edge when there is one (it runs once per iteration; the
//     entry edge once per loop), else the incoming edge from the longest
//     predecessor block, so the movs go to the shorter path;
//   - on that edge every live-in keeps the distance it arrives at
//     (shifted by the movs below), except the ones it cannot deliver in
//     place, which it moves right before its branch: values undefined on
//     it and, on a back edge, values the loop never redefines (their
//     distance grows by the loop body every iteration, so no fixed layout
//     holds them without a copy);
//   - when another edge ends with a branch and the primary falls through,
//     distance 1 is left to a nop (a branch slot cannot hold a value).
//
// Only values live into the join are placed (a value not read after the
// join needs nothing), each gets at most one mov per edge however many
// readers it has, and the derived layouts are re-derived from the new
// program until they stop changing (at most four passes); Convert keeps
// the pass with the fewest inserted instructions, each weighted 8^depth of
// the loop nest it sits in.

// arrival is what one incoming edge of a join delivers before its edge code.
type arrival struct {
	from int            // predecessor block (-1: the function entry)
	t    int            // slots after the edge code on this edge (1: its branch)
	nat  map[string]int // live-in -> distance from the join's entry without edge code
	// cond: a conditional forward edge; nat is then what it delivers
	// branching straight to the join, and code on it is split off
	// (the branch, the code, a bra.uni)
	cond bool
}

func canonicalLayouts(f *Func) map[int]map[string]int {
	p := &Program{JoinLive: map[int][]string{}}
	joinBlocks(f, p)
	out := map[int]map[string]int{}
	for j, live := range p.JoinLive {
		m := map[string]int{}
		for i, r := range live {
			m[r] = len(live) + 1 - i
		}
		out[j] = m
	}
	return out
}

func sameLayout(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for r, l := range a {
		if b[r] != l {
			return false
		}
	}
	return true
}

// loopInfo holds the natural loops of a function's CFG (back edges are
// edges to a block not later in reverse post-order).
type loopInfo struct {
	f     *Func
	order map[int]int // block -> reverse post-order index
	depth []int       // block -> number of natural loops containing it
	// prof, when set, holds thread-executions per instruction of f
	// (ConvertProfiled): weights come from it instead of the loop depth.
	prof []uint64
}

func newLoopInfo(f *Func) *loopInfo {
	l := &loopInfo{f: f, order: map[int]int{}, depth: make([]int, len(f.CFG.Blocks))}
	for i, b := range rpo(f.CFG) {
		l.order[b.Index] = i
	}
	for _, b := range f.CFG.Blocks {
		for _, e := range b.Succs {
			if l.back(b.Index, e.Block.Index) {
				for bi := range l.body(e.Block.Index, b.Index) {
					l.depth[bi]++
				}
			}
		}
	}
	return l
}

// back reports whether from -> to is a back edge.
func (l *loopInfo) back(from, to int) bool {
	of, ok1 := l.order[from]
	ot, ok2 := l.order[to]
	return ok1 && ok2 && ot <= of
}

// body is the natural loop of the back edge latch -> head: head and every
// block that reaches latch without passing through head.
func (l *loopInfo) body(head, latch int) map[int]bool {
	in := map[int]bool{head: true}
	stack := []int{latch}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if in[b] {
			continue
		}
		in[b] = true
		for _, e := range l.f.CFG.Blocks[b].Preds {
			if e.Block.Reachable && !in[e.Block.Index] {
				stack = append(stack, e.Block.Index)
			}
		}
	}
	return in
}

// defsIn returns the registers some instruction of blocks defines.
func (l *loopInfo) defsIn(blocks map[int]bool) map[string]bool {
	out := map[string]bool{}
	for _, it := range l.f.Insts {
		if blocks[it.Block] {
			for _, r := range it.Defs {
				out[r] = true
			}
		}
	}
	return out
}

// static is 8^(loop depth of block b), a static estimate of how often
// code in b runs.
func (l *loopInfo) static(b int) int {
	w := 1
	for range min(l.depth[b], 6) {
		w *= 8
	}
	return w
}

// count is how many thread-executions block b had in the profile.
func (l *loopInfo) count(b int) int {
	bb := l.f.CFG.Blocks[b]
	if len(bb.Insts) == 0 || bb.First >= len(l.prof) {
		return 0
	}
	return int(l.prof[bb.First])
}

// onlyPred reports whether a is the only reachable predecessor of b.
func (l *loopInfo) onlyPred(a, b int) bool {
	for _, e := range l.f.CFG.Blocks[b].Preds {
		if e.Block.Reachable && e.Block.Index != a {
			return false
		}
	}
	return true
}

// blockWeight weighs code that runs whenever block b runs.
func (l *loopInfo) blockWeight(b int) int {
	if l.prof == nil {
		return l.static(b)
	}
	return 64*l.count(b) + 1
}

// splitWeight weighs the split-off code of the conditional forward edge
// from b: with a profile, the threads that did not fall through (b's
// count minus its fall-through successor's, when b is that block's only
// predecessor).
func (l *loopInfo) splitWeight(b int) int {
	if l.prof == nil {
		return l.static(b)
	}
	n := l.count(b)
	for _, e := range l.f.CFG.Blocks[b].Succs {
		if e.Kind == ptx.EdgeFallthrough && e.Block != l.f.CFG.Exit && l.onlyPred(b, e.Block.Index) {
			n -= l.count(e.Block.Index)
		}
	}
	return 64*max(n, 0) + 1
}

// fallWeight weighs the code of b's fall-through edge into join j: with a
// profile, b's count minus the threads its conditional branch took
// elsewhere (when the target has b as its only predecessor).
func (l *loopInfo) fallWeight(b, j int) int {
	if l.prof == nil {
		return l.static(b)
	}
	n := l.count(b)
	for _, e := range l.f.CFG.Blocks[b].Succs {
		if e.Kind == ptx.EdgeTaken && e.Block.Index != j && e.Block != l.f.CFG.Exit && l.onlyPred(b, e.Block.Index) {
			n -= l.count(e.Block.Index)
		}
	}
	return 64*max(n, 0) + 1
}

// segWeight weighs the instructions of segment s.
func (l *loopInfo) segWeight(s *Segment) int {
	switch {
	case s.Edge:
		return l.splitWeight(s.Block)
	case s.FallTo >= 0 && s.FallTo != s.Block:
		return l.fallWeight(s.Block, s.FallTo)
	}
	return l.blockWeight(s.Block)
}

// arrivalWeight weighs the code of the edge a into join j.
func (l *loopInfo) arrivalWeight(a arrival, j int) int {
	switch {
	case a.from < 0:
		// the function's entry: once per thread
		if l.prof == nil || len(l.prof) == 0 {
			return 1
		}
		return 64*int(l.prof[0]) + 1
	case a.cond:
		return l.splitWeight(a.from)
	case a.t == 0:
		return l.fallWeight(a.from, j)
	}
	return l.blockWeight(a.from)
}

// cost is p's inserted instructions, each weighted by how often its
// segment runs (segWeight): statically 8^(loop depth), with a profile the
// thread-executions.
func (l *loopInfo) cost(p *Program) int {
	n := 0
	for _, s := range p.Segs {
		w := l.segWeight(s)
		for i := range s.Insts {
			if s.Insts[i].Kind != KInst {
				n += w
			}
		}
	}
	return n
}

// deriveLayout returns the layout join j should try next: among the
// candidates (the current one; for every incoming edge as primary, its
// minimal and its extended moved set, each with the fewest nops a branch
// slot needs and up to two more), the one whose edges need the fewest
// instructions (natLen, plus the bra.uni of a split edge) for what they
// delivered in p, weighted 8^depth of their predecessor; ties keep the
// earlier candidate.
func deriveLayout(f *Func, p *Program, j int, lay map[string]int, l *loopInfo) map[string]int {
	arrs := append([]arrival(nil), p.arrivals[j]...)
	if len(arrs) == 0 {
		return lay
	}
	T := 0
	for i, a := range arrs {
		T = max(T, a.t)
		if a.from >= 0 && l.back(a.from, j) {
			// values the loop does not redefine arrive one body later
			// every iteration: never in place
			keep := l.defsIn(l.body(j, a.from))
			nat := map[string]int{}
			for r, d := range a.nat {
				if keep[r] {
					nat[r] = d
				}
			}
			arrs[i].nat = nat
		}
	}
	score := func(lay map[string]int) int {
		n := 0
		for _, a := range arrs {
			w := l.arrivalWeight(a, j)
			m := natLen(lay, a)
			if a.cond && m > 0 {
				// split: the branch, the edge code, a bra.uni
				s := arrival{t: 1, nat: map[string]int{}}
				for r, d := range a.nat {
					s.nat[r] = d + 1
				}
				m = natLen(lay, s) + 1
			}
			n += w * m
		}
		return n
	}
	best, bestScore := lay, score(lay)
	live := p.JoinLive[j]
	for pi, a := range arrs {
		if a.from < 0 {
			continue
		}
		for _, moved := range movedSets(live, arrs, pi) {
			for pad := T - a.t; pad <= T-a.t+2; pad++ {
				m := map[string]int{}
				for i, r := range moved {
					m[r] = a.t + pad + len(moved) - i
				}
				for _, r := range live {
					if _, ok := m[r]; !ok {
						m[r] = a.nat[r] + pad + len(moved)
					}
				}
				if sc := score(m); sc < bestScore {
					best, bestScore = m, sc
				}
			}
		}
	}
	return best
}

// movedSets returns the candidate sets of live-ins the primary edge arrs[pi]
// moves next to the join: the minimal one (what it does not deliver) and
// the extended one (also every value some other edge delivers at another
// offset than most of its values), in live order.
func movedSets(live []string, arrs []arrival, pi int) [][]string {
	a := arrs[pi]
	var minimal, ext []string
	for _, r := range live {
		if _, ok := a.nat[r]; !ok {
			minimal = append(minimal, r)
			ext = append(ext, r)
			continue
		}
		for ei, e := range arrs {
			if ei == pi {
				continue
			}
			if d, ok := e.nat[r]; !ok || d-a.nat[r] != modeShift(live, a, e) {
				ext = append(ext, r)
				break
			}
		}
	}
	return [][]string{minimal, ext}
}

// modeShift is the most frequent difference between e's and a's distances
// of the live-ins both deliver (the smallest on ties).
func modeShift(live []string, a, e arrival) int {
	cnt := map[int]int{}
	best, bn := 0, 0
	for _, r := range live {
		x, ok1 := a.nat[r]
		y, ok2 := e.nat[r]
		if !ok1 || !ok2 {
			continue
		}
		d := y - x
		cnt[d]++
		if cnt[d] > bn || (cnt[d] == bn && d < best) {
			best, bn = d, cnt[d]
		}
	}
	return best
}

// natLen is edgeLen for an edge that delivers a.nat: the fewest
// instructions that put every live-in where lay wants it.
func natLen(lay map[string]int, a arrival) int {
	maxL := 0
	for _, l := range lay {
		maxL = max(maxL, l)
	}
	for m := 0; m+a.t < maxL; m++ {
		ok := true
		for r, l := range lay {
			if l > m+a.t {
				if n, def := a.nat[r]; !def || n+m != l {
					ok = false
					break
				}
			}
		}
		if ok {
			return m
		}
	}
	return max(0, maxL-a.t)
}

func blockLen(f *Func, b int) int {
	return len(f.CFG.Blocks[b].Insts)
}
