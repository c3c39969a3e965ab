package power

import (
	"reflect"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

func TestHistNet(t *testing.T) {
	// Idle intervals 1,1,1, 99, 100, 250, 250 (hand-built).
	h := Hist{{1, 3}, {99, 1}, {100, 1}, {250, 2}}
	for _, tc := range []struct {
		name  string
		h     Hist
		bet   model.Time
		saved model.Time
		gates uint64
	}{
		// BET 100: 100 gated for nothing (=BET), 250s save 150 each.
		{"bet100", h, 100, 300, 3},
		// BET 99: 99 → 0, 100 → 1, 250 → 151 twice.
		{"bet99", h, 99, 303, 4},
		// BET 101: only the 250s: 149 each.
		{"bet101", h, 101, 298, 2},
		// BET 0: every idle cycle, 3+99+100+500.
		{"bet0", h, 0, 702, 7},
		// BET 1: each of the 7 intervals loses one cycle.
		{"bet1", h, 1, 695, 7},
		{"beyond", h, 251, 0, 0},
		{"empty", nil, 100, 0, 0},
		// One idle interval spanning a 10,000-cycle run.
		{"spanning", Hist{{10000, 1}}, 100, 9900, 1},
	} {
		saved, gates := tc.h.Net(tc.bet)
		if saved != tc.saved || gates != tc.gates {
			t.Errorf("%s: Net(%d) = %d, %d; want %d, %d", tc.name, tc.bet, saved, gates, tc.saved, tc.gates)
		}
	}
	if c, n := h.Idle(); c != 702 || n != 7 {
		t.Errorf("Idle = %d, %d; want 702, 7", c, n)
	}
	if d := (Hist{{1, 3}, {9, 1}, {10, 2}, {99, 1}, {100, 1}, {9999, 1}, {10000, 4}}).Decades(); d != [5]uint64{4, 3, 1, 1, 4} {
		t.Errorf("Decades = %v", d)
	}
}

func TestMerge(t *testing.T) {
	got := merge(Hist{{1, 1}, {5, 2}, {9, 1}}, Hist{{2, 1}, {5, 3}, {10, 1}})
	want := Hist{{1, 1}, {2, 1}, {5, 5}, {9, 1}, {10, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merge = %v, want %v", got, want)
	}
}

func TestTrack(t *testing.T) {
	for _, tc := range []struct {
		name string
		busy []Interval
		end  model.Time
		sum  model.Time
		idle Hist
		runs []Interval
	}{
		// Adjacent intervals merge; gaps 20..50 and 60..100 are idle.
		{"merge", []Interval{{0, 10}, {10, 20}, {50, 60}}, 100, 30, Hist{{30, 1}, {40, 1}}, []Interval{{0, 20}, {50, 60}}},
		// Leading idle interval, busy to the end: no trailing one.
		{"leading", []Interval{{5, 10}}, 10, 5, Hist{{5, 1}}, []Interval{{5, 10}}},
		// Overlap (a longer interval containing the next).
		{"overlap", []Interval{{2, 8}, {3, 5}, {4, 9}}, 12, 7, Hist{{2, 1}, {3, 1}}, []Interval{{2, 9}}},
		// Never busy: one idle interval spanning the run.
		{"unused", nil, 1000, 0, Hist{{1000, 1}}, nil},
		// Empty run.
		{"empty", nil, 0, 0, Hist{}, nil},
		// Busy past the end (a split issue in the last cycle): cut at
		// the end, 90..100 busy, no trailing idle interval.
		{"past end", []Interval{{10, 20}, {90, 102}}, 100, 20, Hist{{10, 1}, {70, 1}}, []Interval{{10, 20}, {90, 100}}},
		// Adjacent runs merged across the end: the run started at 50.
		{"merged past end", []Interval{{50, 99}, {99, 101}}, 100, 50, Hist{{50, 1}}, []Interval{{50, 100}}},
	} {
		tr := newTrack(true)
		for _, b := range tc.busy {
			tr.add(b.From, b.To)
		}
		if _, err := tr.finish(tc.end); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if tr.busy != tc.sum || !reflect.DeepEqual(tr.idle.hist(), tc.idle) || !reflect.DeepEqual(tr.runs, tc.runs) {
			t.Errorf("%s: busy %d idle %v runs %v; want %d %v %v", tc.name, tr.busy, tr.idle.hist(), tr.runs, tc.sum, tc.idle, tc.runs)
		}
	}
}

// A busy run starting at or after the end is refused, not cut.
func TestTrackPastEnd(t *testing.T) {
	tr := newTrack(false)
	tr.add(5, 10)
	tr.add(100, 101)
	if _, err := tr.finish(100); err == nil {
		t.Error("busy run starting at the end accepted")
	}
}

func TestCompactLanes(t *testing.T) {
	// 4 lanes at 2x, 4 passes (gtx480 sfu): 8 slots per lane; 9 threads
	// → k = 2 lanes; pass 0 takes 4 threads (lanes 0, 1), pass 1 the
	// remaining 4 (lanes 0,1), pass 2 one thread (lane 0), pass 3 none.
	sfu := newLaneMap(model.UnitSpec{Count: 1, Lanes: 4, ClockMul: 2})
	for p, want := range []laneBits{3, 3, 1, 0} {
		if got := sfu.compactLanes(9, p); got != want {
			t.Errorf("sfu 9 threads pass %d: %b, want %b", p, got, want)
		}
	}
	// gtx480 sp: 32 threads use all 16 lanes, 0 threads none.
	sp := newLaneMap(model.UnitSpec{Count: 2, Lanes: 16, ClockMul: 2})
	if got := sp.compactLanes(32, 0); got != 0xffff {
		t.Errorf("sp 32: %b", got)
	}
	if got := sp.compactLanes(0, 0); got != 0 {
		t.Errorf("sp 0: %b", got)
	}
}

func TestLaneMap(t *testing.T) {
	// gtx480 sp: 16 lanes at 2x clock, one pass: lane j runs threads j, j+16.
	sp := newLaneMap(model.UnitSpec{Count: 2, Lanes: 16, ClockMul: 2})
	if sp.passes != 1 || sp.masks[3][0] != 1<<3|1<<19 {
		t.Errorf("sp: passes %d mask %#x", sp.passes, sp.masks[3][0])
	}
	// 4 lanes at 2x: 8 threads per pass, 4 passes; lane 1 in pass 2 runs 17 and 21.
	sfu := newLaneMap(model.UnitSpec{Count: 1, Lanes: 4, ClockMul: 2})
	if sfu.passes != 4 || sfu.masks[1][2] != 1<<17|1<<21 {
		t.Errorf("sfu: passes %d mask %#x", sfu.passes, sfu.masks[1][2])
	}
	// 16 lanes at 1x: 2 passes; lane 0 runs thread 0 then 16.
	v := newLaneMap(model.UnitSpec{Count: 1, Lanes: 16, ClockMul: 1})
	if v.passes != 2 || v.masks[0][0] != 1 || v.masks[0][1] != 1<<16 {
		t.Errorf("16x1: %d %v", v.passes, v.masks[0])
	}
}

func TestRecorderLanes(t *testing.T) {
	spec, _ := model.Preset("gtx480")
	r := NewRecorder(&spec)
	obs := make([]model.Observer, spec.NumSMs)
	for i := range obs {
		obs[i] = r.Observe(i)
	}
	if r.Observe(model.MemorySide) != nil {
		t.Fatal("memory side observed")
	}
	o := obs[1]
	o.CTAStart(model.CTAEvent{SM: 1, CTA: 0, Cycle: 5})
	o.CTAStart(model.CTAEvent{SM: 1, CTA: 1, Cycle: 6})
	// Threads 3 and 20 active: lanes 3 and 4 of sp instance 1, cycle 10.
	o.UnitBusy(model.UnitEvent{SM: 1, Unit: model.UnitSP, Index: 1, From: 10, To: 11, Active: 1<<3 | 1<<20})
	// Predicated off: unit busy, no lane.
	o.UnitBusy(model.UnitEvent{SM: 1, Unit: model.UnitSP, Index: 1, From: 30, To: 31})
	o.CTAFinish(model.CTAEvent{SM: 1, CTA: 0, Cycle: 40})
	o.CTAFinish(model.CTAEvent{SM: 1, CTA: 1, Cycle: 50})
	l, err := r.Finish(200)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Core[1]; c.Busy != 45 || !reflect.DeepEqual(c.Idle, Hist{{5, 1}, {150, 1}}) {
		t.Errorf("core SM1 = %+v", c)
	}
	if c := l.Core[0]; c.Busy != 0 || !reflect.DeepEqual(c.Idle, Hist{{200, 1}}) {
		t.Errorf("core SM0 = %+v", c)
	}
	// sp blocks: SM-major, instance: SM1 instance 1 is index 3.
	if u := l.Units[model.UnitSP][3]; u.Busy != 2 || !reflect.DeepEqual(u.Idle, Hist{{10, 1}, {19, 1}, {169, 1}}) {
		t.Errorf("unit = %+v", u)
	}
	lanes := l.Lanes[model.UnitSP][3*16 : 4*16] // SM1 instance 1
	for j, b := range lanes {
		want := Hist{{200, 1}}
		if j == 3 || j == 4 {
			want = Hist{{10, 1}, {189, 1}}
		}
		if !reflect.DeepEqual(b.Idle, want) {
			t.Errorf("lane %d idle %v, want %v", j, b.Idle, want)
		}
	}
	// Σ over the level: 30 sp instances, one busy 2 cycles.
	res, err := Summarise("k", &spec, []*Launch{l}, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sp := res.Units[0]
	if sp.Name != "unit sp" || sp.Blocks != 30 || sp.Exposure != 6000 || sp.Busy != 2 {
		t.Errorf("sp level %+v", sp)
	}
	// BET 100: 29 idle units save 100 each, the used one 69 → 2900+69.
	if s, g := sp.Net(100); s != 2969 || g != 30 {
		t.Errorf("sp net %d %d", s, g)
	}
}

func TestCurveBETs(t *testing.T) {
	b := CurveBETs()
	if b[0] != 1 || b[len(b)-1] != 10000 {
		t.Fatalf("ends %v", b)
	}
	for i := 1; i < len(b); i++ {
		if b[i] <= b[i-1] {
			t.Fatalf("not increasing: %v", b)
		}
	}
}

// busyLanes (bit arithmetic) must agree with the per-lane thread masks.
func TestBusyLanes(t *testing.T) {
	for _, lc := range [][2]int{{16, 2}, {4, 2}, {16, 1}, {8, 1}, {32, 1}, {1, 1}} {
		u := model.UnitSpec{Count: 1, Lanes: lc[0], ClockMul: lc[1]}
		lm := newLaneMap(u)
		for _, mask := range []uint32{0, 1, 0xffffffff, 0x80000000, 0x55555555, 0x00ff00f0, 0xdeadbeef} {
			for p := range lm.passes {
				var want laneBits
				for j := range lm.lanes {
					if lm.masks[j][p]&mask != 0 {
						want |= 1 << j
					}
				}
				if got := lm.busyLanes(mask, p); got != want {
					t.Errorf("%+v mask %#x pass %d: %#x, want %#x", u, mask, p, got, want)
				}
			}
		}
	}
}

// A split issue occupies the lower 8 of gtx480's 16 sp lanes for both of
// its cycles; compaction packs threads 3 and 20 onto lane 0 (a lane runs
// two threads per core cycle at the 2× clock).
func TestRecorderSplitCompact(t *testing.T) {
	spec, _ := model.Preset("gtx480")
	for _, compact := range []bool{false, true} {
		r := NewRecorder(&spec)
		r.Compact = compact
		for i := range spec.NumSMs {
			r.Observe(i)
		}
		o := r.sms[0]
		o.UnitBusy(model.UnitEvent{SM: 0, Unit: model.UnitSP, Index: 0, From: 10, To: 12, Active: 0xffffffff, Split: true})
		o.UnitBusy(model.UnitEvent{SM: 0, Unit: model.UnitSP, Index: 1, From: 20, To: 21, Active: 1<<3 | 1<<20})
		l, err := r.Finish(100)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 16 {
			// instance 0: lanes 0..7 busy 2 cycles (both passes), full mask
			// whether compacted or not
			want := model.Time(0)
			if j < 8 {
				want = 2
			}
			if b := l.Lanes[model.UnitSP][j].Busy; b != want {
				t.Errorf("compact %v: instance 0 lane %d busy %d, want %d", compact, j, b, want)
			}
			// instance 1: threads 3, 20 → lanes 3, 4; compacted → 0
			want = 0
			if (!compact && (j == 3 || j == 4)) || (compact && j == 0) {
				want = 1
			}
			if b := l.Lanes[model.UnitSP][16+j].Busy; b != want {
				t.Errorf("compact %v: instance 1 lane %d busy %d, want %d", compact, j, b, want)
			}
		}
	}
}

// A histBuilder carries a dense count past 2^32−1 into the map: by hand, 3 intervals of 7 cycles,
// 2^32 − 1 + 2 of 9 cycles, 1 of 200 and 2 of 300.
func TestHistBuilderCarry(t *testing.T) {
	var m histBuilder
	m.add(7, 1)
	m.add(9, 1<<32-1)
	m.add(200, 1)
	m.add(7, 2)
	m.add(9, 2) // passes 2^32 − 1: carried
	m.add(300, 2)
	m.add(0, 5) // no interval
	want := Hist{{7, 3}, {9, 1<<32 + 1}, {200, 1}, {300, 2}}
	if got := m.hist(); !reflect.DeepEqual(got, want) {
		t.Errorf("hist %v, want %v", got, want)
	}
	var big histBuilder
	big.add(3, 1<<40) // more than 32 bits on first use
	if got := big.hist(); !reflect.DeepEqual(got, Hist{{3, 1 << 40}}) {
		t.Errorf("hist %v, want [{3 %d}]", got, uint64(1<<40))
	}
}

// A lane's histogram is its own intervals plus its group's, by hand:
// own 3 (once), 7 (twice); group 1, 3 (4 times), 300 → 1, 3 (5), 7 (2),
// 300; with a long interval of its own (the map); with none of its own.
func TestLaneHist(t *testing.T) {
	gh := Hist{{1, 1}, {3, 4}, {300, 1}}
	var own histBuilder
	own.add(3, 1)
	own.add(7, 2)
	if got, want := laneHist(&own, gh), (Hist{{1, 1}, {3, 5}, {7, 2}, {300, 1}}); !reflect.DeepEqual(got, want) {
		t.Errorf("dense: %v, want %v", got, want)
	}
	own.add(300, 2)
	if got, want := laneHist(&own, gh), (Hist{{1, 1}, {3, 5}, {7, 2}, {300, 3}}); !reflect.DeepEqual(got, want) {
		t.Errorf("with the map: %v, want %v", got, want)
	}
	var none histBuilder
	if got := laneHist(&none, gh); !reflect.DeepEqual(got, gh) || cap(got) != len(gh) {
		t.Errorf("none of its own: %v (cap %d), want %v", got, cap(got), gh)
	}
	var late histBuilder // own lengths after the group's last
	late.add(400, 1)
	late.add(9, 1)
	if got, want := laneHist(&late, Hist{{2, 1}}), (Hist{{2, 1}, {9, 1}, {400, 1}}); !reflect.DeepEqual(got, want) {
		t.Errorf("late: %v, want %v", got, want)
	}
}
