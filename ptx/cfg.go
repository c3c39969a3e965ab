package ptx

import (
	"fmt"
	"strings"
)

// Control-flow graphs of function bodies.
//
// BuildCFG flattens the body (nested blocks in source order) into one
// instruction list and cuts it into basic blocks. A block starts at the
// first instruction, at every label that labels code (a label in front of
// .branchtargets, .calltargets or .callprototype labels data, not code),
// and after every instruction that ends a block (bra, brx.idx, ret, exit,
// trap; see Facts.EndsBlock). Consecutive labels share a block. Labels at
// the very end of a body form an empty block that falls through to the
// exit.
//
// Two synthetic, instruction-free blocks frame the code: Blocks[0] is the
// entry, with one edge to the first code block, and the last block is the
// exit, which every ret/exit/trap and the fall-through off the end of the
// body reach. Successor order is deterministic: a branch's targets in
// operand (or target-list) order, then the fall-through edge of a guarded
// terminator. Parallel edges to the same block are merged (the first kind
// is kept).
//
// Labels resolve in the innermost enclosing block that declares them and,
// failing that, to the first label of that name anywhere in the function
// (some generators branch into nested blocks). A branch to a missing label
// gets an EdgeUnresolved edge to the exit and an Issue. brx.idx branches
// to every label of the .branchtargets list its second operand names; when
// that list cannot be found it conservatively branches to every labelled
// block (EdgeIndirect) and records an Issue.

// EdgeKind says why control flows along an edge.
type EdgeKind uint8

// Edge kinds.
const (
	EdgeFallthrough EdgeKind = iota // to the next block (also off the end of the body into the exit)
	EdgeTaken                       // to the target of bra
	EdgeIndirect                    // to a target of brx.idx
	EdgeExit                        // from ret, exit or trap to the exit block
	EdgeEntry                       // from the entry block to the first code block
	EdgeUnresolved                  // from a branch whose target does not exist, to the exit block
)

var cfgEdgeNames = [...]string{"fall", "taken", "indirect", "exit", "entry", "unresolved"}

func (k EdgeKind) String() string {
	if int(k) < len(cfgEdgeNames) {
		return cfgEdgeNames[k]
	}
	return "EdgeKind(?)"
}

// Edge is one end of a control-flow edge: in Succs, Block is the successor;
// in Preds, the predecessor.
type Edge struct {
	Block *BasicBlock
	Kind  EdgeKind
}

// BasicBlock is a maximal straight-line run of instructions.
type BasicBlock struct {
	Index  int            // position in CFG.Blocks
	Labels []string       // code labels naming the block, in source order
	Insts  []*Instruction // the block's instructions (a subslice of CFG.Insts)
	First  int            // index in CFG.Insts of Insts[0] (for empty blocks: where it would be)
	Succs  []Edge
	Preds  []Edge

	// Reachable reports whether the block can be reached from the entry.
	// Unreachable code blocks keep their edges but have no dominator.
	Reachable bool
	// IDom is the immediate dominator; nil for the entry and for
	// unreachable blocks.
	IDom *BasicBlock
	// IPDom is the immediate post-dominator (the SIMT reconvergence point
	// of a divergent branch at the end of this block); nil for the exit and
	// for blocks from which the exit cannot be reached (infinite loops).
	IPDom *BasicBlock

	domIn, domOut   int32 // dominator-tree DFS interval; -1 when not in the tree
	pdomIn, pdomOut int32 // post-dominator-tree DFS interval
}

// IsEntry reports whether b is the synthetic entry block.
func (b *BasicBlock) IsEntry() bool { return b.Index == 0 }

// Last returns the block's last instruction, or nil.
func (b *BasicBlock) Last() *Instruction {
	if len(b.Insts) == 0 {
		return nil
	}
	return b.Insts[len(b.Insts)-1]
}

// Issue is a control-flow problem found while building a CFG.
type Issue struct {
	Inst *Instruction
	Msg  string
}

// CFG is the control-flow graph of one function. It is not modified after
// BuildCFG returns it. Invariants: Blocks[0] == Entry, Blocks[len-1] ==
// Exit, code blocks lie between them in source order, every block's Index
// is its position, Succs and Preds mirror each other, and the instructions
// of the code blocks, concatenated, are Insts.
type CFG struct {
	Func   *Function
	Insts  []*Instruction // every instruction of the body in source order
	Blocks []*BasicBlock
	Entry  *BasicBlock
	Exit   *BasicBlock
	// TargetLists holds the .branchtargets lists of the body by label.
	TargetLists map[string][]string
	// Issues lists unresolved branch targets, in source order.
	Issues []Issue
}

