package ptx

import (
	"bytes"
	"go/token"
	"os"
	"testing"
)

// parsePieces parses src piece by piece at Split's cuts, the pieces
// sharing their decoded opcodes (ParseRangeShared).
func parsePieces(t testing.TB, name string, src []byte) (*File, *token.FileSet, error) {
	fset := token.NewFileSet()
	tf := NewFile(fset, name, src)
	all := &File{Name: name, Src: src, Tok: tf}
	lo := 0
	var first error
	opcodes := map[string]*Opcode{} // shared by the pieces, as Stream shares them
	for _, hi := range Split(src) {
		f, err := ParseRangeShared(tf, src, lo, hi, 0, opcodes)
		if err != nil && first == nil {
			first = err
		}
		all.CRLF = f.CRLF
		all.Decls = append(all.Decls, f.Decls...)
		lo = hi
	}
	return all, fset, first
}

// TestStreamPieces: over the corpus, parsing a file piece by piece gives
// the tree ParseFile gives (Dump), at the same positions, printing the
// pieces' declarations one by one with DeclPrinter gives the input back
// byte for byte, and Checker agrees with Check.
func TestStreamPieces(t *testing.T) {
	for _, name := range corpusFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		whole, werr := ParseFile(fset, name, src, 0)
		pieces, pset, perr := parsePieces(t, name, src)
		if (werr == nil) != (perr == nil) {
			t.Errorf("%s: whole parse error %v, pieces %v", name, werr, perr)
			continue
		}
		if werr != nil {
			continue
		}
		if Dump(whole) != Dump(pieces) {
			t.Errorf("%s: pieces parse to another tree", name)
			continue
		}
		wf, pf := whole.Functions(), pieces.Functions()
		for i := range wf {
			if a, b := fset.Position(wf[i].NamePos), pset.Position(pf[i].NamePos); a != b {
				t.Errorf("%s: function %s at %v, piece at %v", name, wf[i].Name, a, b)
			}
		}
		var out bytes.Buffer
		dp := NewDeclPrinter(&out, pieces)
		for _, d := range pieces.Decls {
			dp.Print(d)
		}
		if err := dp.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), src) {
			t.Errorf("%s: DeclPrinter output differs from the input", name)
		}
		c := NewChecker(pset, pieces)
		for _, d := range pieces.Decls {
			c.Decl(d)
		}
		e1, e2 := Check(fset, whole), c.Err()
		if (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
			t.Errorf("%s: Check %v, Checker %v", name, e1, e2)
		}
	}
}

// TestSplitCuts: cuts fall after function bodies and sections, not in
// initializers, comments or strings, nor before text on the same line.
func TestSplitCuts(t *testing.T) {
	src := ".version 7.8\n.global .b32 a[2] = {1, 2};\n.entry k()\n{\n\tret; // }\n}\n" +
		"/* } */ .entry j() { ret; } .entry i() { ret; }\n.pragma \"}\";\n.entry h() { ret; } // end\n// tail\n"
	got := Split([]byte(src))
	// After k's "}\n", after i's line, after h's line, and the end.
	k := bytes.Index([]byte(src), []byte("}\n/*")) + 2
	i := bytes.Index([]byte(src), []byte("ret; }\n.pragma")) + 7
	h := bytes.Index([]byte(src), []byte("// end\n")) + 7
	want := []int{k, i, h, len(src)}
	if len(got) != len(want) {
		t.Fatalf("cuts %v, want %v", got, want)
	}
	for n := range want {
		if got[n] != want[n] {
			t.Fatalf("cuts %v, want %v", got, want)
		}
	}
}

// FuzzSplit: when a file and all its pieces (Split) parse without error,
// the pieces give the file's tree and DeclPrinter prints the file back;
// a streaming caller refuses a file whose pieces do not parse.
func FuzzSplit(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(".version 7.8\n.target sm_80\n.global .b8 s[2] = {1, 2};\n.entry k() { ret; } // }\n/* } */\n.entry j() { ret; }\n"))
	f.Add([]byte(".version 7.8\n.target sm_80\n.pragma \"}\";\n.section .debug_str { \"}\" }\n.entry k() { ret; }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cuts := Split(src)
		prev := 0
		for _, c := range cuts {
			if c < prev || c > len(src) {
				t.Fatalf("cuts %v", cuts)
			}
			prev = c
		}
		if cuts[len(cuts)-1] != len(src) {
			t.Fatalf("last cut %d, want %d", cuts[len(cuts)-1], len(src))
		}
		fset := token.NewFileSet()
		whole, err := ParseFile(fset, "f.ptx", src, 0)
		if err != nil {
			return
		}
		pieces, _, perr := parsePieces(t, "f.ptx", src)
		if perr != nil {
			return
		}
		if Dump(whole) != Dump(pieces) {
			t.Fatalf("pieces parse to another tree")
		}
		var out bytes.Buffer
		dp := NewDeclPrinter(&out, pieces)
		for _, d := range pieces.Decls {
			dp.Print(d)
		}
		if err := dp.Close(); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := Fprint(&want, whole); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want.Bytes()) {
			t.Fatalf("DeclPrinter output differs from Fprint")
		}
	})
}

// TestParseRangeShared: pieces parsed with a shared opcode map share the
// Opcode of a spelling they both use, and parse to what ParseRange gives.
func TestParseRangeShared(t *testing.T) {
	src := []byte(".version 7.8\n.target sm_80\n.entry a()\n{\n\tadd.s32 %r1, %r1, 1;\n\tret;\n}\n.entry b()\n{\n\tadd.s32 %r2, %r2, 2;\n}\n")
	cuts := Split(src)
	if len(cuts) != 2 {
		t.Fatalf("cuts %v, want 2 pieces", cuts)
	}
	fset := token.NewFileSet()
	tf := NewFile(fset, "a.ptx", src)
	opcodes := map[string]*Opcode{}
	var ops []*Opcode
	lo := 0
	for _, hi := range cuts {
		f, err := ParseRangeShared(tf, src, lo, hi, 0, opcodes)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseRange(tf, src, lo, hi, 0)
		if err != nil {
			t.Fatal(err)
		}
		if Dump(f) != Dump(g) {
			t.Errorf("piece %d: shared parse differs:\n%s\nwant\n%s", lo, Dump(f), Dump(g))
		}
		fn := f.Functions()[0]
		ops = append(ops, fn.Body.Stmts[0].(*Instruction).Op)
		lo = hi
	}
	if ops[0] != ops[1] || ops[0].Text != "add.s32" {
		t.Errorf("add.s32 decoded twice (%p, %p) or wrongly (%q)", ops[0], ops[1], ops[0].Text)
	}
}
