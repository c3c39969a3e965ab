package launch

import (
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

// TestPostCost: the probe cost per mode read back from the fence-latency
// label (docs/model.md: dummy 1 cycle, fence the SM's fence latency, naive
// 0), and no cost function without a usable label.
func TestPostCost(t *testing.T) {
	pc := PostCost(&trace.RunMeta{Labels: map[string]string{"model.fence_latency": "37"}})
	if pc == nil {
		t.Fatal("no cost function with a fence-latency label")
	}
	for _, c := range []struct {
		mode string
		want float64
		ok   bool
	}{{"dummy", 1, true}, {"fence", 37, true}, {"naive", 0, true}, {"other", 0, false}} {
		if got, ok := pc(c.mode); got != c.want || ok != c.ok {
			t.Errorf("%s: %v, %v; want %v, %v", c.mode, got, ok, c.want, c.ok)
		}
	}
	for _, labels := range []map[string]string{nil, {"model.fence_latency": "x"}, {"model": "gtx480"}} {
		if PostCost(&trace.RunMeta{Labels: labels}) != nil {
			t.Errorf("labels %v: want no cost function", labels)
		}
	}
}
