package replay

import (
	"go/token"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// programOf parses src (named name) into a Program, failing the test on
// any error: the set-up of the package's internal tests.
func programOf(t testing.TB, name, src string) *Program {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), name, []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lowerK lowers the kernel k of src (programOf): the set-up of the
// internal tests that run one hand-written kernel.
func lowerK(t testing.TB, name, src string) *Code {
	t.Helper()
	code, err := programOf(t, name, src).Lower("k")
	if err != nil {
		t.Fatal(err)
	}
	return code
}
