package ptx

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const checkHead = ".version 7.0\n.target sm_52\n.address_size 64\n"

// TestCheck: each module is one ptxas rejects (checked by hand against
// ptxas 11.8 messages), with the file:line:col of the offending token.
func TestCheck(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"misspelled target", ".version 7.0\n.targett sm_52\n.entry k() { ret; }\n",
			"k.ptx:2:1: unknown directive .targett"},
		{"missing target", ".version 7.0\n.entry k() { ret; }\n", "k.ptx:1:1: missing .target directive"},
		{"missing version", ".target sm_52\n.entry k() { ret; }\n", "k.ptx:1:1: missing .version directive"},
		{"version not first", ".target sm_52\n.version 7.0\n.entry k() { ret; }\n", "k.ptx:2:1: .version must be the first directive"},
		{"undefined label", checkHead + ".entry k()\n{\n\tbra $L_nowhere;\n\tret;\n}\n",
			"k.ptx:6:6: branch to undefined label $L_nowhere in k"},
		{"guarded undefined label", checkHead + ".entry k()\n{\n\t.reg .pred %p;\n\t@%p bra L2;\nL1:\n\tret;\n}\n",
			"k.ptx:7:10: branch to undefined label L2 in k"},
		{"duplicate label", checkHead + ".entry k()\n{\nL1:\n\tbra L1;\nL1:\n\tret;\n}\n",
			"k.ptx:8:1: duplicate label L1 in k"},
		{"function defined twice", checkHead + ".entry k()\n{\n\tret;\n}\n.entry k()\n{\n\tret;\n}\n",
			"k.ptx:8:8: duplicate definition of function k"},
		{"parameter twice", checkHead + ".func (.param .b32 a) f(.param .b32 a)\n{\n\tret;\n}\n",
			"k.ptx:4:37: duplicate parameter a in f"},
		{"register range twice", checkHead + ".entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %r<8>;\n\tret;\n}\n",
			"k.ptx:7:12: duplicate declaration of %r in k"},
		{"register twice", checkHead + ".entry k()\n{\n\t.reg .b32 %r1;\n\t.reg .b32 %r1;\n\tret;\n}\n",
			"k.ptx:7:12: duplicate declaration of %r1 in k"},
		{"label of another function", checkHead + ".func f()\n{\nL1:\n\tret;\n}\n.entry k()\n{\n\tbra L1;\n}\n",
			"k.ptx:11:6: branch to undefined label L1 in k"},
	} {
		fset := token.NewFileSet()
		f, err := ParseFile(fset, "k.ptx", []byte(tc.src), 0)
		if err != nil {
			t.Fatalf("%s: parse: %v", tc.name, err)
		}
		err = Check(fset, f)
		var all []string
		if list, ok := err.(scanner.ErrorList); ok {
			for _, e := range list {
				all = append(all, e.Error())
			}
		}
		if got := strings.Join(all, "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("%s: Check = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCheckAcceptsRedeclaration: what ptxas 11.8 accepts: a name
// redeclared in an inner block, a function declared before its definition.
func TestCheckAcceptsRedeclaration(t *testing.T) {
	for _, src := range []string{
		checkHead + ".entry k()\n{\n\t.reg .b32 %r1;\n\t{\n\t.reg .b32 %r1;\n\t}\n\tret;\n}\n",
		checkHead + ".func f();\n.func f()\n{\n\tret;\n}\n.entry k()\n{\n\tcall f;\n\tret;\n}\n",
	} {
		fset := token.NewFileSet()
		f, err := ParseFile(fset, "k.ptx", []byte(src), 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(fset, f); err != nil {
			t.Errorf("%v\n%s", err, src)
		}
	}
}

// TestCheckAcceptsValid: every PTX file of the repository that ptxas
// accepts passes Check (no false positives).
func TestCheckAcceptsValid(t *testing.T) {
	files, _ := filepath.Glob("../samples/*/*.ptx")
	if len(files) == 0 {
		t.Fatal("no sample PTX found")
	}
	// The third-party corpus next to the checkout (../shared from the
	// main checkout, ../../shared from a worktree): real compiler output,
	// every file of which some ptxas accepts.
	for _, dir := range []string{"../../shared/corpus/ptx", "../../../shared/corpus/ptx"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "*.ptx")); len(m) > 0 {
			files = append(files, m...)
			break
		}
	}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(fset, f); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// FuzzCheck: Check never panics on anything the parser accepts.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(checkHead + ".entry k()\n{\nL1:\n\tbra L1;\n}\n"))
	f.Add([]byte(".version 7.0\n.targett sm_52\n.entry k() { bra $x; }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fset := token.NewFileSet()
		f, err := ParseFile(fset, "f.ptx", src, 0)
		if err != nil {
			return
		}
		Check(fset, f)
	})
}
