package power

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/trace"
)

// The activity carried as bundle chunks (Launch.Chunk, FromBundles)
// analyses to the same JSON and table as the run itself; each series sums,
// over its buckets, to the busy cycles of its SM's blocks of that kind
// (counted independently, by the tracks), and never exceeds a bucket's
// capacity (trace.Activity.Check).
func TestBundleChunkRoundTrip(t *testing.T) {
	for _, name := range []string{"bfs", "nn"} {
		in := sampleInput(t, name)
		act, err := RecordActivity(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		var chunks []*trace.Activity
		for li, l := range act.Launches {
			c, err := l.Chunk(&act.Model)
			if err != nil {
				t.Fatalf("%s launch %d: %v", name, li, err)
			}
			chunks = append(chunks, c)
			if c.Buckets() > seriesCap || c.Buckets() == 0 {
				t.Errorf("%s launch %d: %d buckets", name, li, c.Buckets())
			}
			for _, s := range c.Series {
				var unit, lane, wantUnit, wantLane uint64
				for j := range s.UnitCycles {
					unit += s.UnitCycles[j]
					lane += s.LaneCycles[j]
				}
				for _, b := range c.Blocks {
					if b.SM == s.SM && b.Unit == s.Unit {
						switch b.Level {
						case trace.LevelUnit:
							wantUnit += b.Busy
						case trace.LevelLane:
							wantLane += b.Busy
						}
					}
				}
				if unit != wantUnit || lane != wantLane {
					t.Errorf("%s launch %d SM %d %s: series sum %d unit, %d lane cycles; blocks busy %d, %d",
						name, li, s.SM, s.Unit, unit, lane, wantUnit, wantLane)
				}
			}
		}
		back, err := FromBundles(act.Kernel, chunks)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []Config{DefaultConfig(), DefaultConfig().WithBET(37)} {
			var ja, jb bytes.Buffer
			a, _ := act.Summarise(cfg)
			b, err := back.Summarise(cfg)
			if err != nil {
				t.Fatal(err)
			}
			a.WriteJSON(&ja)
			a.WriteTable(&ja)
			b.WriteJSON(&jb)
			b.WriteTable(&jb)
			if !bytes.Equal(ja.Bytes(), jb.Bytes()) {
				t.Errorf("%s: analysis from bundle chunks differs from the run's", name)
			}
		}
	}
}

// A series coarsens to stay within seriesCap buckets and keeps exact
// counts: hand-checked on a few intervals.
func TestSeries(t *testing.T) {
	var s series
	s.add(0, 3, 2, 1)  // cycles 0,1,2: 2 units, 1 lane
	s.add(5, 6, 0, 16) // cycle 5: 16 lanes
	if s.shift != 0 || len(s.v) != 6 || s.v[0] != [2]uint32{2, 1} || s.v[2] != [2]uint32{2, 1} || s.v[3] != [2]uint32{} || s.v[5] != [2]uint32{0, 16} {
		t.Fatalf("width 1: shift %d %v", s.shift, s.v)
	}
	s.add(1023, 1025, 1, 3) // crosses the cap: width 2, buckets 0..512
	if s.shift != 1 || len(s.v) != 513 || s.v[0] != [2]uint32{4, 2} || s.v[1] != [2]uint32{2, 1} || s.v[2] != [2]uint32{0, 16} ||
		s.v[511] != [2]uint32{1, 3} || s.v[512] != [2]uint32{1, 3} {
		t.Fatalf("width 2: shift %d len %d %v", s.shift, len(s.v), s.v[:3])
	}
	u, l := s.buckets(3, 129) // width 8: [0,8) = 2+2+2 units, 1+1+1+16 lanes; [1016,1024), [1024,1032)
	if u[0] != 6 || l[0] != 19 || u[127] != 1 || l[127] != 3 || u[128] != 1 || l[128] != 3 {
		t.Errorf("width 8: %v %v … %v %v", u[:2], l[:2], u[126:], l[126:])
	}
	if u, l := s.buckets(3, 2); u[1] != 2 || l[1] != 6 { // later buckets fold into the last
		t.Errorf("folded: %v %v", u, l)
	}
}

// A bundle chunk whose model spec is not a model.Spec is refused.
func TestFromBundlesBadModel(t *testing.T) {
	spec, _ := model.Preset("gtx480")
	r := NewRecorder(&spec)
	for i := range spec.NumSMs {
		r.Observe(i)
	}
	l, err := r.Finish(10)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Chunk(&spec)
	if err != nil {
		t.Fatal(err)
	}
	c.Model = []byte(`{"name":"x","bogus":1}`)
	if _, err := FromBundles("k", []*trace.Activity{c}); err == nil || !strings.Contains(err.Error(), "model spec") {
		t.Errorf("FromBundles with a bad spec: %v", err)
	}
}

// A series whose counts pass 32 bits turns wide and keeps them exact: a
// bucket of 2^31 lanes plus another 2^31 + 5 (by hand: 2^32 + 5), then a
// coarsening that adds two buckets near 2^32 each.
func TestSeriesWide(t *testing.T) {
	var s series
	s.add(0, 1, 1, 1<<31)
	s.add(0, 1, 0, 1<<31+5)
	s.add(1, 2, 1<<32-1, 0)
	if s.w == nil || s.v != nil {
		t.Fatalf("2^32 + 5 lane cycles in one bucket: the series did not turn wide")
	}
	s.add(1024, 1025, 1, 0) // coarsen: bucket 0 = cycles 0 and 1
	u, l := s.buckets(1, 513)
	if u[0] != 1<<32 || l[0] != 1<<32+5 || u[512] != 1 {
		t.Errorf("wide counts: units %d, %d lanes %d; want %d, 1, %d", u[0], u[512], l[0], uint64(1<<32), uint64(1<<32+5))
	}
	var n series // a narrow series whose coarsening overflows 32 bits
	n.add(0, 1, 1<<32-1, 0)
	n.add(1, 2, 1<<32-1, 0)
	n.add(1024, 1025, 0, 1)
	if u, _ := n.buckets(1, 513); u[0] != 2*(1<<32-1) {
		t.Errorf("coarsened past 32 bits: %d, want %d", u[0], uint64(2*(1<<32-1)))
	}
}
