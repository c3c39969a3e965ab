package dualflow

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Kind is what a Dualflow instruction is.
type Kind uint8

// Dualflow instruction kinds: the original instructions and the ones the
// conversion adds.
const (
	KInst   Kind = iota // an instruction of the original program
	KMov                // copy of a join live-in to its canonical distance
	KNop                // fills a fall-through edge's terminator slot at a join
	KSpill              // stores a register to its spill slot (distance limit)
	KReload             // loads a register from its spill slot
	KInit               // gives a register read before any definition its initial value (0)
	KBra                // ends a split edge: branch to the join (Reg holds its label)
	KRet                // return added where the body fell off its end before split-edge code
	numKinds
)

var kindNames = [...]string{"inst", "mov", "nop", "spill", "reload", "init", "bra", "ret"}

func (k Kind) String() string { return kindNames[k] }

// Src is a source operand: the virtual register it stands for and its
// distance back to the slot holding that register's latest copy.
type Src struct {
	Reg  string
	Dist int
}

// DInst is one Dualflow instruction.
type DInst struct {
	Kind Kind
	Inst *Inst    // KInst: the original instruction
	Reg  string   // other kinds: the register moved, spilled, reloaded or initialised
	Defs []string // values written, to slots RP+0, RP+1, ...
	Srcs []Src    // sources (KInst: in Inst.Uses order)
	Why  string   // inserted instructions: the reason ("join $L__BB0_3")
	// Target, for a conditional branch whose taken edge was split, is the
	// label of the edge code it now branches to.
	Target string
}

// Width is the number of ring slots the instruction takes: one per value
// written, at least one (RP advances for every instruction).
func (d *DInst) Width() int { return max(1, len(d.Defs)) }

// Segment is a straight-line run of the converted program in layout order:
// a basic block, or the fall-through edge code placed after a block's
// conditional branch (FallTo >= 0: executed only on the fall-through path).
type Segment struct {
	Block  int      // CFG block index
	Labels []string // labels at its start
	Insts  []DInst
	FallTo int // block index the fall-through code feeds, or -1
	// Edge marks split-edge code: it is laid out after the function's
	// code, reached only by its branch, and ends with a KBra to the join.
	Edge bool
}

// Program is a function in reverse-Dualflow form.
type Program struct {
	Func      *Func
	D         int // maximum encodable distance, 0 = unlimited
	Segs      []*Segment
	Spilled   []string // registers with a spill slot, declaration order
	SpillSlot map[string]int
	MaxDist   int              // largest distance of any operand
	Static    [numKinds]int    // instructions per kind
	JoinLive  map[int][]string // live-ins of each join block with live-ins, declaration order
	// Layout is, per join block, the distance from its entry at which each
	// live-in arrives (layout.go); every incoming edge delivers it.
	Layout   map[int]map[string]int
	arrivals map[int][]arrival
}

// Convert converts f to reverse-Dualflow form with maximum distance d
// (0: unlimited). Registers whose operands would lie farther than d get a
// spill slot; the conversion is redone until every operand fits. It
// refuses a d too small for some instruction's operands or some join's
// layout. Join layouts start canonical and are then derived from each
// join's primary incoming edge (layout.go); the program with the fewest
// inserted instructions, weighted by loop depth, is returned.
func Convert(f *Func, d int) (*Program, error) { return ConvertProfiled(f, d, nil) }

