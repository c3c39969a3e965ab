package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/ptxtrace/ptxtrace/trace"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunVecadd(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "l.yaml")
	os.WriteFile(spec, []byte(`kernel: vecadd
grid: [4]
block: [256]
params:
  - {name: a, buffer: {type: f32, count: 1000, init: {ramp: {start: 0, step: 1}}}}
  - {name: b, buffer: {type: f32, count: 1000, init: {const: 2}}}
  - {name: c, buffer: {type: f32, count: 1000, output: true}}
  - {name: n, value: 1000}
`), 0o644)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ptxtrace", "run", "--launch", spec, "-o", out,
		"../../samples/vecadd/vecadd.sm_52.ptx"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	c, err := os.ReadFile(filepath.Join(out, "c.bin"))
	if err != nil || len(c) != 4000 {
		t.Fatalf("c.bin: %v (%d bytes)", err, len(c))
	}
	for i := 0; i < 1000; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(c[4*i:])); got != float32(i)+2 {
			t.Fatalf("c[%d] = %v", i, got)
		}
	}
	var sum map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || sum["kernel"] != "vecadd" {
		t.Fatalf("summary: %v %s", err, b)
	}
}

func TestRunFault(t *testing.T) {
	dir := t.TempDir()
	ptxPath := filepath.Join(dir, "k.ptx")
	os.WriteFile(ptxPath, []byte(`.version 7.8
.target sm_52
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	st.global.u32 [%rd1+64], 1;
	ret;
}
`), 0o644)
	spec := filepath.Join(dir, "l.yaml")
	os.WriteFile(spec, []byte("kernel: k\ngrid: [1]\nblock: [32]\nparams:\n  - {name: p, buffer: {type: u32, count: 4, output: true}}\n"), 0o644)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ptxtrace", "run", "--launch", spec, "-o", out, ptxPath}, nil, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "k.ptx:8: kernel fault (out-of-bounds)") || !strings.Contains(stderr.String(), "=========") {
		t.Fatalf("stderr: %s", stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("run dir written after a fault")
	}
	// usage errors
	if code := run(context.Background(), []string{"ptxtrace", "run", ptxPath}, nil, &stdout, &stderr); code != 2 {
		t.Fatalf("missing --launch: exit %d", code)
	}
}

