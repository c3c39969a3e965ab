package trace_test

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// handActivity is a launch of 100 cycles on one SM with one unit of two
// lanes, built by hand: the core is busy [10, 90) (idle 10 + 10), the unit
// busy [10, 20) and [50, 60) (idle 10, 30, 40), lane 0 like the unit,
// lane 1 never (one idle interval of 100).
func handActivity() *trace.Activity {
	return &trace.Activity{Format: trace.ActivityFormat, Cycles: 100, Model: []byte(`{"name":"hand"}`),
		Blocks: []trace.ActivityBlock{
			{Level: trace.LevelCore, SM: 0, Busy: 80, Idle: [][2]uint64{{10, 2}}, Runs: [][2]uint64{{10, 90}}},
			{Level: trace.LevelUnit, Unit: "sp", Busy: 20, Idle: [][2]uint64{{10, 1}, {30, 1}, {40, 1}}},
			{Level: trace.LevelLane, Unit: "sp", Index: 0, Busy: 20, Idle: [][2]uint64{{10, 1}, {30, 1}, {40, 1}}},
			{Level: trace.LevelLane, Unit: "sp", Index: 1, Busy: 0, Idle: [][2]uint64{{100, 1}}},
		},
		SeriesWidth: 64,
		Series: []trace.ActivitySeries{{SM: 0, Unit: "sp", Units: 1, Lanes: 2,
			UnitCycles: []uint64{20, 0}, LaneCycles: []uint64{20, 0}}},
	}
}

// TestBundleActivity round-trips the ACTV chunk, hands it to the decoder's
// header, and checks that a bundle without activity (and one whose header
// says minor 1, as older writers did) reads with Activity nil.
func TestBundleActivity(t *testing.T) {
	s := tt.Synth{Warps: 4, WarpsPerCTA: 2, Iters: 2, Loads: 1, NumSMs: 1, Timer: 1}
	for _, withAct := range []bool{true, false} {
		in := synthInput(t, s)
		if withAct {
			in.Activity = handActivity()
		}
		var buf bytes.Buffer
		if err := trace.WriteBundle(&buf, in); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		if got := bytes.Contains(raw, []byte("ACTV")); got != withAct {
			t.Errorf("activity %v: ACTV chunk present = %v", withAct, got)
		}
		if !withAct {
			binary.LittleEndian.PutUint16(raw[10:], 1) // as a minor-1 writer
		}
		b, err := trace.OpenBundle(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CheckValid(); err != nil {
			t.Fatal(err)
		}
		d, err := b.Regions()
		if err != nil {
			t.Fatal(err)
		}
		if !withAct {
			if b.Activity != nil || d.Header().Activity != nil {
				t.Errorf("bundle without ACTV: Activity = %v", b.Activity)
			}
			continue
		}
		if !reflect.DeepEqual(b.Activity, handActivity()) {
			t.Errorf("activity read back differs:\n got %+v\nwant %+v", b.Activity, handActivity())
		}
		if d.Header().Activity != b.Activity {
			t.Errorf("decoder header does not carry the bundle's activity")
		}
	}
}

// TestActivityCheck: each broken invariant is refused, by name.
func TestActivityCheck(t *testing.T) {
	if err := handActivity().Check(); err != nil {
		t.Fatalf("valid activity refused: %v", err)
	}
	for _, c := range []struct {
		name, want string
		edit       func(a *trace.Activity)
	}{
		{"format", "format", func(a *trace.Activity) { a.Format = "x" }},
		{"level", "unknown level", func(a *trace.Activity) { a.Blocks[1].Level = "chip" }},
		{"sum", "want the launch's 100 cycles", func(a *trace.Activity) { a.Blocks[1].Busy = 21 }},
		{"bin order", "increasing lengths", func(a *trace.Activity) {
			a.Blocks[1].Idle[0], a.Blocks[1].Idle[1] = a.Blocks[1].Idle[1], a.Blocks[1].Idle[0]
		}},
		{"zero count", "counts > 0", func(a *trace.Activity) { a.Blocks[3].Idle[0][1] = 0 }},
		{"runs", "busy runs sum", func(a *trace.Activity) { a.Blocks[0].Runs[0][1] = 80 }},
		{"run past end", "past the end", func(a *trace.Activity) { a.Blocks[0].Runs[0][1] = 101 }},
		{"buckets", "buckets, want 2", func(a *trace.Activity) { a.Series[0].LaneCycles = a.Series[0].LaneCycles[:1] }},
		{"bucket overfull", "more busy cycles", func(a *trace.Activity) { a.Series[0].LaneCycles[1] = 2*36 + 1 }},
		{"unit at core", "unit kind", func(a *trace.Activity) { a.Blocks[0].Unit = "sp" }},
	} {
		a := handActivity()
		c.edit(a)
		err := a.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
