package ptx

import (
	"fmt"
	"strings"
)

// Equal reports whether two files have the same syntax tree, ignoring
// positions, layout (whitespace) and the raw token slices: the same
// declarations, statements, typed fields and comments in the same order.
// Canonical printing preserves Equal.
func Equal(a, b *File) bool { return Dump(a) == Dump(b) }

// Dump renders the typed content of f, one node per line, without
// positions. It is meant for tests and debugging; two files are Equal when
// their dumps are equal.
func Dump(f *File) string {
	var sb strings.Builder
	for _, d := range f.Decls {
		dumpNode(&sb, d, 0)
	}
	return sb.String()
}

func dumpNode(sb *strings.Builder, n Node, depth int) {
	ind := strings.Repeat("  ", depth)
	switch n := n.(type) {
	case *Comment:
		fmt.Fprintf(sb, "%sComment %q same=%v\n", ind, n.Text, n.SameLine)
	case *Directive:
		fmt.Fprintf(sb, "%sDirective %s %s semi=%v\n", ind, n.Name, tokText(n.Args), n.Semi)
	case *Section:
		fmt.Fprintf(sb, "%sSection %s %q\n", ind, n.Name, n.Body)
	case *VarDecl:
		fmt.Fprintf(sb, "%sVarDecl %s\n", ind, dumpVar(n))
	case *Function:
		fmt.Fprintf(sb, "%sFunction kind=%d link=%d %s noparen=%v\n", ind, n.Kind, n.Linkage, n.Name, n.NoParen)
		for _, r := range n.Ret {
			fmt.Fprintf(sb, "%s  ret %s\n", ind, dumpVar(r))
		}
		for _, r := range n.Params {
			fmt.Fprintf(sb, "%s  param %s\n", ind, dumpVar(r))
		}
		for _, d := range n.Perf {
			dumpNode(sb, d, depth+1)
		}
		if n.Body != nil {
			dumpNode(sb, n.Body, depth+1)
		}
	case *Block:
		fmt.Fprintf(sb, "%s{\n", ind)
		for _, s := range n.Stmts {
			dumpNode(sb, s, depth+1)
		}
		fmt.Fprintf(sb, "%s}\n", ind)
	case *Label:
		fmt.Fprintf(sb, "%sLabel %s\n", ind, n.Name)
	case *Instruction:
		fmt.Fprintf(sb, "%sInstr guard=%q neg=%v %s %+v |", ind, n.Guard, n.GuardNeg, n.Op.Text, opcodeFields(n.Op))
		for i := range n.Args {
			sb.WriteString(" ")
			dumpOperand(sb, &n.Args[i])
		}
		sb.WriteString("\n")
	case *BadDecl:
		fmt.Fprintf(sb, "%sBadDecl %s\n", ind, tokText(n.Toks.Slice()))
	case *BadStmt:
		fmt.Fprintf(sb, "%sBadStmt %s\n", ind, tokText(n.Toks.Slice()))
	default:
		fmt.Fprintf(sb, "%s%T\n", ind, n)
	}
}

func opcodeFields(o *Opcode) string {
	return fmt.Sprintf("%s%v%d%v%s%s%s%s%s%s%s%s%s%x", o.Name, o.Mods, o.Vec, o.Types, o.Space, o.Rounding, o.Cmp,
		o.BoolOp, o.Cache, o.Sem, o.Scope, o.Atom, o.Dim, o.Flags)
}

func dumpVar(d *VarDecl) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "link=%d %s align=%d v=%d %s(%s) ptr=%v %s %d attrs=%v", d.Linkage, d.Space, d.Align, d.Vec,
		d.Type, d.TypeName, d.Ptr, d.PtrSpace, d.PtrAlign, d.Attrs)
	for _, n := range d.Names {
		fmt.Fprintf(&sb, " [%s range=%d dims=%v init=%s]", n.Name, n.Range, n.Dims, tokText(n.Init))
	}
	return sb.String()
}

func dumpOperand(sb *strings.Builder, o *Operand) {
	fmt.Fprintf(sb, "(%d %q %q %d", o.Kind, o.Name, o.Name2, o.Offset)
	if o.Expr != nil {
		sb.WriteString(" expr=" + tokText(o.Expr))
	}
	for i := range o.Elems {
		sb.WriteString(" ")
		dumpOperand(sb, &o.Elems[i])
	}
	sb.WriteString(")")
}

// tokText joins token spellings with single spaces, dropping comments.
func tokText(ts []Token) string {
	var sb strings.Builder
	for i, t := range ts {
		if t.Kind == COMMENT {
			continue
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(t.Text)
	}
	return sb.String()
}