type cfgLabelKey struct {
	scope int32
	name  string
}

type cfgPending struct {
	name  string
	scope int32
}

// cfgBuilder cuts a body into blocks in one walk over its statements.
type cfgBuilder struct {
	g          *CFG
	blocks     []*BasicBlock
	arena      []BasicBlock // blocks are carved from chunks of this
	nInsts     []int        // instruction count per block
	scopes     []int32      // scope of each instruction of g.Insts
	parents    []int32      // parent scope of each scope
	pending    []cfgPending // labels waiting for their block
	cur        *BasicBlock  // block being filled, or nil after a terminator or label
	labelAt    map[cfgLabelKey]*BasicBlock
	firstLabel map[string]*BasicBlock
	edges      []cfgRawEdge // collected edges, grouped by source block
	start      int          // first edge of the block being linked
}

func (bd *cfgBuilder) newBlock() *BasicBlock {
	if len(bd.arena) == cap(bd.arena) {
		bd.arena = make([]BasicBlock, 0, 32)
	}
	bd.arena = bd.arena[:len(bd.arena)+1]
	b := &bd.arena[len(bd.arena)-1]
	b.Index = len(bd.blocks)
	b.First = len(bd.g.Insts)
	bd.blocks = append(bd.blocks, b)
	bd.nInsts = append(bd.nInsts, 0)
	return b
}

// open starts a code block carrying the pending labels.
func (bd *cfgBuilder) open() {
	b := bd.newBlock()
	if len(bd.pending) > 0 {
		b.Labels = make([]string, len(bd.pending))
	}
	for i, l := range bd.pending {
		b.Labels[i] = l.name
		k := cfgLabelKey{l.scope, l.name}
		if _, dup := bd.labelAt[k]; !dup {
			bd.labelAt[k] = b
		}
		if _, dup := bd.firstLabel[l.name]; !dup {
			bd.firstLabel[l.name] = b
		}
	}
	bd.pending = bd.pending[:0]
	bd.cur = b
}

func (bd *cfgBuilder) walk(b *Block, parent int32) {
	scope := int32(len(bd.parents))
	bd.parents = append(bd.parents, parent)
	stmts := b.Stmts
	for i, s := range stmts {
		switch s := s.(type) {
		case *Instruction:
			if bd.cur == nil {
				bd.open()
			}
			bd.g.Insts = append(bd.g.Insts, s)
			bd.scopes = append(bd.scopes, scope)
			bd.nInsts[bd.cur.Index]++
			if cfgEndsBlock(s) {
				bd.cur = nil
			}
		case *Label:
			if d := cfgNextDirective(stmts[i+1:]); d != nil {
				switch d.Name {
				case ".branchtargets", ".calltargets", ".callprototype":
					if d.Name == ".branchtargets" {
						if bd.g.TargetLists == nil {
							bd.g.TargetLists = map[string][]string{}
						}
						bd.g.TargetLists[s.Name] = cfgTargetNames(d)
					}
					continue
				}
			}
			if bd.cur != nil && bd.nInsts[bd.cur.Index] > 0 {
				bd.cur = nil
			}
			bd.pending = append(bd.pending, cfgPending{s.Name, scope})
		case *Block:
			bd.walk(s, scope)
		}
	}
}

// cfgCount counts the instructions of b and its nested blocks.
func cfgCount(b *Block) int {
	n := 0
	Inspect(b, func(s Node) bool {
		if _, ok := s.(*Instruction); ok {
			n++
		}
		return true
	})
	return n
}

// cfgEndsBlock is Facts.EndsBlock with a cheap first test on the base name.
func cfgEndsBlock(in *Instruction) bool {
	if in.Op == nil {
		return false
	}
	switch in.Op.Name {
	case "bra", "brx", "ret", "exit", "trap":
		return FactsOf(in).EndsBlock
	}
	return false
}

// cfgNextDirective returns the directive that directly follows a label
// (comments skipped), or nil.
func cfgNextDirective(rest []Stmt) *Directive {
	for _, s := range rest {
		switch s := s.(type) {
		case *Comment:
			continue
		case *Directive:
			return s
		}
		return nil
	}
	return nil
}

// cfgTargetNames returns the label names of a .branchtargets directive.
func cfgTargetNames(d *Directive) []string {
	var out []string
	for _, t := range d.Args {
		if t.Kind == IDENT {
			out = append(out, t.Text)
		}
	}
	return out
}

