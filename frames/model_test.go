package frames

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/experiments/vr"
	"github.com/ptxtrace/ptxtrace/model"
)

func TestSequentialFrames(t *testing.T) {
	// Period 10 ms; frame 0: 2 ms + 3 ms; frame 1: 4 ms; frame 2: 12 ms
	// (overruns into frame 3); frame 3: nothing of its own.
	tr, err := SequentialFrames("seq", 10*ms, [][]int64{{2 * ms, 3 * ms}, {4 * ms}, {12 * ms}, {}})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2, 1, 0, 1}
	got := tr.Counts()
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("counts %v, want %v", got, want)
		}
	}
	if c := tr.Frames[0].Completions; c[0] != 2*ms || c[1] != 5*ms {
		t.Errorf("frame 0 completions %v, want 2 ms, 5 ms", c)
	}
	if _, err := SequentialFrames("neg", 10*ms, [][]int64{{-1}}); err == nil {
		t.Error("negative busy time accepted")
	}
}

// TestModelRunVolumeRenderer renders seed 003's volume renderer on the
// gtx480 model while the view rotates, one frame per view; frames 3 and 4
// draw a second pass (two launches), and the run goes through the same
// estimator ranking and control as the Android traces.
func TestModelRunVolumeRenderer(t *testing.T) {
	if testing.Short() {
		t.Skip("model runs skipped in -short")
	}
	spec, ok := model.Preset("gtx480")
	if !ok {
		t.Fatal("no gtx480 preset")
	}
	code, err := vr.Instrument("", vr.Capacity(), "")
	if err != nil {
		t.Fatal(err)
	}
	sc := vr.Scene{Image: 16, Volume: 8, Kind: "sphere"}
	views := []vr.View{{A: 0}, {A: 30}, {A: 60}, {A: 90}, {A: 120}, {A: 150}}
	var busy [][]int64
	for k, v := range views {
		r, err := vr.Run(context.Background(), vr.RunOptions{Code: code, Model: &spec, Scene: sc, View: v, Shape: vr.Shape{X: 8, Y: 8}})
		if err != nil {
			t.Fatal(err)
		}
		ns := int64(r.Cycles / spec.CoreMHz * 1e3)
		if ns <= 0 {
			t.Fatalf("view %v: %v cycles", v, r.Cycles)
		}
		fr := []int64{ns}
		if k == 3 || k == 4 {
			fr = append(fr, ns)
		}
		busy = append(busy, fr)
	}
	tr, err := SequentialFrames("volrender", 16_666_667, busy)
	if err != nil {
		t.Fatal(err)
	}
	if tr.BusyProxy {
		t.Error("model busy time flagged as proxy")
	}
	rep, err := Analyze([]*Trace{tr}, Options{Control: DefaultControl(), FluctLo: 3, FluctHi: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Counts 1 1 1 2 2 1: "last" estimates 1 1 1 2 2 for frames 1–5 →
	// hits at frames 1, 2, 4; risk at frame 3 (2 > 1).
	for _, r := range rep.Ranking {
		if r.Estimator.Name() == "last" {
			if s := r.Scores[0]; s.Frames != 5 || s.Hits != 3 || s.Risks != 1 {
				t.Errorf("last on the model run: %+v, want 5 frames 3 hits 1 risk", s)
			}
		}
	}
}
