package ptx

import (
	"strconv"
	"strings"
)

// Token synthesis: nodes built by passes (Toks == nil) are printed from
// their typed fields. The tokens made here carry no positions.

// tokensOf returns the tokens to print for a statement-like node: its Toks
// when it has them, else tokens made from its fields.
func tokensOf(n Node) Toks {
	switch n := n.(type) {
	case *Comment:
		if !n.Toks.IsZero() {
			return n.Toks
		}
		return MakeToks([]Token{Tok(COMMENT, n.Text)})
	case *Directive:
		if !n.Toks.IsZero() {
			return n.Toks
		}
		return MakeToks(n.synth())
	case *VarDecl:
		if !n.Toks.IsZero() {
			return n.Toks
		}
		return MakeToks(n.synthTo(make([]Token, 0, n.tokensLen()+1), true))
	case *Label:
		if !n.Toks.IsZero() {
			return n.Toks
		}
		return MakeToks([]Token{Tok(IDENT, n.Name), Tok(COLON, ":")})
	case *Instruction:
		if !n.Toks.IsZero() {
			return n.Toks
		}
		return MakeToks(n.synth())
	case *BadStmt:
		return n.Toks
	case *BadDecl:
		return n.Toks
	case *Section:
		if !n.Toks.IsZero() {
			return n.Toks
		}
		return MakeToks([]Token{Tok(DIRECTIVE, ".section"), Tok(DIRECTIVE, n.Name), Tok(RAW, n.Body)})
	}
	return Toks{}
}

func (d *Directive) synth() []Token {
	ts := make([]Token, 0, len(d.Args)+2)
	ts = append(ts, Tok(DIRECTIVE, d.Name))
	for _, a := range d.Args {
		a.Pos = 0
		ts = append(ts, a)
	}
	if d.Semi {
		ts = append(ts, Tok(SEMI, ";"))
	}
	return ts
}

var linkageNames = []struct {
	l    Linkage
	name string
}{{Extern, ".extern"}, {Visible, ".visible"}, {Weak, ".weak"}, {Common, ".common"}}

func linkageTokens(ts []Token, l Linkage) []Token {
	for _, x := range linkageNames {
		if l&x.l != 0 {
			ts = append(ts, Tok(DIRECTIVE, x.name))
		}
	}
	return ts
}

func intTok(n int) Token { return Tok(INT, strconv.Itoa(n)) }

// synth makes the tokens of a declaration; semi adds the trailing ';'
// (parameters have none).
func (d *VarDecl) synth(semi bool) []Token {
	return d.synthTo(make([]Token, 0, d.tokensLen()+1), semi)
}

// tokensLen is the number of tokens synth makes without the ';': it
// sizes their slice.
func (d *VarDecl) tokensLen() int {
	n := 2 + len(d.Attrs) // space, type
	for _, x := range linkageNames {
		if d.Linkage&x.l != 0 {
			n++
		}
	}
	if d.Align > 0 {
		n += 2
	}
	if d.Vec > 0 {
		n++
	}
	if d.Ptr {
		n++
		if d.PtrSpace != SpaceNone {
			n++
		}
		if d.PtrAlign > 0 {
			n += 2
		}
	}
	for i := range d.Names {
		x := &d.Names[i]
		if i > 0 {
			n++
		}
		n++
		if x.Range >= 0 {
			n += 3
		}
		for _, dim := range x.Dims {
			n += 2
			if dim > 0 {
				n++
			}
		}
		if x.Init != nil {
			n += 1 + len(x.Init)
		}
	}
	return n
}

// synthTo is synth appending to ts.
func (d *VarDecl) synthTo(ts []Token, semi bool) []Token {
	ts = linkageTokens(ts, d.Linkage)
	ts = append(ts, Tok(DIRECTIVE, d.Space.String()))
	if d.Align > 0 {
		ts = append(ts, Tok(DIRECTIVE, ".align"), intTok(d.Align))
	}
	if d.Vec > 0 {
		ts = append(ts, Tok(DIRECTIVE, ".v"+strconv.Itoa(d.Vec)))
	}
	tn := d.TypeName
	if tn == "" {
		tn = d.Type.String()
	}
	ts = append(ts, Tok(DIRECTIVE, tn))
	if d.Ptr {
		ts = append(ts, Tok(DIRECTIVE, ".ptr"))
		if d.PtrSpace != SpaceNone {
			ts = append(ts, Tok(DIRECTIVE, d.PtrSpace.String()))
		}
		if d.PtrAlign > 0 {
			ts = append(ts, Tok(DIRECTIVE, ".align"), intTok(d.PtrAlign))
		}
	}
	for _, a := range d.Attrs {
		ts = append(ts, Tok(DIRECTIVE, a))
	}
	for i, n := range d.Names {
		if i > 0 {
			ts = append(ts, Tok(COMMA, ","))
		}
		ts = append(ts, Tok(IDENT, n.Name))
		if n.Range >= 0 {
			ts = append(ts, Tok(LT, "<"), intTok(n.Range), Tok(GT, ">"))
		}
		for _, x := range n.Dims {
			ts = append(ts, Tok(LBRACK, "["))
			if x > 0 {
				ts = append(ts, intTok(x))
			}
			ts = append(ts, Tok(RBRACK, "]"))
		}
		if n.Init != nil {
			ts = append(ts, Tok(ASSIGN, "="))
			for _, t := range n.Init {
				t.Pos = 0
				ts = append(ts, t)
			}
		}
	}
	if semi {
		ts = append(ts, Tok(SEMI, ";"))
	}
	return ts
}