// BuildCFG builds the control-flow graph of fn. A function without a body
// gets an entry block linked straight to the exit block.
func BuildCFG(fn *Function) *CFG {
	g := &CFG{Func: fn}
	bd := &cfgBuilder{
		g:          g,
		labelAt:    map[cfgLabelKey]*BasicBlock{},
		firstLabel: map[string]*BasicBlock{},
	}
	if fn != nil && fn.Body != nil {
		n := cfgCount(fn.Body)
		g.Insts = make([]*Instruction, 0, n)
		bd.scopes = make([]int32, 0, n)
	}
	entry := bd.newBlock()
	if fn != nil && fn.Body != nil {
		bd.walk(fn.Body, -1)
	}
	if len(bd.pending) > 0 {
		bd.open()
	}
	exit := bd.newBlock()
	blocks := bd.blocks
	for _, b := range blocks {
		n := bd.nInsts[b.Index]
		if n > 0 {
			b.Insts = g.Insts[b.First : b.First+n : b.First+n]
		}
	}
	g.Blocks, g.Entry, g.Exit = blocks, entry, exit
	scopes := bd.scopes
	labelAt, firstLabel, parents := bd.labelAt, bd.firstLabel, bd.parents

	resolve := func(name string, scope int32) *BasicBlock {
		for s := scope; s >= 0; s = parents[s] {
			if b, ok := labelAt[cfgLabelKey{s, name}]; ok {
				return b
			}
		}
		return firstLabel[name]
	}

	// Edges, collected block by block, then laid out in one array.
	bd.begin()
	if len(blocks) > 2 {
		bd.link(entry, blocks[1], EdgeEntry)
	} else {
		bd.link(entry, exit, EdgeEntry)
	}
	for i := 1; i < len(blocks)-1; i++ {
		b := blocks[i]
		bd.begin()
		next := blocks[i+1]
		last := b.Last()
		if last == nil {
			bd.link(b, next, EdgeFallthrough)
			continue
		}
		f := FactsOf(last)
		switch {
		case f.Branch:
			bd.branchEdges(b, last, f, resolve, scopes[b.First+len(b.Insts)-1])
		case f.Return || f.Exit:
			bd.link(b, exit, EdgeExit)
		default:
			bd.link(b, next, EdgeFallthrough)
			continue
		}
		if last.Guard != "" {
			bd.link(b, next, EdgeFallthrough)
		}
	}
	bd.install()

	g.analyze()
	return g
}

// cfgBranchTarget returns the label operand of bra, or the target-list
// label of brx.idx.
func cfgBranchTarget(in *Instruction) string {
	i := 0
	if in.Op != nil && in.Op.Name == "brx" {
		i = 1
	}
	if i < len(in.Args) && in.Args[i].Kind == OpReg {
		return in.Args[i].Name
	}
	return ""
}

// branchEdges links a block ending in bra or brx.idx to its targets.
func (bd *cfgBuilder) branchEdges(b *BasicBlock, last *Instruction, f Facts,
	resolve func(string, int32) *BasicBlock, scope int32) {
	g := bd.g
	name := cfgBranchTarget(last)
	if f.Name != "brx.idx" {
		target := resolve(name, scope)
		if target == nil {
			g.Issues = append(g.Issues, Issue{last, fmt.Sprintf("branch target %q not found", name)})
			bd.link(b, g.Exit, EdgeUnresolved)
			return
		}
		bd.link(b, target, EdgeTaken)
		return
	}
	list, ok := g.TargetLists[name]
	if !ok {
		g.Issues = append(g.Issues, Issue{last, fmt.Sprintf("branch target list %q not found; assuming every label", name)})
		for _, c := range g.Blocks {
			if len(c.Labels) > 0 {
				bd.link(b, c, EdgeIndirect)
			}
		}
		return
	}
	for _, l := range list {
		t := resolve(l, scope)
		if t == nil {
			g.Issues = append(g.Issues, Issue{last, fmt.Sprintf("branch target %q (in %s) not found", l, name)})
			bd.link(b, g.Exit, EdgeUnresolved)
			continue
		}
		bd.link(b, t, EdgeIndirect)
	}
}

type cfgRawEdge struct {
	from, to *BasicBlock
	kind     EdgeKind
}

// begin starts collecting the out-edges of the next block.
func (bd *cfgBuilder) begin() { bd.start = len(bd.edges) }

