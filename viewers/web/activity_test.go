package web

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

// actSynth is a small model run (SMs 0 and 1 have warps) with recorded
// activity over 20000 cycles: SM 0 has CTAs in [100, 3000) and
// [3050, 6000), SM 1 all the time, SM 2 never; the sp series have 5
// buckets of 4096 cycles (the last 3616 long).
func actSynth() *synth {
	s := newSynth(8, 4, 2, 6)
	s.hdr.Meta.Source = "model"
	core := func(sm int, runs [][2]uint64) trace.ActivityBlock {
		b := trace.ActivityBlock{Level: trace.LevelCore, SM: sm, Runs: runs}
		prev := uint64(0)
		idle := map[uint64]uint64{}
		for _, r := range runs {
			b.Busy += r[1] - r[0]
			if r[0] > prev {
				idle[r[0]-prev]++
			}
			prev = r[1]
		}
		if prev < 20000 {
			idle[20000-prev]++
		}
		for _, l := range []uint64{50, 100, 14000, 20000} {
			if idle[l] > 0 {
				b.Idle = append(b.Idle, [2]uint64{l, idle[l]})
			}
		}
		return b
	}
	s.hdr.Activity = &trace.Activity{Format: trace.ActivityFormat, Cycles: 20000, Model: json.RawMessage(`{}`), SeriesWidth: 4096,
		Blocks: []trace.ActivityBlock{core(0, [][2]uint64{{100, 3000}, {3050, 6000}}), core(1, [][2]uint64{{0, 20000}}), core(2, nil)},
		Series: []trace.ActivitySeries{
			{SM: 0, Unit: "sp", Units: 2, Lanes: 32, UnitCycles: []uint64{8192, 4096, 0, 100, 7}, LaneCycles: []uint64{131072, 65536, 0, 1600, 112}},
			{SM: 1, Unit: "sp", Units: 2, Lanes: 32, UnitCycles: []uint64{1, 2, 3, 4, 5}, LaneCycles: []uint64{10, 20, 30, 40, 50}},
		}}
	if err := s.hdr.Activity.Check(); err != nil {
		panic(err)
	}
	return s
}

func actNode(t *testing.T, ix *Index, sm int, track string) int {
	t.Helper()
	for _, n := range ix.Nodes {
		if n.Level == "act" && n.SM == sm && n.Track == track {
			return n.ID
		}
	}
	t.Fatalf("no %s row for SM %d", track, sm)
	return -1
}

func TestActivityTree(t *testing.T) {
	ix := build(t, actSynth())
	if ix.ActivityNote != "" {
		t.Fatal(ix.ActivityNote)
	}
	// GPU: power + sp rows; SM 0, 1: power + sp; SM 2 (no warps, no sp
	// series): an SM row with its power row only.
	var levels []string
	for _, n := range ix.Nodes {
		if n.Level != "warp" && n.Level != "cta" {
			levels = append(levels, n.Level+":"+n.Track)
		}
	}
	want := []string{"gpu:", "act:power", "act:unit", "sm:", "act:power", "act:unit", "sm:", "act:power", "act:unit", "sm:", "act:power"}
	if !reflect.DeepEqual(levels, want) {
		t.Errorf("tree %v, want %v", levels, want)
	}
	if x0, x1 := ix.Extent(); x0 != 0 || x1 != max(20000, ix.T1) {
		t.Errorf("extent [%d, %d), want the launch's [0, 20000) or wider", x0, x1)
	}
	last := ix.Nodes[len(ix.Nodes)-1]
	if sm2 := ix.Nodes[last.Parent]; sm2.Label != "SM 2" || sm2.Lo != sm2.Hi {
		t.Errorf("SM 2 node %+v", sm2)
	}
	// Regions are unaffected: the GPU's buckets still count them all.
	tiles, err := ix.Tiles([]int{0}, ix.T0, ix.T1, 64)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range tiles[0].Buckets {
		n += b.Count
	}
	if n != ix.Total {
		t.Errorf("GPU buckets hold %d regions, want %d", n, ix.Total)
	}
}

