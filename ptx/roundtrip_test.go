package ptx

import (
	"bytes"
	"cmp"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// corpusDir is the shared third-party PTX corpus, used in place:
// $PTXTRACE_CORPUS when set (a worktree sits deeper than the main
// checkout), else ../shared/corpus/ptx beside the checkout.
var corpusDir = cmp.Or(os.Getenv("PTXTRACE_CORPUS"), "../../shared/corpus/ptx")

// corpusFiles returns the PTX files of the shared corpus and of the
// generated test PTX, skipping (with a message) when the corpus is absent.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	files := corpusFilesQuiet()
	if shared, _ := filepath.Glob(filepath.Join(corpusDir, "*.ptx")); len(shared) == 0 {
		t.Logf("shared corpus %s absent: testing generated PTX only", corpusDir)
	}
	if len(files) == 0 {
		t.Skip("no PTX corpus found (../shared/corpus/ptx, testdata/gen, samples)")
	}
	return files
}

func corpusFilesQuiet() []string {
	var files []string
	for _, pat := range []string{
		filepath.Join(corpusDir, "*.ptx"),
		filepath.Join("testdata", "gen", "*.ptx"),
		filepath.Join("..", "samples", "*", "*.ptx"),
	} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

func parseFileT(t testing.TB, name string) (*File, []byte) {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFile(token.NewFileSet(), name, src, AllErrors)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return f, src
}

func TestCorpusRoundTrip(t *testing.T) {
	for _, name := range corpusFiles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, src := parseFileT(t, name)
			var buf bytes.Buffer
			if err := Fprint(&buf, f); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), src) {
				t.Errorf("Preserve output differs from input at byte %d", firstDiff(buf.Bytes(), src))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSkipOperands checks that SkipOperands keeps no operand lists yet
// prints every corpus file as the full parse does: byte for byte in
// Preserve mode, the same text in Canonical mode.
func TestSkipOperands(t *testing.T) {
	for _, name := range corpusFiles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			full, src := parseFileT(t, name)
			f, err := ParseFile(token.NewFileSet(), name, src, AllErrors|SkipOperands)
			if err != nil {
				t.Fatalf("SkipOperands: %v", err)
			}
			for _, fn := range f.Functions() {
				if fn.Body != nil {
					checkNoArgs(t, fn.Body)
				}
			}
			var a, b bytes.Buffer
			if err := Fprint(&a, f); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), src) {
				t.Errorf("Preserve output differs from input at byte %d", firstDiff(a.Bytes(), src))
			}
			a.Reset()
			cfg := &Config{Mode: Canonical}
			if err := cfg.Fprint(&a, f); err != nil {
				t.Fatal(err)
			}
			if err := cfg.Fprint(&b, full); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("Canonical output differs from the full parse's at byte %d", firstDiff(a.Bytes(), b.Bytes()))
			}
		})
	}
}

func checkNoArgs(t *testing.T, b *Block) {
	t.Helper()
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *Instruction:
			if s.Args != nil {
				t.Fatalf("%s: SkipOperands kept %d operands", s.Op.Text, len(s.Args))
			}
		case *Block:
			checkNoArgs(t, s)
		}
	}
}

func TestCorpusCanonical(t *testing.T) {
	for _, name := range corpusFiles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, _ := parseFileT(t, name)
			var c1 bytes.Buffer
			cfg := &Config{Mode: Canonical}
			if err := cfg.Fprint(&c1, f); err != nil {
				t.Fatal(err)
			}
			g, err := ParseFile(token.NewFileSet(), name+".canonical", c1.Bytes(), AllErrors)
			if err != nil {
				t.Fatalf("canonical output does not parse: %v", err)
			}
			if !Equal(f, g) {
				a, b := Dump(f), Dump(g)
				i := firstDiff([]byte(a), []byte(b))
				lo := max(0, i-200)
				t.Fatalf("canonical output parses to a different tree near:\n%s\n----\n%s", a[lo:min(len(a), i+200)], b[lo:min(len(b), i+200)])
			}
			var c2 bytes.Buffer
			if err := cfg.Fprint(&c2, g); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(c1.Bytes(), c2.Bytes()) {
				t.Errorf("canonical printing is not idempotent (first difference at byte %d)", firstDiff(c1.Bytes(), c2.Bytes()))
			}
		})
	}
}

// TestTypeTables checks that every Type has a name that maps back to it and
// a size.
func TestTypeTables(t *testing.T) {
	for ty := B8; ty < typeCount; ty++ {
		if ParseType(ty.String()) != ty {
			t.Errorf("ParseType(%q) = %v, want %v", ty.String(), ParseType(ty.String()), ty)
		}
		if ty.Size() == 0 {
			t.Errorf("%v has no size", ty)
		}
	}
	if len(typeNames) != int(typeCount) || len(typeSizes) != int(typeCount) {
		t.Errorf("type tables have %d names and %d sizes for %d types", len(typeNames), len(typeSizes), typeCount)
	}
}