// ConvertProfiled is Convert with inserted instructions weighted by a
// profile instead of the loop depth: prof holds the thread-executions of
// every instruction of f (index = position in f.Insts), e.g. counted on a
// run of the original program. It only changes where the conversion puts
// its movs and nops (which edge of a join gets them), never what the
// program computes. A prof of the wrong length is refused.
func ConvertProfiled(f *Func, d int, prof []uint64) (*Program, error) {
	if prof != nil && len(prof) != len(f.Insts) {
		return nil, fmt.Errorf("%s: %s: profile has %d instructions, the function %d", f.File.Name, f.Fn.Name, len(prof), len(f.Insts))
	}
	layouts := canonicalLayouts(f)
	lw := newLoopInfo(f)
	lw.prof = prof
	best, err := convertSpilling(f, d, layouts)
	if err != nil {
		return nil, err
	}
	bestCost := lw.cost(best)
	var joins []int
	for _, b := range rpo(f.CFG) {
		if len(layouts[b.Index]) > 0 {
			joins = append(joins, b.Index)
		}
	}
	// one join at a time in reverse post-order (its upstream layouts are
	// settled, so what its forward edges deliver is known), twice (back
	// edges deliver what the loop's new layouts make of them); a layout is
	// kept only when the whole program's cost drops
	for sweep := 0; sweep < 2; sweep++ {
		changed := false
		for _, j := range joins {
			cand := deriveLayout(f, best, j, layouts[j], lw)
			if sameLayout(cand, layouts[j]) {
				continue
			}
			trial := make(map[int]map[string]int, len(layouts))
			for k, v := range layouts {
				trial[k] = v
			}
			trial[j] = cand
			p, err := convertSpilling(f, d, trial)
			if err != nil {
				continue
			}
			if c := lw.cost(p); c < bestCost {
				best, bestCost, layouts, changed = p, c, trial, true
			}
		}
		if !changed {
			break
		}
	}
	best.arrivals = nil
	return best, nil
}

func convertSpilling(f *Func, d int, layouts map[int]map[string]int) (*Program, error) {
	spilled := map[string]bool{}
	for iter := 0; ; iter++ {
		p, viol, err := convertOnce(f, d, spilled, layouts)
		if err != nil {
			return nil, err
		}
		if viol == "" {
			return p, nil
		}
		if spilled[viol] || iter > len(f.Regs)+1 {
			return nil, fmt.Errorf("%s: %s: maximum distance %d is too small (operand %s)", f.File.Name, f.Fn.Name, d, viol)
		}
		spilled[viol] = true
	}
}

type converter struct {
	f       *Func
	d       int
	spilled map[string]bool
	p       *Program
	seg     *Segment
	rp      int            // slots emitted in the current block so far
	state   map[string]int // register -> slot of its latest copy, relative to block entry
	viol    string
	loops   *loopInfo
}

func (c *converter) dist(r string) (int, bool) {
	s, ok := c.state[r]
	if !ok {
		return 0, false
	}
	return c.rp - s, true
}

func (c *converter) emit(di DInst) {
	for i, r := range di.Defs {
		c.state[r] = c.rp + i
	}
	c.rp += di.Width()
	c.seg.Insts = append(c.seg.Insts, di)
	if (di.Kind == KInst || di.Kind == KInit) && len(c.spilled) > 0 {
		for _, r := range di.Defs {
			if c.spilled[r] {
				dd, _ := c.dist(r)
				c.seg.Insts = append(c.seg.Insts, DInst{Kind: KSpill, Reg: r, Srcs: []Src{{r, dd}}, Why: "spill"})
				c.rp++
			}
		}
	}
}

// far reports whether r's latest copy is out of reach with extra slots
// still to come before the reader.
func (c *converter) far(r string, extra int) bool {
	dd, ok := c.dist(r)
	return !ok || (c.d > 0 && dd+extra > c.d)
}

// reloads emits the reloads a reader of regs needs when extra further
// slots will be emitted between them and the reader. It records a
// violation for a register that is out of reach and has no spill slot.
func (c *converter) reloads(regs []string, extra int) {
	var need []string
	for changed := true; changed; {
		changed = false
		for _, r := range regs {
			if !contains(need, r) && c.far(r, extra+len(need)) {
				need = append(need, r)
				changed = true
			}
		}
	}
	for _, r := range need {
		if !c.spilled[r] {
			if _, ok := c.state[r]; !ok {
				// read before any definition on this path: never happens
				// after init (liveness), so it is a bug
				c.viol = r
				return
			}
			c.viol = r
			return
		}
		c.emit(DInst{Kind: KReload, Reg: r, Defs: []string{r}, Why: "reload"})
	}
}

func (c *converter) srcs(regs []string) []Src {
	out := make([]Src, len(regs))
	for i, r := range regs {
		dd, _ := c.dist(r)
		out[i] = Src{r, dd}
		if dd > c.p.MaxDist {
			c.p.MaxDist = dd
		}
	}
	return out
}

