package model

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// BenchmarkWorkerPoolEpoch measures the worker pool's per-epoch hand-off
// alone: gtx480's 15 SMs with no CTA (each run only moves the SM's clock to
// the epoch end), with and without the overlapped side job, one op = one
// epoch. Run it with -cpu 2: the time is what every epoch of a real
// simulation pays on top of its SMs' work.
func BenchmarkWorkerPoolEpoch(b *testing.B) {
	s := GTX480()
	for _, side := range []bool{false, true} {
		name := "plain"
		if side {
			name = "side"
		}
		b.Run(name, func(b *testing.B) {
			sms := newSMs(b, &s)
			workers := min(runtime.GOMAXPROCS(0), len(sms))
			if workers < 2 {
				b.Skip("needs GOMAXPROCS >= 2")
			}
			p := newWorkerPool(sms, nil, workers)
			defer p.stop()
			var f func()
			n := 0
			if side {
				f = func() { n++ }
			}
			q := Time(s.Quantum())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.runEpoch(Time(i+1)*q, f)
			}
			b.StopTimer()
			if side && n != b.N {
				b.Fatalf("side job ran %d times in %d epochs", n, b.N)
			}
			for _, sm := range sms {
				if sm.now != Time(b.N)*q {
					b.Fatalf("SM %d at %d, want %d", sm.id, sm.now, Time(b.N)*q)
				}
			}
		})
	}
}

// TestSMsIsolated: no 64-byte cache line holds data that two different SMs
// write while they run (trailing cachePads are not data), on every preset:
// the SMs' own structs, the arrays isolate moves, their policies, and the
// warp states and register timers their first CTAs make. Data of two SMs on
// one line would be passed between cores every cycle with workers (false
// sharing).
func TestSMsIsolated(t *testing.T) {
	for _, name := range PresetNames() {
		t.Run(name, func(t *testing.T) {
			s, _ := Preset(name)
			prog := make([]step, 1000) // longer than an epoch
			for i := range prog {
				prog[i] = step{in: alu(ClassInt, regs(Reg(3+i%8)), 1, 2)}
			}
			k := &fakeKernel{ctas: 2 * s.NumSMs, threads: 64, regs: 16, concurrent: true, norecord: true, prog: prog}
			g, err := newGPU(&s, k, &Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer g.close()
			if err := g.dispatchInitial(); err != nil {
				t.Fatal(err)
			}
			g.epoch(Time(s.Quantum())) // the CTAs start: warp states and register timers
			type block struct {
				lo, hi uintptr
				sm     int
				what   string
			}
			var bs []block
			pad := unsafe.Sizeof(cachePad{})
			add := func(p unsafe.Pointer, n uintptr, sm int, what string) {
				if p != nil && n > 0 {
					bs = append(bs, block{uintptr(p), uintptr(p) + n, sm, what})
				}
			}
			addSlice := func(p unsafe.Pointer, capacity int, elem uintptr, sm int, what string) {
				add(p, uintptr(capacity)*elem, sm, what)
			}
			for i, sm := range g.sms {
				add(unsafe.Pointer(sm), unsafe.Sizeof(*sm), i, "smState")
				for j, p := range sm.policies {
					add(reflect.ValueOf(p).UnsafePointer(), reflect.TypeOf(p).Elem().Size()-pad, i, fmt.Sprint("policy ", j))
				}
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.scheds)), cap(sm.scheds), unsafe.Sizeof(IssueQueue{}), i, "scheds")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.reasons)), cap(sm.reasons), 1, i, "reasons")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.units)), cap(sm.units), unsafe.Sizeof(unitInst{}), i, "units")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.slots)), cap(sm.slots), unsafe.Sizeof(sm), i, "slots")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.outbox)), cap(sm.outbox), unsafe.Sizeof(memReq{}), i, "outbox")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.inbox)), cap(sm.inbox), unsafe.Sizeof(timed{}), i, "inbox")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.missq)), cap(sm.missq), 8, i, "missq")
				addSlice(unsafe.Pointer(unsafe.SliceData(sm.freed)), cap(sm.freed), 8, i, "freed")
				for _, c := range []*cache{sm.l1, sm.tex, sm.cnst} {
					add(unsafe.Pointer(c), unsafe.Sizeof(*c)-pad, i, "cache")
					addSlice(unsafe.Pointer(unsafe.SliceData(c.mshrs)), cap(c.mshrs), unsafe.Sizeof(mshr{}), i, "mshrs")
					addSlice(unsafe.Pointer(unsafe.SliceData(c.free)), cap(c.free), 4, i, "mshr free list")
				}
				nw := 0
				for _, w := range sm.slots {
					if w == nil {
						continue
					}
					nw++
					add(unsafe.Pointer(w), unsafe.Sizeof(*w)-pad, i, "warpState")
					addSlice(unsafe.Pointer(unsafe.SliceData(w.regs)), cap(w.regs), unsafe.Sizeof(regState(0)), i, "regs")
				}
				if nw == 0 {
					t.Fatalf("SM %d has no warp after the first epoch", i)
				}
			}
			sort.Slice(bs, func(i, j int) bool { return bs[i].lo < bs[j].lo })
			for i := 1; i < len(bs); i++ {
				a, b := bs[i-1], bs[i]
				if a.sm != b.sm && (a.hi-1)/64 >= b.lo/64 {
					t.Errorf("SM %d's %s [%#x,%#x) and SM %d's %s [%#x,%#x) share a cache line",
						a.sm, a.what, a.lo, a.hi, b.sm, b.what, b.lo, b.hi)
				}
			}
		})
	}
}

