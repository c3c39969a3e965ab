package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// flatTables are the functions allowed past MaxFuncLines: flat switch
// tables with one short case per opcode or type, where splitting would
// only scatter a table a reader scans top to bottom. Key: module-relative
// path of the file, then the function name (Recv.Name for methods).
var flatTables = map[string]string{
	"replay/exec_int.go:intOp":        "one case per integer sub-opcode (add, mul.hi, bfe, ...), each a line or two",
	"replay/exec_cmp.go:cvtVal":       "cvt: one case per (destination, source) type-class pair with its rounding/saturation rule",
	"replay/libdevice.go:libdevTable": "one registration line per libdevice function (__nv_popc, __nv_sinf, ...)",
}

// moduleRoot walks up from the working directory to the go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = up
	}
}

type longFunc struct {
	key   string // file:Name
	lines int
}

// longFuncs returns every non-test function declaration under root whose
// body spans more than limit lines, sorted by key.
func longFuncs(root string, limit int) ([]longFunc, error) {
	var out []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.Body.Rbrace).Line - fset.Position(fd.Body.Lbrace).Line - 1
			if n > limit {
				out = append(out, longFunc{rel + ":" + funcName(fd), n})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, err
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fmt.Sprintf("%T.%s", t, fd.Name.Name)
}

// TestFuncLength fails on any function body over MaxFuncLines lines that
// is not a listed flat table, and on an allowlist entry that no longer
// needs its exception (so the list cannot rot).
func TestFuncLength(t *testing.T) {
	long, err := longFuncs(moduleRoot(t), MaxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range long {
		if _, ok := flatTables[f.key]; ok {
			seen[f.key] = true
			continue
		}
		t.Errorf("%s: body is %d lines (limit %d): split it, or list it in flatTables if it is a flat opcode table", f.key, f.lines, MaxFuncLines)
	}
	for k := range flatTables {
		if !seen[k] {
			t.Errorf("flatTables lists %s, which is no longer over %d lines (or no longer exists): remove the entry", k, MaxFuncLines)
		}
	}
}

// TestLongFuncsFinds checks the scanner itself on a fixture: a 3-line
// body is reported at limit 2 and not at limit 3.
func TestLongFuncsFinds(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nfunc f() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n}\n\ntype T struct{}\n\nfunc (*T) g() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := longFuncs(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].key != "p.go:f" || got[0].lines != 3 {
		t.Errorf("limit 2: got %+v, want [p.go:f 3]", got)
	}
	if got, _ := longFuncs(dir, 3); len(got) != 0 {
		t.Errorf("limit 3: got %+v, want none", got)
	}
}
