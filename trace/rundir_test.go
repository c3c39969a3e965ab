package trace_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func TestRunFileNames(t *testing.T) {
	for _, c := range []struct {
		i          int
		multi      bool
		tr, bundle string
	}{
		{0, false, "trace.bin", "run.bundle"},
		{7, false, "trace.bin", "run.bundle"},
		{0, true, "trace.000.bin", "run.000.bundle"},
		{42, true, "trace.042.bin", "run.042.bundle"},
		{1234, true, "trace.1234.bin", "run.1234.bundle"},
	} {
		if g := trace.RunTraceName(c.i, c.multi); g != c.tr {
			t.Errorf("RunTraceName(%d, %v) = %s, want %s", c.i, c.multi, g, c.tr)
		}
		if g := trace.RunBundleName(c.i, c.multi); g != c.bundle {
			t.Errorf("RunBundleName(%d, %v) = %s, want %s", c.i, c.multi, g, c.bundle)
		}
	}
}

func names(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestRunDirMulti writes a run directory of three traced launches (indices
// 1, 10 and 1000, so a string sort would misorder them) over the leftovers
// of a single-launch run, and reads every launch back in launch order.
func TestRunDirMulti(t *testing.T) {
	dir := t.TempDir()
	s := tt.Synth{Warps: 4, WarpsPerCTA: 2, Iters: 1, Loads: 1, Timer: 1}
	// an earlier single-launch run
	w, err := trace.CreateRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.WriteTrace(0, false, synthInput(t, s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err = trace.CreateRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1000, 1, 10} {
		in := synthInput(t, s)
		in.Meta.Labels = map[string]string{"launch": strings.Repeat("x", i%7)}
		in.Meta.RunID = "launch" + string(rune('a'+i%26))
		if _, _, err := w.WriteTrace(i, true, in); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteBuffer("out", []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(map[string]int{"launches": 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"notes.txt", "out.bin", "run.001.bundle", "run.010.bundle", "run.1000.bundle", "summary.json",
		"trace.001.bin", "trace.010.bin", "trace.1000.bin"}
	if got := names(dir); !reflect.DeepEqual(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
	if got, want := w.Bundles(), []string{"run.1000.bundle", "run.001.bundle", "run.010.bundle"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Bundles = %v, want %v", got, want)
	}
	rbs, err := trace.RunBundles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, rb := range rbs {
		idx = append(idx, rb.Launch)
	}
	if !reflect.DeepEqual(idx, []int{1, 10, 1000}) {
		t.Errorf("launches %v, want [1 10 1000]", idx)
	}
	bs, err := trace.OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		if want := "launch" + string(rune('a'+idx[i]%26)); b.Meta.RunID != want {
			t.Errorf("bundle %d has run id %q, want %q", i, b.Meta.RunID, want)
		}
		if err := b.CheckValid(); err != nil {
			t.Error(err)
		}
		b.Close()
	}
	if _, err := trace.OpenBundleFile(dir); err == nil || !strings.Contains(err.Error(), "3 traced launches") {
		t.Errorf("OpenBundleFile of a multi-launch run: %v", err)
	}
	one, err := trace.RunBundles(filepath.Join(dir, "run.010.bundle"))
	if err != nil || len(one) != 1 || one[0].Launch != 10 || !one[0].Multi {
		t.Errorf("RunBundles of run.010.bundle = %+v, %v", one, err)
	}
	b, err := trace.OpenBundleFile(filepath.Join(dir, "run.010.bundle"))
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
}

func TestRunBundlesErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := trace.RunBundles(dir); err == nil || !strings.Contains(err.Error(), "no run.bundle") {
		t.Errorf("empty directory: %v", err)
	}
	for _, n := range []string{"run.bundle", "run.000.bundle"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := trace.RunBundles(dir); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("both forms: %v", err)
	}
	os.Remove(filepath.Join(dir, "run.bundle"))
	if err := os.WriteFile(filepath.Join(dir, "run.0000.bundle"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := trace.RunBundles(dir); err == nil || !strings.Contains(err.Error(), "two bundles of launch 0") {
		t.Errorf("duplicate index: %v", err)
	}
	if _, err := trace.RunBundles(filepath.Join(dir, "absent")); err == nil {
		t.Errorf("missing path accepted")
	}
}

// TestRunDirAbortKeepsOld writes a run, then starts a second one that fails
// before Close: the old run must be intact, with no new file mixed in and
// no temporary directory left beside it.
func TestRunDirAbortKeepsOld(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "k.run")
	w, err := trace.CreateRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBuffer("out", []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSummary(map[string]string{"run": "old"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, err = trace.CreateRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBuffer("c", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("../escape", nil); err == nil {
		t.Fatal("WriteFile accepted a path")
	}
	w.Abort()
	if got, want := names(dir), []string{"out.bin", "summary.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a failed run the directory holds %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.bin")); string(b) != "old" {
		t.Errorf("out.bin = %q, want the old run's", b)
	}
	if got := names(parent); !reflect.DeepEqual(got, []string{"k.run"}) {
		t.Errorf("parent holds %v, want only k.run", got)
	}
	// a successful second run replaces the old one as a whole
	w, _ = trace.CreateRunDir(dir)
	w.WriteBuffer("c", []byte("new"))
	if err := w.WriteSummary(map[string]string{"run": "new"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := names(dir), []string{"c.bin", "summary.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the second run the directory holds %v, want %v", got, want)
	}
	if got := names(parent); !reflect.DeepEqual(got, []string{"k.run"}) {
		t.Errorf("parent holds %v, want only k.run", got)
	}
}

// TestRunDirRefusesForeignDir: a directory with other files and no run
// files is not replaced.
func TestRunDirRefusesForeignDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("x"), 0o644)
	if _, err := trace.CreateRunDir(dir); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Fatalf("CreateRunDir over a foreign directory: err = %v, want 'not a run directory'", err)
	}
}
