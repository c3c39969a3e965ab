package ptx

import (
	"bytes"
	"go/scanner"
	"go/token"
	"io"
	"sort"
)

// Streaming: a large module is handled one top-level piece at a time.
// Split cuts the text at function ends, ParseRange parses one piece with
// the whole file's positions, DeclPrinter prints declarations one after
// another exactly as Fprint prints the whole tree, and Checker runs Check
// one declaration at a time.

// Split returns the offsets at which src can be cut into pieces that each
// parse on their own to the declarations the whole file parses to: the
// end of the line of each '}' that closes a top-level brace outside an
// initializer ("= {...}"), when only blanks or a "//" comment follow it on
// that line. Comments and strings are skipped. The last offset is
// len(src); cuts are strictly increasing.
func Split(src []byte) []int {
	// The bytes the scan stops at; it runs over the rest.
	stop := [256]bool{'/': true, '"': true, '{': true, '}': true, '=': true, ';': true}
	var cuts []int
	depth, inInit := 0, false
	n := len(src)
	for i := 0; i < n; i++ {
		for i < n && !stop[src[i]] {
			i++
		}
		if i == n {
			break
		}
		switch c := src[i]; c {
		case '/':
			if i+1 < n && src[i+1] == '/' {
				i = lineEnd(src, i) - 1 // the newline is seen next
			} else if i+1 < n && src[i+1] == '*' {
				if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
					i += 2 + j + 1
				} else {
					i = n
				}
			}
		case '"':
			j := i + 1
			for j < n && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
			if depth == 0 && !inInit {
				if end, ok := lineEndAfter(src, i+1); ok && (len(cuts) == 0 || end > cuts[len(cuts)-1]) && end < n {
					cuts = append(cuts, end)
				}
			}
		case '=':
			if depth == 0 {
				inInit = true
			}
		case ';':
			if depth == 0 {
				inInit = false
			}
		}
	}
	return append(cuts, n)
}