// link adds the edge from→to unless the block has one to the same target.
func (bd *cfgBuilder) link(from, to *BasicBlock, k EdgeKind) {
	for _, e := range bd.edges[bd.start:] {
		if e.to == to {
			return
		}
	}
	bd.edges = append(bd.edges, cfgRawEdge{from, to, k})
}

// install sets Succs and Preds of every block from the collected edges,
// carving all of them from one array.
func (bd *cfgBuilder) install() {
	n := len(bd.blocks)
	nSucc := make([]int32, 2*n)
	nPred := nSucc[n:]
	for _, e := range bd.edges {
		nSucc[e.from.Index]++
		nPred[e.to.Index]++
	}
	all := make([]Edge, 2*len(bd.edges))
	off := 0
	for _, b := range bd.blocks {
		k := int(nSucc[b.Index])
		b.Succs = all[off : off : off+k]
		off += k
		k = int(nPred[b.Index])
		b.Preds = all[off : off : off+k]
		off += k
	}
	for _, e := range bd.edges {
		e.from.Succs = append(e.from.Succs, Edge{e.to, e.kind})
		e.to.Preds = append(e.to.Preds, Edge{e.from, e.kind})
	}
}

// analyze computes reachability, dominators and post-dominators.
func (g *CFG) analyze() {
	n := len(g.Blocks)
	// Reverse postorder from the entry along successors.
	rpo := cfgRPO(g.Entry, n, func(b *BasicBlock) []Edge { return b.Succs })
	for _, b := range rpo {
		b.Reachable = true
	}
	idom := cfgDominators(rpo, n, func(b *BasicBlock) []Edge { return b.Preds })
	for _, b := range g.Blocks {
		if p := idom[b.Index]; p != nil && p != b {
			b.IDom = p
		}
	}
	// Post-dominators: the same on the reversed graph from the exit.
	rrpo := cfgRPO(g.Exit, n, func(b *BasicBlock) []Edge { return b.Preds })
	ipdom := cfgDominators(rrpo, n, func(b *BasicBlock) []Edge { return b.Succs })
	for _, b := range g.Blocks {
		if p := ipdom[b.Index]; p != nil && p != b {
			b.IPDom = p
		}
	}
	for _, b := range g.Blocks {
		b.domIn, b.domOut, b.pdomIn, b.pdomOut = -1, -1, -1, -1
	}
	cfgNumber(g.Entry, g.Blocks, func(b *BasicBlock) *BasicBlock { return b.IDom },
		func(b *BasicBlock, in, out int32) { b.domIn, b.domOut = in, out })
	cfgNumber(g.Exit, g.Blocks, func(b *BasicBlock) *BasicBlock { return b.IPDom },
		func(b *BasicBlock, in, out int32) { b.pdomIn, b.pdomOut = in, out })
}

