package model

import (
	"context"
	"math/rand"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// This file tests the extension seams: a caller's issue policy, observers,
// the lookahead window and the event heap.

// oldestFirst is an issue policy written outside sm.go with the public
// API only: every cycle it tries the warps oldest first (round robin
// restarting at the oldest warp) and issues the first that can issue.
type oldestFirst struct{ calls int }

func (p *oldestFirst) Issue(q *IssueQueue) {
	p.calls++
	for i := 0; i < q.Len(); i++ {
		if q.TryIssue(i) {
			return
		}
	}
}

func (p *oldestFirst) Removed(int) {}

// twoDependent is one CTA of two warps on a one-scheduler GTX480 SM; each
// warp runs r1 = fp32; r2 = fp32(r1); r3 = fp32; r4 = fp32.
func twoDependent() (Spec, *fakeKernel) {
	s := GTX480()
	s.SM.Schedulers = 1
	s.SM.Scheduler = LRR
	prog := []step{
		{in: alu(ClassFP32, regs(1))},
		{in: alu(ClassFP32, regs(2), 1)},
		{in: alu(ClassFP32, regs(3))},
		{in: alu(ClassFP32, regs(4))},
	}
	return s, &fakeKernel{ctas: 1, threads: 2 * WarpSize, regs: 8, prog: prog}
}

func TestCustomPolicy(t *testing.T) {
	// FP32 on GTX480: latency 4; an SP instance (16 lanes at 2x clock) is
	// busy ceil(32/32)*1 = 1 cycle and there are two, so only the single
	// scheduler and the RAW dependency limit issue.
	//
	// Oldest first: c0 w0.i0; c1 w0.i1 waits for r1 (ready at 4) -> w1.i0;
	// c2, c3 nothing ready (w1.i1 waits until 5); c4 w0.i1; c5 w0.i2 (w1.i1
	// is ready too, w0 is older); c6 w0.i3; c7-c9 w1.i1-i3.
	//
	// LRR (the spec's policy, pointer starting at warp 0 so warp 1 goes
	// first): c0 w1.i0; c1 w0.i0; c4 w1.i1 (r1 at 4); c5 w0.i1 (r1 at 5);
	// then alternating: c6 w1.i2, c7 w0.i2, c8 w1.i3, c9 w0.i3.
	for _, c := range []struct {
		name   string
		policy func(sm, sched int) IssuePolicy
		want   [2][]Time
	}{
		{"oldest-first", func(int, int) IssuePolicy { return &oldestFirst{} }, [2][]Time{{0, 4, 5, 6}, {1, 7, 8, 9}}},
		{"spec lrr", nil, [2][]Time{{1, 5, 7, 9}, {0, 4, 6, 8}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, k := twoDependent()
			var made []*oldestFirst
			pol := c.policy
			if pol != nil {
				pol = func(sm, sched int) IssuePolicy {
					p := c.policy(sm, sched).(*oldestFirst)
					made = append(made, p)
					return p
				}
			}
			if _, err := Run(context.Background(), s, k, Options{Policy: pol}); err != nil {
				t.Fatal(err)
			}
			for w, fw := range k.made {
				if !slices.Equal(fw.issues, c.want[w]) {
					t.Errorf("warp %d issued at %v, want %v", w, fw.issues, c.want[w])
				}
			}
			if pol != nil {
				if len(made) != s.NumSMs*s.SM.Schedulers {
					t.Errorf("Policy called %d times, want one per scheduler (%d)", len(made), s.NumSMs*s.SM.Schedulers)
				}
				calls := 0
				for _, p := range made {
					calls += p.calls
				}
				if calls == 0 {
					t.Error("the custom policy was never asked")
				}
			}
		})
	}
}

func TestPolicyErrors(t *testing.T) {
	s, k := twoDependent()
	if _, err := Run(context.Background(), s, k, Options{Policy: func(int, int) IssuePolicy { return nil }}); err == nil {
		t.Error("a nil policy must be an error")
	}
	if _, err := NewPolicy(&s, "fifo"); err == nil {
		t.Error("NewPolicy of an unknown name must fail")
	}
	for _, n := range PolicyNames() {
		s := GTX480()
		s.SM.Scheduler = n
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if _, err := NewPolicy(&s, n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// sfuCounter counts the cycles the SFU instances are busy.
type sfuCounter struct {
	BaseObserver
	busy   Time
	issues int
	off    int // SFU issues with no active lane
}

func (c *sfuCounter) UnitBusy(e UnitEvent) {
	if e.Unit == UnitSFU {
		c.busy += e.To - e.From
	}
}

func (c *sfuCounter) Issue(e IssueEvent) {
	if e.Unit == UnitSFU {
		c.issues++
		if e.Active == 0 {
			c.off++
		}
		if e.Inst.Class != ClassSFU {
			panic("SFU unit for a non-SFU instruction")
		}
	}
}

func TestObserverSFUBusy(t *testing.T) {
	// 3 CTAs of 2 warps; each warp issues three SFU instructions (one
	// predicated off, which still occupies the unit) and one FP32 add.
	// GTX480's SFU has 4 lanes at 2x clock: a warp instruction needs
	// ceil(32/(4*2)) = 4 passes of interval 1, so the unit is busy 4
	// cycles per SFU instruction: 3*2*3*4 = 72 cycles.
	k := &fakeKernel{ctas: 3, threads: 2 * WarpSize, regs: 8, prog: []step{
		{in: alu(ClassSFU, regs(1))},
		{in: alu(ClassSFU, regs(2)), off: true},
		{in: alu(ClassFP32, regs(3), 1)},
		{in: alu(ClassSFU, regs(4), 3)},
	}}
	var obs []*sfuCounter
	opt := Options{Observe: func(part int) Observer {
		if part == MemorySide {
			return nil
		}
		c := &sfuCounter{}
		obs = append(obs, c)
		return c
	}}
	if _, err := Run(context.Background(), GTX480(), k, opt); err != nil {
		t.Fatal(err)
	}
	var total sfuCounter
	for _, c := range obs {
		total.busy += c.busy
		total.issues += c.issues
		total.off += c.off
	}
	if total.busy != 72 || total.issues != 18 || total.off != 6 {
		t.Errorf("SFU busy %d cycles, %d issues (%d predicated off), want 72, 18, 6", total.busy, total.issues, total.off)
	}
	if len(obs) != GTX480().NumSMs {
		t.Errorf("Observe called for %d SMs, want %d", len(obs), GTX480().NumSMs)
	}
}

// recorder keeps every event it is given.
type recorder struct {
	issues []IssueEvent
	units  []UnitEvent
	stalls []StallEvent
	starts []CTAEvent
	ends   []CTAEvent
	mems   []MemEvent
}

func (r *recorder) Issue(e IssueEvent)   { r.issues = append(r.issues, e) }
func (r *recorder) UnitBusy(e UnitEvent) { r.units = append(r.units, e) }
func (r *recorder) Stall(e StallEvent)   { r.stalls = append(r.stalls, e) }
func (r *recorder) CTAStart(e CTAEvent)  { r.starts = append(r.starts, e) }
func (r *recorder) CTAFinish(e CTAEvent) { r.ends = append(r.ends, e) }
func (r *recorder) Mem(e MemEvent)       { r.mems = append(r.mems, e) }

// record runs k with a recorder on every part; parts[0] is the memory
// side, parts[1+i] SM i.
func record(t *testing.T, s Spec, k Kernel, workers int) (*Result, []*recorder) {
	t.Helper()
	parts := make([]*recorder, s.NumSMs+1)
	opt := Options{Workers: workers, Observe: func(part int) Observer {
		r := &recorder{}
		parts[part+1] = r
		return r
	}}
	res, err := Run(context.Background(), s, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, parts
}

func TestObserverConsistent(t *testing.T) {
	for _, s := range []Spec{GTX480(), RTX3080()} {
		t.Run(s.Name, func(t *testing.T) {
			plain, err := Run(context.Background(), s, mixed(false), Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, parts := record(t, s, mixed(false), 1)
			if !reflect.DeepEqual(plain, res) {
				t.Fatal("attaching observers changed the result")
			}
			// the events agree with the counters, which are kept apart
			var st [NumStallReasons]uint64
			var warpInsts uint64
			var starts, ends int
			var cs [NumMemLevels][5]uint64 // outcome counts per level
			for _, r := range parts {
				for _, e := range r.stalls {
					st[e.Reason] += uint64(e.To - e.From)
				}
				warpInsts += uint64(len(r.issues))
				starts += len(r.starts)
				ends += len(r.ends)
				for _, e := range r.mems {
					cs[e.Level][e.Outcome]++
				}
				if len(r.units) != len(r.issues) {
					t.Errorf("%d unit events for %d issues", len(r.units), len(r.issues))
				}
			}
			if got := stallsOf(&st); got != res.Stalls {
				t.Errorf("stall events sum to %+v, Result.Stalls is %+v", got, res.Stalls)
			}
			if warpInsts != res.WarpInsts || starts != res.CTAs || ends != res.CTAs {
				t.Errorf("%d issues, %d starts, %d finishes; result: %d warp insts, %d CTAs", warpInsts, starts, ends, res.WarpInsts, res.CTAs)
			}
			for _, c := range []struct {
				lv MemLevel
				cs CacheStats
			}{{LevelL1, res.L1D}, {LevelTex, res.Tex}, {LevelConst, res.Const}} {
				got := cs[c.lv]
				if got[Hit] != c.cs.Hits || got[Miss] != c.cs.Misses || got[Merged] != c.cs.Merged {
					t.Errorf("%s events hit/miss/merged %d/%d/%d, stats %d/%d/%d", c.lv, got[Hit], got[Miss], got[Merged], c.cs.Hits, c.cs.Misses, c.cs.Merged)
				}
			}
			l2 := cs[LevelL2]
			if l2[Hit] != res.L2.Hits || l2[Miss] != res.L2.Misses || l2[Merged] != res.L2.Merged || l2[Hit]+l2[Miss]+l2[Merged]+l2[Write] != res.L2.Accesses {
				t.Errorf("L2 events %v, stats %+v", l2, res.L2)
			}
			if d := cs[LevelDRAM]; d[Hit]+d[Miss] != res.DRAM.Reads+res.DRAM.Writes || d[Hit] != res.DRAM.RowHits {
				t.Errorf("DRAM events %v, stats %+v", d, res.DRAM)
			}
			if uint64(cs[LevelShared][Hit]) != res.Shared.Insts {
				t.Errorf("%d shared events, %d shared instructions", cs[LevelShared][Hit], res.Shared.Insts)
			}
			if res.L1D.Misses == 0 || res.L2.Misses == 0 || res.Shared.Insts == 0 {
				t.Fatalf("kernel does not exercise the memory levels: %+v", res)
			}
		})
	}
}

func TestObserverDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	s := GTX480()
	ref, refParts := record(t, s, mixed(true), 1)
	for _, c := range []struct{ procs, workers int }{{2, 2}, {4, 4}, {8, 3}} {
		runtime.GOMAXPROCS(c.procs)
		res, parts := record(t, s, mixed(true), c.workers)
		if !reflect.DeepEqual(ref, res) {
			t.Fatalf("workers %d: result differs", c.workers)
		}
		for i := range parts {
			if !reflect.DeepEqual(refParts[i], parts[i]) {
				t.Fatalf("workers %d GOMAXPROCS %d: events of part %d differ", c.workers, c.procs, i-1)
			}
		}
	}
}

func TestWindowDefault(t *testing.T) {
	k := oneWarp([]step{{in: alu(ClassInt, regs(1))}, {in: alu(ClassInt, regs(2))}})
	c, err := k.NewCTA(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := c.Warps()[0]
	if got := Window(w, nil, 4); len(got) != 1 || got[0] != k.prog[0].in {
		t.Errorf("Window of a warp without lookahead = %v, want its head", got)
	}
	if got := Window(w, nil, 0); len(got) != 0 {
		t.Errorf("Window(0) = %v, want nothing", got)
	}
}

func TestTimeHeap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var h timeHeap
	var want []timed
	for i := 0; i < 500; i++ {
		x := timed{t: Time(rng.Intn(50)), seq: uint64(i), v: uint64(i)}
		h.push(x)
		want = append(want, x)
		if i%7 == 0 { // interleave pops
			slices.SortFunc(want, func(a, b timed) int {
				if a.before(&b) {
					return -1
				}
				return 1
			})
			if got := h.pop(); got != want[0] {
				t.Fatalf("pop %v, want %v", got, want[0])
			}
			want = want[1:]
		}
	}
	slices.SortFunc(want, func(a, b timed) int {
		if a.t != b.t {
			return int(a.t) - int(b.t)
		}
		return int(a.seq) - int(b.seq)
	})
	for _, x := range want {
		if got := h.pop(); got != x {
			t.Fatalf("pop %v, want %v", got, x)
		}
	}
	if len(h) != 0 {
		t.Fatal("heap not empty")
	}
}

// holdUntil issues nothing before cycle at (asking to be woken then when
// wake is set), then oldest first.
type holdUntil struct {
	at   Time
	wake bool
}

func (p *holdUntil) Issue(q *IssueQueue) {
	if q.Now() < p.at {
		if p.wake {
			q.WakeAt(p.at)
		}
		return
	}
	for i := 0; i < q.Len(); i++ {
		if q.TryIssue(i) {
			return
		}
	}
}

func (p *holdUntil) Removed(int) {}

func TestPolicyWakeAt(t *testing.T) {
	prog := []step{{in: alu(ClassInt, regs(1))}, {in: alu(ClassInt, regs(2))}}
	k := oneWarp(prog)
	pol := func(int, int) IssuePolicy { return &holdUntil{at: 10, wake: true} }
	if _, err := Run(context.Background(), GTX480(), k, Options{Policy: pol}); err != nil {
		t.Fatal(err)
	}
	// held until 10, then two independent instructions back to back
	if got := k.made[0].issues; !slices.Equal(got, []Time{10, 11}) {
		t.Errorf("issued at %v, want [10 11]", got)
	}
	// without WakeAt nothing can wake the SM: an error, not a wrong time
	k = oneWarp(prog)
	pol = func(int, int) IssuePolicy { return &holdUntil{at: 10} }
	if _, err := Run(context.Background(), GTX480(), k, Options{Policy: pol}); err == nil {
		t.Error("a policy that never wakes must end in a deadlock error")
	}
}

// noMem is a recorder that declines memory events (MemFilter).
type noMem struct{ recorder }

func (*noMem) ObservesMem() bool { return false }

// TestMemFilter: an SM observer that declines Mem events gets none, and
// every other event exactly as an observer that takes them all; the
// result is unchanged.
func TestMemFilter(t *testing.T) {
	s := GTX480()
	ref, refParts := record(t, s, mixed(false), 1)
	parts := make([]*noMem, s.NumSMs)
	res, err := Run(context.Background(), s, mixed(false), Options{Observe: func(part int) Observer {
		if part == MemorySide {
			return nil
		}
		parts[part] = &noMem{}
		return parts[part]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ref, res) {
		t.Fatal("declining Mem events changed the result")
	}
	mems := 0
	for i, p := range parts {
		r := refParts[i+1]
		mems += len(r.mems)
		if len(p.mems) != 0 {
			t.Errorf("SM %d: %d Mem events sent to an observer that declined them", i, len(p.mems))
		}
		if !reflect.DeepEqual(p.issues, r.issues) || !reflect.DeepEqual(p.stalls, r.stalls) || !reflect.DeepEqual(p.units, r.units) ||
			!reflect.DeepEqual(p.starts, r.starts) || !reflect.DeepEqual(p.ends, r.ends) {
			t.Errorf("SM %d: other events differ", i)
		}
	}
	if mems == 0 {
		t.Fatal("the kernel sends no SM-side Mem events: the test shows nothing")
	}
}
