package dualflow

import (
	"go/token"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// Parse parses PTX source for the passes of this package.
func Parse(name string, src []byte) (*ptx.File, error) {
	return ptx.ParseFile(token.NewFileSet(), name, src, 0)
}

// AllocateFile allocates every entry and function with a body of file.
// limit returns the register budget N of a kernel (0: none). It returns
// the rewritten module and the allocations in source order.
func AllocateFile(file *ptx.File, limit func(kernel string) int) (string, []*Allocation, error) {
	var allocs []*Allocation
	out, err := RewriteFile(file, func(fn *ptx.Function) (string, error) {
		f, err := Analyze(file, fn)
		if err != nil {
			return "", err
		}
		n := 0
		if limit != nil {
			n = limit(fn.Name)
		}
		a, err := Allocate(f, n)
		if err != nil {
			return "", err
		}
		if err := a.Verify(); err != nil {
			return "", err
		}
		allocs = append(allocs, a)
		return a.Rewrite(), nil
	})
	return out, allocs, err
}
