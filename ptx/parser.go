package ptx

import (
	"bytes"
	"encoding/binary"
	"go/scanner"
	"go/token"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"
)

// Mode controls the parser.
type Mode uint

// Parser modes.
const (
	// AllErrors reports every error instead of stopping after the first
	// MaxErrors.
	AllErrors Mode = 1 << iota
	// SkipOperands parses and checks instructions' operands as usual but
	// does not keep them: every Instruction.Args is nil. It is for callers
	// that only print the file (printing replays a parsed node's tokens,
	// so the output is the same): operand lists are the largest part of a
	// parsed file.
	SkipOperands
)

// MaxErrors is the number of errors after which parsing stops unless
// AllErrors is set.
const MaxErrors = 10

// maxDepth bounds block nesting; deeper input is reported and skipped
// without recursion.
const maxDepth = 1000

// ParseFile parses the PTX module src and returns its AST. The file is added
// to fset under filename. On syntax errors ParseFile still returns a File in
// which the parts that did not parse are BadDecl/BadStmt nodes (so the file
// still prints back byte for byte), together with a scanner.ErrorList
// sorted by position. The File keeps src (tokens refer into it), so src
// must not be modified after the call.
func ParseFile(fset *token.FileSet, filename string, src []byte, mode Mode) (f *File, err error) {
	tf := fset.AddFile(filename, -1, len(src))
	setLines(tf, src)
	return parseRange(tf, src, 0, len(src), mode, nil)
}

// parseRange parses the declarations in src[lo:hi], src being the whole
// text of tf: positions, the File's Src and Tok are those of the whole
// file, and the token table covers src[lo:hi] only.
func parseRange(tf *token.File, src []byte, lo, hi int, mode Mode, opcodes map[string]*Opcode) (f *File, err error) {
	return parseRangeIn(nil, tf, src, lo, hi, mode, opcodes)
}

// parseRangeIn is parseRange with the arenas carved from a, if not nil.
func parseRangeIn(a *Arena, tf *token.File, src []byte, lo, hi int, mode Mode, opcodes map[string]*Opcode) (f *File, err error) {
	var p *parser
	if a != nil {
		p = &a.p
		*p = parser{file: tf, mode: mode}
	} else {
		p = &parser{file: tf, mode: mode}
	}
	// The tokens' Text fields are substrings of src without copies: src
	// is retained by the File and must not be modified afterwards.
	whole := unsafe.String(unsafe.SliceData(src), len(src))
	text := whole[lo:hi]
	p.src = text
	base := tf.Base() + lo
	// Real PTX averages one token per 4-5.5 bytes.
	ntok := len(text)/5 + 16
	p.base = base
	var raw []rawTok
	var kinds []Kind
	if a != nil {
		raw, kinds = carve(&a.raw, ntok), carve(&a.kinds, ntok)
	} else {
		raw, kinds = make([]rawTok, 0, ntok), make([]Kind, 0, ntok)
	}
	p.raw, p.kinds = lex(text, base, raw, kinds, func(off int, msg string) {
		p.errorAt(token.Pos(base+off), msg)
	})
	if a != nil {
		p.tab = one(&a.tabs)
	} else {
		p.tab = new(tokTable)
	}
	*p.tab = tokTable{src: text, base: base, raw: p.raw, kinds: p.kinds}
	p.opcodes = opcodes
	if p.opcodes == nil {
		p.opcodes = make(map[string]*Opcode, 32)
	}
	// The arenas are allocated once, at the sizes countNodes estimates
	// (they grow in chunks if it falls short).
	c := countNodes(text, p.raw, p.kinds)
	if a != nil {
		p.carve(a, c)
	} else {
		p.alloc(c)
	}
	p.insChunk = max(c.ins/16, 8)
	p.argChunk = max(c.args/16, 16)
	if a != nil {
		f = one(&a.files)
	} else {
		f = new(File)
	}
	*f = File{Name: tf.Name(), Src: src, Tok: tf}
	f.CRLF = detectCRLF(whole)
	f.Decls = p.parseModule()
	p.errors.Sort()
	err = p.errors.Err()
	if a != nil {
		*p = parser{} // what it points to goes with the File
	}
	return f, err
}

// alloc allocates the arenas at the sizes c counts.
func (p *parser) alloc(c nodeCounts) {
	p.insArena = make([]Instruction, 0, c.ins+1)
	p.stmts = make([]Stmt, 0, c.stmts+1)
	if p.mode&SkipOperands == 0 {
		p.argArena = make([]Operand, 0, c.args+1)
		if c.nested > 0 {
			p.opArena = make([]Operand, 0, c.nested)
		}
	}
	if c.vars > 0 {
		p.varArena = make([]VarDecl, 0, c.vars)
		p.dclArena = make([]Declarator, 0, c.decls)
	}
	if c.comments > 0 {
		p.comArena = make([]Comment, 0, c.comments)
	}
	if c.labels > 0 {
		p.lblArena = make([]Label, 0, c.labels)
	}
}

// carve carves the arenas from a at the sizes c counts.
func (p *parser) carve(a *Arena, c nodeCounts) {
	p.insArena = carve(&a.ins, c.ins+1)
	p.stmts = carve(&a.stmts, c.stmts+1)
	if p.mode&SkipOperands == 0 {
		p.argArena = carve(&a.args, c.args+1)
		p.opArena = carve(&a.ops, c.nested)
	}
	p.varArena = carve(&a.vars, c.vars)
	p.dclArena = carve(&a.dcls, c.decls)
	p.comArena = carve(&a.coms, c.comments)
	p.lblArena = carve(&a.lbls, c.labels)
}

// setLines fills tf's line table, counting the lines first (bytes.Count)
// to size it exactly, then finding the line ends eight bytes at a time
// (about twice as fast as bytes.IndexByte per line on PTX's short lines,
// several times faster than token.File.SetLinesForContent).
func setLines(tf *token.File, src []byte) {
	tf.SetLines(lineStarts(src))
}

