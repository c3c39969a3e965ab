package catalog

import (
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/samples"
	"github.com/ptxtrace/ptxtrace/samples/heldout"
	"github.com/ptxtrace/ptxtrace/samples/internal/kernelset"
	"github.com/ptxtrace/ptxtrace/samples/modern"
)

// Groups, in listing order.
const (
	GroupSamples = "samples" // the project's ten samples
	GroupHeldout = "heldout" // kernels written to test probe accuracy
	GroupModern  = "modern"  // cp.async, ldmatrix, mma, wmma, TMA and wgmma samples
)

// Entry is one embedded kernel directory.
type Entry struct {
	Name        string
	Group       string
	Kernels     []string
	Description string
	Files       []string // paths in FS, "<name>/<file>", sorted
	FS          fs.FS
}

// Spec returns the entry's launch spec (launch.yaml), if it has one.
func (e Entry) Spec() ([]byte, bool) {
	if e.Group == GroupSamples {
		return launch.SampleSpec(e.Name)
	}
	b, err := fs.ReadFile(e.FS, path.Join(e.Name, "launch.yaml"))
	return b, err == nil
}

// List returns every entry, the samples first, then heldout, then modern,
// each sorted by name.
func List() []Entry {
	var out []Entry
	for _, s := range samples.List() {
		out = append(out, Entry{Name: s.Name, Group: GroupSamples, Kernels: s.Kernels,
			Description: s.Description, Files: s.Files, FS: samples.FS()})
	}
	for _, k := range heldout.List() {
		out = append(out, group(GroupHeldout, heldout.FS(), k))
	}
	for _, k := range modern.List() {
		out = append(out, group(GroupModern, modern.FS(), k))
	}
	return out
}

// group builds an entry of a group whose kernel is named after its
// directory; the description comes from the CUDA source, else from the
// first PTX file (hand-written PTX).
func group(g string, fsys fs.FS, k kernelset.Kernel) Entry {
	name, source, ptx := k.Name, k.Source, k.PTX
	e := Entry{Name: name, Group: g, Kernels: []string{name}, FS: fsys}
	desc := source
	if desc == "" && len(ptx) > 0 {
		desc = ptx[0]
	}
	if b, err := fs.ReadFile(fsys, desc); err == nil {
		text := string(b)
		for strings.HasPrefix(text, "//\n") { // an empty first comment line
			text = text[3:]
		}
		e.Description = samples.Describe(name, text)
	}
	if source != "" {
		e.Files = append(e.Files, source)
	}
	e.Files = append(e.Files, ptx...)
	e.Files = append(e.Files, k.Spec)
	slices.Sort(e.Files)
	return e
}

// Lookup returns the entry named name.
func Lookup(name string) (Entry, bool) {
	for _, e := range List() {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Registry returns a fresh launch.Registry with the generators, references
// and verifiers of every group (launch.SampleRegistry plus heldout's and
// modern's).
func Registry() launch.Registry {
	r := heldout.Registry()
	m := modern.Registry()
	maps.Copy(r.Generators, m.Generators)
	maps.Copy(r.Refs, m.Refs)
	maps.Copy(r.Verify, m.Verify)
	return r
}