// edgeLen is the number of instructions the edge code into join j needs
// from the current state, with t slots (the branch) after it: the least m
// such that every live-in the layout puts farther than m+t already lies
// there (so m instructions shift it into place) and the m slots before the
// tail take the others (a mov each, a nop where the layout has no value).
// entry: nothing is defined yet.
func (c *converter) edgeLen(j, t int, entry bool) int {
	lay := c.p.Layout[j]
	maxL := 0
	for _, l := range lay {
		maxL = max(maxL, l)
	}
	for m := 0; m+t < maxL; m++ {
		ok := true
		for r, l := range lay {
			if l > m+t {
				dd, def := c.dist(r)
				if entry || !def || dd+t+m != l {
					ok = false
					break
				}
			}
		}
		if ok {
			return m
		}
	}
	return max(0, maxL-t)
}

// edgeCode emits the code of the edge from block from (-1: the function
// entry) into join j, followed on that edge by t slots: edgeLen
// instructions, the one at distance l from the join's entry a mov (entry:
// init; out of reach: reload) of the live-in the layout puts at l, or a nop
// where it puts none. It records what the edge delivers without edge code
// (for deriveLayout); cond: a conditional forward edge, whose code needs a
// split edge and its bra.uni.
func (c *converter) edgeCode(j, t, from int, entry, cond bool, why string) {
	lay := c.p.Layout[j]
	if len(lay) == 0 {
		return
	}
	if entry && c.anySpilled(lay) {
		// define every live-in (with its spill store) first, then place them
		for _, r := range c.p.JoinLive[j] {
			c.emit(DInst{Kind: KInit, Reg: r, Defs: []string{r}, Why: why})
		}
		entry = false
	}
	nat := map[string]int{}
	if !entry {
		// on a split edge the conditional branch already took its slot:
		// record what the edge would deliver branching straight to j
		direct := t
		if c.seg.Edge {
			direct = 0
		}
		for r := range lay {
			if dd, ok := c.dist(r); ok {
				nat[r] = dd + direct
			}
		}
	}
	c.p.arrivals[j] = append(c.p.arrivals[j], arrival{from: from, t: t, nat: nat, cond: cond})
	m := c.edgeLen(j, t, entry)
	at := map[int]string{}
	for r, l := range lay {
		if l <= m+t {
			at[l] = r
		}
	}
	for i := 0; i < m; i++ {
		r, ok := at[m-i+t]
		switch {
		case !ok:
			c.emit(DInst{Kind: KNop, Why: why})
		case entry:
			c.emit(DInst{Kind: KInit, Reg: r, Defs: []string{r}, Why: why})
		case c.far(r, 0):
			if !c.spilled[r] {
				if c.viol == "" {
					c.viol = r
				}
				return
			}
			c.emit(DInst{Kind: KReload, Reg: r, Defs: []string{r}, Why: why})
		default:
			c.emit(DInst{Kind: KMov, Reg: r, Defs: []string{r}, Srcs: c.srcs([]string{r}), Why: why})
		}
	}
}

func (c *converter) anySpilled(lay map[string]int) bool {
	for r := range lay {
		if c.spilled[r] {
			return true
		}
	}
	return false
}

func isTerminator(in *ptx.Instruction) bool {
	if in.Op == nil {
		return false
	}
	switch in.Op.Name {
	case "bra", "ret", "exit", "trap":
		return true
	}
	return false
}

