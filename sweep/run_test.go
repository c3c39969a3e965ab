package sweep

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const testTool = "ptxtrace test"

// smallSpec is 2 views × 2 blocks × 3 modes = 12 entries, each well under
// a second.
func smallSpec() *Spec {
	return &Spec{VR: &VRSpec{Model: "gtx480", Views: []string{"0,0,0", "90,0,90"}, Blocks: []string{"32x4", "4x32"}, Image: 16, Volume: 8}}
}

func smallPlan(t *testing.T) *Plan {
	t.Helper()
	p, err := MakePlan(smallSpec(), testTool)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tree reads every file under dir except the scratch directory .tmp.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() && rel == tmpDir {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: %s missing", what, name)
		} else if g != w {
			t.Errorf("%s: %s differs", what, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: extra file %s", what, name)
		}
	}
}

func mustRun(t *testing.T, p *Plan, o RunOptions) *Report {
	t.Helper()
	o.Tool = testTool
	rep, err := Run(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) > 0 {
		t.Fatalf("failed: %v %v", rep.Failed, rep.Errors)
	}
	return rep
}

// merged returns results.csv and the vr files of dir.
func merged(t *testing.T, p *Plan, dir string) map[string]string {
	t.Helper()
	m, err := Merge(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Gaps) > 0 {
		t.Fatalf("gaps: %v", m.Gaps)
	}
	out := map[string]string{}
	res, err := m.ResultsCSV()
	if err != nil {
		t.Fatal(err)
	}
	out["results.csv"] = string(res)
	pqb, err := m.ResultsParquet()
	if err != nil {
		t.Fatal(err)
	}
	out["results.parquet"] = string(pqb)
	tab, err := m.VRTable()
	if err != nil {
		t.Fatal(err)
	}
	fs, err := VRFiles(tab, "g")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		out[f.Name] = string(f.Data)
	}
	return out
}

// TestShardedEqualsUnsharded: N shards (each with its own -j) leave the
// same directory and merge as one unsharded run, and a finished shard
// re-run simulates nothing.
func TestShardedEqualsUnsharded(t *testing.T) {
	p := smallPlan(t)
	one := t.TempDir()
	if rep := mustRun(t, p, RunOptions{Out: one, Jobs: 1}); rep.Ran != len(p.Entries) {
		t.Fatalf("ran %d of %d", rep.Ran, len(p.Entries))
	}
	want, wantMerged := tree(t, one), merged(t, p, one)
	if len(want) < 2*len(p.Entries) {
		t.Fatalf("only %d files for %d entries", len(want), len(p.Entries))
	}
	for _, n := range []int{2, 3, 7} {
		dir := t.TempDir()
		for i := range n {
			rep := mustRun(t, p, RunOptions{Out: dir, Shard: Shard{i, n}, Jobs: 1 + i%3})
			if rep.Owned != len(p.ShardEntries(Shard{i, n})) || rep.Ran != rep.Owned {
				t.Fatalf("shard %d/%d: %+v", i, n, rep)
			}
			// resume: the finished shard again does nothing
			if rep := mustRun(t, p, RunOptions{Out: dir, Shard: Shard{i, n}}); rep.Ran != 0 || rep.Skipped != rep.Owned {
				t.Fatalf("re-run of shard %d/%d ran %d", i, n, rep.Ran)
			}
		}
		sameTree(t, "N="+string(rune('0'+n)), want, tree(t, dir))
		sameTree(t, "merge", wantMerged, merged(t, p, dir))
	}
}

// TestConcurrentSameShard: two runners on the same shard and directory
// (a requeue overlap) leave the same complete results.
func TestConcurrentSameShard(t *testing.T) {
	p := smallPlan(t)
	ref := t.TempDir()
	mustRun(t, p, RunOptions{Out: ref, Jobs: 2})
	dir := t.TempDir()
	var wg sync.WaitGroup
	reps := make([]*Report, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			reps[i], errs[i] = Run(context.Background(), p, RunOptions{Out: dir, Jobs: 2, Tool: testTool})
		})
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || len(reps[i].Failed) > 0 {
			t.Fatalf("runner %d: %v %+v", i, errs[i], reps[i])
		}
	}
	sameTree(t, "concurrent", tree(t, ref), tree(t, dir))
	if ents, _ := os.ReadDir(filepath.Join(dir, tmpDir)); len(ents) != 0 {
		t.Errorf("scratch left: %v", ents)
	}
}

