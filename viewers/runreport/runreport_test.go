package runreport

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/trace"
)

// synth is two warps with one load region each (durations 40 and 60
// cycles) inside a user region of 100 cycles.
func synth() *trace.Trace {
	t := &trace.Trace{Header: trace.Header{Kernel: "k", Timer: trace.TimerClock64, Regions: []trace.RegionInfo{
		{ID: 0, Kind: "load", Mode: "dummy", Space: "global", Line: 12, Text: "ld.global.f32 %f1, [%rd1];"},
		{ID: 1, Kind: "user", Mode: "fence", Line: 10},
	}}}
	for w, d := range []uint64{40, 60} {
		t.Warps = append(t.Warps, trace.Warp{Segment: uint32(w), WarpInCTA: uint32(w), Flags: 1})
		t.Regions = append(t.Regions,
			trace.Region{Warp: uint32(w), WarpInCTA: uint32(w), ID: 1, Info: &t.Header.Regions[1], Start: 1000, End: 1100, Cycles: 100},
			trace.Region{Warp: uint32(w), WarpInCTA: uint32(w), ID: 0, Info: &t.Header.Regions[0], Start: 1010, End: 1010 + d, Cycles: d, Depth: 1})
	}
	return t
}

func TestPage(t *testing.T) {
	tr := synth()
	rep, err := analysis.AnalyzeContext(context.Background(), tr.Source(), analysis.Options{Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	page, err := Page(context.Background(), rep, tr.Source(), "test")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range page.Sections {
		titles = append(titles, s.Title)
	}
	if got, want := strings.Join(titles, "|"), "Region durations|Memory vs other time per warp|Slowest source lines|Timeline"; got != want {
		t.Errorf("sections %q, want %q", got, want)
	}
	// The summary's memory share: (40+60) / (100+100) of the user regions.
	var share string
	for _, row := range page.Summary.Rows {
		if row[0] == "memory share" {
			share = row[1]
		}
	}
	if share != "50.0 %" {
		t.Errorf("memory share %q, want 50.0 %%", share)
	}
	var a, b bytes.Buffer
	if err := page.Render(&a); err != nil {
		t.Fatal(err)
	}
	page2, err := Page(context.Background(), rep, tr.Source(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := page2.Render(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of the same run differ")
	}
}

func TestTimelineRows(t *testing.T) {
	tl, warps, err := Timeline(context.Background(), synth().Source())
	if err != nil {
		t.Fatal(err)
	}
	if warps != 2 || len(tl.Rows) != 2 {
		t.Fatalf("%d warps, %d rows, want 2 and 2", warps, len(tl.Rows))
	}
	for i, row := range tl.Rows {
		var kinds []string
		for _, s := range row.Spans {
			kinds = append(kinds, s.Kind)
		}
		if strings.Join(kinds, ",") != "user,memory" {
			t.Errorf("row %d kinds %v, want user,memory", i, kinds)
		}
		if end := row.Spans[1].End; end != 1050+int64(20*i) {
			t.Errorf("row %d load span ends at %d, want %d", i, end, 1050+20*i)
		}
	}
}