func convertOnce(f *Func, d int, spilled map[string]bool, layouts map[int]map[string]int) (*Program, string, error) {
	g := f.CFG
	p := &Program{Func: f, D: d, SpillSlot: map[string]int{}, JoinLive: map[int][]string{}, Layout: layouts, arrivals: map[int][]arrival{}}
	for _, r := range f.Regs {
		if spilled[r] {
			p.SpillSlot[r] = len(p.Spilled)
			p.Spilled = append(p.Spilled, r)
		}
	}
	join := joinBlocks(f, p)
	// exit state per edge (from, to): slot relative to the successor's entry
	type edge struct{ from, to int }
	exits := map[edge]map[string]int{}
	segs := map[int][]*Segment{}
	var edges []*Segment
	c := &converter{f: f, d: d, spilled: spilled, p: p, loops: newLoopInfo(f)}
	first := g.Entry.Succs[0].Block
	for _, b := range rpo(g) {
		if b == g.Entry || b == g.Exit {
			continue
		}
		c.state = map[string]int{}
		c.rp = 0
		seg := &Segment{Block: b.Index, Labels: b.Labels, FallTo: -1}
		c.seg = seg
		live := f.sortedRegs(f.LiveIn[b.Index])
		switch {
		case b == first && join[b.Index]:
			// the entry edge delivers the canonical layout too: code before
			// the block's label, reached only from the entry
			pre := &Segment{Block: b.Index, FallTo: b.Index}
			c.seg = pre
			c.edgeCode(b.Index, 0, -1, true, false, "entry")
			segs[b.Index] = append(segs[b.Index], pre)
			c.seg = seg
			fallthrough
		case join[b.Index]:
			c.state = map[string]int{}
			for r, l := range p.Layout[b.Index] {
				c.state[r] = -l
			}
			c.rp = 0
		case b == first:
			for _, r := range live {
				c.emit(DInst{Kind: KInit, Reg: r, Defs: []string{r}, Why: "entry"})
			}
		default:
			var pred *ptx.BasicBlock
			for _, e := range b.Preds {
				if e.Block.Reachable {
					pred = e.Block
				}
			}
			st, ok := exits[edge{pred.Index, b.Index}]
			if !ok {
				return nil, "", fmt.Errorf("%s: %s: block %d reached before its predecessor %d", f.File.Name, f.Fn.Name, b.Index, pred.Index)
			}
			for r, s := range st {
				c.state[r] = s
			}
		}
		insts := f.blockInsts(b.Index)
		var term *Inst
		if n := len(insts); n > 0 && isTerminator(insts[n-1].In) {
			term = insts[n-1]
			insts = insts[:n-1]
		}
		for _, it := range insts {
			c.reloads(it.Uses, 0)
			c.emit(DInst{Kind: KInst, Inst: it, Defs: it.Defs, Srcs: c.srcs(it.Uses)})
		}
		// successors
		var taken, fall *ptx.BasicBlock
		for _, e := range b.Succs {
			switch e.Kind {
			case ptx.EdgeTaken:
				taken = e.Block
			case ptx.EdgeFallthrough:
				fall = e.Block
			}
		}
		if fall == g.Exit {
			fall = nil
		}
		if term != nil {
			es, viol := c.branch(b, term, taken, join)
			if viol != "" {
				return p, viol, nil
			}
			if es != nil {
				edges = append(edges, es)
			}
		}
		after := map[string]int{}
		for r, s := range c.state {
			after[r] = s - c.rp
		}
		for _, e := range b.Succs {
			if !join[e.Block.Index] {
				exits[edge{b.Index, e.Block.Index}] = after
			}
		}
		if fall != nil && join[fall.Index] && fall != taken && len(p.JoinLive[fall.Index]) > 0 {
			if term != nil {
				segs[b.Index] = append(segs[b.Index], seg)
				seg = &Segment{Block: b.Index, FallTo: fall.Index}
				c.seg = seg
			}
			c.edgeCode(fall.Index, 0, b.Index, false, false, "join "+label(fall))
		}
		segs[b.Index] = append(segs[b.Index], seg)
		if c.viol != "" {
			return p, c.viol, nil
		}
	}
	if c.viol != "" {
		return p, c.viol, nil
	}
	// layout order; the entry-join pre-segment comes before its block
	for _, b := range g.Blocks {
		p.Segs = append(p.Segs, segs[b.Index]...)
	}
	if len(edges) > 0 {
		// code after the last segment must not fall into the edge code
		if last := p.Segs[len(p.Segs)-1]; !endsUnconditionally(last) {
			last.Insts = append(last.Insts, DInst{Kind: KRet, Why: "end of body"})
		}
		p.Segs = append(p.Segs, edges...)
	}
	for _, s := range p.Segs {
		for i := range s.Insts {
			p.Static[s.Insts[i].Kind]++
		}
	}
	return p, "", nil
}

