package ptx

import (
	"bytes"
	"io"
	"strings"
	"unsafe"
)

// PrintMode selects how the printer lays out a file.
type PrintMode uint8

// Print modes.
const (
	// Preserve reproduces the source: a tree the parser returned and
	// nobody changed prints byte for byte as its input (CRLF line ends,
	// odd spacing and comments included). Inserted nodes (no positions)
	// are laid out as in Canonical mode, with the file's line ends; the
	// text around them keeps its original layout.
	Preserve PrintMode = iota
	// Canonical lays the file out afresh: one statement per line,
	// Indent per nesting level, labels in column 0, parameters one per
	// line, single spaces between tokens. The output parses to a tree
	// equal to the input's (Equal). Comments are kept.
	Canonical
)

// Config configures the printer.
type Config struct {
	Mode   PrintMode
	Indent string // indentation per level for laid-out text; "\t" when empty
}

var newline = []byte{'\n'}

// Fprint prints f in Preserve mode.
func Fprint(w io.Writer, f *File) error {
	return (&Config{Mode: Preserve}).Fprint(w, f)
}

// flushSize is the size of the printer's buffer: Fprint hands the output to
// w in pieces of about this size rather than building it whole.
const flushSize = 64 << 10

// Fprint prints f to w as configured. The output reaches w in several
// Write calls; after a write error nothing more is written and Fprint
// returns that error.
func (c *Config) Fprint(w io.Writer, f *File) error {
	p := newPrinter(c, f)
	p.w = w
	p.buf = make([]byte, 0, flushSize+flushSize/4)
	p.tails = map[*[]Token]tail{} // the tree does not change while it prints
	p.file(f)
	p.flush()
	return p.err
}

// Format returns the canonical text of a single node (a Decl, a Stmt or a
// *File) without a trailing newline.
func Format(n Node) string {
	p := newPrinter(&Config{Mode: Canonical}, nil)
	switch n := n.(type) {
	case *File:
		p.file(n)
	case Decl:
		p.decl(n, nil)
	case Stmt:
		p.stmt(n, 0)
	}
	return strings.TrimRight(string(p.buf), "\r\n")
}

type printer struct {
	mode    PrintMode
	indent  string
	nl      string
	src     string
	base    int
	buf     []byte
	w       io.Writer // where full buffers go (Fprint); nil: keep everything in buf (Format)
	flushed int       // bytes already handed to w
	err     error     // the first error from w
	last    int       // source offset just past the last positioned token printed, or -1
	prev    prevTok   // the last token printed
	starts  []string  // lineStart's strings by depth
	pend    pendSep   // separator forced for the next token
	pendDep int       // indentation depth of pendLine and pendBlank
	// onInst, when set, is told the output line of every instruction
	// printed; lines counts the line ends printed before buf[scan:].
	onInst func(in *Instruction, line int)
	lines  int
	scan   int
	// tails, when set, holds the text after the first token of frozen
	// instructions already printed (memoTail), by token list.
	tails map[*[]Token]tail
}

// tail is the text an instruction prints after its first token, and its
// last token's prevTok.
type tail struct {
	text []byte
	prev prevTok
}

// maxTails bounds the remembered tails: past it the memo starts afresh.
const maxTails = 1 << 10

// prevTok is what the separator rules need of the last token printed. It
// holds no pointers: the printer updates it for every token, and a string
// field would cost a write barrier each time while the collector runs.
type prevTok struct {
	kind        Kind
	last        byte // last byte of the spelling
	set         bool // a token with a non-empty spelling was printed
	lineComment bool // a "//" comment, which ends its line
}

func prevOf(t Token) prevTok {
	return prevTok{kind: t.Kind, last: t.Text[len(t.Text)-1], set: true,
		lineComment: t.Kind == COMMENT && strings.HasPrefix(t.Text, "//")}
}

// pendSep is a separator forced for the next token, resolved only when the
// token is not printed with its source whitespace (Preserve mode).
type pendSep uint8

const (
	pendNone  pendSep = iota
	pendEmpty         // ""
	pendSpace         // " "
	pendLine          // line end and pendDep indents
	pendBlank         // blank line and pendDep indents
)

func newPrinter(c *Config, f *File) *printer {
	p := &printer{mode: c.Mode, indent: c.Indent, nl: "\n", last: -1}
	if p.indent == "" {
		p.indent = "\t"
	}
	if f != nil {
		if f.CRLF {
			p.nl = "\r\n"
		}
		if f.Tok != nil && f.Src != nil && c.Mode == Preserve {
			// No copy: the File's tokens already view Src the same way
			// (ParseFile), and Src must not change after parsing.
			p.src = unsafe.String(unsafe.SliceData(f.Src), len(f.Src))
			p.base = f.Tok.Base()
			p.last = 0
		}
	}
	return p
}

