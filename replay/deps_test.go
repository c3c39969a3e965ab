package replay

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDeps: replay is the SIMT machine only (doc.go): the launch-spec
// language, sample references, traces and manifests live downstream in
// package launch, so replay must not depend on them. Nor may any YAML
// package reach replay, directly or through model (spec files are parsed
// by model/specfile, downstream).
func TestDeps(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	list := func(args ...string) []string {
		out, err := exec.Command(gobin, append([]string{"list"}, args...)...).Output()
		if err != nil {
			t.Skipf("go list %v: %v", args, err)
		}
		f := strings.Fields(string(out))
		if len(f) == 0 {
			t.Fatalf("go list %v printed nothing", args)
		}
		return f
	}
	const mod = "github.com/ptxtrace/ptxtrace/"
	forbidden := []string{mod + "samples", mod + "samples/ref", mod + "trace", mod + "manifest",
		mod + "exporters", mod + "launch", mod + "instrument"}
	for _, d := range list("-deps", ".") {
		switch {
		case slices.Contains(forbidden, d), strings.HasPrefix(d, mod+"exporters/"),
			d == mod+"model/specfile":
			t.Errorf("replay depends on %s", d)
		case strings.Contains(strings.ToLower(d), "yaml"):
			t.Errorf("replay depends on YAML package %s", d)
		}
	}
}
