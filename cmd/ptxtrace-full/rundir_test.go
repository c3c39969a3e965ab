package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

// multiLaunchRun instruments the reduce sample and runs its two-launch
// spec (launch/testdata/samples/reduce) functionally; it returns the run
// directory.
func multiLaunchRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	inst := filepath.Join(dir, "reduce.ptx")
	if r := runCLI(t, "", "instrument", "--mode", "auto", "--no-ptxas", "-o", inst, "../../samples/reduce/reduce.sm_52.ptx"); r.code != 0 {
		t.Fatalf("instrument: exit %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "reduce.run")
	// leftovers of an earlier single-launch run in the same directory
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "run.bundle"), []byte("stale"), 0o644)
	if r := runCLI(t, "", "run", "--functional", "--launch", "../../launch/testdata/samples/reduce/launch.yaml", "-o", out, inst); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	var got []string
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "run") || strings.HasPrefix(e.Name(), "trace") {
			got = append(got, e.Name())
		}
	}
	if want := []string{"run.000.bundle", "run.001.bundle", "trace.000.bin", "trace.001.bin"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("run directory holds %v, want %v", got, want)
	}
	return out
}

// regionsOf decodes one bundle file directly.
func regionsOf(t testing.TB, path string) *trace.Trace {
	t.Helper()
	b, err := trace.OpenBundleFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestExportMultiLaunchRunDir: `ptxtrace export RUN_DIR` of a two-launch
// run writes one CSV with a launch column holding every region of both
// launches; file formats write one file per launch; report and convert
// take the directory too.
func TestExportMultiLaunchRunDir(t *testing.T) {
	out := multiLaunchRun(t)
	trs := []*trace.Trace{regionsOf(t, filepath.Join(out, "run.000.bundle")), regionsOf(t, filepath.Join(out, "run.001.bundle"))}
	kernels := []string{"reduce_partial", "reduce_final"}
	for i, tr := range trs {
		if tr.Header.Kernel != kernels[i] || len(tr.Regions) == 0 {
			t.Fatalf("launch %d: kernel %s, %d regions", i, tr.Header.Kernel, len(tr.Regions))
		}
	}

	r := runCLI(t, "", "export", out)
	if r.code != 0 {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "launch" || rows[0][1] != "kernel" {
		t.Fatalf("header %v", rows[0])
	}
	count := map[string]int{}
	for _, row := range rows[1:] {
		count[row[0]+" "+row[1]]++
	}
	want := map[string]int{"0 reduce_partial": len(trs[0].Regions), "1 reduce_final": len(trs[1].Regions)}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("rows per launch %v, want %v", count, want)
	}

	if r := runCLI(t, "", "export", "--format", "chrome", out); r.code != 2 || !strings.Contains(r.stderr, "-o FILE") {
		t.Errorf("chrome to stdout: exit %d: %s", r.code, r.stderr)
	}
	dst := filepath.Join(t.TempDir(), "t.json")
	if r := runCLI(t, "", "export", "--format", "chrome", "-o", dst, out); r.code != 0 {
		t.Fatalf("chrome: exit %d: %s", r.code, r.stderr)
	}
	for _, n := range []string{"t.000.json", "t.001.json"} {
		if fi, err := os.Stat(filepath.Join(filepath.Dir(dst), n)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", n, err)
		}
	}

	r = runCLI(t, "", "report", out)
	if r.code != 0 || !strings.Contains(r.stdout, "== launch 0 (run.000.bundle) ==") || !strings.Contains(r.stdout, "== launch 1 (run.001.bundle) ==") {
		t.Errorf("report: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}

	ds := t.TempDir()
	if r := runCLI(t, "", "convert", "--to", "csv", "--out", ds, out); r.code != 0 {
		t.Fatalf("convert: exit %d: %s", r.code, r.stderr)
	}
	for i, k := range kernels {
		p := filepath.Join(ds, "kernel="+k, "run=reduce.run-"+pathHash8(t, out), "part-00"+string(rune('0'+i))+".csv")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n") - 1; n != len(trs[i].Regions) {
			t.Errorf("%s: %d rows, want %d", p, n, len(trs[i].Regions))
		}
	}
}
