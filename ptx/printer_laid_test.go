package ptx

import (
	"bytes"
	"testing"
)

// TestLayoutHoles: NewLayout cuts the text at the hole values only
// (not inside names, other numbers or negative ones) and Append fills
// them; Laid prints it at its depth and fails elsewhere.
func TestLayoutHoles(t *testing.T) {
	in := NewInstruction("st.v2.u64", Addr("%r77", 16), Vec(Imm(77), Imm(-77)))
	in2 := NewInstruction("mov.u32", Reg("%r1"), Imm(770))
	in3 := NewInstruction("mov.u32", Reg("%r2"), Imm(78))
	l, err := NewLayout([]Stmt{in, in2, in3}, 1, false, []int64{77, 78})
	if err != nil {
		t.Fatal(err)
	}
	if l.Holes() != 2 {
		t.Fatalf("holes %d, want 2 (77 in the vector, 78)", l.Holes())
	}
	got := string(l.Append(nil, []int64{5, 9}))
	want := "\n\tst.v2.u64 [%r77+16], {5, -77};\n\tmov.u32 %r1, 770;\n\tmov.u32 %r2, 9;"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if _, err := NewLayout(nil, 1, false, []int64{3, 3}); err == nil {
		t.Errorf("repeated hole values accepted")
	}
	crlf, err := NewLayout([]Stmt{in3}, 2, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(crlf.Append(nil, nil)), "\r\n\t\tmov.u32 %r2, 78;"; got != want {
		t.Errorf("crlf depth 2: got %q want %q", got, want)
	}
	// A Laid at another depth than its layout's is refused.
	fn := &Function{Kind: Entry, Name: "k", Body: &Block{Stmts: []Stmt{&Block{Stmts: []Stmt{&Laid{Layout: l, Vals: []int64{1, 2}}}}}}}
	var b bytes.Buffer
	if err := Fprint(&b, &File{Decls: []Decl{fn}}); err == nil {
		t.Errorf("a Laid printed at depth 2 from a depth-1 layout: %q", b.String())
	}
}
