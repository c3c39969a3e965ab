package ptx

import (
	"bytes"
	"go/token"
	"os"
	"testing"
)

// TestParseRangeIn: over the corpus, every piece parsed into an Arena
// that earlier pieces used (the pieces taken in reverse order, three
// between Resets, so that most land on memory another piece's nodes
// held) gives the tree (Dump) and the printed text of the same piece
// parsed on its own, and the same errors.
func TestParseRangeIn(t *testing.T) {
	forCorpusPieces(t, func(name string, src []byte, tf *token.File, cuts []int) {
		type piece struct {
			dump, text, err string
		}
		show := func(f *File, err error) piece {
			var buf bytes.Buffer
			dp := NewDeclPrinter(&buf, f)
			for _, d := range f.Decls {
				dp.Print(d)
			}
			if err := dp.Close(); err != nil {
				t.Fatal(err)
			}
			pc := piece{dump: Dump(f), text: buf.String()}
			if err != nil {
				pc.err = err.Error()
			}
			return pc
		}
		lo := func(i int) int {
			if i == 0 {
				return 0
			}
			return cuts[i-1]
		}
		want := make([]piece, len(cuts))
		for i := range cuts {
			want[i] = show(ParseRange(tf, src, lo(i), cuts[i], 0))
		}
		var a Arena
		var group []int
		var files []*File
		var errs []error
		check := func() {
			for j, i := range group {
				if got := show(files[j], errs[j]); got != want[i] {
					t.Errorf("%s: piece %d (bytes %d-%d) parsed into a used arena differs", name, i, lo(i), cuts[i])
				}
			}
			group, files, errs = group[:0], files[:0], errs[:0]
			a.Reset()
		}
		opcodes := map[string]*Opcode{}
		for i := len(cuts) - 1; i >= 0; i-- {
			f, err := ParseRangeIn(&a, tf, src, lo(i), cuts[i], 0, opcodes)
			group, files, errs = append(group, i), append(files, f), append(errs, err)
			if len(group) == 3 {
				check()
			}
		}
		check()
	})
}

// TestDetach: over the corpus, every module-level declaration but a
// function with a body, parsed into an Arena and detached, prints the
// same text and dumps the same tree after the Arena is Reset and every
// piece is parsed into it again (reversed, so that other nodes land on
// its memory) as it did straight after the parse; functions with bodies
// are refused.
func TestDetach(t *testing.T) {
	forCorpusPieces(t, func(name string, src []byte, tf *token.File, cuts []int) {
		show := func(ds []Decl) (dump, text string) {
			f := &File{Name: name, Src: src, Tok: tf, Decls: ds}
			var buf bytes.Buffer
			dp := NewDeclPrinter(&buf, f)
			for _, d := range ds {
				dp.Print(d)
			}
			if err := dp.Close(); err != nil {
				t.Fatal(err)
			}
			return Dump(f), buf.String()
		}
		var a Arena
		opcodes := map[string]*Opcode{}
		var kept, orig []Decl
		lo := 0
		for _, hi := range cuts {
			f, _ := ParseRangeIn(&a, tf, src, lo, hi, 0, opcodes)
			lo = hi
			for _, d := range f.Decls {
				c, ok := Detach(d)
				if fn, isFn := d.(*Function); isFn && fn.Body != nil {
					if ok {
						t.Fatalf("%s: a function with a body was detached", name)
					}
					continue
				}
				if !ok {
					t.Fatalf("%s: %T not detached", name, d)
				}
				kept, orig = append(kept, c), append(orig, d)
			}
		}
		wantDump, wantText := show(orig)
		if gotDump, gotText := show(kept); gotDump != wantDump || gotText != wantText {
			t.Fatalf("%s: detached declarations differ before the Reset", name)
		}
		a.Reset()
		for i := len(cuts) - 1; i >= 0; i-- {
			lo := 0
			if i > 0 {
				lo = cuts[i-1]
			}
			ParseRangeIn(&a, tf, src, lo, cuts[i], 0, opcodes)
		}
		if gotDump, gotText := show(kept); gotDump != wantDump || gotText != wantText {
			t.Errorf("%s: detached declarations changed when the Arena was used again", name)
		}
	})
}

// forCorpusPieces calls fn with each corpus file's name, text, token
// file and Split cuts.
func forCorpusPieces(t *testing.T, fn func(name string, src []byte, tf *token.File, cuts []int)) {
	t.Helper()
	for _, name := range corpusFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fn(name, src, NewFile(token.NewFileSet(), name, src), Split(src))
	}
}
