package instrument

import (
	"go/token"
	"math/rand/v2"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// TestLineCursor: the cursor's lines are go/token's (FileSet.Position)
// for positions met in increasing order, with repeats, jumps back (which
// start the count again) and invalid positions, in LF and CRLF text.
func TestLineCursor(t *testing.T) {
	for _, src := range []string{
		".version 7.8\n.target sm_80\n\n\n.address_size 64\n// x\n\n",
		".version 7.8\r\n.target sm_80\r\n\r\n.address_size 64\r\n",
	} {
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, "x.ptx", []byte(src), 0)
		if err != nil {
			t.Fatal(err)
		}
		m := &module{fset: fset, f: f}
		base := f.Tok.Base()
		r := rand.New(rand.NewPCG(3, 4))
		c := m.lineCursor()
		off := 0
		for range 500 {
			switch r.IntN(6) {
			case 0:
				off = r.IntN(len(src)) // anywhere, often backwards
			case 1: // the same position again
			default:
				off = min(off+r.IntN(9), len(src)-1)
			}
			p := token.Pos(base + off)
			if got, want := c.lineOf(p), fset.Position(p).Line; got != want {
				t.Fatalf("%q offset %d: line %d, want %d", src, off, got, want)
			}
		}
		if got := c.lineOf(token.NoPos); got != 0 {
			t.Errorf("NoPos: line %d, want 0", got)
		}
	}
}
