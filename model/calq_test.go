package model

import (
	"math/rand"
	"testing"
)

// TestCalQueueOrder: random pushes (mostly a few hundred cycles ahead of
// the last pop, some far beyond the calendar's window, some before its
// start, some with a seq smaller than an earlier push's) interleaved with
// pops and popBefore calls give exactly the items, in exactly the order,
// of a timeHeap fed the same pushes (TestTimeHeapOrder checks the heap
// against a plain list).
func TestCalQueueOrder(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4} {
		rng := rand.New(rand.NewSource(seed))
		q := newCalQueue()
		var ref timeHeap
		now := Time(0)
		seq := uint64(1000)
		for step := 0; step < 300000; step++ {
			switch r := rng.Intn(10); {
			case r < 5 && len(ref) < 3000:
				var at Time
				switch k := rng.Intn(20); {
				case k == 0:
					at = now + calSlots + Time(rng.Intn(3*calSlots)) // beyond the window
				case k == 1 && now > 50:
					at = now - Time(rng.Intn(50)) // in the past
				case k == 2:
					at = now // ties
				default:
					at = now + Time(rng.Intn(600))
				}
				s := seq + 1
				if rng.Intn(50) == 0 {
					s = uint64(rng.Intn(int(seq))) + 1 // an out-of-order seq
				} else {
					seq++
				}
				x := timed{t: at, seq: s, v: uint64(step)}
				q.push(x)
				ref.push(x)
			case r < 8:
				if len(ref) == 0 {
					if q.len() != 0 {
						t.Fatalf("seed %d step %d: %d items, want none", seed, step, q.len())
					}
					continue
				}
				want := ref.pop()
				got := q.pop()
				if got != want {
					t.Fatalf("seed %d step %d: pop = %+v, want %+v", seed, step, got, want)
				}
				now = max(now, got.t)
			default:
				h := now + Time(rng.Intn(200))
				got, ok := q.popBefore(h)
				wantOK := len(ref) > 0 && ref[0].t < h
				if ok != wantOK {
					t.Fatalf("seed %d step %d: popBefore(%d) ok = %v, want %v", seed, step, h, ok, wantOK)
				}
				if ok {
					if want := ref.pop(); got != want {
						t.Fatalf("seed %d step %d: popBefore = %+v, want %+v", seed, step, got, want)
					}
					now = max(now, got.t)
				}
			}
			if q.len() != len(ref) {
				t.Fatalf("seed %d step %d: %d items, want %d", seed, step, q.len(), len(ref))
			}
			if p, ok := q.peek(); ok != (len(ref) > 0) || ok && p != ref[0] {
				t.Fatalf("seed %d step %d: peek = %+v %v, want %+v", seed, step, p, ok, ref)
			}
		}
	}
}

// BenchmarkCalQueue is BenchmarkTimeHeap's workload on the calendar queue.
func BenchmarkCalQueue(b *testing.B) {
	benchQueue(b, func() timeQueue { return newCalQueue() })
}
