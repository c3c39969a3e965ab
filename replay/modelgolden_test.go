package replay_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
)

var updateModelGolden = flag.Bool("update-model-golden", false, "rewrite testdata/modelgolden.txt from the current model")

// TestModelGolden runs every sample launch spec on every preset of the
// timing model and compares, per sample × preset, the cycle count, the
// thread-instruction count, a hash of the whole model result (every
// counter, every probe) and a hash of the output buffers with
// testdata/modelgolden.txt. The file was written by the model as it was
// before the speed work (issue 19) and must not change with it: a
// difference is a changed cycle or a changed output, which only a bug fix
// that says why may bring (rewrite it with -update-model-golden).
func TestModelGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every sample on every preset")
	}
	var lines []string
	for _, name := range sampleSpecNames(t) {
		for _, preset := range model.PresetNames() {
			lines = append(lines, modelGoldenLine(t, name, preset))
		}
		lines = append(lines, modelGoldenInstrLine(t, name))
	}
	checkGolden(t, filepath.Join("testdata", "modelgolden.txt"), lines, *updateModelGolden, "model result")
}

// sampleSpecNames lists the samples that have a launch spec in
// launch/testdata/samples.
func sampleSpecNames(t *testing.T) []string {
	t.Helper()
	specs, err := filepath.Glob(filepath.Join("..", "launch", "testdata", "samples", "*", "launch.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no sample specs: %v", err)
	}
	names := make([]string, len(specs))
	for i, n := range specs {
		names[i] = filepath.Base(filepath.Dir(n))
	}
	return names
}

// checkGolden compares lines ("sample preset ...", sorted here) with the
// golden file at path line by line, keyed by their first two fields, or
// rewrites the file when update is set; what names the lines in errors.
func checkGolden(t *testing.T, path string, lines []string, update bool, what string) {
	t.Helper()
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	wl := strings.Split(strings.TrimSpace(string(want)), "\n")
	wm := map[string]string{}
	for _, l := range wl {
		f := strings.Fields(l)
		wm[f[0]+" "+f[1]] = l
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if w := wm[f[0]+" "+f[1]]; w != l {
			t.Errorf("%s changed:\n got %s\nwant %s", what, l, w)
		}
	}
	if len(wl) != len(lines) {
		t.Errorf("%d lines, golden has %d", len(lines), len(wl))
	}
}

// preparedSample prepares sample name's launch spec (its sm_52 PTX) for
// preset.
func preparedSample(t *testing.T, name, preset string) (*launch.Prepared, model.Spec) {
	t.Helper()
	spec, dir := loadSampleSpec(t, name)
	prog := progFromSrc(t, name+".ptx", mustRead(t, filepath.Join("..", "samples", name, name+".sm_52.ptx")))
	prep, err := spec.Prepare(prog, launch.PrepareOptions{BaseDir: dir, Registry: launch.SampleRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	ms, ok := model.Preset(preset)
	if !ok {
		t.Fatalf("no preset %s", preset)
	}
	return prep, ms
}

// modelGoldenLine is "sample preset cycles=N thread_insts=N result=H out=H".
func modelGoldenLine(t *testing.T, name, preset string) string {
	t.Helper()
	prep, ms := preparedSample(t, name, preset)
	res, err := prep.Run(t.Context(), launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: 2}})
	if err != nil {
		t.Fatalf("%s on %s: %v", name, preset, err)
	}
	rh := sha256.New()
	for _, lr := range res.Launches {
		b, err := json.Marshal(lr.Timing)
		if err != nil {
			t.Fatal(err)
		}
		rh.Write(b)
		fmt.Fprintf(rh, "|%d %d %d|", lr.Func.CTAs, lr.Func.WarpInsts, lr.Func.ThreadInsts)
	}
	oh := sha256.New()
	var outs bytes.Buffer
	for _, b := range prep.Buffers {
		if b.Output {
			fmt.Fprintf(&outs, "%s:%d;", b.Name, len(b.Alloc.Data))
			oh.Write(b.Alloc.Data)
		}
	}
	oh.Write(outs.Bytes())
	oh.Write(res.Printf)
	return fmt.Sprintf("%s %s cycles=%d thread_insts=%d result=%x out=%x",
		name, preset, res.Cycles, res.ThreadInsts, rh.Sum(nil)[:12], oh.Sum(nil)[:12])
}

// modelGoldenInstrLine is the line of sample name instrumented in auto mode
// on gtx480 (probes, trace buffers), run on the serial path.
func modelGoldenInstrLine(t *testing.T, name string) string {
	t.Helper()
	r := runConc(t, name, true, 2, runtime.GOMAXPROCS(0), true)
	rh := sha256.New()
	var cycles model.Time
	var ti uint64
	for _, mr := range r.timing {
		b, err := json.Marshal(mr)
		if err != nil {
			t.Fatal(err)
		}
		rh.Write(b)
		cycles += mr.Cycles
		ti += mr.ThreadInsts
	}
	oh := sha256.New()
	keys := make([]string, 0, len(r.outputs))
	for k := range r.outputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(oh, "%s:%d;", k, len(r.outputs[k]))
		oh.Write(r.outputs[k])
	}
	for _, tr := range r.traces {
		fmt.Fprintf(oh, "trace:%d;", len(tr))
		oh.Write(tr)
	}
	oh.Write(r.printf)
	return fmt.Sprintf("%s gtx480+auto+serial cycles=%d thread_insts=%d result=%x out=%x",
		name, cycles, ti, rh.Sum(nil)[:12], oh.Sum(nil)[:12])
}