// lineStarts returns the offsets at which src's lines start: 0, and
// every offset after a '\n' but len(src).
func lineStarts(src []byte) []int {
	lines := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	const (
		ones = 0x0101010101010101
		low7 = 0x7f7f7f7f7f7f7f7f
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:]) ^ ('\n' * ones) // a '\n' byte is 0
		// The high bit of each byte that is 0, exactly (no carries
		// cross bytes: each byte's low seven bits plus 0x7f stay
		// within it).
		z := ^((w&low7 + low7) | w | low7)
		for z != 0 {
			lines = append(lines, i+bits.TrailingZeros64(z)/8+1)
			z &= z - 1
		}
	}
	for ; i < len(src); i++ {
		if src[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	if n := len(lines); n > 1 && lines[n-1] == len(src) {
		lines = lines[:n-1] // a final line break starts no line
	}
	return lines
}

func detectCRLF(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i > 0 && s[i-1] == '\r'
}

type parser struct {
	box    *opcodeBox // DecodeOpcode's allocation, or nil
	file   *token.File
	src    string
	base   int
	raw    []rawTok  // the file's tokens
	kinds  []Kind    // their kinds
	tab    *tokTable // the same, shared by the nodes' Toks
	i      int       // index of the current token
	mode   Mode
	errors scanner.ErrorList
	full   bool // error limit reached
	errPos map[token.Pos]bool

	// Arenas: slices handed out to nodes are carved from these chunks so
	// that a file costs a handful of allocations, not one per operand.
	strArena  []string
	opArena   []Operand // nested operand lists (vectors, tuples, texture coordinates)
	argArena  []Operand // instructions' top-level operands, appended in place
	argChunk  int       // size of the next argArena chunk
	insChunk  int       // size of the next insArena chunk
	tyArena   []Type
	insArena  []Instruction
	comArena  []Comment
	lblArena  []Label
	varArena  []VarDecl
	dclArena  []Declarator
	tmpOps    []Operand          // operand stack for nested lists
	scratch   Operand            // the operand being parsed when they are not kept (SkipOperands)
	stmts     []Stmt             // statement stack of the blocks being parsed
	stmtArena []Stmt             // blocks' statement lists
	opcodes   map[string]*Opcode // decoded opcodes by spelling
}

func (p *parser) errorAt(pos token.Pos, msg string) {
	if p.full || p.errPos[pos] {
		return // one error per position: the lexer's report wins
	}
	if p.errPos == nil {
		p.errPos = make(map[token.Pos]bool)
	}
	p.errPos[pos] = true
	if p.mode&AllErrors == 0 && len(p.errors) >= MaxErrors {
		p.full = true
		return
	}
	p.errors.Add(p.file.Position(pos), msg)
}

// ---- token access ----

// tok returns token i.
func (p *parser) tok(i int) Token { return p.tab.token(i) }

// text returns the spelling of token i.
func (p *parser) text(i int) string {
	r := p.raw[i]
	return p.src[r.off : r.off+r.n]
}

// pos returns the position of token i.
func (p *parser) pos(i int) token.Pos { return token.Pos(p.base + int(p.raw[i].off)) }

// span makes the Toks of a node made of tokens [lo, hi).
func (p *parser) span(lo, hi int) Toks { return Toks{tab: p.tab, lo: int32(lo), hi: int32(hi)} }

// tokens returns tokens [lo, hi) without comments, as a new slice.
func (p *parser) tokens(lo, hi int) []Token {
	out := make([]Token, 0, hi-lo)
	for i := lo; i < hi; i++ {
		if p.kinds[i] != COMMENT {
			out = append(out, p.tok(i))
		}
	}
	return out
}

// kind returns the kind of the current non-comment token (EOF at the end)
// without making a Token.
func (p *parser) kind() Kind {
	for p.i < len(p.raw) {
		if k := p.kinds[p.i]; k != COMMENT {
			return k
		}
		p.i++
	}
	return EOF
}

// cur returns the current non-comment token without consuming it.
func (p *parser) cur() Token {
	for p.i < len(p.raw) && p.kinds[p.i] == COMMENT {
		p.i++
	}
	if p.i >= len(p.raw) {
		return Token{Pos: token.Pos(p.base + len(p.src)), Kind: EOF}
	}
	return p.tok(p.i)
}

func (p *parser) next() Token {
	t := p.cur()
	if t.Kind != EOF {
		p.i++
	}
	return t
}

func (p *parser) got(k Kind) bool {
	if p.kind() == k {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(k Kind, what string) bool {
	t := p.cur()
	if t.Kind == k {
		p.i++
		return true
	}
	p.errorAt(t.Pos, "expected "+what+", found "+describe(t))
	return false
}

func describe(t Token) string {
	switch t.Kind {
	case EOF:
		return "end of file"
	case IDENT, DIRECTIVE, INT, FLOAT:
		return "'" + t.Text + "'"
	case STRING:
		return "string " + t.Text
	case ILLEGAL:
		return "invalid text " + strconv.Quote(t.Text)
	}
	return "'" + t.Text + "'"
}

// newlineBetween reports whether a line break separates token index a's end
// from token index b's start.
func (p *parser) newlineBefore(idx int) bool {
	if idx <= 0 || idx >= len(p.raw) {
		return true
	}
	a := int(p.pos(idx-1)) - p.base + len(p.text(idx-1))
	b := int(p.pos(idx)) - p.base
	return strings.IndexByte(p.src[a:b], '\n') >= 0
}

// ---- arenas ----

func (p *parser) strs(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	if cap(p.strArena)-len(p.strArena) < len(ss) {
		p.strArena = make([]string, 0, max(128, len(ss)))
	}
	n := len(p.strArena)
	p.strArena = append(p.strArena, ss...)
	return p.strArena[n:len(p.strArena):len(p.strArena)]
}

// declarators returns a slice of n declarators from the arena, with no
// room to grow in place.
func (p *parser) declarators(n int) []Declarator {
	if cap(p.dclArena)-len(p.dclArena) < n {
		p.dclArena = make([]Declarator, 0, max(n, nextChunk(cap(p.dclArena))))
	}
	k := len(p.dclArena)
	p.dclArena = p.dclArena[:k+n]
	return p.dclArena[k : k+n : k+n]
}

func (p *parser) types(ts []Type) []Type {
	if len(ts) == 0 {
		return nil
	}
	if cap(p.tyArena)-len(p.tyArena) < len(ts) {
		p.tyArena = make([]Type, 0, max(128, len(ts)))
	}
	n := len(p.tyArena)
	p.tyArena = append(p.tyArena, ts...)
	return p.tyArena[n:len(p.tyArena):len(p.tyArena)]
}

func (p *parser) ops(os []Operand) []Operand {
	if len(os) == 0 {
		return nil
	}
	if cap(p.opArena)-len(p.opArena) < len(os) {
		p.opArena = make([]Operand, 0, max(64, len(os)))
	}
	n := len(p.opArena)
	p.opArena = append(p.opArena, os...)
	return p.opArena[n:len(p.opArena):len(p.opArena)]
}

// newArg returns a zero slot for the next top-level operand of the
// instruction whose operands start at *base in argArena. Arena chunks grow
// geometrically (up to 64K operands); a partial operand list moves to the
// new chunk with it. The slots past len(argArena) are zero (dropArgs
// clears what it pops).
func (p *parser) newArg(base *int) *Operand {
	if len(p.argArena) == cap(p.argArena) {
		p.argChunk = min(max(2*p.argChunk, 16), 1<<16)
		n := len(p.argArena) - *base
		na := make([]Operand, n, max(p.argChunk, 2*n))
		copy(na, p.argArena[*base:])
		p.argArena, *base = na, 0
	}
	p.argArena = p.argArena[:len(p.argArena)+1]
	return &p.argArena[len(p.argArena)-1]
}

// dropArgs pops the operands from base on, clearing their slots.
func (p *parser) dropArgs(base int) {
	clear(p.argArena[base:])
	p.argArena = p.argArena[:base]
}

// nodeChunk is the largest number of nodes per chunk of the small node
// arenas; chunks start at 8 nodes and double, so a small file does not pay
// for a large chunk.
const nodeChunk = 128

// nextChunk is the capacity of the chunk that follows one of capacity c.
func nextChunk(c int) int { return min(max(2*c, 8), nodeChunk) }

// newNode returns a zero T carved from the chunk *a, starting a new chunk
// when it is full.
func newNode[T any](a *[]T) *T {
	if len(*a) == cap(*a) {
		*a = make([]T, 0, nextChunk(cap(*a)))
	}
	*a = (*a)[:len(*a)+1]
	return &(*a)[len(*a)-1]
}

func (p *parser) newInstruction() *Instruction {
	if len(p.insArena) == cap(p.insArena) {
		p.insChunk = min(max(2*p.insChunk, 8), 1<<14)
		p.insArena = make([]Instruction, 0, p.insChunk)
	}
	p.insArena = p.insArena[:len(p.insArena)+1]
	return &p.insArena[len(p.insArena)-1]
}

// ---- module level ----

func (p *parser) parseModule() []Decl {
	var decls []Decl
	prevEnd := -1
	for !p.full {
		// Comments between declarations become Comment nodes.
		if p.i < len(p.raw) && p.kinds[p.i] == COMMENT {
			decls = append(decls, p.comment(prevEnd))
			prevEnd = p.i - 1
			continue
		}
		t := p.cur()
		if t.Kind == EOF {
			break
		}
		start := p.i
		d := p.parseDecl()
		if p.i == start { // always make progress
			p.i++
			d = &BadDecl{Toks: p.span(start, p.i)}
		}
		decls = append(decls, d)
		prevEnd = p.i - 1
	}
	if p.full && p.i < len(p.raw) {
		// Error limit reached: keep the rest so the tree still covers
		// the whole input.
		decls = append(decls, &BadDecl{Toks: p.span(p.i, len(p.raw))})
		p.i = len(p.raw)
	}
	return decls
}

// comment makes a Comment node of the comment token at p.i. prevEnd is the
// index of the last token of the preceding statement (or -1).
func (p *parser) comment(prevEnd int) *Comment {
	t := p.tok(p.i)
	c := newNode(&p.comArena)
	c.Toks, c.Text = p.span(p.i, p.i+1), t.Text
	if prevEnd >= 0 && prevEnd == p.i-1 && !p.newlineBefore(p.i) {
		c.SameLine = true
	}
	p.i++
	return c
}

func linkageOf(s string) Linkage {
	switch s {
	case ".visible":
		return Visible
	case ".extern":
		return Extern
	case ".weak":
		return Weak
	case ".common":
		return Common
	}
	return 0
}

func spaceOf(s string) Space {
	switch s {
	case ".reg":
		return SpaceReg
	case ".sreg":
		return SpaceSReg
	case ".const":
		return SpaceConst
	case ".global":
		return SpaceGlobal
	case ".local":
		return SpaceLocal
	case ".param":
		return SpaceParam
	case ".shared", ".shared::cta":
		return SpaceShared
	case ".shared::cluster":
		return SpaceSharedCluster
	case ".tex":
		return SpaceTex
	}
	return SpaceNone
}

func (p *parser) parseDecl() Decl {
	start := p.i
	t := p.cur()
	if t.Kind != DIRECTIVE {
		p.errorAt(t.Pos, "expected directive, found "+describe(t))
		return p.badDecl(start)
	}
	// Look past linkage directives to see what is declared.
	j := p.i
	var link Linkage
	for j < len(p.raw) && (p.kinds[j] == DIRECTIVE && linkageOf(p.text(j)) != 0 || p.kinds[j] == COMMENT) {
		if p.kinds[j] == DIRECTIVE {
			link |= linkageOf(p.text(j))
		}
		j++
	}
	var what string
	if j < len(p.raw) {
		what = p.text(j)
	} else {
		p.errorAt(token.Pos(p.base+len(p.src)), "unexpected end of file after "+t.Text)
		return p.badDecl(start)
	}
	switch {
	case what == ".entry" || what == ".func":
		return p.parseFunction()
	case spaceOf(what) != SpaceNone || what == ".texref" || what == ".samplerref" || what == ".surfref":
		return p.parseVarDecl(true, SEMI)
	case link != 0:
		p.errorAt(p.pos(j), "expected declaration after "+t.Text+", found "+describe(p.tok(j)))
		return p.badDecl(start)
	case what == ".section":
		return p.parseSection()
	}
	return p.parseDirective()
}

// badDecl skips to the end of the current declaration: a ';' at brace depth
// zero, the end of a balanced '{ }' group, or the next line that starts with
// a directive.
func (p *parser) badDecl(start int) Decl {
	p.skipBad(start)
	return &BadDecl{Toks: p.span(start, p.i)}
}

func (p *parser) skipBad(start int) {
	depth := 0
	if p.i == start && p.i < len(p.raw) {
		// consume at least one token
		switch p.kinds[p.i] {
		case LBRACE:
			depth++
		case SEMI:
			p.i++
			return
		}
		p.i++
	}
	for p.i < len(p.raw) {
		t := p.tok(p.i)
		switch t.Kind {
		case LBRACE:
			depth++
		case RBRACE:
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.i++
				return
			}
		case SEMI:
			if depth == 0 {
				p.i++
				return
			}
		case DIRECTIVE:
			if depth == 0 && p.newlineBefore(p.i) {
				return
			}
		}
		p.i++
	}
}

// parseSection parses `.section NAME { ... }`, keeping the block verbatim.
func (p *parser) parseSection() Decl {
	start := p.i
	p.next() // .section
	name := p.cur()
	if name.Kind != DIRECTIVE && name.Kind != IDENT {
		p.errorAt(name.Pos, "expected section name, found "+describe(name))
		return p.badDecl(start)
	}
	p.next()
	lb := p.cur()
	if lb.Kind == RAW {
		p.next()
		return &Section{Toks: p.span(start, p.i), Name: name.Text, Body: lb.Text}
	}
	if lb.Kind != LBRACE {
		// A section without a body: treat the rest of the line as args.
		p.errorAt(lb.Pos, "expected '{' after .section "+name.Text+", found "+describe(lb))
		return p.badDecl(start)
	}
	open := p.i
	depth := 0
	k := p.i
	for ; k < len(p.raw); k++ {
		if p.kinds[k] == LBRACE {
			depth++
		} else if p.kinds[k] == RBRACE {
			depth--
			if depth == 0 {
				break
			}
		}
	}
	if k >= len(p.raw) {
		p.errorAt(lb.Pos, "section "+name.Text+" not terminated by '}'")
		p.i = len(p.raw)
		return &BadDecl{Toks: p.span(start, len(p.raw))}
	}
	lo := int(p.pos(open)) - p.base
	hi := int(p.pos(k)) - p.base + 1
	body := p.src[lo:hi]
	// Replace the block's first token by one RAW token spanning the body;
	// the body's own tokens are not referenced by any node.
	p.raw[open] = rawTok{off: uint32(lo), n: uint32(hi - lo)}
	p.kinds[open] = RAW
	p.i = k + 1
	return &Section{Toks: p.span(start, open+1), Name: name.Text, Body: body}
}

// directiveEndsAtSemi lists directives whose arguments run to a ';' even
// across lines.
func directiveEndsAtSemi(name string) bool {
	switch name {
	case ".pragma", ".callprototype", ".branchtargets", ".calltargets", ".alias":
		return true
	}
	return false
}

// parseDirective parses a generic directive. Its arguments end at ';'
// (consumed), at a line break outside parentheses, or before '{' / '}'.
func (p *parser) parseDirective() *Directive {
	start := p.i
	name := p.next()
	d := &Directive{Name: name.Text}
	semiOnly := directiveEndsAtSemi(name.Text)
	depth := 0
	argStart := len(p.raw)
	for p.i < len(p.raw) {
		t := p.tok(p.i)
		if t.Kind == COMMENT {
			if !semiOnly && depth == 0 && (p.newlineBefore(p.i) || p.commentRunsToLineEnd(p.i)) {
				break
			}
			p.i++
			continue
		}
		if t.Kind == SEMI && depth == 0 {
			p.i++
			d.Semi = true
			break
		}
		if depth == 0 && !semiOnly && p.i > start && p.newlineBefore(p.i) {
			break
		}
		if depth == 0 && (t.Kind == LBRACE || t.Kind == RBRACE) {
			break
		}
		switch t.Kind {
		case LPAREN:
			depth++
		case RPAREN:
			if depth > 0 {
				depth--
			}
		}
		if argStart == len(p.raw) {
			argStart = p.i
		}
		p.i++
	}
	d.Toks = p.span(start, p.i)
	if argStart < p.i {
		d.Args = p.tokens(argStart, p.i)
		if d.Semi && len(d.Args) > 0 && d.Args[len(d.Args)-1].Kind == SEMI {
			d.Args = d.Args[:len(d.Args)-1]
		}
	}
	if semiOnly && !d.Semi {
		p.errorAt(name.Pos, "expected ';' to end "+name.Text)
	}
	p.checkDirective(d)
	return d
}

// commentRunsToLineEnd reports whether the comment at idx is a line comment
// (and so ends its line).
func (p *parser) commentRunsToLineEnd(idx int) bool {
	return strings.HasPrefix(p.text(idx), "//")
}

// stripComments returns ts without COMMENT tokens, sharing memory when there
// are none.
func stripComments(ts []Token) []Token {
	for i := range ts {
		if ts[i].Kind == COMMENT {
			out := make([]Token, 0, len(ts))
			for _, t := range ts {
				if t.Kind != COMMENT {
					out = append(out, t)
				}
			}
			return out
		}
	}
	return ts
}

// checkDirective validates the arguments of the directives with a fixed
// shape.
func (p *parser) checkDirective(d *Directive) {
	bad := func(msg string) { p.errorAt(d.Pos(), d.Name+": "+msg) }
	switch d.Name {
	case ".version":
		if _, _, ok := d.Version(); !ok {
			bad("expected major.minor version number")
		}
	case ".address_size":
		if n, ok := d.AddressSize(); !ok || (n != 32 && n != 64) {
			bad("expected 32 or 64")
		}
	case ".target":
		if len(d.Targets()) == 0 {
			bad("expected target name")
		}
	case ".loc":
		if _, ok := d.Loc(); !ok {
			bad("expected file, line and column numbers")
		}
	case ".file":
		if _, ok := d.FileEntry(); !ok {
			bad("expected file index and quoted name")
		}
	}
}

// ---- variable declarations ----

// parseVarDecl parses a variable/register/parameter declaration. In a
// parameter list (semi == false) it ends before ',' or ')' and declares one
// name; otherwise it ends with ';' and may declare several names.
func (p *parser) parseVarDecl(withSemi bool, _ Kind) Decl {
	start := p.i
	d := p.varDecl(withSemi)
	if d == nil {
		return p.badDecl(start)
	}
	return d
}

func (p *parser) varDecl(withSemi bool) *VarDecl {
	start := p.i
	d := newNode(&p.varArena)
	// linkage
	for {
		t := p.cur()
		if t.Kind != DIRECTIVE {
			break
		}
		l := linkageOf(t.Text)
		if l == 0 {
			break
		}
		d.Linkage |= l
		p.next()
	}
	// attributes: space, alignment, vector, type, ptr
	sawType := false
	for {
		t := p.cur()
		if t.Kind != DIRECTIVE {
			break
		}
		switch s, sp := t.Text, spaceOf(t.Text); {
		case sp != SpaceNone && d.Space == SpaceNone && !d.Ptr:
			d.Space = sp
			p.next()
		case s == ".align":
			p.next()
			n, ok := p.intLit()
			if !ok {
				return nil
			}
			if d.Ptr && !sawType {
				d.PtrAlign = n
			} else if d.Ptr {
				d.PtrAlign = n
			} else {
				d.Align = n
			}
		case s == ".v2" || s == ".v4" || s == ".v8":
			d.Vec = int(s[2] - '0')
			p.next()
		case s == ".ptr":
			d.Ptr = true
			p.next()
		case d.Ptr && d.PtrSpace == SpaceNone && sp != SpaceNone:
			d.PtrSpace = sp
			p.next()
		case s == ".texref" || s == ".samplerref" || s == ".surfref":
			if d.Space == SpaceNone {
				d.Space = SpaceGlobal
			}
			d.Type, d.TypeName = typeOf(s), s
			sawType = true
			p.next()
		case typeOf(s) != TypeNone && !sawType:
			d.Type, d.TypeName = typeOf(s), s
			sawType = true
			p.next()
		case strings.HasPrefix(s, ".attribute") || s == ".managed" || s == ".unified":
			p.next()
			a := s
			if p.kind() == LPAREN {
				// .attribute(.managed)
				depth := 0
				for {
					t := p.next()
					if t.Kind == EOF {
						break
					}
					a += t.Text
					if t.Kind == LPAREN {
						depth++
					} else if t.Kind == RPAREN {
						depth--
						if depth == 0 {
							break
						}
					}
				}
			}
			d.Attrs = append(d.Attrs, a)
		default:
			if !sawType && typeOf(s) == TypeNone && !isKnownDirective(s) {
				// Unknown type name (newer PTX): keep its spelling.
				d.TypeName = s
				sawType = true
				p.next()
				continue
			}
			goto names
		}
	}
names:
	if d.Space == SpaceNone {
		t := p.cur()
		p.errorAt(t.Pos, "expected state space in declaration, found "+describe(t))
		return nil
	}
	if !sawType {
		t := p.cur()
		p.errorAt(t.Pos, "expected type in declaration, found "+describe(t))
		return nil
	}
	for {
		dc, ok := p.declarator()
		if !ok {
			return nil
		}
		if d.Names == nil {
			// Most declarations declare one name: carve it from an arena.
			d.Names = p.declarators(1)
			d.Names[0] = dc
		} else {
			d.Names = append(d.Names, dc)
		}
		if !withSemi {
			break
		}
		if p.kind() != COMMA {
			break
		}
		p.next()
	}
	if withSemi {
		if !p.expect(SEMI, "';' after declaration") {
			return nil
		}
	}
	d.Toks = p.span(start, p.i)
	return d
}

// declarator parses one declared name: NAME, an optional <N> range, any
// [N] or [] dimensions and an optional = initializer. It reports false
// after recording an error.
func (p *parser) declarator() (Declarator, bool) {
	t := p.cur()
	if t.Kind != IDENT {
		p.errorAt(t.Pos, "expected name in declaration, found "+describe(t))
		return Declarator{}, false
	}
	p.next()
	dc := Declarator{Pos: t.Pos, Name: t.Text, Range: -1}
	if p.kind() == LT {
		p.next()
		n, ok := p.intLit()
		if !ok {
			return dc, false
		}
		dc.Range = n
		if !p.expect(GT, "'>'") {
			return dc, false
		}
	}
	for p.kind() == LBRACK {
		p.next()
		if p.got(RBRACK) {
			dc.Dims = append(dc.Dims, 0)
			continue
		}
		n, ok := p.intLit()
		if !ok {
			return dc, false
		}
		dc.Dims = append(dc.Dims, n)
		if !p.expect(RBRACK, "']'") {
			return dc, false
		}
	}
	if p.kind() == ASSIGN {
		p.next()
		is := p.i
		if !p.skipExpr() {
			return dc, false
		}
		dc.Init = p.tokens(is, p.i)
	}
	return dc, true
}

// skipExpr consumes an initializer expression: tokens up to a ',' or ';' at
// nesting depth zero. It reports false (after an error) on an unbalanced
// expression.
func (p *parser) skipExpr() bool {
	depth := 0
	start := p.i
	for {
		t := p.cur()
		switch t.Kind {
		case EOF:
			p.errorAt(t.Pos, "unexpected end of file in initializer")
			return false
		case LBRACE, LPAREN, LBRACK:
			depth++
		case RBRACE, RPAREN, RBRACK:
			if depth == 0 {
				if p.i == start {
					p.errorAt(t.Pos, "expected initializer, found "+describe(t))
					return false
				}
				return true
			}
			depth--
		case COMMA, SEMI:
			if depth == 0 {
				if p.i == start {
					p.errorAt(t.Pos, "expected initializer, found "+describe(t))
					return false
				}
				return true
			}
			if t.Kind == SEMI {
				p.errorAt(t.Pos, "unbalanced brackets in initializer")
				return false
			}
		case DIRECTIVE:
			if depth == 0 {
				p.errorAt(t.Pos, "unexpected "+t.Text+" in initializer")
				return false
			}
		}
		p.next()
	}
}

func (p *parser) intLit() (int, bool) {
	t := p.cur()
	if t.Kind != INT {
		p.errorAt(t.Pos, "expected integer, found "+describe(t))
		return 0, false
	}
	p.next()
	v, err := parseInt(t.Text)
	if err != nil || v < 0 || v > 1<<40 {
		p.errorAt(t.Pos, "integer "+t.Text+" out of range")
		return 0, false
	}
	return int(v), true
}

// parseInt parses a PTX integer literal (decimal, 0x, 0b, leading-0 octal,
// optional U suffix).
func parseInt(s string) (int64, error) {
	// Fast path: a plain decimal literal of up to 18 digits (no overflow).
	if n := len(s); n > 0 && n <= 18 && (s[0] != '0' || n == 1) {
		var v int64
		i := 0
		for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
			v = v*10 + int64(s[i]-'0')
		}
		if i == n {
			return v, nil
		}
	}
	s = strings.TrimRight(s, "Uu")
	base := 10
	switch {
	case len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && s[0] == '0':
		base, s = 16, s[2:]
	case len(s) > 2 && (s[1] == 'b' || s[1] == 'B') && s[0] == '0':
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	u, err := strconv.ParseUint(s, base, 64)
	return int64(u), err
}

// ---- functions ----

func (p *parser) parseFunction() Decl {
	start := p.i
	fn := &Function{}
	for {
		t := p.cur()
		l := linkageOf(t.Text)
		if t.Kind != DIRECTIVE || l == 0 {
			break
		}
		fn.Linkage |= l
		p.next()
	}
	kw := p.next()
	if kw.Text == ".func" {
		fn.Kind = Func
	}
	// return parameters
	if fn.Kind == Func && p.kind() == LPAREN {
		p.next()
		ps, ok := p.paramList()
		if !ok {
			return p.badDecl(start)
		}
		fn.Ret = ps
	}
	name := p.cur()
	if name.Kind != IDENT {
		p.errorAt(name.Pos, "expected function name, found "+describe(name))
		return p.badDecl(start)
	}
	p.next()
	fn.Name, fn.NamePos = name.Text, name.Pos
	if p.kind() == LPAREN {
		p.next()
		ps, ok := p.paramList()
		if !ok {
			return p.badDecl(start)
		}
		fn.Params = ps
	} else {
		fn.NoParen = true
	}
	// performance directives and attributes up to '{' or ';'
	for {
		t := p.cur()
		if t.Kind == DIRECTIVE && isPerfDirective(t.Text) {
			fn.Perf = append(fn.Perf, p.parseDirective())
			continue
		}
		break
	}
	t := p.cur()
	switch t.Kind {
	case SEMI:
		p.next()
		fn.Toks = p.span(start, p.i)
		return fn
	case LBRACE:
		fn.Toks = p.span(start, p.i)
		fn.Body = p.parseBlock(0)
		return fn
	}
	if p.lastTokEndsLine() {
		// Open64-era forward declarations end at the line end, without ';'.
		fn.Toks = p.span(start, p.i)
		return fn
	}
	p.errorAt(t.Pos, "expected '{' or ';' after function header, found "+describe(t))
	return p.badDecl(start)
}

// paramList parses parameters after '(' up to and including ')'.
func (p *parser) paramList() ([]*VarDecl, bool) {
	var ps []*VarDecl
	if p.got(RPAREN) {
		return ps, true
	}
	for {
		t := p.cur()
		if t.Kind != DIRECTIVE {
			p.errorAt(t.Pos, "expected parameter, found "+describe(t))
			return nil, false
		}
		d := p.varDecl(false)
		if d == nil {
			return nil, false
		}
		ps = append(ps, d)
		if p.got(COMMA) {
			continue
		}
		if p.expect(RPAREN, "',' or ')' in parameter list") {
			return ps, true
		}
		return nil, false
	}
}

// lastTokEndsLine reports whether a line break follows the last consumed
// non-comment token (or the input ends there).
func (p *parser) lastTokEndsLine() bool {
	j := p.i - 1
	for j >= 0 && p.kinds[j] == COMMENT {
		j--
	}
	k := j + 1
	for k < len(p.raw) && p.kinds[k] == COMMENT {
		k++
	}
	if j < 0 || k >= len(p.raw) {
		return true
	}
	a := int(p.pos(j)) - p.base + len(p.text(j))
	b := int(p.pos(k)) - p.base
	return strings.IndexByte(p.src[a:b], '\n') >= 0 || strings.HasPrefix(p.text(j+1), "//") && j+1 < k
}

// ---- bodies ----

// parseBlock parses '{' statements '}'. depth is the nesting level of the
// block being parsed.
func (p *parser) parseBlock(depth int) *Block {
	b := &Block{Lbrace: p.tok(p.i)}
	p.i++ // '{'
	if depth >= maxDepth {
		p.errorAt(b.Lbrace.Pos, "blocks nested too deeply")
		// Skip to the matching '}' without recursion.
		start := p.i
		n := 1
		for p.i < len(p.raw) {
			switch p.kinds[p.i] {
			case LBRACE:
				n++
			case RBRACE:
				n--
			}
			if n == 0 {
				break
			}
			p.i++
		}
		b.Stmts = append(b.Stmts, &BadStmt{Toks: p.span(start, p.i)})
		if p.i < len(p.raw) {
			b.Rbrace = p.tok(p.i)
			p.i++
		} else {
			b.Rbrace = Token{Kind: RBRACE}
		}
		return b
	}
	// Statements collect on p.stmts (nested blocks push above base) and
	// move to an exactly sized slice at the '}'.
	base := len(p.stmts)
	prevEnd := -1
	for {
		if p.i < len(p.raw) && p.kinds[p.i] == COMMENT {
			p.stmts = append(p.stmts, p.comment(prevEnd))
			prevEnd = p.i - 1
			continue
		}
		t := p.cur()
		switch t.Kind {
		case RBRACE:
			b.Rbrace = t
			p.i++
			b.Stmts = p.popStmts(base)
			return b
		case EOF:
			p.errorAt(t.Pos, "expected '}', found end of file")
			b.Rbrace = Token{Kind: RBRACE} // missing: prints nothing
			b.Stmts = p.popStmts(base)
			return b
		}
		if p.full {
			// Keep the rest of the block as one bad statement.
			start := p.i
			n := 0
			for p.i < len(p.raw) {
				k := p.kinds[p.i]
				if k == RBRACE && n == 0 {
					break
				}
				if k == LBRACE {
					n++
				} else if k == RBRACE {
					n--
				}
				p.i++
			}
			if p.i > start {
				p.stmts = append(p.stmts, &BadStmt{Toks: p.span(start, p.i)})
			}
			continue
		}
		start := p.i
		s := p.parseStmt(depth)
		if p.i == start {
			p.i++
			s = &BadStmt{Toks: p.span(start, p.i)}
		}
		p.stmts = append(p.stmts, s)
		prevEnd = p.i - 1
	}
}

// popStmts returns the statements pushed since base as an exactly sized
// slice (nil when there are none) and pops them. The statements of an
// outermost block (base 0) stay where they are: the slice is the bottom
// of the stack, which then starts after it. Those of a nested block move
// to the statement arena.
func (p *parser) popStmts(base int) []Stmt {
	n := len(p.stmts) - base
	if n == 0 {
		return nil
	}
	if base == 0 {
		out := p.stmts[:n:n]
		p.stmts = p.stmts[n:n]
		return out
	}
	if cap(p.stmtArena)-len(p.stmtArena) < n {
		// Nested blocks are few (call sequences): chunks start small.
		p.stmtArena = make([]Stmt, 0, max(n, min(max(2*cap(p.stmtArena), 16), 1024)))
	}
	k := len(p.stmtArena)
	p.stmtArena = append(p.stmtArena, p.stmts[base:]...)
	out := p.stmtArena[k : k+n : k+n]
	clear(p.stmts[base:])
	p.stmts = p.stmts[:base]
	return out
}

func (p *parser) parseStmt(depth int) Stmt {
	start := p.i
	t := p.cur()
	switch t.Kind {
	case LBRACE:
		return p.parseBlock(depth + 1)
	case DIRECTIVE:
		if linkageOf(t.Text) != 0 || spaceOf(t.Text) != SpaceNone {
			d := p.varDecl(true)
			if d == nil {
				return p.badStmt(start)
			}
			return d
		}
		return p.parseDirective()
	case IDENT:
		if p.i+1 < len(p.raw) && p.kinds[p.i+1] == COLON {
			p.i += 2
			l := newNode(&p.lblArena)
			l.Toks, l.Name = p.span(start, p.i), t.Text
			return l
		}
		if in := p.parseInstruction(); in != nil {
			return in
		}
		return p.badStmt(start)
	case AT:
		if in := p.parseInstruction(); in != nil {
			return in
		}
		return p.badStmt(start)
	}
	p.errorAt(t.Pos, "expected instruction, label or directive, found "+describe(t))
	return p.badStmt(start)
}

// badStmt skips to the end of a statement: past the next ';', or before a
// '}' or a line that starts a new statement.
func (p *parser) badStmt(start int) Stmt {
	if p.i == start {
		p.i++
	}
	for p.i < len(p.raw) {
		t := p.tok(p.i)
		if t.Kind == SEMI {
			p.i++
			break
		}
		if t.Kind == RBRACE || t.Kind == LBRACE {
			break
		}
		if p.newlineBefore(p.i) && (t.Kind == DIRECTIVE || t.Kind == AT ||
			t.Kind == IDENT && p.i+1 < len(p.raw) && (p.kinds[p.i+1] == COLON || p.kinds[p.i+1] == IDENT)) {
			break
		}
		p.i++
	}
	return &BadStmt{Toks: p.span(start, p.i)}
}

// parseInstruction parses [@[!]pred] opcode operands ';'.
func (p *parser) parseInstruction() *Instruction {
	start := p.i
	in := p.newInstruction()
	if p.got(AT) {
		in.GuardNeg = p.got(NOT)
		g := p.cur()
		if g.Kind != IDENT {
			p.errorAt(g.Pos, "expected predicate register after '@', found "+describe(g))
			return nil
		}
		p.next()
		in.Guard = g.Text
	}
	opTok := p.cur()
	if opTok.Kind != IDENT {
		p.errorAt(opTok.Pos, "expected opcode, found "+describe(opTok))
		return nil
	}
	p.next()
	if op, ok := p.opcodes[opTok.Text]; ok {
		in.Op = op
	} else {
		op = new(Opcode)
		p.decodeOpcode(op, opTok.Text)
		p.opcodes[opTok.Text] = op
		in.Op = op
	}
	// operands, parsed straight into the argument arena
	base := len(p.argArena)
	if p.kind() != SEMI {
		for {
			op := &p.scratch
			if p.mode&SkipOperands == 0 {
				op = p.newArg(&base)
			} else {
				*op = Operand{}
			}
			if !p.operandTo(op) {
				p.dropArgs(base)
				return nil
			}
			if p.got(COMMA) {
				continue
			}
			break
		}
	}
	t := p.cur()
	if t.Kind != SEMI {
		p.errorAt(t.Pos, "expected ',' or ';' after operand, found "+describe(t))
		p.dropArgs(base)
		return nil
	}
	p.i++
	if n := len(p.argArena); n > base {
		in.Args = p.argArena[base:n:n]
	}
	in.Toks = p.span(start, p.i)
	return in
}

// operand parses one operand.
func (p *parser) operand() (Operand, bool) {
	var op Operand
	ok := p.operandTo(&op)
	return op, ok
}

// operandTo parses one operand into *op, which is zero.
func (p *parser) operandTo(op *Operand) bool {
	t := p.cur()
	start := p.i
	op.Pos = t.Pos
	switch t.Kind {
	case IDENT:
		p.i++
		if t.Text == "_" {
			op.Kind = OpSink
			op.Name = t.Text
		} else if p.kind() == OR && p.i+1 < len(p.raw) && p.kinds[p.i+1] == IDENT {
			p.next()
			op.Kind, op.Name, op.Name2 = OpPair, t.Text, p.next().Text
		} else {
			op.Kind, op.Name = OpReg, t.Text
		}
	case INT, FLOAT:
		p.i++
		op.Kind, op.Name = OpImm, t.Text
	case MINUS:
		p.next()
		n := p.cur()
		if n.Kind == INT || n.Kind == FLOAT {
			p.next()
			op.Kind = OpImm
			// "-1": the source text when the sign touches the number.
			if lo, hi := p.raw[start].off, p.raw[p.i-1].off+p.raw[p.i-1].n; p.raw[p.i-1].off == lo+1 {
				op.Name = p.src[lo:hi]
			} else {
				op.Name = "-" + n.Text
			}
		} else {
			p.i = start
			return p.exprTo(op, start)
		}
	case NOT:
		p.next()
		n := p.cur()
		if n.Kind != IDENT {
			p.i = start
			return p.exprTo(op, start)
		}
		p.next()
		op.Kind, op.Name = OpPredNeg, n.Text
	case LBRACE:
		p.next()
		elems, ok := p.operandList(RBRACE, "'}'")
		if !ok {
			return false
		}
		op.Kind, op.Elems = OpVec, elems
	case LPAREN:
		p.next()
		elems, ok := p.operandList(RPAREN, "')'")
		if !ok {
			return false
		}
		op.Kind, op.Elems = OpTuple, elems
	case LBRACK:
		return p.addrTo(op)
	default:
		return p.exprTo(op, start)
	}
	// Anything other than a separator after a simple operand makes it an
	// expression ("sym+4" as a mov source, say).
	switch p.kind() {
	case COMMA, SEMI, RBRACE, RPAREN, RBRACK:
		return true
	}
	p.i = start
	return p.exprTo(op, start)
}

// exprTo is exprOperand into *op.
func (p *parser) exprTo(op *Operand, start int) bool {
	o, ok := p.exprOperand(start)
	*op = o
	return ok
}

// addrTo is addrOperand into *op.
func (p *parser) addrTo(op *Operand) bool {
	o, ok := p.addrOperand()
	*op = o
	return ok
}

// exprOperand collects the tokens of a general expression operand up to a
// ',' or ';' (or an unmatched closer) at depth zero.
func (p *parser) exprOperand(start int) (Operand, bool) {
	depth := 0
	prevAtom := false
	for {
		t := p.cur()
		atom := t.Kind == IDENT || t.Kind == INT || t.Kind == FLOAT
		if atom && prevAtom {
			p.errorAt(t.Pos, "expected ',' or ';' after operand, found "+describe(t))
			return Operand{}, false
		}
		prevAtom = atom
		switch t.Kind {
		case EOF:
			p.errorAt(t.Pos, "unexpected end of file in operand")
			return Operand{}, false
		case LBRACE, LPAREN, LBRACK:
			depth++
		case RBRACE, RPAREN, RBRACK:
			if depth == 0 {
				goto done
			}
			depth--
		case COMMA, SEMI:
			if depth == 0 {
				goto done
			}
		case DIRECTIVE, AT, ILLEGAL, STRING:
			p.errorAt(t.Pos, "unexpected "+describe(t)+" in operand")
			return Operand{}, false
		}
		p.next()
	}
done:
	if p.i == start {
		t := p.cur()
		p.errorAt(t.Pos, "expected operand, found "+describe(t))
		return Operand{}, false
	}
	return Operand{Kind: OpExpr, Pos: p.pos(start), Expr: p.tokens(start, p.i)}, true
}

// operandList parses operands separated by ',' up to the closing token.
func (p *parser) operandList(close Kind, what string) ([]Operand, bool) {
	base := len(p.tmpOps)
	if !p.got(close) {
		for {
			op, ok := p.operand()
			if !ok {
				p.tmpOps = p.tmpOps[:base]
				return nil, false
			}
			p.tmpOps = append(p.tmpOps, op)
			if p.got(COMMA) {
				continue
			}
			if !p.expect(close, "',' or "+what) {
				p.tmpOps = p.tmpOps[:base]
				return nil, false
			}
			break
		}
	}
	elems := p.ops(p.tmpOps[base:])
	p.tmpOps = p.tmpOps[:base]
	if elems == nil {
		elems = []Operand{}
	}
	return elems, true
}

// addrOperand parses "[...]": a base name with constant offsets, an
// immediate address, or the texture/surface form "[tex, coords]".
func (p *parser) addrOperand() (Operand, bool) {
	start := p.i
	lb := p.next()
	op := Operand{Kind: OpAddr, Pos: lb.Pos}
	t := p.cur()
	simple := true
	switch t.Kind {
	case IDENT:
		p.next()
		op.Name = t.Text
	case INT:
		p.next()
		v, err := parseInt(t.Text)
		if err != nil {
			simple = false
		}
		op.Offset = v
	case MINUS:
		simple = false
	default:
		simple = false
	}
	for simple {
		t = p.cur()
		if t.Kind == PLUS || t.Kind == MINUS {
			p.next()
			neg := t.Kind == MINUS
			n := p.cur()
			if n.Kind == MINUS { // "+-4"
				neg = !neg
				p.next()
				n = p.cur()
			}
			if n.Kind != INT {
				simple = false
				break
			}
			p.next()
			v, err := parseInt(n.Text)
			if err != nil {
				simple = false
				break
			}
			if neg {
				v = -v
			}
			op.Offset += v
			continue
		}
		break
	}
	if simple {
		switch p.kind() {
		case RBRACK:
			p.next()
			return op, true
		case COMMA:
			// texture / surface form: [tex, coords] or [tex, sampler, coords]
			if op.Offset == 0 && op.Name != "" {
				p.next()
				elems, ok := p.operandList(RBRACK, "']'")
				if !ok {
					return op, false
				}
				op.Elems = elems
				return op, true
			}
		}
	}
	// General address expression: keep the tokens.
	p.i = start
	depth := 0
	for {
		t := p.cur()
		if t.Kind == EOF || t.Kind == SEMI {
			p.errorAt(lb.Pos, "unterminated '[' in operand")
			return Operand{}, false
		}
		p.next()
		switch t.Kind {
		case LBRACK, LBRACE, LPAREN:
			depth++
		case RBRACK, RBRACE, RPAREN:
			depth--
		}
		if depth == 0 {
			break
		}
	}
	return Operand{Kind: OpExpr, Pos: lb.Pos, Expr: p.tokens(start, p.i)}, true
}