// cfgRPO returns the blocks reachable from root along next, in reverse
// postorder, using an explicit stack (bodies can be large).
func cfgRPO(root *BasicBlock, n int, next func(*BasicBlock) []Edge) []*BasicBlock {
	seen := make([]bool, n)
	post := make([]*BasicBlock, 0, n)
	type frame struct {
		b *BasicBlock
		i int
	}
	stack := []frame{{root, 0}}
	seen[root.Index] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		es := next(top.b)
		if top.i < len(es) {
			c := es[top.i].Block
			top.i++
			if !seen[c.Index] {
				seen[c.Index] = true
				stack = append(stack, frame{c, 0})
			}
			continue
		}
		post = append(post, top.b)
		stack = stack[:len(stack)-1]
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// cfgDominators computes immediate dominators with the iterative algorithm
// of Cooper, Harvey and Kennedy over rpo (rpo[0] is the root). preds gives
// the edges into a block in the graph being dominated. The result is
// indexed by block index; the root maps to itself and blocks not in rpo to
// nil.
func cfgDominators(rpo []*BasicBlock, n int, preds func(*BasicBlock) []Edge) []*BasicBlock {
	order := make([]int32, n)
	for i := range order {
		order[i] = -1
	}
	for i, b := range rpo {
		order[b.Index] = int32(i)
	}
	idom := make([]*BasicBlock, n)
	if len(rpo) == 0 {
		return idom
	}
	root := rpo[0]
	idom[root.Index] = root
	intersect := func(a, b *BasicBlock) *BasicBlock {
		for a != b {
			for order[a.Index] > order[b.Index] {
				a = idom[a.Index]
			}
			for order[b.Index] > order[a.Index] {
				b = idom[b.Index]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range rpo[1:] {
			var nd *BasicBlock
			for _, e := range preds(b) {
				p := e.Block
				if order[p.Index] < 0 || idom[p.Index] == nil {
					continue
				}
				if nd == nil {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if nd != nil && idom[b.Index] != nd {
				idom[b.Index] = nd
				changed = true
			}
		}
	}
	return idom
}

// cfgNumber assigns DFS entry/exit numbers over the tree given by parent,
// rooted at root, so that a is an ancestor of b iff a.in <= b.in && b.out
// <= a.out. Children are visited in block order.
func cfgNumber(root *BasicBlock, blocks []*BasicBlock, parent func(*BasicBlock) *BasicBlock,
	set func(*BasicBlock, int32, int32)) {
	// First-child/next-sibling lists, built backwards so that children
	// come out in block order; one allocation for all four arrays.
	n := len(blocks)
	buf := make([]int32, 4*n)
	first, next, in, stack := buf[:n], buf[n:2*n], buf[2*n:3*n], buf[3*n:3*n:4*n]
	for i := range first {
		first[i] = -1
	}
	for i := n - 1; i >= 0; i-- {
		if p := parent(blocks[i]); p != nil {
			next[i] = first[p.Index]
			first[p.Index] = int32(i)
		}
	}
	// cur holds, per node on the stack, the next child to visit.
	var clock int32
	in[root.Index] = clock
	clock++
	stack = append(stack, int32(root.Index))
	cur := first // reused: first[x] advances as children are visited
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		if c := cur[top]; c >= 0 {
			cur[top] = next[c]
			in[c] = clock
			clock++
			stack = append(stack, c)
			continue
		}
		set(blocks[top], in[top], clock)
		clock++
		stack = stack[:len(stack)-1]
	}
}

// Dominates reports whether every path from the entry to b passes through
// a. It is reflexive and false when either block is unreachable (except a
// == b).
func (g *CFG) Dominates(a, b *BasicBlock) bool {
	if a == b {
		return true
	}
	if a.domIn < 0 || b.domIn < 0 {
		return false
	}
	return a.domIn <= b.domIn && b.domOut <= a.domOut
}

// PostDominates reports whether every path from b to the exit passes
// through a. It is reflexive and false when either block cannot reach the
// exit (except a == b).
func (g *CFG) PostDominates(a, b *BasicBlock) bool {
	if a == b {
		return true
	}
	if a.pdomIn < 0 || b.pdomIn < 0 {
		return false
	}
	return a.pdomIn <= b.pdomIn && b.pdomOut <= a.pdomOut
}

// BlockOf returns the block holding instruction in, or nil. It scans the
// blocks, so callers that need it for every instruction should walk
// Blocks instead.
func (g *CFG) BlockOf(in *Instruction) *BasicBlock {
	for _, b := range g.Blocks {
		for _, x := range b.Insts {
			if x == in {
				return b
			}
		}
	}
	return nil
}

// Label returns the block a code label names (innermost-scope resolution
// is not available here: the first block carrying the label is returned),
// or nil.
func (g *CFG) Label(name string) *BasicBlock {
	for _, b := range g.Blocks {
		for _, l := range b.Labels {
			if l == name {
				return b
			}
		}
	}
	return nil
}

// IsBackEdge reports whether from→to is a back edge: to dominates from.
func (g *CFG) IsBackEdge(from, to *BasicBlock) bool {
	return from.Reachable && g.Dominates(to, from)
}

// String renders the graph one block per line, for tests and debugging:
//
//	B1 [L1 L2] 3 insts -> B2:taken B3:fall idom=B0 ipdom=B4
func (g *CFG) String() string {
	var sb strings.Builder
	for _, b := range g.Blocks {
		fmt.Fprintf(&sb, "B%d", b.Index)
		switch {
		case b == g.Entry:
			sb.WriteString(" entry")
		case b == g.Exit:
			sb.WriteString(" exit")
		default:
			if len(b.Labels) > 0 {
				fmt.Fprintf(&sb, " [%s]", strings.Join(b.Labels, " "))
			}
			fmt.Fprintf(&sb, " %d", len(b.Insts))
		}
		if len(b.Succs) > 0 {
			sb.WriteString(" ->")
			for _, e := range b.Succs {
				fmt.Fprintf(&sb, " B%d:%s", e.Block.Index, e.Kind)
			}
		}
		if !b.Reachable {
			sb.WriteString(" unreachable")
		}
		if b.IDom != nil {
			fmt.Fprintf(&sb, " idom=B%d", b.IDom.Index)
		}
		if b.IPDom != nil {
			fmt.Fprintf(&sb, " ipdom=B%d", b.IPDom.Index)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}
