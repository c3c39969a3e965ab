package model

import (
	"math"
	"math/rand"
	"testing"
)

// TestTimedBefore: before is the lexicographic order on (t, seq), both
// unsigned, on edge values and random pairs, against the definition.
func TestTimedBefore(t *testing.T) {
	ts := []Time{0, 1, 2, 1 << 40, never, never + 1, math.MaxUint64 - 1, math.MaxUint64}
	ss := []uint64{0, 1, 2, 1 << 63, math.MaxUint64 - 1, math.MaxUint64}
	def := func(a, b timed) bool {
		if a.t != b.t {
			return a.t < b.t
		}
		return a.seq < b.seq
	}
	check := func(a, b timed) {
		if got, want := a.before(&b), def(a, b); got != want {
			t.Fatalf("(%d,%d).before(%d,%d) = %v, want %v", a.t, a.seq, b.t, b.seq, got, want)
		}
	}
	for _, at := range ts {
		for _, as := range ss {
			for _, bt := range ts {
				for _, bs := range ss {
					check(timed{t: at, seq: as}, timed{t: bt, seq: bs})
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 100000; i++ {
		a := timed{t: Time(rng.Intn(8)), seq: uint64(rng.Intn(8))}
		b := timed{t: Time(rng.Intn(8)), seq: uint64(rng.Intn(8))}
		check(a, b)
	}
}

// TestTimeHeapOrder: interleaved pushes and pops at heap sizes 0-300 (all
// shapes of a node's last child group) pop every item in (t, seq) order,
// checked against the minimum of a plain list, and pop each item once.
func TestTimeHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var h timeHeap
	var ref []timed
	seq := uint64(0)
	for step := 0; step < 200000; step++ {
		if len(ref) == 0 || (len(ref) < 300 && rng.Intn(2) == 0) {
			seq++
			x := timed{t: Time(rng.Intn(50)), seq: seq, v: seq * 7}
			h.push(x)
			ref = append(ref, x)
			continue
		}
		mi := 0
		for i := range ref {
			if ref[i].t < ref[mi].t || (ref[i].t == ref[mi].t && ref[i].seq < ref[mi].seq) {
				mi = i
			}
		}
		want := ref[mi]
		ref = append(ref[:mi], ref[mi+1:]...)
		if got := h.pop(); got != want {
			t.Fatalf("step %d: pop = %+v, want %+v", step, got, want)
		}
		if len(h) != len(ref) {
			t.Fatalf("step %d: %d items, want %d", step, len(h), len(ref))
		}
	}
}

// BenchmarkTimeHeap pushes and pops events with random delays over a
// standing population of n, as the memory side's queue does.
func BenchmarkTimeHeap(b *testing.B) {
	benchQueue(b, func() timeQueue { return new(timeHeap) })
}

// timeQueue is what the memory side asks of its event queue.
type timeQueue interface {
	push(timed)
	pop() timed
}

// benchQueue runs BenchmarkTimeHeap's workload on the queues newQ makes.
func benchQueue(b *testing.B, newQ func() timeQueue) {
	for _, n := range []int{64, 1024} {
		b.Run(map[int]string{64: "n=64", 1024: "n=1024"}[n], func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			q := newQ()
			seq := uint64(0)
			for i := 0; i < n; i++ {
				seq++
				q.push(timed{t: Time(rng.Intn(400)), seq: seq})
			}
			delays := make([]Time, 4096)
			for i := range delays {
				delays[i] = Time(rng.Intn(400))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x := q.pop()
				seq++
				q.push(timed{t: x.t + delays[i&4095], seq: seq})
			}
		})
	}
}