func paramTokens(ts []Token, d *VarDecl) []Token {
	if !d.Toks.IsZero() {
		for i := 0; i < d.Toks.Len(); i++ {
			ts = append(ts, d.Toks.At(i))
		}
		return ts
	}
	return d.synthTo(ts, false)
}

// paramTokensLen is the number of tokens paramTokens appends.
func paramTokensLen(d *VarDecl) int {
	if !d.Toks.IsZero() {
		return d.Toks.Len()
	}
	return d.tokensLen()
}

// headerTokens makes the tokens of a function header from its fields.
func (fn *Function) headerTokens() []Token {
	var ts []Token
	ts = linkageTokens(ts, fn.Linkage)
	if fn.Kind == Entry {
		ts = append(ts, Tok(DIRECTIVE, ".entry"))
	} else {
		ts = append(ts, Tok(DIRECTIVE, ".func"))
	}
	if len(fn.Ret) > 0 {
		ts = append(ts, Tok(LPAREN, "("))
		for i, r := range fn.Ret {
			if i > 0 {
				ts = append(ts, Tok(COMMA, ","))
			}
			ts = paramTokens(ts, r)
		}
		ts = append(ts, Tok(RPAREN, ")"))
	}
	ts = append(ts, Token{Pos: fn.NamePos, Kind: IDENT, Text: fn.Name})
	if !fn.NoParen || len(fn.Params) > 0 {
		ts = append(ts, Tok(LPAREN, "("))
		for i, r := range fn.Params {
			if i > 0 {
				ts = append(ts, Tok(COMMA, ","))
			}
			ts = paramTokens(ts, r)
		}
		ts = append(ts, Tok(RPAREN, ")"))
	}
	for _, d := range fn.Perf {
		ts = append(ts, tokensOf(d).Slice()...)
	}
	if fn.Body == nil {
		ts = append(ts, Tok(SEMI, ";"))
	}
	return ts
}

// AddParam appends parameters to fn, keeping the rest of a parsed header's
// layout: the new parameters' tokens are spliced in before the ')' that
// closes the parameter list (one splice for all of them).
func (fn *Function) AddParam(ds ...*VarDecl) {
	had := len(fn.Params)
	for _, d := range ds {
		d.Space = SpaceParam
		fn.Params = append(fn.Params, d)
	}
	if fn.Toks.IsZero() || len(ds) == 0 {
		return
	}
	toks := fn.Toks
	// Find the ')' closing the parameter list: the first paren group after
	// the function name.
	nameIdx := -1
	for i := 0; i < toks.Len(); i++ {
		if t := toks.At(i); t.Kind == IDENT && t.Pos == fn.NamePos && t.Text == fn.Name {
			nameIdx = i
			break
		}
	}
	if nameIdx < 0 || fn.NoParen {
		fn.NoParen = false
		fn.Toks = Toks{}
		return
	}
	depth := 0
	for i := nameIdx + 1; i < toks.Len(); i++ {
		switch toks.At(i).Kind {
		case LPAREN:
			depth++
		case RPAREN:
			depth--
			if depth == 0 {
				n := toks.Len()
				for j, d := range ds {
					if had+j > 0 {
						n++
					}
					n += paramTokensLen(d)
				}
				nt := make([]Token, 0, n)
				for k := 0; k < i; k++ {
					nt = append(nt, toks.At(k))
				}
				for j, d := range ds {
					if had+j > 0 {
						nt = append(nt, Tok(COMMA, ","))
					}
					nt = paramTokens(nt, d)
				}
				for k := i; k < toks.Len(); k++ {
					nt = append(nt, toks.At(k))
				}
				fn.Toks = MakeToks(nt)
				return
			}
		}
	}
	fn.Toks = Toks{}
}

// AddPerf appends a performance-tuning directive (.maxnreg, ...) to fn's
// header, after the ones it has.
func (fn *Function) AddPerf(d *Directive) {
	fn.Perf = append(fn.Perf, d)
	if fn.Toks.IsZero() {
		return
	}
	toks := fn.Toks.Slice()
	at := len(toks)
	if fn.Body == nil && at > 0 && toks[at-1].Kind == SEMI {
		at--
	}
	ins := tokensOf(d).Slice()
	nt := make([]Token, 0, len(toks)+len(ins))
	nt = append(nt, toks[:at]...)
	nt = append(nt, ins...)
	nt = append(nt, toks[at:]...)
	fn.Toks = MakeToks(nt)
}

