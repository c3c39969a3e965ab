package model

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestWorkerCounts: the result of a concurrent kernel is the serial path's
// (the same kernel refusing concurrency) for Workers 1, 2, 4 and 8 under
// GOMAXPROCS 1 and 2, on presets whose memory side overlaps the SMs and on
// a spec whose short L2 latency forbids the overlap.
func TestWorkerCounts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	noOverlap := GTX480()
	noOverlap.Name = "gtx480-no-overlap"
	noOverlap.L2.Latency = 40 // 2*64 > 2*8+40: the memory side may not lag
	for _, c := range []struct {
		spec    Spec
		overlap bool
		kernel  func(concurrent bool) *fakeKernel
	}{
		{GTX480(), true, mixed},
		{RTX3080(), true, mixed},
		{GTX480(), true, func(c bool) *fakeKernel { return vecAdd(1<<15, 256, c) }},
		{noOverlap, false, func(c bool) *fakeKernel { return vecAdd(1<<14, 128, c) }},
	} {
		s := c.spec
		if got := overlapMemory(&s); got != c.overlap {
			t.Fatalf("%s: overlapMemory %v, want %v", s.Name, got, c.overlap)
		}
		k := c.kernel(false)
		t.Run(fmt.Sprintf("%s/%d-ctas", s.Name, k.ctas), func(t *testing.T) {
			ref, err := Run(context.Background(), s, k, Options{Workers: 4})
			if err != nil {
				t.Fatal(err)
			}
			if ref.Cycles == 0 || ref.L2.Accesses == 0 {
				t.Fatalf("empty result %+v", ref)
			}
			for _, procs := range []int{1, 2} {
				for _, workers := range []int{1, 2, 4, 8} {
					runtime.GOMAXPROCS(procs)
					r, err := Run(context.Background(), s, c.kernel(true), Options{Workers: workers})
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(ref, r) {
						t.Fatalf("GOMAXPROCS %d workers %d: result differs from the serial path (cycles %d vs %d)",
							procs, workers, r.Cycles, ref.Cycles)
					}
				}
			}
		})
	}
}

// stopAt issues oldest first before cycle at and nothing from then on,
// without asking to be woken: the SMs deadlock with requests in flight.
type stopAt struct{ at Time }

func (p *stopAt) Issue(q *IssueQueue) {
	if q.Now() >= p.at {
		return
	}
	for i := 0; i < q.Len(); i++ {
		if q.TryIssue(i) {
			return
		}
	}
}

func (p *stopAt) Removed(int) {}

// TestDeadlockWorkers: a deadlock is reported at the same cycle, with the
// same words, on the serial path and with any number of workers (with
// overlap the memory side is one horizon behind when the SMs look stuck,
// and is caught up before the verdict).
func TestDeadlockWorkers(t *testing.T) {
	var ref string
	for _, v := range []struct {
		concurrent bool
		workers    int
	}{{false, 1}, {true, 1}, {true, 2}, {true, 4}, {true, 8}} {
		// every warp's first instruction is a load (DRAM misses still in
		// flight when the policy stops at cycle 40), the second uses it
		k := &fakeKernel{ctas: 30, threads: 128, regs: 16, concurrent: v.concurrent,
			progOf: func(cta, w int) []step {
				return []step{
					{in: ld(SpaceGlobal, 1, 2), addr: strided(uint64(cta)<<16+uint64(w)*4096, 4)},
					{in: alu(ClassInt, regs(3), 1)},
				}
			}}
		pol := func(int, int) IssuePolicy { return &stopAt{at: 40} }
		_, err := Run(context.Background(), GTX480(), k, Options{Workers: v.workers, Policy: pol, MaxCycles: 1e6})
		if err == nil || !strings.Contains(err.Error(), "deadlock at cycle") {
			t.Fatalf("concurrent %v workers %d: err %v, want a deadlock", v.concurrent, v.workers, err)
		}
		if ref == "" {
			ref = err.Error()
			continue
		}
		if err.Error() != ref {
			t.Fatalf("concurrent %v workers %d: %v, want %v", v.concurrent, v.workers, err, ref)
		}
	}
}
