package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}

func TestK8sGolden(t *testing.T) {
	fs, err := K8sManifests(ScriptOptions{Plan: "/data/plan.jsonl", Out: "/data/out", Shards: 8, MaxParallel: 4,
		Image: "registry.example/ptxtrace:1.0", Claim: "sweep-data"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		golden(t, f.Name, f.Data)
		// valid YAML with the fields the Job controller needs
		var doc map[string]any
		if err := yaml.Unmarshal(f.Data, &doc); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if doc["kind"] != "Job" {
			t.Errorf("%s: kind %v", f.Name, doc["kind"])
		}
	}
	job := string(fs[0].Data)
	for _, want := range []string{"completionMode: Indexed", "completions: 8", "parallelism: 4", "backoffLimitPerIndex:", "action: FailIndex", "values: [2]", "restartPolicy: Never", `"--shard", "auto", "--shards", "8"`} {
		if !strings.Contains(job, want) {
			t.Errorf("Indexed Job lacks %q", want)
		}
	}
	if _, err := K8sManifests(ScriptOptions{Plan: "p", Out: "o", Shards: 2}); err == nil {
		t.Error("k8s without image and claim accepted")
	}
}

func TestSlurmGolden(t *testing.T) {
	fs, err := SlurmScripts(ScriptOptions{Plan: "/shared/plan.jsonl", Out: "/shared/out", Shards: 16, MaxParallel: 4, Jobs: 2, Binary: "/opt/ptxtrace/bin/ptxtrace"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		golden(t, f.Name, f.Data)
	}
	if !strings.Contains(string(fs[0].Data), "#SBATCH --array=0-15%4\n") {
		t.Error("array line")
	}
	if _, err := SlurmScripts(ScriptOptions{Plan: "p", Out: "out dir", Shards: 2}); err == nil {
		t.Error("an --out with a blank accepted for #SBATCH --output")
	}
	if _, err := SlurmScripts(ScriptOptions{Plan: "p", Out: "o", Shards: 1001}); err != nil {
		t.Errorf("1001 shards (ids 0-1000) refused: %v", err)
	}
	if _, err := SlurmScripts(ScriptOptions{Plan: "p", Out: "o", Shards: 1002}); err == nil {
		t.Error("1002 shards accepted with MaxArraySize 1001")
	}
	if _, err := SlurmScripts(ScriptOptions{Plan: "p", Out: "o", Shards: 1002, MaxArraySize: 5000}); err != nil {
		t.Errorf("1002 shards with MaxArraySize 5000: %v", err)
	}
}

func TestPlanRoundTrip(t *testing.T) {
	p := smallPlan(t)
	if len(p.Entries) != 12 {
		t.Fatalf("%d entries, want 2×2×3", len(p.Entries))
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.jsonl")
	os.WriteFile(path, b.Bytes(), 0o644)
	q, err := ReadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	var b2 bytes.Buffer
	q.Write(&b2)
	if b.String() != b2.String() {
		t.Error("plan changed on a round trip")
	}
	// ids change with the tool version and with the config
	p2, _ := MakePlan(smallSpec(), "ptxtrace other")
	if p2.Entries[0].ID == p.Entries[0].ID {
		t.Error("ids do not depend on the tool")
	}
	// a hand-edited config is refused with its line
	lines := strings.SplitAfter(b.String(), "\n")
	lines[3] = strings.Replace(lines[3], `"image":16`, `"image":17`, 1)
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	if _, err := ReadPlan(path); err == nil || !strings.Contains(err.Error(), ":4:") {
		t.Errorf("edited plan: %v", err)
	}
	// truncated
	os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o644)
	if _, err := ReadPlan(path); err == nil {
		t.Error("truncated plan accepted")
	}
}

// TestModelFileIDs: ids depend on a model file's bytes, not its path.
func TestModelFileIDs(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	for _, d := range []string{d1, d2} {
		os.WriteFile(filepath.Join(d, "m.yaml"), []byte("base: gtx480\nname: mine\n"), 0o644)
	}
	ids := func(path string) string {
		s := smallSpec()
		s.VR.Model = path
		p, err := MakePlan(s, testTool)
		if err != nil {
			t.Fatal(err)
		}
		return p.Entries[0].ID
	}
	a, b := ids(filepath.Join(d1, "m.yaml")), ids(filepath.Join(d2, "m.yaml"))
	if a != b {
		t.Error("ids depend on the model file's path")
	}
	os.WriteFile(filepath.Join(d2, "m.yaml"), []byte("base: gtx480\nname: other\n"), 0o644)
	if ids(filepath.Join(d2, "m.yaml")) == a {
		t.Error("ids do not depend on the model file's bytes")
	}
}
