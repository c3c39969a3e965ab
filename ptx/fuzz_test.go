package ptx

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"testing"
)

// fuzzSeeds adds the corpus files (when present) and the error inputs as
// seeds.
func fuzzSeeds(f *testing.F) {
	for _, name := range corpusFilesQuiet() {
		if src, err := os.ReadFile(name); err == nil && len(src) < 8<<10 {
			f.Add(src)
		}
	}
	f.Add([]byte(".version 7.0\n.target sm_52\n.entry k()\n{\n\tret;\n}\n"))
	f.Add([]byte("@!%p1 bra $L1; ld.global.v4.f32 {%f1,%f2,_,%f4}, [%rd1+-4];"))
}

// FuzzLex checks the lexer's invariants: every byte is covered by a token
// or whitespace, tokens are in order, and no token is empty.
func FuzzLex(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		s := string(src)
		toks, kinds := lex(s, 1, nil, nil, func(int, string) {})
		if len(kinds) != len(toks) {
			t.Fatalf("%d tokens but %d kinds", len(toks), len(kinds))
		}
		off := 0
		for i, tk := range toks {
			p, n := int(tk.off), int(tk.n)
			if p < off || n == 0 || p+n > len(s) {
				t.Fatalf("bad token %v at %d+%d (previous end %d)", kinds[i], p, n, off)
			}
			if !allSpace(s[off:p]) {
				t.Fatalf("bytes %q before token at %d are not whitespace", s[off:p], p)
			}
			off = p + n
		}
		if !allSpace(s[off:]) {
			t.Fatalf("trailing bytes %q are not whitespace", s[off:])
		}
	})
}

// FuzzParsePrint checks parse → print → parse: any input prints back byte
// for byte in Preserve mode; an input without errors prints in Canonical
// mode to text that parses without errors to an Equal tree.
func FuzzParsePrint(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseFile(token.NewFileSet(), "fuzz.ptx", src, AllErrors)
		var out bytes.Buffer
		Fprint(&out, file)
		if !bytes.Equal(out.Bytes(), src) {
			t.Fatalf("Preserve printing differs at byte %d", firstDiff(out.Bytes(), src))
		}
		// SkipOperands reports the same errors and prints the same text.
		skipped, serr := ParseFile(token.NewFileSet(), "fuzz.ptx", src, AllErrors|SkipOperands)
		if fmt.Sprint(serr) != fmt.Sprint(err) {
			t.Fatalf("SkipOperands errors differ:\n%v\n---\n%v", serr, err)
		}
		out.Reset()
		Fprint(&out, skipped)
		if !bytes.Equal(out.Bytes(), src) {
			t.Fatalf("Preserve printing with SkipOperands differs at byte %d", firstDiff(out.Bytes(), src))
		}
		if err != nil {
			return
		}
		out.Reset()
		(&Config{Mode: Canonical}).Fprint(&out, file)
		g, err := ParseFile(token.NewFileSet(), "canonical.ptx", out.Bytes(), AllErrors)
		if err != nil {
			t.Fatalf("canonical output does not parse: %v\n%s", err, out.Bytes())
		}
		if !Equal(file, g) {
			t.Fatalf("canonical output parses to a different tree:\n%s\n---\n%s", Dump(file), Dump(g))
		}
	})
}
