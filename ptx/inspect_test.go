package ptx

import (
	"fmt"
	"strings"
	"testing"

	"go/token"
)

func TestInspect(t *testing.T) {
	src := `.version 7.0
.target sm_70
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<2>;
	mov.u32 %r0, 1;
	{
		.reg .b32 %t;
	L1:
		add.u32 %r1, %r0, 2;
	}
	ret;
}
.extern .func f();
`
	f, err := ParseFile(token.NewFileSet(), "k.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	kind := func(n Node) string {
		switch n := n.(type) {
		case *File:
			return "file"
		case *Function:
			return "func " + n.Name
		case *Block:
			return "{"
		case *VarDecl:
			return "decl " + n.Names[0].Name
		case *Label:
			return "label " + n.Name
		case *Instruction:
			return n.Op.Name
		default:
			return fmt.Sprintf("%T", n)
		}
	}
	var got []string
	Inspect(f, func(n Node) bool {
		switch n.(type) {
		case *Directive:
			return true // module header directives: not listed
		}
		got = append(got, kind(n))
		return true
	})
	// By hand from src, in source order, depth first.
	want := "file|func k|{|decl %r|mov|{|decl %t|label L1|add|ret|func f"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("visit order\n got %s\nwant %s", g, want)
	}

	// Returning false prunes: the nested block's statements are skipped.
	got = got[:0]
	Inspect(f.Functions()[0].Body, func(n Node) bool {
		got = append(got, kind(n))
		_, nested := n.(*Block)
		return !nested || len(got) == 1
	})
	if g, want := strings.Join(got, "|"), "{|decl %r|mov|{|ret"; g != want {
		t.Errorf("pruned\n got %s\nwant %s", g, want)
	}
	Inspect(nil, func(Node) bool { t.Fatal("nil visited"); return true })
}