// size is the number of bytes printed so far.
func (p *printer) size() int { return p.flushed + len(p.buf) }

// flush hands the buffer to w (when printing to a writer).
func (p *printer) flush() {
	if p.w == nil || len(p.buf) == 0 {
		return
	}
	if p.onInst != nil {
		p.lines += bytes.Count(p.buf[p.scan:], newline)
		p.scan = 0
	}
	if p.err == nil {
		_, p.err = p.w.Write(p.buf)
	}
	p.flushed += len(p.buf)
	p.buf = p.buf[:0]
}

// sep forces the separator before the next token.
func (p *printer) sep(s pendSep) {
	p.pend = s
}

func (p *printer) newline(depth int) {
	p.pend, p.pendDep = pendLine, depth
}

func (p *printer) blankLine(depth int) {
	p.pend, p.pendDep = pendBlank, depth
}

// canonSep returns the separator before t when the source's whitespace is
// not used: the forced one (pend, depth) or the canonical one.
func (p *printer) canonSep(pend pendSep, depth int, t Token) string {
	var sep string
	switch pend {
	case pendNone:
		sep = spaceBetween(p.prev, t, p.nl)
	case pendSpace:
		sep = " "
	case pendLine:
		sep = p.lineStart(depth)
	case pendBlank:
		sep = p.nl + p.lineStart(depth)
	}
	if p.size() == 0 && p.last <= 0 {
		sep = strings.TrimLeft(sep, "\r\n")
	}
	return sep
}

// lineStart returns a line end followed by depth indents, made once per
// depth (every statement asks for one; in Preserve mode it is usually
// replaced by the source's own whitespace).
func (p *printer) lineStart(depth int) string {
	if depth < len(p.starts) {
		return p.starts[depth]
	}
	if depth > 64 {
		return p.nl + strings.Repeat(p.indent, depth)
	}
	for d := len(p.starts); d <= depth; d++ {
		p.starts = append(p.starts, p.nl+strings.Repeat(p.indent, d))
	}
	return p.starts[depth]
}

func allSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

// wsBefore returns the run of whitespace in the source ending at off.
func (p *printer) wsBefore(off int) string {
	i := off
	for i > 0 && isSpace(p.src[i-1]) {
		i--
	}
	return p.src[i:off]
}

// emit prints one token.
func (p *printer) emit(t Token) {
	if t.Text == "" {
		return
	}
	pend, depth := p.pend, p.pendDep
	p.pend = pendNone
	if len(p.buf) >= flushSize {
		p.flush()
	}
	if p.src != "" {
		off := int(t.Pos) - p.base
		if t.Pos.IsValid() && off >= 0 && off+len(t.Text) <= len(p.src) && p.src[off:off+len(t.Text)] == t.Text {
			// A token from the source keeps the whitespace before it.
			var sep string
			if p.last >= 0 && off >= p.last && allSpace(p.src[p.last:off]) {
				sep = p.src[p.last:off]
			} else if ws := p.wsBefore(off); ws != "" && p.size() > 0 {
				sep = ws
			} else {
				sep = p.canonSep(pend, depth, t)
			}
			p.buf = append(p.buf, sep...)
			p.buf = append(p.buf, t.Text...)
			p.last = off + len(t.Text)
			p.prev = prevOf(t)
			return
		}
		p.last = -1
	}
	p.buf = append(p.buf, p.canonSep(pend, depth, t)...)
	p.buf = append(p.buf, t.Text...)
	p.prev = prevOf(t)
}

func (p *printer) emitAll(ts Toks) {
	for i, n := 0, ts.Len(); i < n; i++ {
		p.emit(ts.At(i))
	}
}

// finish writes the text after the last token.
func (p *printer) finish() {
	if p.src != "" {
		if p.last >= 0 && allSpace(p.src[p.last:]) {
			p.buf = append(p.buf, p.src[p.last:]...)
			return
		}
		if ws := p.wsBefore(len(p.src)); ws != "" {
			p.buf = append(p.buf, ws...)
			return
		}
	}
	if p.size() > 0 {
		p.buf = append(p.buf, p.nl...)
	}
}

// spaceBetween is the canonical separator between two tokens of a
// statement.
func spaceBetween(prev prevTok, b Token, nl string) string {
	if !prev.set {
		return ""
	}
	if prev.lineComment {
		return nl
	}
	ak := prev.kind
	var s string
	switch {
	case ak == COMMA:
		s = " "
	case b.Kind == COMMA || b.Kind == SEMI || b.Kind == RPAREN || b.Kind == RBRACK ||
		b.Kind == RBRACE || b.Kind == GT || b.Kind == COLON:
		s = ""
	case ak == LPAREN || ak == LBRACK || ak == LBRACE || ak == AT ||
		ak == NOT || ak == TILDE || ak == LT:
		s = ""
	case b.Kind == LT && ak == IDENT:
		s = ""
	case (b.Kind == LBRACK || b.Kind == LPAREN) && ak == IDENT:
		s = ""
	case ak == PLUS || ak == MINUS || b.Kind == PLUS || b.Kind == MINUS:
		s = ""
	case ak == OR && b.Kind == IDENT || b.Kind == OR && ak == IDENT:
		s = ""
	default:
		s = " "
	}
	if s == "" && b.Text != "" && merges(prev.last, b.Text[0]) {
		s = " "
	}
	return s
}