// branch emits block b's terminator term (taken: its branch target): the
// operands must reach across the taken join's prologue, so when the guard
// cannot (distance limit) the taken edge gets its own code after the
// function, returned as edge. viol is a distance violation.
func (c *converter) branch(b *ptx.BasicBlock, term *Inst, taken *ptx.BasicBlock, join map[int]bool) (edge *Segment, viol string) {
	// T's operands must reach across the taken target's prologue
	k := 0
	if taken != nil && join[taken.Index] {
		k = c.edgeLen(taken.Index, 1, false)
	}
	// a conditional forward edge with edge code gets its own code after
	// the function, so the fall-through path does not run it; so does
	// one whose guard cannot reach across the code (distance limit)
	split := k > 0 && term.In.Guard != "" && ((c.d > 0 && k+2 > c.d) || !c.loops.back(b.Index, taken.Index))
	if split {
		// the guard cannot reach across the prologue: the taken
		// edge gets its own code (prologue, bra) after the function
		c.reloads(term.Uses, 0)
		if c.far2(term.Uses) {
			return nil, c.violation(term.Uses)
		}
		lab := fmt.Sprintf("$__df_edge_%d_%d", b.Index, taken.Index)
		c.emit(DInst{Kind: KInst, Inst: term, Defs: term.Defs, Srcs: c.srcs(term.Uses), Target: lab})
		saveSeg, saveRP, saveState := c.seg, c.rp, c.state
		c.state = map[string]int{}
		for r, s := range saveState {
			c.state[r] = s
		}
		es := &Segment{Block: b.Index, Labels: []string{lab}, FallTo: taken.Index, Edge: true}
		c.seg = es
		c.edgeCode(taken.Index, 1, b.Index, false, term.In.Guard != "" && !c.loops.back(b.Index, taken.Index), "join "+label(taken))
		c.emit(DInst{Kind: KBra, Reg: label(taken), Why: "join " + label(taken)})
		edge = es
		c.seg, c.rp, c.state = saveSeg, saveRP, saveState
	} else {
		c.reloads(term.Uses, k)
		if taken != nil && join[taken.Index] {
			c.edgeCode(taken.Index, 1, b.Index, false, term.In.Guard != "" && !c.loops.back(b.Index, taken.Index), "join "+label(taken))
		}
		if c.far2(term.Uses) {
			return nil, c.violation(term.Uses)
		}
		c.emit(DInst{Kind: KInst, Inst: term, Defs: term.Defs, Srcs: c.srcs(term.Uses)})
	}
	return edge, ""
}

// joinBlocks marks the reachable blocks with two or more reachable
// predecessors and records their live-in registers in p.JoinLive.
func joinBlocks(f *Func, p *Program) map[int]bool {
	g := f.CFG
	join := map[int]bool{}
	for _, b := range g.Blocks[1 : len(g.Blocks)-1] {
		n := 0
		for _, e := range b.Preds {
			if e.Block.Reachable {
				n++
			}
		}
		if b.Reachable && n >= 2 {
			join[b.Index] = true
			if live := f.sortedRegs(f.LiveIn[b.Index]); len(live) > 0 {
				p.JoinLive[b.Index] = live
			}
		}
	}
	return join
}

func endsUnconditionally(s *Segment) bool {
	if len(s.Insts) == 0 {
		return false
	}
	di := s.Insts[len(s.Insts)-1]
	switch di.Kind {
	case KBra, KRet:
		return true
	case KInst:
		in := di.Inst.In
		return isTerminator(in) && in.Guard == ""
	}
	return false
}

func (c *converter) far2(regs []string) bool {
	for _, r := range regs {
		if c.far(r, 0) {
			return true
		}
	}
	return false
}

func (c *converter) violation(regs []string) string {
	for _, r := range regs {
		if c.far(r, 0) {
			return r
		}
	}
	return ""
}

func label(b *ptx.BasicBlock) string {
	if len(b.Labels) > 0 {
		return b.Labels[0]
	}
	return fmt.Sprintf("B%d", b.Index)
}

// rpo returns the reachable blocks in reverse post-order of a DFS from the
// entry following successors in order.
func rpo(g *ptx.CFG) []*ptx.BasicBlock {
	seen := make([]bool, len(g.Blocks))
	var post []*ptx.BasicBlock
	var dfs func(b *ptx.BasicBlock)
	dfs = func(b *ptx.BasicBlock) {
		seen[b.Index] = true
		for _, e := range b.Succs {
			if !seen[e.Block.Index] {
				dfs(e.Block)
			}
		}
		post = append(post, b)
	}
	dfs(g.Entry)
	out := make([]*ptx.BasicBlock, len(post))
	for i, b := range post {
		out[len(post)-1-i] = b
	}
	return out
}