func TestPowerStates(t *testing.T) {
	ix := build(t, actSynth())
	p0, p2 := actNode(t, ix, 0, "power"), actNode(t, ix, 2, "power")
	for _, c := range []struct {
		bet    int64
		t0, t1 int64
		want   []State
	}{
		{100, 0, 20000, []State{{0, 100, "gated"}, {100, 3000, "active"}, {3000, 3050, "idle"}, {3050, 6000, "active"}, {6000, 20000, "gated"}}},
		{101, 0, 20000, []State{{0, 100, "idle"}, {100, 3000, "active"}, {3000, 3050, "idle"}, {3050, 6000, "active"}, {6000, 20000, "gated"}}},
		{0, 0, 20000, []State{{0, 100, "gated"}, {100, 3000, "active"}, {3000, 3050, "gated"}, {3050, 6000, "active"}, {6000, 20000, "gated"}}},
		// A window inside: the states overlapping it, unclipped.
		{100, 2990, 3060, []State{{100, 3000, "active"}, {3000, 3050, "idle"}, {3050, 6000, "active"}}},
		{100, -500, 50, []State{{0, 100, "gated"}}},
	} {
		tiles, err := ix.TilesBET([]int{p0}, c.t0, c.t1, 100, c.bet)
		if err != nil {
			t.Fatal(err)
		}
		if tiles[0].Mode != "states" || !reflect.DeepEqual(tiles[0].States, c.want) {
			t.Errorf("BET %d [%d, %d): %s %v, want %v", c.bet, c.t0, c.t1, tiles[0].Mode, tiles[0].States, c.want)
		}
	}
	tiles, _ := ix.Tiles([]int{p2}, 0, 20000, 100)
	if want := []State{{0, 20000, "gated"}}; !reflect.DeepEqual(tiles[0].States, want) {
		t.Errorf("SM 2: %v", tiles[0].States)
	}
	// Fewer pixels than states: active-cycle buckets instead.
	tiles, _ = ix.Tiles([]int{p0}, 0, 20000, 4)
	wantB := []ActBucket{{0, 5000, 2900 + 1950, 0, 5000, 0}, {5000, 10000, 1000, 0, 5000, 0}, {10000, 15000, 0, 0, 5000, 0}, {15000, 20000, 0, 0, 5000, 0}}
	if tiles[0].Mode != "activity" || !reflect.DeepEqual(tiles[0].Act, wantB) {
		t.Errorf("SM 0 at 4 px: %s %v", tiles[0].Mode, tiles[0].Act)
	}
	if _, err := ix.TilesBET([]int{p0}, 0, 10, 10, -1); err == nil {
		t.Error("negative BET accepted")
	}
}