// TestFailureIsolation: failing entries write their error, the others
// finish, merge names the failed ones, and a later good run clears them.
func TestFailureIsolation(t *testing.T) {
	modelFile := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(modelFile, []byte("base: gtx480\nname: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := smallSpec()
	s.VR.Model = modelFile
	p, err := MakePlan(s, testTool)
	if err != nil {
		t.Fatal(err)
	}
	good := smallPlan(t)
	// mix: every entry of the good plan, plus the model-file entries
	// whose file is then edited (each fails alone).
	mixed := &Plan{Header: good.Header, Entries: append(slices.Clone(good.Entries), p.Entries[:3]...)}
	if err := os.WriteFile(modelFile, []byte("base: gtx480\nname: edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := Run(context.Background(), mixed, RunOptions{Out: dir, Jobs: 2, Tool: testTool})
	if err != nil {
		t.Fatal(err)
	}
	var wantFailed []string
	for _, e := range p.Entries[:3] {
		wantFailed = append(wantFailed, e.ID)
	}
	if !slices.Equal(rep.Failed, wantFailed) || rep.Ran != len(good.Entries) {
		t.Fatalf("failed %v, want %v; ran %d", rep.Failed, wantFailed, rep.Ran)
	}
	for _, id := range wantFailed {
		if txt := ErrorText(dir, id); !strings.Contains(txt, "changed since the plan") {
			t.Errorf("%s: error %q", id, txt)
		}
	}
	m, err := Merge(mixed, dir)
	if err != nil {
		t.Fatal(err)
	}
	var gaps []string
	for _, g := range m.Gaps {
		if g.Err == "" || g.ID != mixed.Entries[g.Index].ID {
			t.Errorf("gap %+v", g)
		}
		gaps = append(gaps, g.ID)
	}
	if !slices.Equal(gaps, wantFailed) {
		t.Errorf("merge gaps %v, want %v", gaps, wantFailed)
	}
	if _, err := m.VRTable(); err == nil {
		t.Error("VRTable of an incomplete merge succeeded")
	}
	// restore the file: the failed entries run, their errors go.
	if err := os.WriteFile(modelFile, []byte("base: gtx480\nname: mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = mustRun(t, mixed, RunOptions{Out: dir})
	if rep.Ran != 3 || rep.Skipped != len(good.Entries) {
		t.Errorf("re-run: %+v", rep)
	}
	for _, id := range wantFailed {
		if ErrorText(dir, id) != "" {
			t.Errorf("%s: error file left", id)
		}
	}
	// missing entries are gaps without an error.
	os.RemoveAll(filepath.Join(dir, good.Entries[0].ID))
	m, _ = Merge(good, dir)
	if len(m.Gaps) != 1 || m.Gaps[0].Index != 0 || m.Gaps[0].Err != "" {
		t.Errorf("gaps after removal: %+v", m.Gaps)
	}
}

func TestRunRefusesOtherTool(t *testing.T) {
	p := smallPlan(t)
	if _, err := Run(context.Background(), p, RunOptions{Out: t.TempDir(), Tool: "ptxtrace other"}); err == nil {
		t.Fatal("a plan of another tool version ran")
	}
}

// TestTwoProcessesSameShard: two processes running the whole plan into
// one directory at once (a requeue overlapping its predecessor) leave the
// results of one uninterrupted run.
func TestTwoProcessesSameShard(t *testing.T) {
	p := smallPlan(t)
	ref := t.TempDir()
	mustRun(t, p, RunOptions{Out: ref, Jobs: 2})
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledShardResumes$")
		cmd.Env = append(os.Environ(), "PTXTRACE_SWEEP_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	sameTree(t, "two processes", tree(t, ref), tree(t, dir))
	if rep := mustRun(t, p, RunOptions{Out: dir}); rep.Ran != 0 {
		t.Errorf("after two processes, a re-run ran %d", rep.Ran)
	}
}

// TestKilledShardResumes kills a child process running the plan with
// SIGKILL once it has finished some entries, re-runs, and compares with
// an uninterrupted run.
func TestKilledShardResumes(t *testing.T) {
	if dir := os.Getenv("PTXTRACE_SWEEP_CHILD"); dir != "" {
		p := smallPlan(t)
		Run(context.Background(), p, RunOptions{Out: dir, Jobs: 1, Tool: testTool})
		os.Exit(0)
	}
	p := smallPlan(t)
	ref := t.TempDir()
	mustRun(t, p, RunOptions{Out: ref, Jobs: 2})
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledShardResumes$")
	cmd.Env = append(os.Environ(), "PTXTRACE_SWEEP_CHILD="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ents, _ := os.ReadDir(dir)
		if len(ents) >= 3 { // .tmp and at least two entries
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child finished no entry in 60 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	got := tree(t, dir)
	if len(got) >= len(tree(t, ref)) {
		t.Skip("the child finished before it was killed")
	}
	for name, data := range got { // what survived is complete
		if want := tree(t, ref)[name]; data != want {
			t.Errorf("after SIGKILL: %s differs", name)
		}
	}
	rep := mustRun(t, p, RunOptions{Out: dir, Jobs: 2})
	if rep.Skipped == 0 {
		t.Error("re-run skipped nothing")
	}
	sameTree(t, "after SIGKILL and re-run", tree(t, ref), tree(t, dir))
}

// TestRunEntryProgress: RunOptions.Entry ends every entry exactly once,
// reports nothing for an entry after its end, and counts an entry as ended
// before Progress counts it done; its cycles never decrease.
func TestRunEntryProgress(t *testing.T) {
	p := smallPlan(t)
	var mu sync.Mutex
	ended := map[int]int{}
	last := map[int]EntryProgress{}
	var bad []string
	o := RunOptions{Out: t.TempDir(), Jobs: 2,
		Entry: func(i int, e EntryProgress) {
			mu.Lock()
			defer mu.Unlock()
			if ended[i] > 0 {
				bad = append(bad, "report after the end")
			}
			if e.Ended {
				ended[i]++
				return
			}
			if e.Cycle < last[i].Cycle || e.Dispatched > e.CTAs {
				bad = append(bad, "cycles went back or dispatched > CTAs")
			}
			last[i] = e
		},
		Progress: func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if len(ended) < done {
				bad = append(bad, "done counted before its end")
			}
		}}
	mustRun(t, p, o)
	for i := range p.Entries {
		if ended[i] != 1 {
			t.Errorf("entry %d ended %d times", i, ended[i])
		}
	}
	if len(ended) != len(p.Entries) || len(bad) > 0 {
		t.Errorf("%d of %d entries ended; %v", len(ended), len(p.Entries), bad)
	}
}
