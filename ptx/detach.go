package ptx

import "slices"

// Detach returns a copy of the module-level declaration d that holds
// nothing carved from an Arena, so that it stays valid after the Arena's
// Reset: a directive, a section, a variable, a bad declaration, or a
// function declared without a body. The copy prints as d does (its
// Toks name the same tokens of the same source) and shares with d only
// what a parse never carves (strings, initializers, directive
// arguments). A comment is returned as it is; a function with a body
// (whose statements the Arena holds) returns nil, false.
func Detach(d Decl) (Decl, bool) {
	switch d := d.(type) {
	case *Comment:
		c := *d
		c.Toks = d.Toks.detach()
		return &c, true
	case *Directive:
		return d.detach(), true
	case *Section:
		s := *d
		s.Toks = d.Toks.detach()
		return &s, true
	case *VarDecl:
		return d.detach(), true
	case *BadDecl:
		return &BadDecl{Toks: d.Toks.detach()}, true
	case *Function:
		if d.Body != nil {
			return nil, false
		}
		fn := *d
		fn.Toks = d.Toks.detach()
		fn.Ret = detachVars(d.Ret)
		fn.Params = detachVars(d.Params)
		if d.Perf != nil {
			fn.Perf = make([]*Directive, len(d.Perf))
			for i, p := range d.Perf {
				fn.Perf[i] = p.detach()
			}
		}
		return &fn, true
	}
	return nil, false
}

func (d *Directive) detach() *Directive {
	c := *d
	c.Toks = d.Toks.detach()
	return &c
}

func (d *VarDecl) detach() *VarDecl {
	c := *d
	c.Toks = d.Toks.detach()
	c.Names = slices.Clone(d.Names) // the declarators are carved; their Dims and Init are not
	return &c
}

func detachVars(ds []*VarDecl) []*VarDecl {
	if ds == nil {
		return nil
	}
	out := make([]*VarDecl, len(ds))
	for i, d := range ds {
		out[i] = d.detach()
	}
	return out
}

// detach returns ts over a token table of its own holding its tokens'
// places only (an explicit list is never carved, so it is kept).
func (ts Toks) detach() Toks {
	if ts.tab == nil {
		return ts
	}
	t := ts.tab
	return Toks{tab: &tokTable{src: t.src, base: t.base,
		raw: slices.Clone(t.raw[ts.lo:ts.hi]), kinds: slices.Clone(t.kinds[ts.lo:ts.hi])},
		lo: 0, hi: ts.hi - ts.lo}
}
