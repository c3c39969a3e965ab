package samples

import (
	"bytes"
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"
)

// wantSamples is the set of samples the rest of ptxtrace relies on.
var wantSamples = map[string][]string{
	"bfs":        {"bfs_expand", "bfs_update"},
	"gaussian":   {"gaussian_fan1", "gaussian_fan2"},
	"hotspot":    {"hotspot_step"},
	"lud":        {"lud_diagonal", "lud_perimeter", "lud_internal"},
	"matmul":     {"matmul"},
	"nn":         {"nn_distance"},
	"pathfinder": {"pathfinder_step"},
	"reduce":     {"reduce_partial", "reduce_final"},
	"vecadd":     {"vecadd"},
	"volrender":  {"d_render"},
}

func TestEverySampleDirectoryIsComplete(t *testing.T) {
	dirs, err := fs.ReadDir(FS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		seen++
		name := d.Name()
		for _, f := range []string{name + ".cu", name + ".sm_52.ptx", name + ".sm_80.ptx"} {
			b, err := fs.ReadFile(FS(), path.Join(name, f))
			if err != nil {
				t.Errorf("sample %s: %v", name, err)
				continue
			}
			if len(b) == 0 {
				t.Errorf("sample %s: %s is empty", name, f)
			}
		}
	}
	if seen != len(wantSamples) {
		t.Errorf("found %d sample directories, want %d", seen, len(wantSamples))
	}
}

func TestList(t *testing.T) {
	list := List()
	if len(list) != len(wantSamples) {
		t.Fatalf("List() has %d samples, want %d", len(list), len(wantSamples))
	}
	for i, s := range list {
		if i > 0 && list[i-1].Name >= s.Name {
			t.Errorf("List() not sorted: %q before %q", list[i-1].Name, s.Name)
		}
		kernels, ok := wantSamples[s.Name]
		if !ok {
			t.Errorf("unexpected sample %q", s.Name)
			continue
		}
		if !reflect.DeepEqual(s.Kernels, kernels) {
			t.Errorf("%s: kernels %v, want %v", s.Name, s.Kernels, kernels)
		}
		if s.Description == "" || strings.HasPrefix(s.Description, s.Name+":") {
			t.Errorf("%s: bad description %q", s.Name, s.Description)
		}
		if s.Source != s.Name+"/"+s.Name+".cu" {
			t.Errorf("%s: source %q", s.Name, s.Source)
		}
		if len(s.Files) != 1+len(s.PTX) {
			t.Errorf("%s: files %v, ptx %v", s.Name, s.Files, s.PTX)
		}
		for _, arch := range []string{"sm_52", "sm_80"} {
			p, ok := s.PTXFor(arch)
			if !ok {
				t.Errorf("%s: no PTX for %s", s.Name, arch)
				continue
			}
			b, err := fs.ReadFile(FS(), p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(".target "+arch)) {
				t.Errorf("%s: .target %s missing", p, arch)
			}
			for _, k := range kernels {
				if !bytes.Contains(b, []byte(".entry "+k+"(")) {
					t.Errorf("%s: entry %s missing", p, k)
				}
			}
		}
	}
	// Fresh values on every call.
	list[0].Kernels[0] = "changed"
	if List()[0].Kernels[0] == "changed" {
		t.Error("List() shares state between calls")
	}
}

func TestLookup(t *testing.T) {
	s, ok := Lookup("volrender")
	if !ok || s.Name != "volrender" || len(s.PTX) != 2 {
		t.Fatalf("Lookup(volrender) = %+v, %v", s, ok)
	}
	for _, bad := range []string{"", "nope", "../samples", "volrender/volrender.cu", "."} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
}
