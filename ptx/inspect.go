package ptx

// Inspect traverses the syntax tree rooted at n in source order, depth
// first, as go/ast.Inspect does: it calls f(n); if f returns true, it then
// inspects each child of n: the Decls of a *File, the Body of a *Function
// (when it has one), the Stmts of a *Block. Other nodes have no children
// here (an Instruction's operands are not nodes). A nil n is not visited.
//
// It is the one walk over nested blocks: code that needs every statement
// of a body, at any depth, calls Inspect rather than recursing itself.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, d := range n.Decls {
			Inspect(d, f)
		}
	case *Function:
		if n.Body != nil {
			Inspect(n.Body, f)
		}
	case *Block:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	}
}
