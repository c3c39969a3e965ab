package ptx

import (
	"bytes"
	"flag"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestErrorGolden parses each testdata/errors/*.ptx with AllErrors and
// compares the error list, one "file:line:col: message" per line, with the
// .golden file next to it. Run with -update to rewrite the golden files
// after checking the new messages by eye.
func TestErrorGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.ptx"))
	if len(files) == 0 {
		t.Fatal("no error test inputs")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseFile(token.NewFileSet(), filepath.Base(name), src, AllErrors)
			if err == nil {
				t.Fatal("expected errors")
			}
			var got bytes.Buffer
			for _, e := range err.(scanner.ErrorList) {
				got.WriteString(e.Error() + "\n")
			}
			golden := strings.TrimSuffix(name, ".ptx") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestErrorGolden -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("errors differ\n--- got\n%s--- want\n%s", got.String(), want)
			}
			// A partial tree still covers the whole input.
			var out bytes.Buffer
			if err := Fprint(&out, f); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), src) {
				t.Errorf("partial tree does not print back the input (first difference at byte %d)", firstDiff(out.Bytes(), src))
			}
		})
	}
}

// TestErrorCap checks that without AllErrors parsing stops after MaxErrors.
func TestErrorCap(t *testing.T) {
	var src strings.Builder
	src.WriteString(".version 7.0\n.target sm_52\n.entry k()\n{\n")
	for i := 0; i < 50; i++ {
		src.WriteString("\tmov.u32 %r1 %r2;\n")
	}
	src.WriteString("}\n")
	_, err := ParseFile(token.NewFileSet(), "cap.ptx", []byte(src.String()), 0)
	if n := len(err.(scanner.ErrorList)); n != MaxErrors {
		t.Errorf("got %d errors without AllErrors, want %d", n, MaxErrors)
	}
	_, err = ParseFile(token.NewFileSet(), "cap.ptx", []byte(src.String()), AllErrors)
	if n := len(err.(scanner.ErrorList)); n != 50 {
		t.Errorf("got %d errors with AllErrors, want 50", n)
	}
}
