package replay

import (
	"go/token"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// lowerK parses src (named name) and lowers its kernel k, failing the test
// on any error: the set-up of the package's internal tests that run one
// hand-written kernel.
func lowerK(t testing.TB, name, src string) *Code {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), name, []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("k")
	if err != nil {
		t.Fatal(err)
	}
	return code
}
