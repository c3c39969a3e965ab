package power

import (
	"bytes"
	"context"
	"slices"
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

// row is bucket i of a narrow table.
func (t *table) row(i int) []uint32 { return t.v[i*t.cols : (i+1)*t.cols] }

// buckets is columns c and c+1 of t at width 2^shift over nb buckets.
func (t *table) buckets(c int, shift uint, nb int) (n0, n1 []uint64) {
	n0, n1 = make([]uint64, nb), make([]uint64, nb)
	t.col(c, shift, n0)
	t.col(c+1, shift, n1)
	return n0, n1
}

// A table coarsens to stay within seriesCap buckets and keeps exact
// counts: hand-checked on a few intervals (columns 0, 1: an issue's
// pair; 2, 3: units and lanes; 4: a stall reason).
func TestTable(t *testing.T) {
	s := table{cols: 5}
	s.add(0, 3, 2, 2, 1)   // cycles 0,1,2: 2 units, 1 lane
	s.add(5, 6, 2, 0, 16)  // cycle 5: 16 lanes
	s.add1(2, 4, 4, 1)     // cycles 2, 3 stalled
	s.issue(5, 7, 2, 9, 4) // an issue at 5 with 9 threads, 4 lanes busy in cycles 5, 6
	eq := func(r []uint32, want ...uint32) bool { return slices.Equal(r, want) }
	if s.shift != 0 || s.nv != 7 || !eq(s.row(0), 0, 0, 2, 1, 0) || !eq(s.row(2), 0, 0, 2, 1, 1) || !eq(s.row(3), 0, 0, 0, 0, 1) ||
		!eq(s.row(4), 0, 0, 0, 0, 0) || !eq(s.row(5), 1, 9, 1, 20, 0) || !eq(s.row(6), 0, 0, 1, 4, 0) {
		t.Fatalf("width 1: shift %d %v", s.shift, s.v[:7*5])
	}
	s.add(1023, 1025, 2, 1, 3) // crosses the cap: width 2, buckets 0..512
	if s.shift != 1 || s.nv != 513 || !eq(s.row(0), 0, 0, 4, 2, 0) || !eq(s.row(1), 0, 0, 2, 1, 2) || !eq(s.row(2), 1, 9, 1, 20, 0) ||
		!eq(s.row(3), 0, 0, 1, 4, 0) || !eq(s.row(511), 0, 0, 1, 3, 0) || !eq(s.row(512), 0, 0, 1, 3, 0) {
		t.Fatalf("width 2: shift %d rows %d %v", s.shift, s.nv, s.v[:4*5])
	}
	u, l := s.buckets(2, 3, 129) // width 8: [0,8) = 2+2+2+1+1 units, 1+1+1+20+4 lanes; [1016,1024), [1024,1032)
	if u[0] != 8 || l[0] != 27 || u[127] != 1 || l[127] != 3 || u[128] != 1 || l[128] != 3 {
		t.Errorf("width 8: %v %v … %v %v", u[:2], l[:2], u[126:], l[126:])
	}
	if u, l := s.buckets(2, 3, 2); u[1] != 2 || l[1] != 6 { // later buckets fold into the last
		t.Errorf("folded: %v %v", u, l)
	}
	if is, st := s.buckets(0, 3, 2); is[0] != 1 || st[0] != 9 {
		t.Errorf("issues %v threads %v", is, st)
	}
	st := make([]uint64, 2)
	if s.col(4, 3, st); st[0] != 2 || st[1] != 0 {
		t.Errorf("stalls %v", st)
	}
}

// A table whose counts pass 32 bits turns wide and keeps them exact: a
// bucket of 2^31 lanes plus another 2^31 + 5 (by hand: 2^32 + 5), then a
// coarsening that adds two buckets near 2^32 each.
func TestTableWide(t *testing.T) {
	s := table{cols: 2}
	s.add(0, 1, 0, 1, 1<<31)
	s.add(0, 1, 0, 0, 1<<31+5)
	s.add(1, 2, 0, 1<<32-1, 0)
	if s.w == nil || s.v != nil {
		t.Fatalf("2^32 + 5 lane cycles in one bucket: the table did not turn wide")
	}
	s.add(1024, 1025, 0, 1, 0) // coarsen: bucket 0 = cycles 0 and 1
	u, l := s.buckets(0, 1, 513)
	if u[0] != 1<<32 || l[0] != 1<<32+5 || u[512] != 1 {
		t.Errorf("wide counts: units %d, %d lanes %d; want %d, 1, %d", u[0], u[512], l[0], uint64(1<<32), uint64(1<<32+5))
	}
	n := table{cols: 3} // a narrow table whose coarsening overflows 32 bits
	n.add1(0, 1, 2, 1<<32-1)
	n.add1(1, 2, 2, 1<<32-1)
	n.add(1024, 1025, 0, 0, 1)
	if n.w == nil {
		t.Fatalf("coarsening past 32 bits: the table did not turn wide")
	}
	st := make([]uint64, 513)
	if n.col(2, 1, st); st[0] != 2*(1<<32-1) {
		t.Errorf("coarsened past 32 bits: %d, want %d", st[0], uint64(2*(1<<32-1)))
	}
	if _, l := n.buckets(0, 1, 513); l[512] != 1 {
		t.Errorf("after widening: %d, want 1", l[512])
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
