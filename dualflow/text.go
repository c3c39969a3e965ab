package dualflow

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

func (f *Func) off(p token.Pos) int { return f.File.Tok.Offset(p) }

// srcText is the source text of node n.
func (f *Func) srcText(n ptx.Node) string {
	return string(f.File.Src[f.off(n.Pos()):f.off(n.End())])
}

// rewriteBody returns the text of f's function with its .reg declarations
// replaced by decls and every instruction's text passed through inst
// (which may return several lines). Labels, comments and other
// declarations are kept as written.
func (f *Func) rewriteBody(decls string, inst func(in *ptx.Instruction, text string) string) string {
	fn := f.Fn
	var b strings.Builder
	b.WriteString(string(f.File.Src[f.off(fn.Pos()):f.off(fn.Body.Lbrace.Pos)]))
	b.WriteString("{\n")
	b.WriteString(decls)
	var walk func(bl *ptx.Block)
	walk = func(bl *ptx.Block) {
		for _, s := range bl.Stmts {
			switch s := s.(type) {
			case *ptx.VarDecl:
				if s.Space == ptx.SpaceReg {
					continue
				}
				b.WriteString("\t" + f.srcText(s) + "\n")
			case *ptx.Instruction:
				b.WriteString(inst(s, f.srcText(s)))
				b.WriteString("\n")
			case *ptx.Label:
				b.WriteString(f.srcText(s) + "\n")
			case *ptx.Block:
				b.WriteString("{\n")
				walk(s)
				b.WriteString("}\n")
			case *ptx.Comment:
			default:
				b.WriteString("\t" + f.srcText(s) + "\n")
			}
		}
	}
	walk(fn.Body)
	b.WriteString("}\n")
	return b.String()
}

// RewriteFile returns file's source with every function that has a body
// replaced by what fn returns for it (or kept when fn returns "", nil).
func RewriteFile(file *ptx.File, fn func(*ptx.Function) (string, error)) (string, error) {
	var b strings.Builder
	last := 0
	for _, d := range file.Decls {
		f, ok := d.(*ptx.Function)
		if !ok || f.Body == nil {
			continue
		}
		text, err := fn(f)
		if err != nil {
			return "", err
		}
		if text == "" {
			continue
		}
		start, end := file.Tok.Offset(f.Pos()), file.Tok.Offset(f.End())
		if start < last {
			return "", fmt.Errorf("%s: functions overlap", file.Name)
		}
		b.Write(file.Src[last:start])
		b.WriteString(text)
		last = end
	}
	b.Write(file.Src[last:])
	return b.String(), nil
}
