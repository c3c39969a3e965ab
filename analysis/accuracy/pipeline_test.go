package accuracy

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/samples/modern"
)

// pipelineCases are the project's cp.async pipeline samples
// (samples/modern, sm_80 PTX run on every preset).
func pipelineCases(t testing.TB, names ...string) []Case {
	t.Helper()
	var cs []Case
	for _, k := range modern.List() {
		want := false
		for _, n := range names {
			want = want || n == k.Name
		}
		if !want {
			continue
		}
		path, ok := k.PTXFor("sm_80")
		if !ok {
			t.Fatalf("%s: no sm_80 PTX", k.Name)
		}
		src, err := fs.ReadFile(modern.FS(), path)
		if err != nil {
			t.Fatal(err)
		}
		y, err := fs.ReadFile(modern.FS(), k.Name+"/launch.yaml")
		if err != nil {
			t.Fatal(err)
		}
		spec, err := launch.ParseSpec(y)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		cs = append(cs, Case{Name: k.Name, PTX: map[string][]byte{"sm_80": src}, Spec: spec, Registry: modern.Registry()})
	}
	if len(cs) != len(names) {
		t.Fatalf("found %d of the samples %q", len(cs), names)
	}
	return cs
}

// TestPipelineProbes measures the run-time paired cp.async probes (mode
// group_seq) of multi-stage pipelines.
func TestPipelineProbes(t *testing.T) {
	rows, err := Measure(context.Background(), pipelineCases(t, "tiledmm", "attention", "flashattn"), Options{
		Presets: []string{"rtx3080", "a100", "h100"},
		Modes:   []string{"auto"},
		Arch:    func(string) string { return "sm_80" },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Err != nil || r.NotRun != "" {
			t.Errorf("%s/%s: err %v, not run %q", r.Kernel, r.Preset, r.Err, r.NotRun)
			continue
		}
		for _, s := range r.Spaces {
			t.Logf("%-10s %-8s %-10s %-10s regions %4d true %7.1f measured %7.1f cost %5.1f issue wait %5.2f error %5.2f%% strict %5.2f%% | latency %7.1f hidden %5.1f%% slack %6.1f latency error %5.2f%% | unmatched %d lost %d",
				r.Kernel, r.Preset, s.Space, s.Probe, s.Regions, s.TrueMean, s.MeasMean, s.CostMean, s.IssueWait, 100*s.NetErr, 100*s.RelErr,
				s.LatMean, 100*s.Hidden, s.Slack, 100*s.LatErr, r.Unmatched, r.Lost)
		}
	}
}

// corpusPTX reads a file of the shared corpus (read in place), or skips.
func corpusPTX(t testing.TB, name string) []byte {
	t.Helper()
	for _, dir := range []string{os.Getenv("PTXTRACE_CORPUS_DIR"), "../../../shared/corpus/ptx", "../../../../shared/corpus/ptx"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); dir != "" && err == nil {
			return b
		}
	}
	t.Skip("shared corpus absent")
	return nil
}

func TestPipelineProbesCorpus(t *testing.T) {
	src := corpusPTX(t, "mikex86__LibreCuda__complex.ptx")
	spec, err := launch.ParseSpec([]byte(`buffers:
  - {name: a, type: f16, count: 32768}
  - {name: b, type: f16, count: 32768}
  - {name: c, type: f16, count: 65536, output: true}
steps:
  - launch:
      kernel: matmul_kernel
      grid: [4]
      block: [128]
      dynamic_shared: 65536
      params:
        - {ref: a}
        - {ref: b}
        - {ref: c}
        - {value: 256}
        - {value: 256}
        - {value: 128}
        - {value: 128}
        - {value: 256}
        - {value: 256}
`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Measure(context.Background(), []Case{{Name: "triton-matmul", PTX: map[string][]byte{"x": src}, Spec: spec}},
		Options{Presets: []string{"rtx3080", "a100", "h100"}, Modes: []string{"auto"}, Arch: func(string) string { return "x" },
			Instrument: func(o *instrument.Options) { o.Spaces = []string{"global"}; o.Capacity = 1024 }})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Err != nil || r.NotRun != "" {
			t.Errorf("%s/%s: err %v, not run %q", r.Kernel, r.Preset, r.Err, r.NotRun)
			continue
		}
		for _, s := range r.Spaces {
			t.Logf("%-10s %-8s %-10s %-10s regions %4d true %7.1f measured %7.1f cost %5.1f issue wait %5.2f error %5.2f%% strict %5.2f%% | latency %7.1f hidden %5.1f%% slack %6.1f latency error %5.2f%% | unmatched %d lost %d cycles %d/%d",
				r.Kernel, r.Preset, s.Space, s.Probe, s.Regions, s.TrueMean, s.MeasMean, s.CostMean, s.IssueWait, 100*s.NetErr, 100*s.RelErr,
				s.LatMean, 100*s.Hidden, s.Slack, 100*s.LatErr, r.Unmatched, r.Lost, r.Cycles, r.OrigCycles)
		}
	}
}