// TestRunModelBundle instruments vecadd, runs it on the gtx480 model (the
// default) and checks the run bundle: raw buffer, ground truth, counters,
// metadata, and identical bytes on a second run.
func TestRunModelBundle(t *testing.T) {
	dir := t.TempDir()
	inst := filepath.Join(dir, "vecadd.ptx")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"ptxtrace", "instrument", "--mode", "auto", "--no-ptxas", "-o", inst,
		"../../samples/vecadd/vecadd.sm_52.ptx"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("instrument: exit %d: %s", code, stderr.String())
	}
	spec := filepath.Join(dir, "l.yaml")
	os.WriteFile(spec, []byte(`inputs:
  - {name: g, generator: vecadd, args: {n: 2000, seed: 3}}
kernel: vecadd
grid: [8]
block: [256]
params:
  - {name: a, buffer: {type: f32, init: {from: g.a}}}
  - {name: b, buffer: {type: f32, init: {from: g.b}}}
  - {name: c, buffer: {type: f32, count: 2000, output: true}}
  - {name: n, value: g.n}
checks:
  - {buffer: c, reference: vecadd}
`), 0o644)
	var bundles [][]byte
	for i, args := range [][]string{{}, {"--model", "gtx480"}} {
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		stderr.Reset()
		argv := append([]string{"ptxtrace", "run", "--launch", spec, "-o", out}, args...)
		if code := run(context.Background(), append(argv, inst), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("run %v: exit %d: %s", args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "cycles on gtx480") || !strings.Contains(stderr.String(), "check c against reference vecadd: ok") {
			t.Fatalf("stderr: %s", stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "run.bundle"))
		if err != nil {
			t.Fatal(err)
		}
		bundles = append(bundles, b)
		var sum map[string]any
		js, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(js, &sum); err != nil || sum["mode"] != "timing" || sum["model"] != "gtx480" || sum["cycles"].(float64) <= 0 {
			t.Fatalf("summary: %v %s", err, js)
		}
	}
	if !bytes.Equal(bundles[0], bundles[1]) {
		t.Fatalf("run bundles differ between identical runs")
	}
	bn, err := trace.OpenBundle(bytes.NewReader(bundles[0]), int64(len(bundles[0])))
	if err != nil {
		t.Fatal(err)
	}
	if err := bn.CheckValid(); err != nil {
		t.Fatal(err)
	}
	tr, err := bn.Trace()
	if err != nil {
		t.Fatal(err)
	}
	h := tr.Header
	if h.Meta.Device != "model:gtx480" || h.Meta.ClockHz != 700e6 || h.Meta.NumSMs != 15 || h.Meta.TotalCycles == 0 || h.Meta.Labels["model"] != "gtx480" {
		t.Fatalf("meta: %+v", h.Meta)
	}
	if bn.TruthCount() == 0 || len(tr.Regions) == 0 {
		t.Fatalf("truth %d, regions %d", bn.TruthCount(), len(tr.Regions))
	}
	withTruth := 0
	for _, r := range tr.Regions {
		if r.HasTruth {
			withTruth++
			if r.TruthComplete <= r.TruthIssue {
				t.Fatalf("truth %+v", r)
			}
		}
	}
	if withTruth == 0 {
		t.Fatalf("no region matched its ground truth")
	}
	names := map[string]bool{}
	for _, c := range tr.Counters {
		names[c.Name] = true
	}
	for _, n := range []string{"kernel.cycles", "sm.active_cycles", "kernel.ipc", "l1d.hit_rate", "l2.hit_rate", "stall.memory"} {
		if !names[n] {
			t.Errorf("counter %s missing", n)
		}
	}
	// --functional: same outputs, a bundle without truth
	out := filepath.Join(dir, "func")
	stderr.Reset()
	if code := run(context.Background(), []string{"ptxtrace", "run", "--functional", "--launch", spec, "-o", out, inst}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("functional: exit %d: %s", code, stderr.String())
	}
	c1, _ := os.ReadFile(filepath.Join(dir, "out0", "c.bin"))
	c2, _ := os.ReadFile(filepath.Join(out, "c.bin"))
	if len(c1) != 8000 || !bytes.Equal(c1, c2) {
		t.Fatalf("outputs differ between timing and functional mode")
	}
	if code := run(context.Background(), []string{"ptxtrace", "run", "--functional", "--model", "a100", "--launch", spec, inst}, nil, &stdout, &stderr); code != 2 {
		t.Fatalf("--functional with --model: exit %d", code)
	}
	if code := run(context.Background(), []string{"ptxtrace", "run", "--model", "nosuch", "--launch", spec, "-o", out, inst}, nil, &stdout, &stderr); code != 1 {
		t.Fatalf("unknown model: exit %d", code)
	}
}

// TestRunSampleSpecs runs multi-launch and texture samples through the CLI
// with their reference checks (SampleRegistry).
func TestRunSampleSpecs(t *testing.T) {
	for _, name := range []string{"bfs", "volrender"} {
		for _, mode := range []string{"--functional", "--model=gtx480"} {
			out := filepath.Join(t.TempDir(), "out")
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"ptxtrace", "run", mode, "--launch",
				filepath.Join("..", "..", "launch", "testdata", "samples", name, "launch.yaml"), "-o", out,
				filepath.Join("..", "..", "samples", name, name+".sm_52.ptx")}, nil, &stdout, &stderr)
			if code != 0 || strings.Contains(stderr.String(), "FAILED") || !strings.Contains(stderr.String(), ": ok") {
				t.Fatalf("%s %s: exit %d: %s", name, mode, code, stderr.String())
			}
			var sum struct {
				Launches []struct{ Kernel string } `json:"launches"`
			}
			b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
			if err := json.Unmarshal(b, &sum); err != nil || len(sum.Launches) == 0 || name == "bfs" && len(sum.Launches) < 4 {
				t.Fatalf("%s: summary %v %s", name, err, b)
			}
		}
	}
}
