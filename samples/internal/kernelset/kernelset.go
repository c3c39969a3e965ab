package kernelset

import (
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Kernel is one kernel directory of a group.
type Kernel struct {
	Name   string   // directory and kernel name, e.g. "scan"
	Source string   // "<name>/<name>.cu", or "" when the PTX is hand-written
	Spec   string   // "<name>/launch.yaml"
	PTX    []string // sorted PTX paths, e.g. "scan/scan.sm_52.ptx"
}

// PTXFor returns the path of the kernel's PTX for variant ("sm_52",
// "sm_80", "sm_52-G", "sm_90a", …).
func (k Kernel) PTXFor(variant string) (string, bool) {
	want := path.Join(k.Name, k.Name+"."+variant+".ptx")
	for _, p := range k.PTX {
		if p == want {
			return p, true
		}
	}
	return "", false
}

// List returns the kernels of fsys, one per top-level directory, sorted by
// name.
func List(fsys fs.FS) []Kernel {
	dirs, _ := fs.ReadDir(fsys, ".")
	var out []Kernel
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n := d.Name()
		k := Kernel{Name: n, Spec: path.Join(n, "launch.yaml")}
		ents, _ := fs.ReadDir(fsys, n)
		for _, e := range ents {
			switch {
			case strings.HasSuffix(e.Name(), ".ptx"):
				k.PTX = append(k.PTX, path.Join(n, e.Name()))
			case e.Name() == n+".cu":
				k.Source = path.Join(n, e.Name())
			}
		}
		sort.Strings(k.PTX)
		out = append(out, k)
	}
	return out
}
