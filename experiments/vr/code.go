package vr

import (
	"errors"
	"fmt"
	"go/token"
	"io/fs"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/samples"
)

// Code is the volrender PTX, instrumented in one mode or not at all.
type Code struct {
	Mode     string // "" = not instrumented, else naive/fence/dummy/auto
	PTX      []byte
	Manifest *manifest.Manifest // nil when not instrumented
}

// ModeName is the mode's name in tables: "app" for the uninstrumented
// kernel.
func ModeName(mode string) string {
	if mode == "" {
		return "app"
	}
	return mode
}

// Instrument returns the volrender PTX instrumented in mode ("" = the
// original): probes on tex loads only (the seed's texture references),
// capacity records per warp, and a user region over the whole kernel body.
// tool is recorded in the manifest (e.g. "ptxtrace v1.2").
func Instrument(mode string, capacity int, tool string) (*Code, error) {
	sm, ok := samples.Lookup(Sample)
	if !ok {
		return nil, errors.New("vr: embedded volrender sample missing")
	}
	p, ok := sm.PTXFor(Arch)
	if !ok {
		return nil, fmt.Errorf("vr: embedded volrender sample has no %s PTX", Arch)
	}
	src, err := fs.ReadFile(samples.FS(), p)
	if err != nil {
		return nil, err
	}
	if mode == "" {
		return &Code{PTX: src}, nil
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, p, src, 0)
	if err != nil {
		return nil, err
	}
	first, last := bodyLines(fset, f, Kernel)
	if first == 0 {
		return nil, fmt.Errorf("%s: kernel %s has no body", p, Kernel)
	}
	res, err := instrument.Instrument(fset, f, instrument.Options{
		Mode: mode, Timer: "clock64", Spaces: []string{"tex"}, Kernel: Kernel, Capacity: capacity,
		Regions: []instrument.Region{{Begin: first, End: last}}, Block: 128,
		Tool: tool, Output: Sample + "." + mode + ".ptx",
	})
	if err != nil {
		return nil, err
	}
	return &Code{Mode: mode, PTX: res.PTX, Manifest: res.Manifest}, nil
}

// LoadRegions counts the instrumented kernel's load regions, in all and
// per probe mode (naive, fence, dummy); 0 and nil when not instrumented.
func (c *Code) LoadRegions() (n int, byMode map[string]int) {
	if c.Manifest == nil || len(c.Manifest.Kernels) == 0 {
		return 0, nil
	}
	byMode = map[string]int{}
	for _, p := range c.Manifest.Kernels[0].Probes {
		if p.Kind == "begin" && p.RegionKind == "load" {
			n++
			byMode[string(p.Mode)]++
		}
	}
	return n, byMode
}

// bodyLines returns the first and last instruction lines of kernel's body.
func bodyLines(fset *token.FileSet, f *ptx.File, kernel string) (first, last int) {
	for _, fn := range f.Functions() {
		if fn.Kind != ptx.Entry || fn.Name != kernel {
			continue
		}
		ptx.Inspect(fn, func(n ptx.Node) bool {
			if s, ok := n.(*ptx.Instruction); ok {
				l := fset.Position(s.Pos()).Line
				if first == 0 || l < first {
					first = l
				}
				last = max(last, l)
			}
			return true
		})
	}
	return first, last
}