func TestActivityBuckets(t *testing.T) {
	ix := build(t, actSynth())
	// GPU power row: SM-cycles with a resident CTA (SM 0: [100, 3000) and
	// [3050, 6000), SM 1 always, SM 2 never) in px buckets of the range
	// clipped to the launch [0, 20000).
	tiles, err := ix.Tiles([]int{actNode(t, ix, -1, "power")}, -10000, 30000, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []ActBucket{{0, 5000, 2900 + 1950 + 5000, 0, 15000, 0}, {5000, 10000, 1000 + 5000, 0, 15000, 0},
		{10000, 15000, 5000, 0, 15000, 0}, {15000, 20000, 5000, 0, 15000, 0}}
	if !reflect.DeepEqual(tiles[0].Act, want) {
		t.Errorf("GPU power: %v, want %v", tiles[0].Act, want)
	}
	// sp rows at 2 px over the launch: groups of 4 series buckets (16384
	// cycles ≥ 20000/2), the last one partial (3616 cycles).
	sp0, gsp := actNode(t, ix, 0, "unit"), actNode(t, ix, -1, "unit")
	tiles, _ = ix.Tiles([]int{sp0, gsp}, 0, 20000, 2)
	want0 := []ActBucket{{0, 16384, 8192 + 4096 + 100, 131072 + 65536 + 1600, 2 * 16384, 32 * 16384}, {16384, 20000, 7, 112, 2 * 3616, 32 * 3616}}
	wantG := []ActBucket{{0, 16384, 12388 + 10, 198208 + 100, 4 * 16384, 64 * 16384}, {16384, 20000, 12, 162, 4 * 3616, 64 * 3616}}
	if !reflect.DeepEqual(tiles[0].Act, want0) || !reflect.DeepEqual(tiles[1].Act, wantG) {
		t.Errorf("sp rows:\n SM 0 %v\n want %v\n GPU %v\n want %v", tiles[0].Act, want0, tiles[1].Act, wantG)
	}
	// At many pixels: the series' own buckets; a window selects the
	// buckets overlapping it.
	tiles, _ = ix.Tiles([]int{sp0}, 5000, 8200, 1000)
	want1 := []ActBucket{{4096, 8192, 4096, 65536, 8192, 32 * 4096}, {8192, 12288, 0, 0, 8192, 32 * 4096}}
	if !reflect.DeepEqual(tiles[0].Act, want1) {
		t.Errorf("sp SM 0 window: %v, want %v", tiles[0].Act, want1)
	}
}

// TestActivityRefused: activity of a run whose timestamps are not model
// cycles is not drawn, and the note says so.
func TestActivityRefused(t *testing.T) {
	for _, f := range []func(*synth){
		func(s *synth) { s.hdr.Meta.Source = "gpu" },
		func(s *synth) { s.hdr.Timer = trace.TimerGlobaltimer },
	} {
		s := actSynth()
		f(s)
		ix := build(t, s)
		if ix.ActivityNote == "" || ix.act != nil {
			t.Errorf("activity placed on %s/%s", s.hdr.Meta.Source, s.hdr.Timer)
		}
		for _, n := range ix.Nodes {
			if n.Level == "act" {
				t.Errorf("act row %+v", n)
			}
		}
	}
}

func TestActivityAPI(t *testing.T) {
	ix := build(t, actSynth())
	srv := httptest.NewServer(NewServer([]Run{{Index: ix}}))
	defer srv.Close()
	var tr tracksInfo
	if get(t, srv.URL+"/api/tracks?run=0", &tr) != 200 || !tr.Activity || tr.DefaultBET != DefaultBET {
		t.Errorf("tracks %+v", tr)
	}
	p0 := actNode(t, ix, 0, "power")
	var tiles []struct {
		Mode   string  `json:"mode"`
		States [][]any `json:"states"`
		T0     []int64 `json:"t0"`
		Busy   []int64 `json:"busy"`
		Cap    []int64 `json:"cap"`
	}
	q := srv.URL + "/api/tiles?run=0&t0=0&t1=20000&px=100&bet=101&rows=" + itoa(int64(p0)) + "," + itoa(int64(actNode(t, ix, 0, "unit")))
	if get(t, q, &tiles) != 200 || len(tiles) != 2 || tiles[0].Mode != "states" || len(tiles[0].States) != 5 || tiles[0].States[0][2] != "idle" {
		t.Fatalf("tiles %+v", tiles)
	}
	if tiles[1].Mode != "activity" || len(tiles[1].T0) != 5 || tiles[1].Busy[0] != 8192 || tiles[1].Cap[4] != 2*3616 {
		t.Errorf("sp tile %+v", tiles[1])
	}
	if c := get(t, srv.URL+"/api/tiles?run=0&t0=0&t1=20000&px=100&bet=-1&rows=0", nil); c != 400 {
		t.Errorf("bet=-1: %d", c)
	}
}

// TestActivitySched: scheduler series give an issue-slot row per SM and
// one row per stall reason that occurs on the SM (GPU: every reason that
// occurs anywhere), with counts summed by hand below.
func TestActivitySched(t *testing.T) {
	s := actSynth()
	a := s.hdr.Activity
	z := []uint64{0, 0, 0, 0, 0}
	a.Sched = []trace.ActivitySched{
		{SM: 0, Schedulers: 2, Issued: []uint64{4000, 2000, 0, 50, 3}, Threads: []uint64{128000, 64000, 0, 100, 96},
			Stalls: map[string][]uint64{"memory": {1000, 500, 0, 0, 0}, "barrier": z}},
		{SM: 1, Schedulers: 2, Issued: []uint64{1, 2, 3, 4, 5}, Threads: []uint64{32, 64, 96, 128, 160},
			Stalls: map[string][]uint64{"scoreboard": {7, 0, 0, 0, 1}}},
	}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	ix := build(t, s)
	var rows []string
	for _, n := range ix.Nodes {
		if n.Level == "act" && (n.Track == "issue" || n.Track == "stall") {
			rows = append(rows, fmt.Sprintf("%d:%s:%s", n.SM, n.Track, n.Unit))
		}
	}
	// barrier never occurs: no row; memory only on SM 0, scoreboard only on SM 1
	want := []string{"-1:issue:", "-1:stall:memory", "-1:stall:scoreboard", "0:issue:", "0:stall:memory", "1:issue:", "1:stall:scoreboard"}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	var gi, gm, i0 int
	for _, n := range ix.Nodes {
		switch {
		case n.Level == "act" && n.SM == -1 && n.Track == "issue":
			gi = n.ID
		case n.Level == "act" && n.SM == -1 && n.Track == "stall" && n.Unit == "memory":
			gm = n.ID
		case n.Level == "act" && n.SM == 0 && n.Track == "issue":
			i0 = n.ID
		}
	}
	// 2 px over [0, 20000): groups of 4 buckets (16384 cycles), then the
	// partial last one (3616 cycles); capacity = schedulers × cycles
	// (threads: × 32).
	tiles, err := ix.Tiles([]int{i0, gi, gm}, 0, 20000, 2)
	if err != nil {
		t.Fatal(err)
	}
	wantI0 := []ActBucket{{0, 16384, 6050, 192100, 2 * 16384, 64 * 16384}, {16384, 20000, 3, 96, 2 * 3616, 64 * 3616}}
	wantGI := []ActBucket{{0, 16384, 6050 + 10, 192100 + 320, 4 * 16384, 128 * 16384}, {16384, 20000, 8, 256, 4 * 3616, 128 * 3616}}
	wantGM := []ActBucket{{0, 16384, 1500, 0, 4 * 16384, 0}, {16384, 20000, 0, 0, 4 * 3616, 0}}
	for i, w := range [][]ActBucket{wantI0, wantGI, wantGM} {
		if !reflect.DeepEqual(tiles[i].Act, w) {
			t.Errorf("row %d: %v, want %v", i, tiles[i].Act, w)
		}
	}
	// Check refuses more issued + stalled scheduler-cycles than slots
	a.Sched[1].Issued[4] = 2 * 3616
	if err := a.Check(); err == nil {
		t.Error("Check accepted an over-full bucket")
	}
}