// lineEnd returns the offset of the first newline of src[i:], or len(src).
func lineEnd(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// lineEndAfter returns the offset just past the line end that follows
// src[i:] when only blanks or a "//" comment stand before it.
func lineEndAfter(src []byte, i int) (int, bool) {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	if i+1 < len(src) && src[i] == '/' && src[i+1] == '/' {
		i = lineEnd(src, i)
	}
	if i < len(src) && src[i] == '\n' {
		return i + 1, true
	}
	return 0, false
}

// NewFile adds the file filename with text src to fset, with its line
// table, for ParseRange.
func NewFile(fset *token.FileSet, filename string, src []byte) *token.File {
	tf := fset.AddFile(filename, -1, len(src))
	setLines(tf, src)
	return tf
}

// ParseRange parses the declarations in src[lo:hi], where src is the
// whole text of tf (NewFile) and lo, hi are offsets Split returned (or 0).
// Positions, and the File's Src and Tok, are those of the whole file, so
// that the pieces of a file parsed one by one give the declarations
// ParseFile gives, at the same positions. Errors are as ParseFile's.
func ParseRange(tf *token.File, src []byte, lo, hi int, mode Mode) (*File, error) {
	return parseRange(tf, src, lo, hi, mode, nil)
}

// ParseRangeShared is ParseRange with the decoded opcodes kept in
// opcodes (by spelling), which the pieces of a module parsed one by one
// share, as the instructions of one parse share theirs: a module repeats
// a few hundred opcodes, and decoding them again for every piece costs
// as much as the rest of its instructions' allocations. Opcodes are
// read-only once decoded. A nil map is ParseRange.
func ParseRangeShared(tf *token.File, src []byte, lo, hi int, mode Mode, opcodes map[string]*Opcode) (*File, error) {
	return parseRange(tf, src, lo, hi, mode, opcodes)
}

// DeclPrinter prints the declarations of a file one after another, in
// Preserve mode, to the same bytes Fprint writes for the whole file.
type DeclPrinter struct {
	p       *printer
	started bool
	prevFn  bool // the previous declaration was a function
}

// NewDeclPrinter returns a printer to w for declarations of f (of which it
// uses Src, Tok and CRLF: the whole file's, as ParseRange sets them).
func NewDeclPrinter(w io.Writer, f *File) *DeclPrinter {
	p := newPrinter(&Config{Mode: Preserve}, f)
	p.w = w
	p.buf = make([]byte, 0, flushSize+flushSize/4)
	return &DeclPrinter{p: p}
}

// OnInstruction sets a function told the output line (from 1) of each
// instruction printed from now on: the line of its first token.
func (dp *DeclPrinter) OnInstruction(f func(in *Instruction, line int)) {
	dp.p.onInst = f
}

// FrozenUnchanged promises that, from now on, no instruction with an
// explicit token list (MakeToks, Freeze) changes once printed (its Toks
// may be replaced, not its list's tokens): the printer then remembers
// what each one prints after its first token and copies that text when
// it is printed again (generated code shared by many functions).
func (dp *DeclPrinter) FrozenUnchanged() {
	if dp.p.tails == nil {
		dp.p.tails = map[*[]Token]tail{}
	}
}

// Print prints d, the next declaration of the file.
func (dp *DeclPrinter) Print(d Decl) {
	// A stand-in previous declaration of the right kind: decl only asks
	// whether there is one and whether it is a function.
	var prev Decl
	if dp.started {
		prev = &Comment{}
		if dp.prevFn {
			prev = &Function{}
		}
	}
	dp.p.decl(d, prev)
	_, dp.prevFn = d.(*Function)
	dp.started = true
}

// Flush hands what is printed so far to w.
func (dp *DeclPrinter) Flush() error {
	dp.p.flush()
	return dp.p.err
}

// Close prints the text after the last declaration and flushes.
func (dp *DeclPrinter) Close() error {
	dp.p.finish()
	dp.p.flush()
	return dp.p.err
}

// Checker runs Check over a module given one declaration at a time: the
// errors of Check(fset, f) are those of Decl for each of f.Decls in order
// then Err. It keeps the names of defined functions, not the declarations.
type Checker struct {
	fset            *token.FileSet
	f               *File
	errs            scanner.ErrorList
	version, target bool
	first           bool
	defined         map[string]bool
}

// NewChecker returns a Checker for a module whose declarations will come
// from f (a File of the module, for its position).
func NewChecker(fset *token.FileSet, f *File) *Checker {
	return &Checker{fset: fset, f: f, first: true, defined: map[string]bool{}}
}

func (c *Checker) add(pos token.Pos, msg string) {
	c.errs.Add(c.fset.Position(pos), msg)
}

// Decl checks the next declaration.
func (c *Checker) Decl(d Decl) {
	switch d := d.(type) {
	case *Comment:
		return
	case *Directive:
		switch {
		case d.Name == ".version":
			if !c.version {
				c.version = true
				if !c.first {
					c.add(d.Pos(), ".version must be the first directive of the module")
				}
			}
		case d.Name == ".target":
			c.target = true
		case !moduleDirectives[d.Name]:
			c.add(d.Pos(), "unknown directive "+d.Name)
		}
	case *Function:
		checkLabels(c.f, d, c.add)
		checkNames(d, c.add)
		if d.Body != nil {
			if c.defined[d.Name] {
				c.add(d.NamePos, "duplicate definition of function "+d.Name)
			}
			c.defined[d.Name] = true
		}
	}
	c.first = false
}

// Err returns the errors found, sorted by position, or nil.
func (c *Checker) Err() error {
	errs := append(scanner.ErrorList(nil), c.errs...)
	if !c.version {
		errs.Add(c.fset.Position(c.f.Pos()), "missing .version directive (a PTX module starts with .version MAJOR.MINOR)")
	}
	if !c.target {
		errs.Add(c.fset.Position(c.f.Pos()), "missing .target directive (e.g. .target sm_52)")
	}
	if len(errs) == 0 {
		return nil
	}
	sort.Stable(errs)
	return errs
}
