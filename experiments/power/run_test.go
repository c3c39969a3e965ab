package power

import (
	"bytes"
	"context"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

func sampleInput(t testing.TB, name string) Input {
	t.Helper()
	path := filepath.Join("..", "..", "samples", name, name+".sm_52.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ptx.ParseFile(token.NewFileSet(), path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "launch", "testdata", "samples", name)
	b, err := os.ReadFile(filepath.Join(dir, "launch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := launch.ParseSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := model.Preset("gtx480")
	return Input{Prog: prog, Spec: spec, BaseDir: dir, Model: ms}
}

// The recorder's core level must agree with the model's own per-SM active
// cycle counters, and the output must not depend on the number of workers.
func TestRunSample(t *testing.T) {
	var out [2][]byte
	for i, workers := range []int{1, 2} {
		in := sampleInput(t, "nn")
		in.Workers = workers
		var active, cycles model.Time
		in.OnLaunch = func(_ int, lr *launch.LaunchResult) {
			cycles += lr.Timing.Cycles
			for _, s := range lr.Timing.SMs {
				active += s.ActiveCycles
			}
		}
		r, err := Run(context.Background(), in, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if r.ActiveCycles != active || r.Cycles != cycles || active == 0 {
			t.Errorf("active %d cycles %d; model says %d, %d", r.ActiveCycles, r.Cycles, active, cycles)
		}
		for _, lv := range r.Levels() {
			if idle := lv.IdleCycles(); lv.Busy+idle != lv.Exposure {
				t.Errorf("%s: busy %d + idle %d != exposure %d", lv.Name, lv.Busy, idle, lv.Exposure)
			}
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		r.WriteTable(&b)
		r.WriteCSV(&b, true)
		if err := r.Chart().Render(&b); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
		if workers == 1 {
			var tb bytes.Buffer
			r.WriteTable(&tb)
			t.Logf("\n%s", tb.String())
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("outputs differ between Workers 1 and 2")
	}
}

// Consolidated placement keeps the outputs (checked by RunConsolidation)
// and puts nn's 40 CTAs on a prefix of the SMs, fewer than round robin's 15.
func TestConsolidation(t *testing.T) {
	in := sampleInput(t, "nn")
	var used [2][]int // SMs with CTAs, per run
	run := 0
	in.OnLaunch = func(i int, lr *launch.LaunchResult) {
		for sm, s := range lr.Timing.SMs {
			if s.CTAs > 0 {
				used[run] = append(used[run], sm)
			}
		}
		run++
	}
	c, err := RunConsolidation(context.Background(), in, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(used[0]) != 15 {
		t.Errorf("round robin used SMs %v", used[0])
	}
	if n := len(used[1]); n == 0 || n >= 15 || used[1][n-1] != n-1 {
		t.Errorf("consolidated used SMs %v, want a prefix shorter than 15", used[1])
	}
	if c.ActiveReduction() <= 0 || c.Consolidated.Cycles < c.Normal.Cycles {
		t.Errorf("active %d → %d, cycles %d → %d", c.Normal.ActiveCycles, c.Consolidated.ActiveCycles, c.Normal.Cycles, c.Consolidated.Cycles)
	}
	var b bytes.Buffer
	c.WriteSummary(&b)
	t.Log(b.String())
}

func TestPlacementValidate(t *testing.T) {
	s, _ := model.Preset("gtx480")
	s.SM.CTAPlacement = "packed"
	if err := s.Validate(); err == nil {
		t.Error("cta_placement packed accepted")
	}
	s.SM.CTAPlacement = "consolidate"
	if err := s.Validate(); err != nil {
		t.Error(err)
	}
}
