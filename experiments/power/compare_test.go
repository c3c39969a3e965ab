package power

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
)

// Every sample keeps its output bytes under issue control (RunComparison
// refuses a difference; the samples' references are checked by run too),
// and the comparison's every output is the same with 1 worker at
// GOMAXPROCS 1 and 2 workers at GOMAXPROCS 2. The seed's "mix ≥ each
// alone" (Fig. 17a) holds on every sample: a regression guard.
func TestComparisonSamples(t *testing.T) {
	names := []string{"nn", "bfs", "hotspot", "lud", "pathfinder", "gaussian", "matmul", "reduce", "vecadd", "volrender"}
	if testing.Short() {
		names = names[:2]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var out [2][]byte
			for i, workers := range []int{1, 2} {
				if i == 1 && name != "nn" && name != "bfs" {
					break
				}
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
				in := sampleInput(t, name)
				in.Workers = workers
				c, err := RunComparison(context.Background(), in, DefaultConfig(), DefaultIssueControl())
				if err != nil {
					t.Fatal(err)
				}
				rows, err := c.Rows()
				if err != nil {
					t.Fatal(err)
				}
				if mix := rows[3].LaneShare; mix < rows[1].LaneShare || mix < rows[2].LaneShare {
					t.Errorf("mix %.4f below issue %.4f or comp %.4f", mix, rows[1].LaneShare, rows[2].LaneShare)
				}
				var b bytes.Buffer
				if err := c.WriteTable(&b); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					t.Logf("\n%s", b.String())
				}
				c.WriteCSV(&b, true)
				c.WriteJSON(&b)
				out[i] = b.Bytes()
			}
			if out[1] != nil && !bytes.Equal(out[0], out[1]) {
				t.Error("outputs differ between Workers 1 and 2")
			}
		})
	}
}

// limitSplit is GTO with sp limited to instance 0, split.
type limitSplit struct{ model.IssuePolicy }

func (p limitSplit) Issue(q *model.IssueQueue) {
	q.LimitUnits(model.UnitSP, 1)
	q.SplitUnit(model.UnitSP, 0, true)
	p.IssuePolicy.Issue(q)
}

// spCheck checks every sp event: instance 0, split, twice the
// unsplit occupancy of gtx480's sp classes (1 or 8 cycles).
type spCheck struct {
	model.BaseObserver
	n   *int
	bad *string
}

func (o spCheck) UnitBusy(e model.UnitEvent) {
	if e.Unit != model.UnitSP {
		return
	}
	*o.n++
	if d := e.To - e.From; e.Index != 0 || !e.Split || (d != 2 && d != 16) {
		if *o.bad == "" {
			*o.bad = fmt.Sprintf("%+v", e)
		}
	}
}

// The model seam: LimitUnits keeps sp issues on instance 0, SplitUnit
// doubles their occupancy and marks the events; the output is unchanged
// (the sample's reference check).
func TestLimitSplitSeam(t *testing.T) {
	in := sampleInput(t, "nn")
	reg := launch.SampleRegistry()
	prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: reg, NumSMs: in.Model.NumSMs})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var bad string
	opt := model.Options{Workers: 1,
		Policy: func(sm, sched int) model.IssuePolicy {
			p, _ := model.NewPolicy(&in.Model, model.GTO)
			return limitSplit{p}
		},
		Observe: func(part int) model.Observer { return spCheck{n: &n, bad: &bad} }}
	if _, err := prep.Run(context.Background(), launch.ExecOptions{Model: &in.Model, ModelOpt: opt}); err != nil {
		t.Fatal(err)
	}
	if n == 0 || bad != "" {
		t.Errorf("%d sp events; bad: %s", n, bad)
	}
	for _, c := range prep.Check(reg, in.BaseDir) {
		if !c.OK {
			t.Errorf("output %s: %s", c.Buffer, c.Msg)
		}
	}
}

// State transitions of the default controller, derived from the
// thresholds by hand (down 75/50/25 %, up 60/40/20 %).
func TestControlNext(t *testing.T) {
	c := DefaultIssueControl()
	for _, tc := range []struct {
		s    int
		u    float64
		want int
	}{
		{1, 0.80, 1}, {1, 0.75, 1}, {1, 0.74, 2}, {1, 0.50, 2}, {1, 0.49, 3}, {1, 0.10, 4}, {1, 0, 4},
		{2, 0.60, 1}, {2, 0.59, 2}, {2, 0.50, 2}, {2, 0.30, 3}, {2, 0.20, 4},
		{3, 0.40, 2}, {3, 0.39, 3}, {3, 0.25, 3}, {3, 0.24, 4},
		{4, 0.20, 3}, {4, 0.19, 4}, {4, 0.45, 2}, {4, 0.70, 1},
	} {
		if got := c.next(tc.s, tc.u); got != tc.want {
			t.Errorf("State-%d at %.2f → State-%d, want %d", tc.s, tc.u, got, tc.want)
		}
	}
	bad := c
	bad.Up[0] = 0.8
	s, _ := model.Preset("gtx480")
	if bad.Validate(&s) == nil {
		t.Error("up 80 % above down 75 % accepted")
	}
}

// The slice bookkeeping: a 2-instance, 16-lane kind has 32,000 lane slots
// per 1,000-cycle slice. 400 one-cycle whole-warp issues in slice 0
// (16 × 400 = 6,400 slots, 20 %) send the SM to State-4 at cycle 1000; the
// empty slices up to cycle 5,500 stay there.
func TestControlRoll(t *testing.T) {
	s, _ := model.Preset("gtx480")
	c := DefaultIssueControl()
	var st ControlStats
	sc := newSMControl(&c, &s)
	for i := range 400 {
		sc.UnitBusy(model.UnitEvent{Unit: model.UnitSP, From: model.Time(i), To: model.Time(i + 1)})
	}
	sc.roll(999)
	if sc.state != 1 {
		t.Fatalf("state %d before the slice end", sc.state)
	}
	sc.roll(5500)
	sc.finish(&st)
	if sc.state != 4 || st.Slices != [4]uint64{1, 0, 0, 5} {
		t.Errorf("state %d, slices %v; want 4, [1 0 0 5]", sc.state, st.Slices)
	}
}
