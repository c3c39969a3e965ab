package catalog

import (
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

func TestUniqueNames(t *testing.T) {
	seen := map[string]string{}
	groups := map[string]int{}
	for _, e := range List() {
		if g, ok := seen[e.Name]; ok {
			t.Errorf("%s in groups %s and %s", e.Name, g, e.Group)
		}
		seen[e.Name] = e.Group
		groups[e.Group]++
		if got, ok := Lookup(e.Name); !ok || got.Group != e.Group {
			t.Errorf("Lookup(%s) = %v, %v", e.Name, got.Group, ok)
		}
	}
	// every group contributes (the counts come from the directories)
	for _, g := range []string{GroupSamples, GroupHeldout, GroupModern} {
		if groups[g] == 0 {
			t.Errorf("group %s has no entries", g)
		}
	}
	if _, ok := Lookup("no-such-sample"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
}

// TestSpecsPrepare prepares every entry's launch spec against its PTX with
// Registry: every generator, reference and verifier a spec names must be
// known, whichever group it comes from (a registry without the group's
// generators fails here, as `ptxtrace run` did for held-out and modern
// samples).
func TestSpecsPrepare(t *testing.T) {
	reg := Registry()
	for _, e := range List() {
		spec, ok := e.Spec()
		if !ok {
			t.Errorf("%s: no launch spec", e.Name)
			continue
		}
		s, err := launch.ParseSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		var ptxPath string
		for _, p := range e.Files {
			if strings.HasSuffix(p, ".ptx") {
				ptxPath = p
				break
			}
		}
		if e.Description == "" {
			t.Errorf("%s: no description", e.Name)
		}
		src, err := fs.ReadFile(e.FS, ptxPath)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		f, err := ptx.ParseFile(token.NewFileSet(), ptxPath, src, 0)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		prog, err := replay.NewProgram(f)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if _, err := s.Prepare(prog, launch.PrepareOptions{Registry: reg}); err != nil {
			t.Errorf("%s (%s): %v", e.Name, e.Group, err)
		}
		for _, c := range s.Checks {
			if _, ok := reg.Refs[c.Reference]; !ok {
				if _, ok := reg.Verify[c.Reference]; !ok {
					t.Errorf("%s: check %q names no reference or verifier", e.Name, c.Reference)
				}
			}
		}
	}
}

// TestRegistryNeedsGroups shows the test above can fail: the samples-only
// registry lacks the held-out and modern generators.
func TestRegistryNeedsGroups(t *testing.T) {
	base := launch.SampleRegistry()
	all := Registry()
	if len(all.Generators) <= len(base.Generators) {
		t.Fatalf("Registry has %d generators, the samples alone %d", len(all.Generators), len(base.Generators))
	}
	for _, g := range []string{"scan", "gemm16"} {
		if _, ok := base.Generators[g]; ok {
			t.Errorf("generator %s already in launch.SampleRegistry", g)
		}
		if _, ok := all.Generators[g]; !ok {
			t.Errorf("generator %s missing from Registry", g)
		}
	}
}
