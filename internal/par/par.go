// Package par runs independent jobs on a bounded number of goroutines: the
// one worker pool of the batch paths (functional replay waves, the
// volume-rendering sweep, convert).
//
// Model: Do(ctx, n, workers, f) calls f(i) once for each index i in [0, n)
// that it starts, on at most workers goroutines, handing out indices in
// increasing order; once ctx is done it starts no further index (calls
// already running finish). Do returns after every started call returned.
// f must be safe to call concurrently; determinism is the caller's: write
// results by index, never in completion order. The timing model's
// per-epoch pool (model/gpu.go) is a different thing: persistent goroutines
// woken once per epoch, not a batch of jobs.
package par

import (
	"context"
	"sync"
	"sync/atomic"
)

// Do calls f(i) for i in [0, n) on at most workers goroutines (workers < 1
// counts as 1), and stops starting new indices once ctx is done. It
// reports how many calls it started.
func Do(ctx context.Context, n, workers int, f func(i int)) int {
	var next atomic.Int64
	var started atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if ctx.Err() != nil {
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				started.Add(1)
				f(i)
			}
		}()
	}
	wg.Wait()
	return int(started.Load())
}
