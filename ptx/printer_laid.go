package ptx

import (
	"errors"
	"go/token"
	"strconv"
)

// Layout is the text a run of inserted statements (statements without
// source positions) prints as in Preserve mode at one nesting depth, cut
// at its holes: decimal integers that vary from one use of the run to the
// next (ids, immediates). NewLayout makes it by printing the statements
// once; a Laid statement prints it again with its own hole values,
// without statements to build or tokens to lay out.
//
// A run of inserted statements prints the same text wherever it stands:
// each of its statements starts on a new line (a line end and depth
// indents, or column 0 for a label) whatever precedes it, and the
// statement after the run is laid out from its own source whitespace or
// on a new line (Preserve mode). Read-only once made.
type Layout struct {
	parts [][]byte // the text between the holes (holes+1 parts)
	holes []int    // the index in Laid.Vals of each hole's value
	depth int
	nl    string
	prev  prevTok // the last token's, as printing the statements leaves it
}

// Holes returns the number of holes of l.
func (l *Layout) Holes() int { return len(l.holes) }

// NewLayout prints stmts as Preserve mode prints inserted statements at
// nesting depth (1 for a function body's statements) in a file whose
// line ends are CRLF or not, and cuts the text at every decimal integer
// (not part of a name) whose value is one of holes: the i-th of holes
// fills it from Laid.Vals[i]. The statements must carry no source
// positions. It fails when holes has repeated values or a statement has
// a position.
func NewLayout(stmts []Stmt, depth int, crlf bool, holes []int64) (*Layout, error) {
	for i, h := range holes {
		for _, g := range holes[:i] {
			if g == h {
				return nil, errors.New("ptx: NewLayout: repeated hole value " + strconv.FormatInt(h, 10))
			}
		}
	}
	f := &File{CRLF: crlf}
	p := newPrinter(&Config{Mode: Preserve}, f)
	p.flushed = 1 // not at the start of the output: no leading line end is trimmed
	p.prev = prevTok{kind: SEMI, last: ';', set: true}
	for _, s := range stmts {
		if s.Pos().IsValid() {
			return nil, errors.New("ptx: NewLayout: a statement has a source position")
		}
		p.stmt(s, depth)
	}
	l := &Layout{depth: depth, nl: p.nl, prev: p.prev}
	text := p.buf
	start := 0
	for i := 0; i < len(text); {
		c := text[i]
		if !isDigit(c) {
			i++
			continue
		}
		j := i
		for j < len(text) && isDigit(text[j]) {
			j++
		}
		if i > 0 && inNumber(text[i-1]) || j < len(text) && inNumber(text[j]) {
			i = j // part of a name or of another number's spelling
			continue
		}
		if i > 0 && text[i-1] == '-' {
			i = j // a negative number: never a hole
			continue
		}
		v, err := strconv.ParseInt(string(text[i:j]), 10, 64)
		if err == nil {
			for h, hv := range holes {
				if hv == v {
					l.parts = append(l.parts, text[start:i])
					l.holes = append(l.holes, h)
					start = j
					break
				}
			}
		}
		i = j
	}
	l.parts = append(l.parts, text[start:])
	return l, nil
}

// inNumber reports whether c may continue a name or a number's spelling
// (letters, digits, '_', '$', '%', '.'): a digit run next to one is not a
// whole decimal integer.
func inNumber(c byte) bool { return isNameByte(c) || c == '%' || c == '.' }

// Append appends l's text with the holes filled from vals (decimal).
func (l *Layout) Append(b []byte, vals []int64) []byte {
	for i, h := range l.holes {
		b = append(b, l.parts[i]...)
		b = strconv.AppendInt(b, vals[h], 10)
	}
	return append(b, l.parts[len(l.parts)-1]...)
}

// Laid is a run of inserted statements printed from a Layout with its
// own hole values. It has no position; only the printer knows it (in a
// Preserve-mode Fprint or DeclPrinter at the Layout's depth and line
// end: anywhere else the printer fails).
type Laid struct {
	Layout *Layout
	Vals   []int64 // the holes' values (at least the Layout's NewLayout holes)
}

func (*Laid) Pos() token.Pos { return token.NoPos }
func (*Laid) End() token.Pos { return token.NoPos }
func (*Laid) stmtNode()      {}

// errLaid is the printer's error for a Laid it cannot print exactly.
var errLaid = errors.New("ptx: a Laid statement printed at another depth or line end than its Layout's, or in Canonical mode")

// laid prints s at depth: its layout's text, and the state that printing
// the statements themselves leaves (the last token; no source offset).
func (p *printer) laid(s *Laid, depth int) {
	l := s.Layout
	if depth != l.depth || p.nl != l.nl || p.mode != Preserve || p.size() == 0 && p.last <= 0 {
		if p.err == nil {
			p.err = errLaid
		}
		return
	}
	if len(p.buf) >= flushSize {
		p.flush()
	}
	p.pend = pendNone
	p.buf = l.Append(p.buf, s.Vals)
	p.prev = l.prev
	if p.src != "" {
		p.last = -1
	}
}
