package samples

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed */*.cu */*.ptx
var files embed.FS

// Sample describes one embedded sample directory.
type Sample struct {
	// Name is the directory name, e.g. "vecadd".
	Name string
	// Description is the first paragraph of the source's header comment,
	// without its "<name>: " prefix.
	Description string
	// Kernels lists the extern "C" __global__ entry points in source order.
	Kernels []string
	// Source is the path of the .cu file in FS(), e.g. "vecadd/vecadd.cu".
	Source string
	// PTX lists the paths of the sample's PTX files in FS(), sorted,
	// e.g. "vecadd/vecadd.sm_52.ptx", "vecadd/vecadd.sm_80.ptx".
	PTX []string
	// Files lists every embedded file of the sample (source and PTX), sorted.
	Files []string
}

// PTXFor returns the path in FS() of the sample's PTX for arch ("sm_52", "sm_80").
func (s Sample) PTXFor(arch string) (string, bool) {
	want := path.Join(s.Name, s.Name+"."+arch+".ptx")
	for _, p := range s.PTX {
		if p == want {
			return p, true
		}
	}
	return "", false
}

// FS returns the embedded sample files. Paths are "<name>/<file>", e.g.
// "volrender/volrender.sm_80.ptx". The file system is read-only.
func FS() fs.FS { return files }

// List returns every embedded sample, sorted by name. Each call builds fresh
// values, so callers may modify the result.
func List() []Sample {
	dirs, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var out []Sample
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if s, ok := load(d.Name()); ok {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the sample called name.
func Lookup(name string) (Sample, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return Sample{}, false
	}
	return load(name)
}

func load(name string) (Sample, bool) {
	entries, err := fs.ReadDir(files, name)
	if err != nil {
		return Sample{}, false
	}
	s := Sample{Name: name}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		p := path.Join(name, e.Name())
		s.Files = append(s.Files, p)
		switch {
		case e.Name() == name+".cu":
			s.Source = p
		case strings.HasSuffix(e.Name(), ".ptx"):
			s.PTX = append(s.PTX, p)
		}
	}
	if s.Source == "" {
		return Sample{}, false
	}
	sort.Strings(s.Files)
	sort.Strings(s.PTX)
	src, err := fs.ReadFile(files, s.Source)
	if err != nil {
		return Sample{}, false
	}
	s.Description = description(name, string(src))
	s.Kernels = kernels(string(src))
	return s, true
}

// Describe returns the first paragraph of src's header comment (the leading
// "//" lines up to the first empty one) without its "<name>: " prefix.
func Describe(name, src string) string { return description(name, src) }

// description joins the leading "//" comment lines up to the first empty one
// and drops the "<name>: " prefix.
func description(name, src string) string {
	var parts []string
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimRight(line, "\r")
		if !strings.HasPrefix(line, "//") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "//"))
		if text == "" {
			break
		}
		parts = append(parts, text)
	}
	return strings.TrimPrefix(strings.Join(parts, " "), name+": ")
}

// kernels finds the names declared as `extern "C" __global__ void NAME(`.
func kernels(src string) []string {
	const marker = `extern "C" __global__ void `
	var names []string
	for {
		i := strings.Index(src, marker)
		if i < 0 {
			return names
		}
		src = src[i+len(marker):]
		j := strings.IndexByte(src, '(')
		if j < 0 {
			return names
		}
		names = append(names, strings.TrimSpace(src[:j]))
		src = src[j:]
	}
}
