package ptx

import (
	"go/token"
)

// moduleDirectives are the directives ptxas accepts at module level
// outside declarations (PTX ISA, "Module directives" and "Debugging
// directives").
var moduleDirectives = map[string]bool{
	".version": true, ".target": true, ".address_size": true, ".file": true,
	".loc": true, ".pragma": true, ".section": true, ".callprototype": true,
	".alias": true, ".weak": true, ".extern": true, ".visible": true,
}

// Check reports the semantic errors ptxas rejects that parsing alone lets
// through, as a scanner.ErrorList of file:line:col messages in source
// order (nil when there are none):
//   - no .version directive, or not as the module's first directive;
//   - no .target directive (a misspelling such as .targett is reported as
//     an unknown directive);
//   - a label defined twice in one function body;
//   - a bra whose target is not a label of its function;
//   - two definitions (with a body) of one function name;
//   - two parameters of one function with the same name, or two
//     declarations of one name in the same block.
//
// Modules that pass Check may still be rejected by ptxas for other
// reasons (types, registers); Check never rejects a module ptxas accepts.
func Check(fset *token.FileSet, f *File) error {
	c := NewChecker(fset, f)
	for _, d := range f.Decls {
		c.Decl(d)
	}
	return c.Err()
}

// checkLabels reports duplicate labels and branches to undefined labels
// in fn's body (labels are scoped to the function).
func checkLabels(f *File, fn *Function, add func(token.Pos, string)) {
	if fn.Body == nil {
		return
	}
	labels := map[string]bool{}
	var bras []*Instruction
	Inspect(fn.Body, func(n Node) bool {
		switch s := n.(type) {
		case *Label:
			if labels[s.Name] {
				add(s.Pos(), "duplicate label "+s.Name+" in "+fn.Name)
			}
			labels[s.Name] = true
		case *Instruction:
			if s.Op != nil && s.Op.Name == "bra" && len(s.Args) == 1 && s.Args[0].Kind == OpReg {
				bras = append(bras, s)
			}
		}
		return true
	})
	for _, in := range bras {
		if a := in.Args[0]; !labels[a.Name] {
			add(a.Pos, "branch to undefined label "+a.Name+" in "+fn.Name)
		}
	}
}

// checkNames reports a parameter name used twice in fn's header and a name
// declared twice in one block (an inner block may redeclare a name).
func checkNames(fn *Function, add func(token.Pos, string)) {
	params := map[string]bool{}
	for _, list := range [][]*VarDecl{fn.Ret, fn.Params} {
		for _, v := range list {
			for _, d := range v.Names {
				if params[d.Name] {
					add(declPos(v, d), "duplicate parameter "+d.Name+" in "+fn.Name)
				}
				params[d.Name] = true
			}
		}
	}
	if fn.Body == nil {
		return
	}
	var block func(b *Block)
	block = func(b *Block) {
		names := map[string]bool{}
		for _, st := range b.Stmts {
			switch st := st.(type) {
			case *Block:
				block(st)
			case *VarDecl:
				for _, d := range st.Names {
					key := d.Name
					if d.Range >= 0 {
						key += "<>" // a parameterized name: %r<4> and %r<8> collide
					}
					if names[key] {
						add(declPos(st, d), "duplicate declaration of "+d.Name+" in "+fn.Name)
					}
					names[key] = true
				}
			}
		}
	}
	block(fn.Body)
}

// declPos is the position of declarator d of v, or of v.
func declPos(v *VarDecl, d Declarator) token.Pos {
	if d.Pos.IsValid() {
		return d.Pos
	}
	return v.Pos()
}
