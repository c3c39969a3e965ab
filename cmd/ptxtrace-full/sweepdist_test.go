package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sweepSpecYAML = `vr:
  model: gtx480
  views: ["0,0,0", "90,0,90"]
  blocks: [32x4, 4x32]
  image: 16
  volume: 8
`

// TestSweepPlanRunMerge: two shards (flags after the arguments) + merge
// give sweep vr's golden outputs; a missing shard makes merge exit 1 and
// name the owner.
func TestSweepPlanRunMerge(t *testing.T) {
	d := t.TempDir()
	spec := filepath.Join(d, "spec.yaml")
	os.WriteFile(spec, []byte(sweepSpecYAML), 0o644)
	plan := filepath.Join(d, "plan.jsonl")
	if r := runCLI(t, "", "sweep", "plan", spec, "-o", plan); r.code != 0 {
		t.Fatalf("plan: %d\n%s", r.code, r.stderr)
	}
	out := filepath.Join(d, "out")
	if r := runCLI(t, "", "sweep", "run", plan, "--out", out, "--shard", "0/2", "-j", "2"); r.code != 0 {
		t.Fatalf("run 0/2: %d\n%s", r.code, r.stderr)
	}
	r := runCLI(t, "", "sweep", "merge", out, "--plan", plan, "--shards", "2")
	if r.code != exitError || !strings.Contains(r.stderr, "shard 1/2) missing") || strings.Contains(r.stderr, "shard 0/2") {
		t.Errorf("merge of half: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "merged")); err == nil {
		t.Error("merge of half wrote outputs")
	}
	if r := runCLI(t, "", "sweep", "merge", out, "--plan", plan, "--allow-missing", "-o", filepath.Join(d, "half")); r.code != 0 {
		t.Errorf("merge --allow-missing: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(d, "half", "results.csv")); strings.Count(string(b), "\n") != 1+6 {
		t.Errorf("half results.csv:\n%s", b)
	}
	// Slurm's variables choose shard 1 of 2.
	t.Setenv("SLURM_ARRAY_TASK_ID", "11")
	t.Setenv("SLURM_ARRAY_TASK_MIN", "10")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "2")
	if r := runCLI(t, "", "sweep", "run", "--out", out, "--shard", "auto", plan); r.code != 0 || !strings.Contains(r.stderr, "shard 1/2: 6 entries: 6 run, 0 already done") {
		t.Fatalf("run auto: %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, "", "sweep", "merge", out, "--plan", plan); r.code != 0 {
		t.Fatalf("merge: %d\n%s", r.code, r.stderr)
	}
	compareDirs(t, filepath.Join("testdata", "sweepvr"), filepath.Join(out, "merged"), "stdout.golden", "results.csv", "results.parquet")
	b, _ := os.ReadFile(filepath.Join(out, "merged", "results.csv"))
	if strings.Count(string(b), "\n") != 1+12 {
		t.Errorf("results.csv:\n%s", b)
	}
	// stepped arrays are refused
	t.Setenv("SLURM_ARRAY_TASK_STEP", "2")
	if r := runCLI(t, "", "sweep", "run", plan, "--out", out, "--shard", "auto"); r.code != exitUsage {
		t.Errorf("stepped array: exit %d", r.code)
	}
}

func TestSweepRunUsage(t *testing.T) {
	d := t.TempDir()
	spec := filepath.Join(d, "spec.yaml")
	os.WriteFile(spec, []byte(sweepSpecYAML), 0o644)
	plan := filepath.Join(d, "plan.jsonl")
	if r := runCLI(t, "", "sweep", "plan", spec, "-o", plan); r.code != 0 {
		t.Fatalf("plan: %d\n%s", r.code, r.stderr)
	}
	for _, sh := range []string{"", "1", "2/2", "-1/3", "0/0", "a/b", "1/2/3", "auto"} {
		r := runCLI(t, "", "sweep", "run", plan, "--out", d, "--shard="+sh)
		if r.code != exitUsage {
			t.Errorf("--shard %q: exit %d\n%s", sh, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"sweep", "run", plan, "--out", d, "--shard", "0/2", "--shards", "2"},
		{"sweep", "run", plan, "--out", d, "--shard", "auto", "--shards", "3"}, // no scheduler variables
		{"sweep", "run", plan},
		{"sweep", "run", plan, "--out", d, "--convert", "csv"},
		{"convert", "--out", d, "--shard", "5/5", plan},
		{"sweep", "script", plan, "--scheduler", "pbs", "--shards", "2", "--out", d},
		{"sweep", "script", plan, "--scheduler", "slurm", "--shards", "1002", "--out", d},
		{"sweep", "script", plan, "--scheduler", "k8s", "--shards", "2", "--out", d},
		{"sweep", "nope"},
	} {
		if r := runCLI(t, "", args...); r.code != exitUsage {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	if r := runCLI(t, "", "sweep", "run", plan, "--out", d, "--shard", "auto"); r.code != exitUsage || !strings.Contains(r.stderr, "--shards") {
		t.Errorf("k8s without --shards: exit %d\n%s", r.code, r.stderr)
	}
	sd := filepath.Join(d, "scripts")
	r := runCLI(t, "", "sweep", "script", plan, "--scheduler", "k8s", "--shards", "2", "--out", "/data/out", "--image", "img", "--claim", "c", "-o", sd)
	if r.code != 0 || !strings.Contains(r.stdout, "sweep-job.yaml") {
		t.Errorf("script k8s: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestConvertShardFrom: two shards of a --from list convert what one
// convert of the list does, without overlap.
func TestConvertShardFrom(t *testing.T) {
	d := t.TempDir()
	spec := filepath.Join(d, "spec.yaml")
	os.WriteFile(spec, []byte(sweepSpecYAML), 0o644)
	plan := filepath.Join(d, "plan.jsonl")
	out := filepath.Join(d, "out")
	if r := runCLI(t, "", "sweep", "plan", spec, "-o", plan); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := runCLI(t, "", "sweep", "run", plan, "--out", out, "--shard", "0/4"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	bundles, _ := filepath.Glob(filepath.Join(out, "*", "run.bundle"))
	if len(bundles) < 2 {
		t.Fatalf("%d bundles", len(bundles))
	}
	list := filepath.Join(d, "list")
	os.WriteFile(list, []byte("# runs\n"+strings.Join(bundles, "\n")+"\n"), 0o644)
	files := func(dir string) map[string]string {
		m := map[string]string{}
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				m[rel] = string(b)
			}
			return nil
		})
		return m
	}
	one := filepath.Join(d, "one")
	if r := runCLI(t, "", "convert", "--out", one, "--from", list); r.code != 0 {
		t.Fatal(r.stderr)
	}
	want := files(one)
	if len(want) != len(bundles) {
		t.Fatalf("%d outputs for %d bundles", len(want), len(bundles))
	}
	two := filepath.Join(d, "two")
	var sizes []int
	for _, sh := range []string{"0/2", "1/2"} {
		before := len(files(two))
		if r := runCLI(t, "", "convert", "--out", two, "--from", list, "--shard", sh); r.code != 0 {
			t.Fatal(r.stderr)
		}
		sizes = append(sizes, len(files(two))-before)
	}
	if sizes[0] != (len(bundles)+1)/2 || sizes[1] != len(bundles)/2 {
		t.Errorf("shards converted %v of %d", sizes, len(bundles))
	}
	got := files(two)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs or is missing", k)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files, want %d", len(got), len(want))
	}
}

// TestSweepRunFailedIDs: entries whose model file changed after the plan
// fail alone; run exits 1 naming them, merge exits 1 naming them.
func TestSweepRunFailedIDs(t *testing.T) {
	d := t.TempDir()
	mf := filepath.Join(d, "m.yaml")
	os.WriteFile(mf, []byte("base: gtx480\nname: mine\n"), 0o644)
	spec := filepath.Join(d, "spec.yaml")
	os.WriteFile(spec, []byte(strings.Replace(sweepSpecYAML, "model: gtx480", "model: m.yaml", 1)), 0o644)
	plan := filepath.Join(d, "plan.jsonl")
	if r := runCLI(t, "", "sweep", "plan", spec, "-o", plan); r.code != 0 {
		t.Fatal(r.stderr)
	}
	os.WriteFile(mf, []byte("base: gtx480\nname: edited\n"), 0o644)
	out := filepath.Join(d, "out")
	r := runCLI(t, "", "sweep", "run", plan, "--out", out, "--shard", "1/4")
	if r.code != exitError || !strings.Contains(r.stderr, "failed ids: ") || strings.Count(r.stderr, "changed since the plan") != 3 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, "", "sweep", "merge", out, "--plan", plan, "--shards", "4")
	if r.code != exitError || strings.Count(r.stderr, "shard 1/4) failed:") != 3 || strings.Count(r.stderr, ") missing") != 9 {
		t.Errorf("merge: exit %d\n%s", r.code, r.stderr)
	}
}
