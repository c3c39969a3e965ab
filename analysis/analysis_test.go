package analysis

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

type truthMap map[uint32][]trace.TruthAccess

func (m truthMap) Truth(seg uint32, dst []trace.TruthAccess) ([]trace.TruthAccess, error) {
	return append(dst, m[seg]...), nil
}

func b(r int, t uint64) tracetest.Record {
	return tracetest.Record{Probe: tracetest.BeginID(r), Time: t}
}
func e(r int, t uint64) tracetest.Record { return tracetest.Record{Probe: tracetest.EndID(r), Time: t} }

// decode builds a clock64 buffer of the given warps (one per CTA) and
// decodes it with truth.
func decode(t *testing.T, m *manifest.Manifest, warps [][]tracetest.Record, truth truthMap) *trace.Trace {
	t.Helper()
	const rpw = 16
	segs := map[uint32]tracetest.Seg{}
	for i, recs := range warps {
		segs[uint32(i)] = tracetest.Seg{CTA: [3]uint32{uint32(i), 0, 0}, SM: uint32(i % 2), Records: recs}
	}
	raw := tracetest.Buffer(tracetest.Header{RecordsPerWarp: rpw, Segments: uint32(len(warps)), Timer: 1,
		WarpsPerCTA: 1, ID: tracetest.ID}, segs)
	tr, err := trace.DecodeOptions(raw, m, "", trace.Options{Truth: truth})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestAnalyzeUserRegions(t *testing.T) {
	m := tracetest.Manifest(3, "clock64", 16)
	// Region 1 naive, region 2 fence (region 0 is the user region).
	for i := range m.Kernels[0].Probes {
		if m.Kernels[0].Probes[i].Region == 1 {
			m.Kernels[0].Probes[i].Mode = manifest.ModeNaive
		}
	}
	warps := [][]tracetest.Record{
		// user 100..200 (100); loads 40 and 20 inside; a load (5) after it.
		{b(0, 100), b(1, 110), e(1, 150), b(2, 160), e(2, 180), e(0, 200), b(2, 210), e(2, 215)},
		// user 1000..1200 (200); one load of 100.
		{b(0, 1000), b(1, 1010), e(1, 1110), e(0, 1200)},
		// user only (50): no accesses.
		{b(0, 0), e(0, 50)},
	}
	truth := truthMap{
		0: {{Warp: 0, Probe: tracetest.BeginID(1), Issue: 110, Complete: 190},
			{Warp: 0, Probe: tracetest.BeginID(2), Issue: 165, Complete: 180},
			{Warp: 0, Probe: tracetest.BeginID(2), Issue: 211, Complete: 214}},
		1: {{Warp: 1, Probe: tracetest.BeginID(1), Issue: 1010, Complete: 1100}},
	}
	res, err := Analyze(decode(t, m, warps, truth).Source())
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasUser || len(res.Warps) != 3 {
		t.Fatalf("HasUser %v, %d warps", res.HasUser, len(res.Warps))
	}
	wantWarps := []struct {
		mem, total, other uint64
		acc               int
		share, mean       float64
	}{
		{60, 100, 40, 2, 0.6, 30},
		{100, 200, 100, 1, 0.5, 100},
		{0, 50, 50, 0, 0, math.NaN()},
	}
	for i, w := range wantWarps {
		g := res.Warps[i]
		if g.Memory != w.mem || g.Total != w.total || g.Other != w.other || g.Accesses != w.acc ||
			!near(g.MemoryShare, w.share) || !(near(g.MeanAccess, w.mean) || math.IsNaN(w.mean) && math.IsNaN(g.MeanAccess)) {
			t.Errorf("warp %d: got %+v, want %+v", i, g.Share, w)
		}
	}
	o := res.Overall
	if o.Memory != 160 || o.Total != 350 || o.Other != 190 || o.Accesses != 3 ||
		!near(o.MemoryShare, 160.0/350) || !near(o.MeanAccess, 160.0/3) {
		t.Errorf("overall %+v", o)
	}
	if !near(res.MeanAccess, 65) || !near(res.Frequency, 1000.0/65) || !near(res.MeanWarpShare, 0.55) {
		t.Errorf("MeanAccess %v Frequency %v MeanWarpShare %v", res.MeanAccess, res.Frequency, res.MeanWarpShare)
	}
	// Region 2: durations 20 and 5.
	var r2 *RegionStats
	for i := range res.Regions {
		if res.Regions[i].Region == 2 {
			r2 = &res.Regions[i]
		}
	}
	if r2 == nil || r2.Count != 2 || !near(r2.Mean, 12.5) || !near(r2.StdDev, 7.5) || r2.Min != 5 || r2.Max != 20 ||
		r2.TruthCount != 2 || !near(r2.TruthMean, 9) || r2.Kind != "load" || r2.Mode != "fence" {
		t.Errorf("region 2: %+v", r2)
	}
	// Probe errors: naive measured (40+100)/2 = 70 vs true (80+90)/2 = 85;
	// fence (20+5)/2 = 12.5 vs (15+3)/2 = 9.
	want := []ProbeError{
		{Mode: "fence", Count: 2, Measured: 12.5, True: 9, Diff: 3.5, RelErr: 3.5 / 9, MeanAbsDiff: 3.5},
		{Mode: "naive", Count: 2, Measured: 70, True: 85, Diff: -15, RelErr: -15.0 / 85, MeanAbsDiff: 25},
	}
	if len(res.ProbeErrors) != len(want) {
		t.Fatalf("probe errors %+v", res.ProbeErrors)
	}
	for i, w := range want {
		g := res.ProbeErrors[i]
		if g.Mode != w.Mode || g.Count != w.Count || !near(g.Measured, w.Measured) || !near(g.True, w.True) ||
			!near(g.Diff, w.Diff) || !near(g.RelErr, w.RelErr) || !near(g.MeanAbsDiff, w.MeanAbsDiff) {
			t.Errorf("probe error %d: got %+v, want %+v", i, g, w)
		}
	}
	if pe, ok := res.ProbeErrorOf("naive"); !ok || pe.Count != 2 {
		t.Errorf("ProbeErrorOf(naive) = %+v, %v", pe, ok)
	}
	// Fig. 11 series of warp 0: the counted load regions in time order;
	// the load at 210..215 lies after the user region and is not counted.
	tr := decode(t, m, warps, truth)
	s, err := WarpAccesses(tr.Source(), 0)
	if err != nil || len(s) != 2 || s[0] != 40 || s[1] != 20 {
		t.Errorf("WarpAccesses = %v, %v; want [40 20]", s, err)
	}
	// Quantiles (durations below 128 are exact): region 2 has 20 and 5.
	if r2.Median != 5 || r2.P95 != 20 {
		t.Errorf("region 2 median %v p95 %v, want 5 and 20", r2.Median, r2.P95)
	}
	// Slowest lines: the counted loads only (region 1: 40 + 100 = 140 in
	// 2; region 2: 20 in 1, the uncounted 5 left out).
	if len(res.Slowest) != 2 || res.Slowest[0].Total != 140 || res.Slowest[0].Count != 2 || !near(res.Slowest[0].Mean, 70) ||
		res.Slowest[1].Total != 20 || res.Slowest[1].Count != 1 {
		t.Errorf("slowest %+v", res.Slowest)
	}
	// Per-warp share range over the warps with accesses: 0.6 and 0.5.
	if !near(res.MinWarpShare, 0.5) || !near(res.MaxWarpShare, 0.6) {
		t.Errorf("warp share range %v..%v", res.MinWarpShare, res.MaxWarpShare)
	}
	top, err := AnalyzeContext(context.Background(), decode(t, m, warps, truth).Source(), Options{Top: 1})
	if err != nil || len(top.Slowest) != 1 || top.Slowest[0] != res.Slowest[0] {
		t.Errorf("Top 1: %+v, %v", top.Slowest, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := AnalyzeContext(ctx, decode(t, m, warps, truth).Source(), Options{}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
	// The JSON form has no NaN (warp 2 has no accesses: MeanAccess NaN).
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("json: %v", err)
	}
}

func TestAnalyzeSpan(t *testing.T) {
	m := tracetest.Manifest(3, "clock64", 16)
	for i := range m.Kernels[0].Probes { // no user region: region 0 is a load too
		p := &m.Kernels[0].Probes[i]
		if p.Region == 0 {
			p.RegionKind, p.Space, p.Text = manifest.RegionLoad, "global", "ld.global.f32 %f9, [%rd9];"
		}
	}
	warps := [][]tracetest.Record{
		// span 10..100 = 90, memory 20 + 60 = 80.
		{b(1, 10), e(1, 30), b(2, 40), e(2, 100)},
		// span 0..40, memory 10 + 10.
		{b(0, 0), e(0, 10), b(1, 30), e(1, 40)},
	}
	res, err := Analyze(decode(t, m, warps, nil).Source())
	if err != nil {
		t.Fatal(err)
	}
	if res.HasUser {
		t.Fatal("HasUser")
	}
	tests := []struct {
		got              Share
		mem, total, oth  uint64
		acc              int
		share, meanAcces float64
	}{
		{res.Warps[0].Share, 80, 90, 10, 2, 80.0 / 90, 40},
		{res.Warps[1].Share, 20, 40, 20, 2, 0.5, 10},
		{res.Overall, 100, 130, 30, 4, 100.0 / 130, 25},
	}
	for i, tc := range tests {
		g := tc.got
		if g.Memory != tc.mem || g.Total != tc.total || g.Other != tc.oth || g.Accesses != tc.acc ||
			!near(g.MemoryShare, tc.share) || !near(g.MeanAccess, tc.meanAcces) {
			t.Errorf("case %d: got %+v", i, g)
		}
	}
	if !near(res.MeanAccess, 25) || !near(res.Frequency, 40) {
		t.Errorf("MeanAccess %v Frequency %v", res.MeanAccess, res.Frequency)
	}
	if len(res.ProbeErrors) != 0 {
		t.Errorf("probe errors without truth: %+v", res.ProbeErrors)
	}
}

func TestAnalyzeEmpty(t *testing.T) {
	m := tracetest.Manifest(2, "clock64", 16)
	res, err := Analyze(decode(t, m, [][]tracetest.Record{{}}, nil).Source())
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(res.MeanAccess) || res.Frequency != 0 || res.Overall.MemoryShare != 0 {
		t.Errorf("empty: %+v", res)
	}
	if _, err := Analyze(nil); err == nil {
		t.Error("Analyze(nil) succeeded")
	}
}

func TestPearson(t *testing.T) {
	tests := []struct {
		name   string
		xs, ys []float64
		r      float64
		ok     bool
	}{
		{"perfect", []float64{1, 2, 3}, []float64{2, 4, 6}, 1, true},
		{"anti", []float64{1, 2, 3}, []float64{3, 2, 1}, -1, true},
		// x̄ = 2.5, ȳ = 3.5; Σdxdy = 2, Σdx² = 5, Σdy² = 5 → 0.4.
		{"hand", []float64{1, 2, 3, 4}, []float64{2, 5, 3, 4}, 0.4, true},
		// Large offset: same as "hand" shifted by 1e9.
		{"offset", []float64{1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4}, []float64{2, 5, 3, 4}, 0.4, true},
		{"constant", []float64{1, 1, 1}, []float64{1, 2, 3}, 0, false},
		{"one", []float64{1}, []float64{1}, 0, false},
		{"nan", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, 0, false},
		{"cut", []float64{1, 2, 3, 99}, []float64{1, 2, 3}, 1, true},
	}
	for _, tc := range tests {
		r, ok := Pearson(tc.xs, tc.ys)
		if ok != tc.ok || ok && !near(r, tc.r) {
			t.Errorf("%s: Pearson = %v, %v; want %v, %v", tc.name, r, ok, tc.r, tc.ok)
		}
	}
}

func TestModelOf(t *testing.T) {
	cs := []trace.Counter{{Name: "kernel.cycles", SM: -1, Value: 7000}, {Name: "tex.hit_rate", SM: -1, Value: 0.75},
		{Name: "tex.hit_rate", SM: 3, Value: 0.1}, {Name: "kernel.ipc", SM: -1, Value: 1.5}}
	m := ModelOf(cs)
	if m.Cycles != 7000 || m.TexHitRate != 0.75 || m.IPC != 1.5 || !math.IsNaN(m.L2HitRate) {
		t.Errorf("ModelOf = %+v", m)
	}
	if fr := FrameRate(m.Cycles, 700e6); !near(fr, 1e5) {
		t.Errorf("FrameRate = %v", fr)
	}
	if FrameRate(0, 700e6) != 0 {
		t.Error("FrameRate(0) != 0")
	}
}
