package perfetto

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// TestActivityTracks: a hand-built activity of 100 cycles (SM 0 active in
// [10, 90); its sp unit busy 20 cycles, all in the first 64-cycle bucket,
// one lane with it) adds, by hand: an "active" track with 0 at 0, 1 at 10,
// 0 at 90; "sp units busy" and "sp lanes busy" with 20/64 at 0, 0 at 64
// and 0 at the end: 3 counter tracks, 9 counter events, all accepted by
// Check; a kind never used (sfu) gets no track. Without a clock rate on a
// %globaltimer run the activity cannot be placed: refused.
func TestActivityTracks(t *testing.T) {
	tr := tracetest.Fixture(2, 2, 5, trace.TimerClock64)
	tr.Header.Meta.ClockHz = 1e9
	plain, err := Check(bytes.NewReader(exportProto(t, tr, Options{})))
	if err != nil {
		t.Fatal(err)
	}
	tr.Header.Activity = &trace.Activity{Format: trace.ActivityFormat, Cycles: 100, Model: []byte(`{}`),
		Blocks: []trace.ActivityBlock{
			{Level: trace.LevelCore, SM: 0, Busy: 80, Idle: [][2]uint64{{10, 2}}, Runs: [][2]uint64{{10, 90}}},
		},
		SeriesWidth: 64,
		Series: []trace.ActivitySeries{
			{SM: 0, Unit: "sp", Units: 1, Lanes: 2, UnitCycles: []uint64{20, 0}, LaneCycles: []uint64{20, 0}},
			{SM: 0, Unit: "sfu", Units: 1, Lanes: 4, UnitCycles: []uint64{0, 0}, LaneCycles: []uint64{0, 0}},
		},
	}
	if err := tr.Header.Activity.Check(); err != nil {
		t.Fatal(err)
	}
	out := exportProto(t, tr, Options{})
	got, err := Check(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if d := got.CounterTrack - plain.CounterTrack; d != 3 {
		t.Errorf("activity added %d counter tracks, want 3", d)
	}
	if d := got.Counters - plain.Counters; d != 9 {
		t.Errorf("activity added %d counter events, want 9", d)
	}
	for _, name := range []string{"active (CTA resident)", "sp units busy", "sp lanes busy"} {
		if !bytes.Contains(out, []byte(name)) {
			t.Errorf("no track %q", name)
		}
	}
	if bytes.Contains(out, []byte("sfu lanes busy")) {
		t.Errorf("a track for the unused sfu")
	}
	tr = tracetest.Fixture(2, 2, 5, trace.TimerGlobaltimer)
	tr.Header.Meta.ClockHz = 0
	tr.Header.Activity = &trace.Activity{Format: trace.ActivityFormat, Cycles: 10, Model: []byte(`{}`),
		Blocks: []trace.ActivityBlock{{Level: trace.LevelCore, SM: 0, Idle: [][2]uint64{{10, 1}}}}}
	var b bytes.Buffer
	err = exporters.Run(context.Background(), tr.Source(), New(&b, Options{}))
	if err == nil || !strings.Contains(err.Error(), "no clock rate") {
		t.Errorf("globaltimer without clock rate: %v", err)
	}
}
