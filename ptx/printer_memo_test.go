package ptx

import (
	"bytes"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// memoSrc is a kernel with comments, labels and a nested block, in which
// TestPrintFrozenMemo inserts generated instructions.
const memoSrc = ".version 7.8\n.target sm_80\n.address_size 64\n\n" +
	".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 \t%r<4>;\n\t.reg .pred \t%p<2>;\n\n" +
	"\tmov.u32 \t%r1, %tid.x; // same-line comment\n$L1:\n\t{\n\tadd.s32   %r2, %r1, 1;\n\t}\n" +
	"\t// own-line comment\n\tst.global.v2.u32 [%r1+4], {%r1, %r2};\n\tret;\n}\n\n" +
	".visible .entry j()\n{\n\tret;\n}\n"

// frozenSet is the generated code inserted: a guarded instruction, one
// with an address and a vector, a negated guard on a label operand.
func frozenSet() []*Instruction {
	g := NewInstruction("add.u32", Reg("%__r1"), Reg("%__r1"), Imm(-1))
	g.Guard = "%p1"
	v := NewInstruction("st.v2.u64", Addr("%__a0", 32), Vec(Imm(7), Reg("%__rd1")))
	b := NewInstruction("bra", Reg("$L1"))
	b.Guard, b.GuardNeg = "%p1", true
	ins := []*Instruction{g, v, b, NewInstruction("mov.u64", Reg("%__rd1"), Reg("%clock64"))}
	for _, in := range ins {
		in.Freeze()
	}
	return ins
}

// insertEverywhere puts the same frozen instructions before every
// statement of every block (so after source tokens, comments, labels,
// braces and each other) and at the end of each block.
func insertEverywhere(b *Block, ins []*Instruction) {
	var out []Stmt
	for _, s := range b.Stmts {
		if nb, ok := s.(*Block); ok {
			insertEverywhere(nb, ins)
		}
		for _, in := range ins {
			out = append(out, in)
		}
		out = append(out, s)
	}
	for _, in := range ins {
		out = append(out, in)
	}
	b.Stmts = out
}

// TestPrintFrozenMemo: remembering what frozen instructions print after
// their first token (Fprint, DeclPrinter.FrozenUnchanged) prints the
// bytes the token-by-token printer prints, with LF and CRLF line ends,
// and the output lines it tells; a small case is checked against text
// written by hand.
func TestPrintFrozenMemo(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n"} {
		src := []byte(strings.ReplaceAll(memoSrc, "\n", nl))
		print := func(memo bool) (string, []int) {
			fset := token.NewFileSet()
			f, err := ParseFile(fset, "k.ptx", src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ins := frozenSet()
			for _, fn := range f.Functions() {
				insertEverywhere(fn.Body, ins)
			}
			var out bytes.Buffer
			dp := NewDeclPrinter(&out, f)
			if memo {
				dp.FrozenUnchanged()
			}
			var lines []int
			dp.OnInstruction(func(_ *Instruction, line int) { lines = append(lines, line) })
			for _, d := range f.Decls {
				dp.Print(d)
			}
			if err := dp.Close(); err != nil {
				t.Fatal(err)
			}
			if memo {
				var whole bytes.Buffer
				if err := Fprint(&whole, f); err != nil {
					t.Fatal(err)
				}
				if whole.String() != out.String() {
					t.Errorf("Fprint and DeclPrinter differ:\n%s\n----\n%s", whole.String(), out.String())
				}
			}
			return out.String(), lines
		}
		plain, plainLines := print(false)
		memo, memoLines := print(true)
		if plain != memo {
			t.Errorf("remembered text differs:\n%s\n----\n%s", plain, memo)
		}
		if len(plainLines) == 0 || !slices.Equal(plainLines, memoLines) {
			t.Errorf("lines told %v, remembered %v", plainLines, memoLines)
		}
		blk := "\t@%p1 add.u32 %__r1, %__r1, -1;" + nl + "\tst.v2.u64 [%__a0+32], {7, %__rd1};" + nl +
			"\t@!%p1 bra $L1;" + nl + "\tmov.u64 %__rd1, %clock64;" + nl
		if want := nl + blk + "\tret;" + nl + blk + "}" + nl; !strings.Contains(memo, want) {
			t.Errorf("output lacks\n%s\nin\n%s", want, memo)
		}
	}
}

// TestPrintFrozenMemoBound: past maxTails distinct frozen instructions
// the memo starts afresh and the text is still the token-by-token one.
func TestPrintFrozenMemoBound(t *testing.T) {
	var stmts []Stmt
	for i := 0; i < 2*maxTails+3; i++ {
		in := NewInstruction("add.u32", Reg("%r1"), Reg("%r1"), Imm(int64(i%(maxTails+1))))
		in.Freeze()
		stmts = append(stmts, in)
	}
	first := stmts[:maxTails+1]
	stmts = append(stmts, first...) // printed again after the memo was emptied
	f := &File{Decls: []Decl{&Function{Kind: Entry, Name: "k", Body: &Block{Stmts: stmts}}}}
	var memo bytes.Buffer
	if err := Fprint(&memo, f); err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	dp := NewDeclPrinter(&plain, f)
	dp.Print(f.Decls[0])
	if err := dp.Close(); err != nil {
		t.Fatal(err)
	}
	if memo.String() != plain.String() {
		t.Error("remembered text differs past maxTails")
	}
	// i = 5 and maxTails+6, then again from first.
	if n := strings.Count(memo.String(), "add.u32 %r1, %r1, 5;\n"); n != 3 {
		t.Errorf("add of 5 printed %d times, want 3", n)
	}
}