// Listing renders the program readably: one instruction per line with its
// slot width, sources as |d|, destinations and inserted instructions'
// reasons as comments.
func (p *Program) Listing() string {
	var b strings.Builder
	f := p.Func
	fmt.Fprintf(&b, "// %s: reverse Dualflow, maximum distance %s, %d spilled registers\n", f.Fn.Name, distName(p.D), len(p.Spilled))
	n := 0
	for _, s := range p.Segs {
		if s.FallTo >= 0 && len(s.Labels) == 0 {
			fmt.Fprintf(&b, "// fall-through edge to %s\n", label(f.CFG.Blocks[s.FallTo]))
		}
		for _, l := range s.Labels {
			fmt.Fprintf(&b, "%s:\n", l)
		}
		for i := range s.Insts {
			fmt.Fprintf(&b, "%5d\t%s\n", n, p.render(&s.Insts[i]))
			n++
		}
	}
	return b.String()
}

func distName(d int) string {
	if d == 0 {
		return "unlimited"
	}
	return fmt.Sprint(d)
}

func dists(ss []Src) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("|%d|", s.Dist)
	}
	return strings.Join(parts, ", ")
}

// render formats one instruction: the original text with every source
// register replaced by its distance and the destination operand moved to
// a comment.
func (p *Program) render(di *DInst) string {
	switch di.Kind {
	case KMov:
		return fmt.Sprintf("mov %s\t// %s = %s (%s)", dists(di.Srcs), di.Reg, di.Reg, di.Why)
	case KNop:
		return fmt.Sprintf("nop\t// %s", di.Why)
	case KSpill:
		return fmt.Sprintf("st.spill [%d], %s\t// spill %s", p.SpillSlot[di.Reg], dists(di.Srcs), di.Reg)
	case KReload:
		return fmt.Sprintf("ld.spill [%d]\t// %s = reload (%s)", p.SpillSlot[di.Reg], di.Reg, di.Why)
	case KInit:
		return fmt.Sprintf("mov 0\t// %s = 0 (read before defined)", di.Reg)
	case KBra:
		return fmt.Sprintf("bra.uni %s\t// %s", di.Reg, di.Why)
	case KRet:
		return "ret\t// " + di.Why
	}
	f := p.Func
	in := di.Inst.In
	text := f.srcText(in)
	base := f.off(in.Pos())
	dst := ""
	lo, hi := -1, -1
	if len(di.Defs) > 0 && len(in.Args) > 0 {
		lo = f.off(in.Args[0].Pos) - base
		if len(in.Args) > 1 {
			hi = f.off(in.Args[1].Pos) - base
		} else {
			hi = len(text)
		}
		if lo < 0 || hi > len(text) || lo > hi {
			lo, hi = -1, -1
		}
	}
	dist := map[string]int{}
	for _, s := range di.Srcs {
		dist[s.Reg] = s.Dist
	}
	sub := func(s string) string {
		return renameRegs(s, func(r string) (string, bool) {
			if dd, ok := dist[r]; ok {
				return fmt.Sprintf("|%d|", dd), true
			}
			return "", false
		})
	}
	var out string
	if lo >= 0 {
		dst = strings.TrimRight(strings.TrimSpace(text[lo:hi]), ",")
		out = sub(text[:lo]) + sub(text[hi:])
	} else {
		out = sub(text)
	}
	out = strings.Join(strings.Fields(out), " ")
	if di.Target != "" {
		out = retarget(out, in, di.Target)
	}
	var notes []string
	if dst != "" {
		notes = append(notes, "-> "+dst)
	}
	if in.Guard != "" {
		for _, r := range di.Defs {
			notes = append(notes, fmt.Sprintf("old %s |%d|", r, dist[r]))
		}
	}
	if len(notes) > 0 {
		out += "\t// " + strings.Join(notes, ", ")
	}
	return out
}

// retarget replaces the branch target of in in text by lab.
func retarget(text string, in *ptx.Instruction, lab string) string {
	for _, a := range in.Args {
		if a.Kind == ptx.OpReg && !strings.HasPrefix(a.Name, "%") {
			re := regexp.MustCompile(regexp.QuoteMeta(a.Name) + `\b`)
			return re.ReplaceAllLiteralString(text, lab)
		}
	}
	return text
}
