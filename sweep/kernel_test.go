package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kernelSpecDir copies the vecadd sample and a small launch spec into a
// directory with a spec naming them by relative path.
func kernelSpecDir(t *testing.T, blocks string) string {
	t.Helper()
	d := t.TempDir()
	for src, dst := range map[string]string{"../samples/vecadd/vecadd.sm_52.ptx": "vecadd.ptx", "../analysis/accuracy/testdata/samples/vecadd.yaml": "vecadd.yaml"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, dst), b, 0o644)
	}
	spec := "kernels:\n  - ptx: vecadd.ptx\n    launch: vecadd.yaml\n    blocks: " + blocks + "\nmodels: [gtx480]\nmodes: [app, naive]\n"
	os.WriteFile(filepath.Join(d, "spec.yaml"), []byte(spec), 0o644)
	return d
}

// TestKernelKind: a kernel × blocks × modes plan; the block that leaves
// half the output unwritten fails its launch spec's check, alone.
func TestKernelKind(t *testing.T) {
	d := kernelSpecDir(t, `["256", "128"]`)
	s, err := ReadSpec(filepath.Join(d, "spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := MakePlan(s, testTool)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 4 || p.Entries[0].Inputs["ptx"].Path != filepath.Join(d, "vecadd.ptx") {
		t.Fatalf("plan: %+v", p.Entries)
	}
	out := t.TempDir()
	rep, err := Run(context.Background(), p, RunOptions{Out: out, Jobs: 2, Tool: testTool})
	if err != nil {
		t.Fatal(err)
	}
	// vecadd.yaml launches 32 blocks for 8192 elements: 128 threads per
	// block cover half of them.
	if rep.Ran != 2 || len(rep.Failed) != 2 {
		t.Fatalf("%+v", rep)
	}
	for _, id := range rep.Failed {
		if txt := ErrorText(out, id); !strings.Contains(txt, "check c against reference vecadd failed") {
			t.Errorf("%s: %s", id, txt)
		}
	}
	m, err := Merge(p, out)
	if err != nil {
		t.Fatal(err)
	}
	csv, _ := m.ResultsCSV()
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 3 {
		t.Fatalf("results.csv:\n%s", csv)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[1] != "kernel" || f[2] != "vecadd" || f[5] != "256" {
			t.Errorf("row %s", l)
		}
		if probed := f[len(f)-1] != ""; probed != (f[4] == "naive") {
			t.Errorf("row %s: accesses column", l)
		}
	}
	// ids follow the PTX's bytes
	os.WriteFile(filepath.Join(d, "vecadd.ptx"), append(mustRead(t, filepath.Join(d, "vecadd.ptx")), "\n// edited\n"...), 0o644)
	p2, err := MakePlan(s, testTool)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p2.Entries {
		for j := range p.Entries {
			if p2.Entries[i].ID == p.Entries[j].ID {
				t.Errorf("an edited PTX kept id %s", p.Entries[j].ID)
			}
		}
	}
	// and the old plan refuses to run on the edited PTX
	rep, _ = Run(context.Background(), p, RunOptions{Out: t.TempDir(), Tool: testTool})
	if len(rep.Failed) != 4 || !strings.Contains(rep.Errors[0].Error(), "changed since the plan") {
		t.Errorf("stale plan: %+v", rep)
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSpecErrors(t *testing.T) {
	d := t.TempDir()
	for name, src := range map[string]string{
		"empty.yaml":   "",
		"none.yaml":    "models: [gtx480]\n",
		"unknown.yaml": "vr: {views: [\"0,0,0\"], blocks: [8x8], image: 8, volume: 4}\nbogus: 1\n",
	} {
		path := filepath.Join(d, name)
		os.WriteFile(path, []byte(src), 0o644)
		if _, err := ReadSpec(path); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	bad := []*Spec{
		{VR: &VRSpec{Views: []string{"0,0"}, Blocks: []string{"8x8"}, Image: 8, Volume: 4}},
		{VR: &VRSpec{Views: []string{"0,0,0"}, Blocks: []string{"64x64"}, Image: 8, Volume: 4}},
		{VR: &VRSpec{Views: []string{"0,0,0", "0,0,0"}, Blocks: []string{"8x8"}, Image: 8, Volume: 4}},
		{VR: &VRSpec{Views: []string{"0,0,0"}, Blocks: []string{"8x8"}, Image: 0, Volume: 4}},
		{Kernels: []KernelSpec{{PTX: "x.ptx"}}},
		{Kernels: []KernelSpec{{PTX: "x.ptx", Launch: "x.yaml"}}, Modes: []string{"fast"}},
	}
	for i, s := range bad {
		if _, err := MakePlan(s, testTool); err == nil {
			t.Errorf("bad spec %d accepted", i)
		}
	}
}
