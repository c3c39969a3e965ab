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

// BenchmarkTimeHeap pushes and pops events with random delays over a
// standing population of n, as the memory side's queue does.
func BenchmarkTimeHeap(b *testing.B) {
	for _, n := range []int{64, 1024} {
		b.Run(map[int]string{64: "n=64", 1024: "n=1024"}[n], func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			var h timeHeap
			seq := uint64(0)
			for i := 0; i < n; i++ {
				seq++
				h.push(timed{t: Time(rng.Intn(400)), seq: seq})
			}
			delays := make([]Time, 4096)
			for i := range delays {
				delays[i] = Time(rng.Intn(400))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x := h.pop()
				seq++
				h.push(timed{t: x.t + delays[i&4095], seq: seq})
			}
		})
	}
}
