package par

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

func TestDoEveryIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, workers int }{{0, 4}, {1, 4}, {10, 1}, {10, 3}, {100, 0}, {7, 100}} {
		counts := make([]atomic.Int32, c.n)
		var live, peak atomic.Int32
		got := Do(context.Background(), c.n, c.workers, func(i int) {
			if v := live.Add(1); v > peak.Load() {
				peak.Store(v)
			}
			counts[i].Add(1)
			live.Add(-1)
		})
		if got != c.n {
			t.Errorf("n=%d workers=%d: started %d", c.n, c.workers, got)
		}
		for i := range counts {
			if v := counts[i].Load(); v != 1 {
				t.Errorf("n=%d workers=%d: index %d ran %d times", c.n, c.workers, i, v)
			}
		}
		if limit := max(c.workers, 1); int(peak.Load()) > limit {
			t.Errorf("n=%d workers=%d: %d calls at once", c.n, c.workers, peak.Load())
		}
	}
}

// TestDoStopsOnCancel: with one worker and a cancel inside call 3, calls
// 0..3 run and nothing after.
func TestDoStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var ran []int
	got := Do(ctx, 10, 1, func(i int) {
		mu.Lock()
		ran = append(ran, i)
		mu.Unlock()
		if i == 3 {
			cancel()
		}
	})
	if got != 4 || len(ran) != 4 || ran[3] != 3 {
		t.Errorf("started %d, ran %v; want 4 calls 0..3", got, ran)
	}
}