// TestWorkerPoolOrder: every worker tries every SM exactly once, its own
// block (SMs w*n/W up to (w+1)*n/W) first and in index order, then the
// others from the highest index below its block downwards, wrapping around.
func TestWorkerPoolOrder(t *testing.T) {
	s := GTX480()
	for n := 2; n <= 20; n++ {
		sms := make([]*smState, n)
		for i := range sms {
			sms[i] = &smState{id: i, spec: &s}
		}
		for workers := 2; workers <= n; workers++ {
			p := newWorkerPool(sms, nil, workers)
			for w, o := range p.order {
				lo, hi := w*n/workers, (w+1)*n/workers
				want := []int{}
				for i := lo; i < hi; i++ {
					want = append(want, i)
				}
				for i := lo - 1; i >= 0; i-- {
					want = append(want, i)
				}
				for i := n - 1; i >= hi; i-- {
					want = append(want, i)
				}
				if !reflect.DeepEqual(o, want) {
					t.Errorf("n %d workers %d: worker %d order %v, want %v", n, workers, w, o, want)
				}
			}
			p.stop()
		}
	}
}

// TestWorkerPoolClaims: with 2 and 4 workers, every SM is taken exactly
// once in every epoch (its claim slot holds the epoch) and reaches the
// epoch's end.
func TestWorkerPoolClaims(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	s := GTX480()
	for _, workers := range []int{2, 4} {
		sms := newSMs(t, &s)
		p := newWorkerPool(sms, nil, workers)
		for e := 1; e <= 200; e++ {
			p.runEpoch(Time(e)*64, nil)
			for i := range sms {
				if got := p.claim[i].ep.Load(); got != uint64(e) || sms[i].now != Time(e)*64 {
					t.Fatalf("workers %d epoch %d: SM %d claimed in epoch %d, at cycle %d", workers, e, i, got, sms[i].now)
				}
			}
		}
		p.stop()
	}
}

// newSMs builds s's SMs with their default policies and no observer.
func newSMs(tb testing.TB, s *Spec) []*smState {
	tb.Helper()
	sms := make([]*smState, s.NumSMs)
	for i := range sms {
		pols, err := policiesOf(s, i, nil)
		if err != nil {
			tb.Fatal(err)
		}
		sms[i] = newSM(i, s, pols, nil)
	}
	return sms
}

// TestParker: a waiter and a notifier hand a counter back and forth many
// times, spinning and not; a lost wake-up would hang the test, a wait that
// returned early would see the counter behind.
func TestParker(t *testing.T) {
	for _, spin := range []bool{false, true} {
		t.Run(fmt.Sprint("spin=", spin), func(t *testing.T) {
			const rounds = 20000
			var a, b atomic.Int64
			pa, pb := newParker(), newParker()
			done := make(chan int64)
			go func() {
				for i := int64(1); i <= rounds; i++ {
					pb.wait(spin, func() bool { return b.Load() >= i })
					a.Store(i)
					pa.notify()
				}
				done <- b.Load()
			}()
			for i := int64(1); i <= rounds; i++ {
				b.Store(i)
				pb.notify()
				pa.wait(spin, func() bool { return a.Load() >= i })
				if got := a.Load(); got != i {
					t.Fatalf("round %d: waiter saw %d", i, got)
				}
			}
			if got := <-done; got != rounds {
				t.Fatalf("helper ended at %d, want %d", got, rounds)
			}
		})
	}
}

// TestParkerParkRun: waits that must park (the notifier acts only once
// the waiter has announced that it sleeps) count up; a wait whose
// condition holds at once ends the run.
func TestParkerParkRun(t *testing.T) {
	q := newParker()
	q.wait(true, func() bool { return true })
	if q.parks != 0 {
		t.Fatalf("after a ready wait: parks = %d, want 0", q.parks)
	}
	for i := 1; i <= parkRun+1; i++ {
		var flag atomic.Bool
		go func() {
			for !q.sleeping.Load() {
				runtime.Gosched()
			}
			flag.Store(true)
			q.notify()
		}()
		q.wait(true, flag.Load)
		if q.parks != i {
			t.Fatalf("after %d parked waits: parks = %d", i, q.parks)
		}
	}
	q.wait(true, func() bool { return true })
	if q.parks != 0 {
		t.Fatalf("after a ready wait: parks = %d, want 0", q.parks)
	}
}

// TestWorkerPoolJobThenEpoch: a job started with startJob (the overlapped
// memory side's) and the next runEpoch both finish before runEpoch
// returns, and the before hook runs, whatever GOMAXPROCS.
func TestWorkerPoolJobThenEpoch(t *testing.T) {
	s := GTX480()
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("procs=", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			sms := newSMs(t, &s)
			p := newWorkerPool(sms, nil, 2)
			defer p.stop()
			q := Time(s.Quantum())
			var jobs, seen atomic.Int64
			p.before = func(i int) {
				if i == 0 {
					seen.Store(jobs.Load())
				}
			}
			for e := 1; e <= 200; e++ {
				p.startJob(func() { time.Sleep(time.Duration(e%3) * time.Microsecond); jobs.Add(1) })
				p.runEpoch(Time(e)*q, nil)
				if got := jobs.Load(); got != int64(e) {
					t.Fatalf("epoch %d: %d jobs done when runEpoch returned", e, got)
				}
				for _, sm := range sms {
					if sm.now != Time(e)*q {
						t.Fatalf("epoch %d: SM %d at %d", e, sm.id, sm.now)
					}
				}
			}
			if seen.Load() < 1 {
				t.Fatal("before hook never ran")
			}
		})
	}
}
