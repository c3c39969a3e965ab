package instrument

import (
	"bytes"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Fast path (Stream). The probe code of a load site differs from that of
// another site of the same shape only in its two ids, and the prologue
// and exit block of a function only with its codeKey. Stream therefore
// builds each distinct sequence once, with the generator functions
// (loadCode, sharedCode: the one source of the probe code), prints it
// once into a ptx.Layout whose holes are the ids, and inserts for each
// site a ptx.Laid that the printer fills with the site's ids: no
// statements per site, no tokens to lay out. The output is byte for byte
// the tree path's (Instrument's), which TestFastSameAsTree checks.
//
// A template is made for a shape key: everything the generators read
// of a load site and its kernel other than the ids (the module's options
// and target are the same for every site of the module). Each template
// is checked when made: the site printed with two other ids is the
// template filled with them, else the shape keeps the tree path (its
// statements are generated and interned per site, as Instrument does).
// Async copies, run-time paired ones and user regions keep the tree path.

// lazySite is a load site whose code fix lays out at its depth.
type lazySite struct {
	s       *site
	g       groupPos
	grouped bool
}

// tplKey is a load site's shape: what loadCode reads besides the ids
// (through readTimer, groupedSite, dummy, record, reserve, recordAddr
// and storeAt; of the destination registers, dummy reads the first).
// Whatever these come to read of the kernel or the site must be added
// here: the check in template only varies the ids, and
// TestFastSameAsTree compares with the tree path.
type tplKey struct {
	isFunc, staged, useDummy bool
	mode                     string
	grouped                  bool
	g                        groupPos
	dummy                    string // the consumer's register (dummy mode), "" if none
	dummySize                int    // its declared size
	depth                    int    // nesting depth of the site's statement
}

// siteTpl is the layout of a shape's code before and after the access;
// nil layouts: the shape keeps the tree path.
type siteTpl struct{ pre, post *ptx.Layout }

// laidSite is one site's laid-out code: one allocation per site.
type laidSite struct {
	pre, post ptx.Laid
	ids       [2]int64
	stmts     [2]ptx.Stmt
}

// Hole values: the template's ids (beyond any real id count, never
// another immediate of the probe code), and the ids the check prints the
// site with (other lengths, reversed order).
const (
	holeBegin, holeEnd   = 3_000_000_001, 3_000_000_002
	checkBegin, checkEnd = 12, 7
)

// layOut returns the code of a load site at depth: laid out from its
// shape's template, or generated (tree path) when the shape has none.
func (k *kernel) layOut(l lazySite, depth int) wrap {
	m := k.m
	s := l.s
	key := tplKey{isFunc: k.isFunc, staged: k.staged, useDummy: k.useDummy, mode: s.mode,
		grouped: l.grouped, g: l.g, depth: depth}
	if l.grouped || s.mode == "dummy" {
		if len(s.elems) > 0 {
			e := s.elems[0]
			if e.Kind != ptx.OpReg || e.Name2 != "" || e.Offset != 0 || len(e.Expr) > 0 || len(e.Elems) > 0 {
				return k.treeCode(l)
			}
			t, _ := k.regs.Declared(e.Name)
			key.dummy, key.dummySize = e.Name, t.Size()
		}
	}
	t, ok := m.tpls[key]
	if !ok {
		t = k.template(l, depth)
		m.tpls[key] = t
	}
	if t.pre == nil {
		return k.treeCode(l)
	}
	ls := &laidSite{ids: [2]int64{int64(s.beginID), int64(s.endID)}}
	ls.pre = ptx.Laid{Layout: t.pre, Vals: ls.ids[:]}
	ls.post = ptx.Laid{Layout: t.post, Vals: ls.ids[:]}
	ls.stmts = [2]ptx.Stmt{&ls.pre, &ls.post}
	if m.fillHook != nil {
		m.fillHook(ls.ids[:])
	}
	return wrap{pre: ls.stmts[0:1], post: ls.stmts[1:2]}
}

// treeCode is the tree path's code of a load site.
func (k *kernel) treeCode(l lazySite) wrap {
	w := k.loadCode(l.s, l.g, l.grouped)
	return wrap{pre: k.m.intern(w.pre), post: k.m.intern(w.post)}
}

// template makes the layouts of site l's shape at depth and checks them,
// or returns an empty siteTpl when the check fails.
func (k *kernel) template(l lazySite, depth int) *siteTpl {
	crlf := k.m.f.CRLF
	with := func(b, e uint32) wrap {
		s := *l.s
		s.beginID, s.endID = b, e
		return k.loadCode(&s, l.g, l.grouped)
	}
	w := with(holeBegin, holeEnd)
	holes := []int64{holeBegin, holeEnd}
	pre, err1 := ptx.NewLayout(w.pre, depth, crlf, holes)
	post, err2 := ptx.NewLayout(w.post, depth, crlf, holes)
	if err1 != nil || err2 != nil {
		return &siteTpl{}
	}
	c := with(checkBegin, checkEnd)
	vals := []int64{checkBegin, checkEnd}
	if !sameLaid(pre, c.pre, depth, crlf, vals) || !sameLaid(post, c.post, depth, crlf, vals) {
		return &siteTpl{}
	}
	return &siteTpl{pre: pre, post: post}
}

// sameLaid reports whether l filled with vals prints as c does.
func sameLaid(l *ptx.Layout, c code, depth int, crlf bool, vals []int64) bool {
	want, err := ptx.NewLayout(c, depth, crlf, nil)
	return err == nil && bytes.Equal(l.Append(nil, vals), want.Append(nil, nil))
}

// laidShared returns the prologue and exit block of key laid out (at a
// function body's depth), made once per key; the statements themselves
// when they cannot be.
func (m *module) laidShared(key codeKey, pro, tail code) (code, code) {
	l, ok := m.laid[key]
	if !ok {
		for i, c := range []code{pro, tail} {
			if len(c) == 0 {
				continue
			}
			lay, err := ptx.NewLayout(c, 1, m.f.CRLF, nil)
			if err != nil {
				l = [2]code{pro, tail}
				break
			}
			l[i] = code{&ptx.Laid{Layout: lay}}
		}
		m.laid[key] = l
	}
	return l[0], l[1]
}

// maxFacts bounds the facts cache (distinct opcodes: a module's parses
// share one decoded opcode per spelling, so a few hundred).
const maxFacts = 1 << 12

// factsOf is ptx.FactsOf(in), remembered per decoded opcode: the facts
// are a function of the opcode alone, which is read-only once decoded,
// and the passes ask them of every instruction several times.
func (m *module) factsOf(in *ptx.Instruction) ptx.Facts {
	if in.Op == nil {
		return ptx.FactsOf(in)
	}
	if fx, ok := m.fx[in.Op]; ok {
		return fx
	}
	if m.fx == nil || len(m.fx) >= maxFacts {
		m.fx = make(map[*ptx.Opcode]ptx.Facts)
	}
	fx := ptx.FactsOf(in)
	m.fx[in.Op] = fx
	return fx
}