// synth makes the tokens of an instruction from its fields.
func (in *Instruction) synth() []Token {
	// Guard (3), opcode, operands (most take one token, an address up to
	// five, a separator each) and ';': one allocation for the usual case.
	ts := make([]Token, 0, 5+4*len(in.Args))
	if in.Guard != "" {
		ts = append(ts, Tok(AT, "@"))
		if in.GuardNeg {
			ts = append(ts, Tok(NOT, "!"))
		}
		ts = append(ts, Tok(IDENT, in.Guard))
	}
	var op string
	if in.Op != nil {
		op = in.Op.Text
		if op == "" {
			op = in.Op.Name + strings.Join(in.Op.Mods, "")
		}
	}
	ts = append(ts, Tok(IDENT, op))
	for i := range in.Args {
		if i > 0 {
			ts = append(ts, Tok(COMMA, ","))
		}
		ts = operandTokens(ts, &in.Args[i])
	}
	return append(ts, Tok(SEMI, ";"))
}

func operandTokens(ts []Token, o *Operand) []Token {
	list := func(open, close Token) {
		ts = append(ts, open)
		for i := range o.Elems {
			if i > 0 {
				ts = append(ts, Tok(COMMA, ","))
			}
			ts = operandTokens(ts, &o.Elems[i])
		}
		ts = append(ts, close)
	}
	switch o.Kind {
	case OpReg, OpSink:
		ts = append(ts, Tok(IDENT, o.Name))
	case OpImm:
		if strings.HasPrefix(o.Name, "-") {
			ts = append(ts, Tok(MINUS, "-"), numTok(o.Name[1:]))
		} else {
			ts = append(ts, numTok(o.Name))
		}
	case OpPredNeg:
		ts = append(ts, Tok(NOT, "!"), Tok(IDENT, o.Name))
	case OpPair:
		ts = append(ts, Tok(IDENT, o.Name), Tok(OR, "|"), Tok(IDENT, o.Name2))
	case OpVec:
		list(Tok(LBRACE, "{"), Tok(RBRACE, "}"))
	case OpTuple:
		list(Tok(LPAREN, "("), Tok(RPAREN, ")"))
	case OpAddr:
		ts = append(ts, Tok(LBRACK, "["))
		switch {
		case o.Name != "":
			ts = append(ts, Tok(IDENT, o.Name))
			if o.Offset > 0 {
				ts = append(ts, Tok(PLUS, "+"), Tok(INT, strconv.FormatInt(o.Offset, 10)))
			} else if o.Offset < 0 {
				ts = append(ts, Tok(PLUS, "+"), Tok(MINUS, "-"), Tok(INT, strconv.FormatInt(-o.Offset, 10)))
			}
		default:
			ts = append(ts, Tok(INT, strconv.FormatInt(o.Offset, 10)))
		}
		for i := range o.Elems {
			ts = append(ts, Tok(COMMA, ","))
			ts = operandTokens(ts, &o.Elems[i])
		}
		ts = append(ts, Tok(RBRACK, "]"))
	case OpExpr:
		for _, t := range o.Expr {
			t.Pos = 0
			ts = append(ts, t)
		}
	}
	return ts
}

func numTok(s string) Token {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D') ||
		strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return Tok(FLOAT, s)
	}
	return Tok(INT, s)
}

// NewInstruction builds an unpositioned instruction from an opcode spelling
// and operands.
func NewInstruction(opcode string, args ...Operand) *Instruction {
	return &Instruction{Op: DecodeOpcode(opcode), Args: args}
}

// Reg makes a register (or symbol) operand.
func Reg(name string) Operand { return Operand{Kind: OpReg, Name: name} }

// Imm makes an integer immediate operand.
func Imm(v int64) Operand { return Operand{Kind: OpImm, Name: strconv.FormatInt(v, 10)} }

// Addr makes an address operand [base+off].
func Addr(base string, off int64) Operand { return Operand{Kind: OpAddr, Name: base, Offset: off} }

// Vec makes a vector operand {a, b, ...}.
func Vec(elems ...Operand) Operand { return Operand{Kind: OpVec, Elems: elems} }

// NewBlock makes an empty unpositioned block.
func NewBlock(stmts ...Stmt) *Block {
	return &Block{Lbrace: Tok(LBRACE, "{"), Stmts: stmts, Rbrace: Tok(RBRACE, "}")}
}

// Freeze makes the tokens of an instruction built by a pass (Toks zero)
// from its fields once, so that printing it many times (generated code
// shared by many sites) does not make them again; it prints the same.
// The instruction must not change afterwards.
func (n *Instruction) Freeze() {
	if n.Toks.IsZero() {
		n.Toks = MakeToks(n.synth())
	}
}
