package ptx

import (
	"bytes"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// editScale applies the kind of edits instrumentation makes to the test
// kernel: a new parameter, a new register declaration, instructions around
// the global load, and a deleted statement.
func editScale(t *testing.T, f *File) {
	t.Helper()
	fn := f.Functions()[0]
	fn.AddParam(&VarDecl{Type: U64, Names: []Declarator{{Name: "__pt_buf", Range: -1}}})
	body := fn.Body
	var out []Stmt
	for _, s := range body.Stmts {
		in, ok := s.(*Instruction)
		switch {
		case ok && in.Op.Name == "ld" && in.Op.Space == SpaceGlobal:
			out = append(out,
				NewInstruction("mov.u64", Reg("%__pt_t0"), Reg("%clock64")),
				in,
				NewInstruction("membar.cta"),
				NewInstruction("mov.u64", Reg("%__pt_t1"), Reg("%clock64")))
		case ok && in.Op.Name == "cvta":
			// Deleted: its line goes with it.
			continue
		default:
			out = append(out, s)
		}
		if d, ok := s.(*VarDecl); ok && d.Type == B64 {
			out = append(out, &VarDecl{Space: SpaceReg, Type: U64, Names: []Declarator{{Name: "%__pt_t", Range: 2}}})
		}
	}
	body.Stmts = out
}

// TestInsertedNodes checks how inserted (unpositioned) nodes print in both
// modes against golden files, and that both outputs parse.
func TestInsertedNodes(t *testing.T) {
	in := filepath.Join("testdata", "insert", "input.ptx")
	src, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		mode PrintMode
	}{{"preserve", Preserve}, {"canonical", Canonical}} {
		t.Run(mode.name, func(t *testing.T) {
			f, err := ParseFile(token.NewFileSet(), in, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			editScale(t, f)
			var buf bytes.Buffer
			if err := (&Config{Mode: mode.mode}).Fprint(&buf, f); err != nil {
				t.Fatal(err)
			}
			if _, err := ParseFile(token.NewFileSet(), "edited.ptx", buf.Bytes(), AllErrors); err != nil {
				t.Fatalf("edited output does not parse: %v\n%s", err, buf.Bytes())
			}
			golden := filepath.Join("testdata", "insert", mode.name+".golden")
			if *update {
				os.WriteFile(golden, buf.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("output differs from %s:\n%s", golden, buf.Bytes())
			}
		})
	}
}

// TestNumTok checks the kind given to synthesized immediates.
func TestNumTok(t *testing.T) {
	for s, want := range map[string]Kind{"1": INT, "0xE0": INT, "0XE0": INT, "017": INT,
		"1.5": FLOAT, "1e5": FLOAT, "0f3F800000": FLOAT, "0d3FF0000000000000": FLOAT} {
		if got := numTok(s).Kind; got != want {
			t.Errorf("numTok(%q) = %v, want %v", s, got, want)
		}
	}
}
