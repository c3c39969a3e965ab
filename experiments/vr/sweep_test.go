package vr

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"reflect"
	"strings"
	"testing"

	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"

	"github.com/ptxtrace/ptxtrace/model"
)

func gtx480(t *testing.T) *model.Spec {
	t.Helper()
	ms, ok := model.Preset("gtx480")
	if !ok {
		t.Fatal("no gtx480 preset")
	}
	return &ms
}

// TestSweepSmall runs a 1 view × 3 shapes sweep on a 16×16 image and
// checks the table's structure, its independence of Jobs, and its files.
func TestSweepSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	shapes := []Shape{{1, 128}, {8, 16}, {128, 1}}
	o := SweepOptions{Model: gtx480(t), Scene: Scene{Image: 16, Volume: 16, Kind: "sphere"},
		Views: []View{{}}, Shapes: shapes, Jobs: 2, Tool: "test"}
	var calls []int
	o.Progress = func(done, total int) {
		if total != 9 {
			t.Errorf("progress total %d, want 9", total)
		}
		calls = append(calls, done)
	}
	tab, err := Sweep(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(calls, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("progress calls %v", calls)
	}
	if len(tab.Rows) != 9 {
		t.Fatalf("%d rows, want 3 shapes × 3 modes", len(tab.Rows))
	}
	for i, r := range tab.Rows {
		s, m := shapes[i/3], []string{"app", "naive", "auto"}[i%3]
		if r.Shape != s || r.Mode != m {
			t.Errorf("row %d is %s %s, want %s %s", i, r.Shape, r.Mode, s, m)
		}
		app := tab.Row(View{}, s, "app")
		if r.AppFPS != app.FPS || r.AppHit != app.HitRate || !(r.Cycles > 0) || !(r.FPS > 0) {
			t.Errorf("row %d: cycles %v FPS %v app FPS %v (app row %v)", i, r.Cycles, r.FPS, r.AppFPS, app.FPS)
		}
		if m == "app" {
			if !math.IsNaN(r.Share) || r.Accesses != 0 || r.Warps != nil {
				t.Errorf("app row %d has memory numbers: %+v", i, r)
			}
			continue
		}
		if r.Accesses == 0 || r.Memory+r.Other != r.Total || !(r.Share > 0 && r.Share < 1) ||
			math.Abs(r.Freq-1000/r.MeanAcc) > 1e-9 || len(r.Series) == 0 {
			t.Errorf("row %d (%s %s): %+v", i, s, m, r)
		}
		if want := float64(r.Memory) / float64(r.Total); math.Abs(r.Share-want) > 1e-12 {
			t.Errorf("row %d share %v, memory/total %v", i, r.Share, want)
		}
	}
	// Completion probes measure more memory time than naive ones (seed 003
	// Fig. 5) for every shape.
	for _, s := range shapes {
		if n, a := tab.Row(View{}, s, "naive"), tab.Row(View{}, s, "auto"); !(n.Share < a.Share) {
			t.Errorf("%s: naive share %v not below auto %v", s, n.Share, a.Share)
		}
	}
	var csv1 bytes.Buffer
	if err := tab.CSV(&csv1); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(csv1.Bytes())).ReadAll()
	if err != nil || len(recs) != 10 || recs[0][0] != "view" || recs[1][2] != "app" || recs[1][11] != "" {
		t.Fatalf("sweep.csv: %v %v", err, recs)
	}
	cs, err := tab.Charts()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		if err := htmlreport.CheckSVG(c.SVG); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	want := []string{"fig5_share_v0_0_0.svg", "fig_freq_hitrate_v0_0_0.svg", "fig_shapes_hitrate_v0_0_0.svg",
		"fig_freq_fps_v0_0_0.svg", "fig_shapes_fps_v0_0_0.svg", "fig10_warps_8x16_v0_0_0.svg", "fig11_warp_8x16_v0_0_0.svg"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("charts %v, want %v", names, want)
	}
	var page bytes.Buffer
	if err := tab.Report(tab.Correlations(), cs, "test").Render(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `href="sweep.csv"`) || !strings.Contains(page.String(), "fig5_share_v0_0_0.svg") {
		t.Error("report.html lacks its links")
	}

	// Jobs 1 gives the same table.
	o.Jobs, o.Progress = 1, nil
	tab1, err := Sweep(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var csv2 bytes.Buffer
	if err := tab1.CSV(&csv2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(csv1.Bytes(), csv2.Bytes()) {
		t.Errorf("sweep.csv differs between Jobs 2 and 1:\n%s\n%s", csv1.Bytes(), csv2.Bytes())
	}
}

func TestSweepErrors(t *testing.T) {
	ms := gtx480(t)
	sc := Scene{Image: 16, Volume: 16, Kind: "sphere"}
	for _, o := range []SweepOptions{
		{Scene: sc, Views: []View{{}}, Shapes: []Shape{{1, 128}}},
		{Model: ms, Scene: sc, Shapes: []Shape{{1, 128}}},
		{Model: ms, Scene: Scene{Image: 0, Volume: 16, Kind: "sphere"}, Views: []View{{}}, Shapes: []Shape{{1, 128}}},
		{Model: ms, Scene: Scene{Image: MaxImage + 1, Volume: 16, Kind: "sphere"}, Views: []View{{}}, Shapes: []Shape{{1, 128}}},
		{Model: ms, Scene: Scene{Image: 16, Volume: MaxVolume + 1, Kind: "sphere"}, Views: []View{{}}, Shapes: []Shape{{1, 128}}},
	} {
		if _, err := Sweep(context.Background(), o); err == nil {
			t.Errorf("Sweep(%+v) succeeded", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Sweep(ctx, SweepOptions{Model: ms, Scene: sc, Views: []View{{}}, Shapes: []Shape{{1, 128}}}); err == nil {
		t.Error("cancelled sweep succeeded")
	}
}

func TestFig1011Shapes(t *testing.T) {
	tests := []struct{ in, want []Shape }{
		{SeedShapes(), []Shape{{2, 64}, {8, 16}}},
		{[]Shape{{8, 16}, {1, 128}, {2, 64}}, []Shape{{2, 64}, {8, 16}}},
		{[]Shape{{1, 128}, {8, 16}}, []Shape{{8, 16}}},
		// Neither seed shape: the first two.
		{[]Shape{{4, 32}, {32, 4}, {128, 1}}, []Shape{{4, 32}, {32, 4}}},
		{[]Shape{{4, 32}}, []Shape{{4, 32}}},
	}
	for _, tc := range tests {
		if got := Fig1011Shapes(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Fig1011Shapes(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestCorrelations builds a table by hand: over three shapes the naive
// frequency rises with the app's hit rate (r = 1) and falls with its frame
// rate (r = −1); auto's frequency is constant (r undefined).
func TestCorrelations(t *testing.T) {
	v := View{90, 0, 90}
	tab := &Table{Views: []View{v}}
	for i, s := range []Shape{{1, 128}, {8, 16}, {128, 1}} {
		x := float64(i + 1)
		tab.Rows = append(tab.Rows,
			Row{View: v, Shape: s, Mode: "naive", Freq: 10 * x, AppHit: 0.1 * x, AppFPS: 100 - x},
			Row{View: v, Shape: s, Mode: "auto", Freq: 5, AppHit: 0.1 * x, AppFPS: 100 - x})
	}
	cs := tab.Correlations()
	if len(cs) != 2 || cs[0].Mode != "naive" || cs[1].Mode != "auto" || cs[0].N != 3 {
		t.Fatalf("correlations %+v", cs)
	}
	if !cs[0].HitOK || math.Abs(cs[0].RHit-1) > 1e-12 || !cs[0].FPSOK || math.Abs(cs[0].RFPS+1) > 1e-12 {
		t.Errorf("naive %+v, want r = 1 and −1", cs[0])
	}
	if cs[1].HitOK || cs[1].FPSOK {
		t.Errorf("auto (constant frequency) %+v, want undefined", cs[1])
	}
	var b bytes.Buffer
	if err := CorrelationsCSV(&b, cs); err != nil {
		t.Fatal(err)
	}
	want := "view,mode,n,r_frequency_vs_tex_hit_rate,r_frequency_vs_frame_rate\n" +
		"\"(90,0,90)\",naive,3,1.000,-1.000\n\"(90,0,90)\",auto,3,,\n"
	if b.String() != want {
		t.Errorf("correlations.csv:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestNames(t *testing.T) {
	if s := (Shape{8, 16}); s.String() != "8×16" || s.Stem() != "8x16" {
		t.Errorf("shape %q %q", s.String(), s.Stem())
	}
	if v := (View{90, 0, 90}); v.String() != "(90,0,90)" || v.Stem() != "v90_0_90" {
		t.Errorf("view %q %q", v.String(), v.Stem())
	}
	if FormatFloat(math.NaN(), 2) != "" || FormatFloat(1.234, 2) != "1.23" || FormatR(0.5, false) != "n/a" {
		t.Error("formatting")
	}
	spec := LaunchSpec(Scene{Image: 100, Volume: 8, Kind: "sphere"}, View{}, Shape{8, 16})
	// 100 pixels in blocks of 8 × 16: a grid of ⌈100/8⌉ × ⌈100/16⌉ = 13 × 7.
	if !strings.Contains(spec, "grid: [13, 7]") || !strings.Contains(spec, "block: [8, 16]") || !strings.Contains(spec, "count: 10000") {
		t.Errorf("launch spec:\n%s", spec)
	}
}
