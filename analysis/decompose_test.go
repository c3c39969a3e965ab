package analysis

import (
	"io"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

type oneWarp struct {
	h    trace.Header
	w    trace.WarpRegions
	done bool
}

func (s *oneWarp) Header() *trace.Header { return &s.h }
func (s *oneWarp) Next() (*trace.WarpRegions, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	return &s.w, nil
}

// TestDecompose checks the decomposition on hand-made regions: two dummy
// loads of line 10 (begin 100, issue 104, complete 204, measured 106 → wait
// 4, true 100, post 2; begin 300, issue 302, complete 352, measured 54 →
// wait 2, true 50, post 2), one naive load of line 12 and one region
// without stamps (left out).
func TestDecompose(t *testing.T) {
	dummy := &trace.RegionInfo{ID: 1, Kind: "load", Mode: "dummy", Space: "global", Line: 10}
	naive := &trace.RegionInfo{ID: 2, Kind: "load", Mode: "naive", Space: "shared", Line: 12}
	reg := func(in *trace.RegionInfo, b, i, c, e uint64) trace.Region {
		return trace.Region{ID: in.ID, Info: in, Start: b, End: e, Cycles: e - b, HasTruth: true,
			TruthIssue: i, TruthComplete: c, TruthBegin: b, TruthEnd: e}
	}
	unstamped := reg(dummy, 500, 510, 600, 620)
	unstamped.TruthBegin, unstamped.TruthEnd = 0, 0
	src := &oneWarp{h: trace.Header{Timer: trace.TimerClock64}, w: trace.WarpRegions{Regions: []trace.Region{
		reg(dummy, 100, 104, 204, 206), reg(dummy, 300, 302, 352, 354), reg(naive, 400, 401, 430, 405), unstamped}}}
	res, err := AnalyzeContext(t.Context(), src, Options{Top: -1, PostCost: func(m string) (float64, bool) { return PostCost(m, 7) }})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Decompose
	if d == nil || len(d.ByKind) != 2 || len(d.ByLine) != 2 {
		t.Fatalf("decomposition %+v", d)
	}
	g := d.ByKind[0] // global/dummy
	if g.Key != "global/dummy" || g.Count != 2 || g.Measured != 80 || g.IssueWait != 3 || g.True != 75 || g.PostWait != 2 ||
		g.Cost == nil || *g.Cost != 1 || *g.Excess != 1 {
		t.Errorf("global/dummy: %+v", g)
	}
	s := d.ByLine[1] // ptx:12, naive: measured 5 = wait 1 + true 29 + post −25
	if s.Key != "ptx:12" || s.Measured != 5 || s.IssueWait != 1 || s.True != 29 || s.PostWait != -25 || *s.Cost != 0 {
		t.Errorf("ptx:12: %+v", s)
	}
	if c, ok := PostCost("fence", 7); !ok || c != 7 {
		t.Errorf("fence post cost %v %v", c, ok)
	}
	// a globaltimer trace (ns) is not decomposed
	src = &oneWarp{h: trace.Header{Timer: trace.TimerGlobaltimer}, w: trace.WarpRegions{Regions: []trace.Region{reg(dummy, 100, 104, 204, 206)}}}
	if res, err := AnalyzeContext(t.Context(), src, Options{}); err != nil || res.Decompose != nil {
		t.Errorf("globaltimer: %v %+v", err, res.Decompose)
	}
}
