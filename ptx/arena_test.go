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
	for _, name := range corpusFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		tf := NewFile(token.NewFileSet(), name, src)
		cuts := Split(src)
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
	}
}
