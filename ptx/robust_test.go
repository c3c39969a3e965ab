package ptx

import (
	"bytes"
	"go/token"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkNoPanicRoundTrip parses src and checks that the (possibly partial)
// tree prints back the input exactly.
func checkNoPanicRoundTrip(t *testing.T, name string, src []byte) error {
	t.Helper()
	f, err := ParseFile(token.NewFileSet(), name, src, AllErrors)
	var out bytes.Buffer
	if perr := Fprint(&out, f); perr != nil {
		t.Fatal(perr)
	}
	if !bytes.Equal(out.Bytes(), src) {
		t.Errorf("%s: Preserve printing differs from input at byte %d", name, firstDiff(out.Bytes(), src))
	}
	// Canonical printing of a partial tree must not panic either.
	(&Config{Mode: Canonical}).Fprint(&out, f)
	return err
}

func TestHostileInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	binary := make([]byte, 1<<16)
	for i := range binary {
		binary[i] = byte(rng.Uint32())
	}
	longLine := ".version 7.0\n.target sm_52\n.entry k()\n{\n\tadd.s32 %r1" + strings.Repeat(", %r1", 200000) + ";\n}\n"
	nested := ".version 7.0\n.target sm_52\n.entry k()\n" + strings.Repeat("{", 100000) + strings.Repeat("}", 100000) + "\n"
	unbalanced := ".entry k()\n" + strings.Repeat("{", 100000)
	cases := []struct {
		name    string
		src     string
		wantErr bool
	}{
		{"empty", "", false},
		{"spaces", " \t\r\n\n", false},
		{"only comment", "// nothing\n", false},
		{"binary", string(binary), true},
		{"nul bytes", ".version 7.0\x00\x00\n", true},
		{"long line", longLine, false},
		{"nested braces", nested, true},
		{"unbalanced braces", unbalanced, true},
		{"unterminated comment", ".version 7.0 /* x", true},
		{"unterminated string", ".file 1 \"abc", true},
		{"lone dot", ".", true},
		{"lone percent", ".entry k() { % ; }", true},
		{"stray closers", "} ) ] ;", true},
		{"truncated header", ".visible .entry k(.param .u64", true},
		{"truncated decl", ".global .align", true},
		{"truncated section", ".section .debug_info {", true},
		{"crlf", ".version 7.0\r\n.target sm_52\r\n", false},
		{"utf8", ".version 7.0 // üñíçødé\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkNoPanicRoundTrip(t, c.name, []byte(c.src))
			if (err != nil) != c.wantErr {
				t.Errorf("error = %v, want error: %v", err, c.wantErr)
			}
		})
	}
}
