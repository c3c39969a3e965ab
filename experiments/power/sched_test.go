package power

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
)

// TestSchedSeries checks the recorder's scheduler series against the
// model's own counters, which the model keeps apart from the observer
// events: summed over SMs and buckets, issued warp-instructions and their
// threads equal the launch's WarpInsts and ThreadInsts, and the stalled
// scheduler-cycles per reason equal Result.Stalls. The chunk built from
// the launch passes Check (at most Schedulers slots per cycle).
func TestSchedSeries(t *testing.T) {
	for _, name := range []string{"nn", "hotspot"} {
		in := sampleInput(t, name)
		var res []*model.Result
		in.OnLaunch = func(_ int, lr *launch.LaunchResult) { res = append(res, lr.Timing) }
		var got [][]*Launch
		_, _, _, err := runWith(context.Background(), in, DefaultConfig(), nil, []bool{false},
			func(_ string, ls [][]*Launch) { got = ls }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || len(got[0]) != len(res) || len(res) == 0 {
			t.Fatalf("%s: %d recorders, %d launches, %d results", name, len(got), len(got[0]), len(res))
		}
		for li, l := range got[0] {
			r := res[li]
			var issued, threads uint64
			var stalls [model.NumStallReasons]uint64
			if len(l.Sched) != in.Model.NumSMs {
				t.Fatalf("%s launch %d: %d sched series for %d SMs", name, li, len(l.Sched), in.Model.NumSMs)
			}
			for _, sc := range l.Sched {
				for j := range sc.Issued {
					issued += sc.Issued[j]
					threads += sc.Threads[j]
				}
				for k, v := range sc.Stalls {
					for _, x := range v {
						stalls[k] += x
					}
				}
			}
			want := [model.NumStallReasons]uint64{}
			st := r.Stalls
			for k := range want {
				switch model.StallReason(k).String() {
				case "pipeline":
					want[k] = st.Pipeline
				case "interconnect":
					want[k] = st.Interconnect
				case "scoreboard":
					want[k] = st.Scoreboard
				case "false_dep":
					want[k] = st.FalseDep
				case "memory":
					want[k] = st.Memory
				case "fence":
					want[k] = st.Fence
				case "barrier":
					want[k] = st.Barrier
				case "no_warp":
					want[k] = st.NoWarp
				}
			}
			if issued != r.WarpInsts || threads != r.ThreadInsts || stalls != want {
				t.Errorf("%s launch %d: series issued %d threads %d stalls %v; model %d, %d, %v",
					name, li, issued, threads, stalls, r.WarpInsts, r.ThreadInsts, want)
			}
			c, err := l.Chunk(&in.Model)
			if err != nil {
				t.Fatalf("%s launch %d: %v", name, li, err)
			}
			if len(c.Sched) != len(l.Sched) {
				t.Errorf("%s: chunk has %d sched series", name, len(c.Sched))
			}
		}
	}
}