// merges reports whether two adjacent spellings, the first ending in x and
// the second starting with y, would lex as a different token sequence.
func merges(x, y byte) bool {
	switch {
	case x == '<' && (y == '<' || y == '='), x == '>' && (y == '>' || y == '='),
		(x == '=' || x == '!') && y == '=', x == '&' && y == '&', x == '|' && y == '|',
		x == '/' && (y == '/' || y == '*'):
		return true
	}
	return isNameByte(x) && (isNameByte(y) || y == '.') || x == '.' && isNameByte(y)
}

// ---- structure ----

func (p *printer) file(f *File) {
	var prev Decl
	for _, d := range f.Decls {
		p.decl(d, prev)
		prev = d
	}
	p.finish()
}

func (p *printer) decl(d Decl, prev Decl) {
	_, prevFn := prev.(*Function)
	_, isFn := d.(*Function)
	if c, ok := d.(*Comment); ok && c.SameLine && prev != nil {
		p.sep(pendSpace)
	} else if prev != nil && (isFn || prevFn) {
		p.blankLine(0)
	} else {
		p.newline(0)
	}
	switch d := d.(type) {
	case *Function:
		p.function(d)
	case *Section:
		p.section(d)
	case *BadDecl:
		p.bad(d.Toks)
	default:
		p.simple(d, 0)
	}
}

// simple prints a statement-like node from its tokens (or synthesized ones).
func (p *printer) simple(n Node, depth int) {
	ts := tokensOf(n)
	if in, ok := n.(*Instruction); ok {
		p.instruction(in, ts, depth)
		return
	}
	if p.copySpan(ts, nil) {
		return
	}
	for i, n := 0, ts.Len(); i < n; i++ {
		if i > 0 && p.prev.lineComment {
			p.newline(depth + 1)
		}
		p.emit(ts.At(i))
	}
}

func (p *printer) instruction(in *Instruction, ts Toks, depth int) {
	// A frozen instruction (its own explicit token list) prints the same
	// text after its first token every time: only that token's separator
	// depends on what precedes it (memoTail).
	memo := p.tails != nil && ts.list != nil && ts.list == in.Toks.list && ts.Len() > 1
	if memo {
		if t, ok := p.tails[ts.list]; ok {
			p.emit(ts.At(0))
			p.told(in)
			p.buf = append(p.buf, t.text...)
			p.prev = t.prev
			if p.src != "" {
				p.last = -1 // as after the tail's tokens (no source positions)
			}
			return
		}
	}
	if p.copySpan(ts, in) {
		return
	}
	start, flushed := -1, -1
	afterOp := false
	seenOp := false
	var prevKind Kind
	for i, n := 0, ts.Len(); i < n; i++ {
		t := ts.At(i)
		if p.prev.lineComment && i > 0 {
			p.newline(depth + 1)
		} else if afterOp {
			if t.Kind != SEMI {
				p.sep(pendSpace)
			}
			afterOp = false
		}
		p.emit(t)
		if i == 0 {
			p.told(in)
			start, flushed = len(p.buf), p.flushed
		}
		if !seenOp && t.Kind == IDENT && !(i > 0 && (prevKind == AT || prevKind == NOT)) {
			seenOp, afterOp = true, true
		}
		prevKind = t.Kind
	}
	if memo && p.flushed == flushed && memoTail(ts) {
		if len(p.tails) >= maxTails {
			clear(p.tails)
		}
		p.tails[ts.list] = tail{text: bytes.Clone(p.buf[start:]), prev: p.prev}
	}
}

// copySpan prints ts when it is a span of the printed file's own token
// table whose tokens after the first are separated by blanks only, and
// reports whether it did: the first token is emitted (with whatever
// separator emit gives it), in told its line, and the rest is the source
// text from the first token's end to the last one's, which is what
// emitting each of them prints (a source token after a source token is
// preceded by the blanks between them, whatever separator was pending).
func (p *printer) copySpan(ts Toks, in *Instruction) bool {
	t := ts.tab
	if t == nil || ts.list != nil || p.src == "" || ts.hi-ts.lo < 2 || t.base != p.base || t.src != p.src {
		return false
	}
	raw := t.raw[ts.lo:ts.hi]
	for i := 1; i < len(raw); i++ {
		end := raw[i-1].off + raw[i-1].n
		if raw[i].n == 0 || raw[i-1].n == 0 || raw[i].off < end || !allSpace(p.src[end:raw[i].off]) {
			return false
		}
	}
	p.emit(t.token(int(ts.lo)))
	if in != nil {
		p.told(in)
	}
	from, last := raw[0].off+raw[0].n, raw[len(raw)-1]
	to := last.off + last.n
	p.buf = append(p.buf, p.src[from:to]...)
	p.last = int(to)
	p.prev = prevOf(t.token(int(ts.hi) - 1))
	return true
}

// told tells onInst the line of the instruction whose first token was
// just printed.
func (p *printer) told(in *Instruction) {
	if p.onInst != nil {
		p.lines += bytes.Count(p.buf[p.scan:], newline)
		p.scan = len(p.buf)
		p.onInst(in, p.lines+1)
	}
}

// memoTail reports whether the text ts prints after its first token
// depends on ts alone: no comment (a "//" one ends the line, indented by
// depth), no empty token (emit skips it) and no token after the first
// with a source position (printed with the source's whitespace). Each
// token after the first is then printed with the canonical separator
// after the token before it (emit), and leaves no source offset
// (p.last = -1).
func memoTail(ts Toks) bool {
	for i, n := 0, ts.Len(); i < n; i++ {
		t := ts.At(i)
		if t.Kind == COMMENT || t.Text == "" || i > 0 && t.Pos.IsValid() {
			return false
		}
	}
	return true
}

func (p *printer) bad(ts Toks) {
	// Bad text is printed as written.
	for i, n := 0, ts.Len(); i < n; i++ {
		if i > 0 && p.src == "" {
			p.sep(pendSpace)
		}
		p.emit(ts.At(i))
	}
}

func (p *printer) section(s *Section) {
	ts := tokensOf(s)
	for i, n := 0, ts.Len(); i < n; i++ {
		t := ts.At(i)
		if t.Kind == RAW {
			p.newline(0)
		}
		p.emit(t)
	}
}

func (p *printer) function(fn *Function) {
	ts := fn.Toks
	if ts.IsZero() {
		ts = MakeToks(fn.headerTokens())
	}
	depth := 0
	group := 0 // paren groups seen
	var prev Kind
	for i, n := 0, ts.Len(); i < n; i++ {
		t := ts.At(i)
		switch {
		case t.Kind == RPAREN && depth == 1:
			if i > 0 && prev != LPAREN && fn.isParamGroup(group) {
				p.newline(0)
			}
		case depth == 1 && i > 0 && (prev == COMMA || prev == LPAREN) && fn.isParamGroup(group):
			p.newline(1)
		case depth == 0 && t.Kind == DIRECTIVE && i > 0 && isPerfDirective(t.Text) && prev != DIRECTIVE:
			p.newline(0)
		case t.Kind == SEMI && depth == 0:
			p.sep(pendEmpty)
		}
		p.emit(t)
		prev = t.Kind
		switch t.Kind {
		case LPAREN:
			depth++
		case RPAREN:
			depth--
			if depth == 0 {
				group++
			}
		}
	}
	if fn.Body != nil {
		p.newline(0)
		p.block(fn.Body, 0)
	}
}

// isParamGroup reports whether paren group g of the header is laid out one
// parameter per line: the parameter list, not the return list.
func (fn *Function) isParamGroup(g int) bool {
	if fn.Kind == Func && len(fn.Ret) > 0 {
		return g == 1 // group 0 is the return list
	}
	return g == 0
}

func isPerfDirective(s string) bool {
	switch s {
	case ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".pragma",
		".noreturn", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank", ".blocksareclusters":
		return true
	}
	return false
}

func (p *printer) block(b *Block, depth int) {
	lb := b.Lbrace
	if lb.Text == "" && !lb.Pos.IsValid() {
		lb = Tok(LBRACE, "{")
	}
	p.emit(lb)
	for _, s := range b.Stmts {
		p.stmt(s, depth+1)
	}
	p.newline(depth)
	p.emit(b.Rbrace)
}

func (p *printer) stmt(s Stmt, depth int) {
	switch s := s.(type) {
	case *Comment:
		if s.SameLine {
			p.sep(pendSpace)
		} else {
			p.newline(depth)
		}
		p.simple(s, depth)
	case *Label:
		p.newline(0)
		p.simple(s, depth)
	case *Block:
		p.newline(depth)
		p.block(s, depth)
	case *BadStmt:
		p.newline(depth)
		p.bad(s.Toks)
	case *Laid:
		p.laid(s, depth)
	default:
		p.newline(depth)
		p.simple(s, depth)
	}
}
