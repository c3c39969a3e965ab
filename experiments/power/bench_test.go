package power

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/launch"

	"github.com/ptxtrace/ptxtrace/model"
)

// BenchmarkUnitBusy is the recorder's hot path: one sp issue with a
// divergent mask (16 lane checks on gtx480), issued every other cycle.
func BenchmarkUnitBusy(b *testing.B) {
	spec, _ := model.Preset("gtx480")
	r := NewRecorder(&spec)
	o := r.Observe(0)
	masks := [...]uint32{0xffffffff, 0x0000ffff, 0x55555555, 0x1}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t := model.Time(2 * i)
		o.UnitBusy(model.UnitEvent{Unit: model.UnitSP, Index: i & 1, From: t, To: t + 1, Active: masks[i&3]})
	}
}

// vecadd1M is the vecadd sample at n = 1,000,000.
const vecadd1M = `inputs:
  - {name: g, generator: vecadd, args: {n: 1000000, seed: 1}}
kernel: vecadd
grid: [3907]
block: [256]
params:
  - {name: a, buffer: {type: f32, init: {from: g.a}}}
  - {name: b, buffer: {type: f32, init: {from: g.b}}}
  - {name: c, buffer: {type: f32, count: 1000000, output: true}}
  - {name: n, value: g.n}
checks:
  - {buffer: c, reference: vecadd}
`

// costInput is a workload of the recording-cost measurements: vecadd at
// n = 1M or the volrender sample, on gtx480 with one model worker.
func costInput(tb testing.TB, w string) Input {
	tb.Helper()
	if w == "volrender" {
		return sampleInput(tb, "volrender")
	}
	in := sampleInput(tb, "vecadd")
	spec, err := launch.ParseSpec([]byte(vecadd1M))
	if err != nil {
		tb.Fatal(err)
	}
	in.Spec = spec
	return in
}

// quiet is an observer that ignores every event, Mem ones declined: the
// model's cost of delivering events, without any recording work.
type quiet struct{ model.BaseObserver }

func (quiet) ObservesMem() bool { return false }

// costRun is one measured model run of in: the inputs are prepared and the
// outputs checked outside the timer and outside cpu. mode 0 runs plain,
// 1 with a Session recording the activity (what ptxtrace run --activity
// does, the launches' Finish included), 2 with a quiet observer on every
// SM. It returns the process CPU time of the run (getrusage: robust to
// other processes' load, GC included), the issued warp-instructions, and
// the run's heap allocations and completed GC cycles.
func costRun(tb testing.TB, b *testing.B, in Input, mode int) costStats {
	stop := func() {
		if b != nil {
			b.StopTimer()
		}
	}
	start := func() {
		if b != nil {
			b.StartTimer()
		}
	}
	stop()
	prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: launch.SampleRegistry(), GPU: &in.Model})
	if err != nil {
		tb.Fatal(err)
	}
	var insts uint64
	var ferr error
	var sess *Session
	eo := launch.ExecOptions{Model: &in.Model, ModelOpt: model.Options{Workers: 1}}
	eo.OnLaunch = func(i int, lr *launch.LaunchResult) {
		for _, s := range lr.Timing.SMs {
			insts += s.WarpInsts
		}
		if sess != nil {
			if err := sess.Finish(i, lr); err != nil && ferr == nil {
				ferr = err
			}
		}
	}
	switch mode {
	case 1:
		sess = NewSession(&in.Model)
		eo.ModelOpt.Observe = sess.Observe
	case 2:
		eo.ModelOpt.Observe = func(part int) model.Observer {
			if part < 0 {
				return nil
			}
			return quiet{}
		}
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start()
	c0 := cpuTime()
	_, err = prep.Run(context.Background(), eo)
	c := cpuTime() - c0
	stop()
	runtime.ReadMemStats(&m1)
	if err != nil {
		tb.Fatal(err)
	}
	if ferr != nil {
		tb.Fatal(ferr)
	}
	for _, ck := range prep.Check(launch.SampleRegistry(), in.BaseDir) {
		if !ck.OK {
			tb.Fatal(ck.Msg)
		}
	}
	start()
	return costStats{cpu: c, insts: insts, allocs: m1.Mallocs - m0.Mallocs, gcs: m1.NumGC - m0.NumGC}
}

// costStats is one measured run.
type costStats struct {
	cpu           time.Duration
	insts, allocs uint64
	gcs           uint32
}

// BenchmarkRecording is the recording overhead on model time: vecadd at
// n = 1M and the volrender sample on gtx480 (one worker), plain, with a
// Session recording the activity, and with a quiet observer (event
// delivery alone). Only the model run is timed (preparing the inputs and
// checking the outputs are not), and its process CPU time is reported
// as cpu-ns/op besides wall ns/op, with allocs/op, allocs/issue and GC
// cycles per run. Run it with -benchtime=1x -count=10: the variants
// interleave, one run each per round (compare per-round ratios or medians,
// e.g. with benchstat); TestRecordingCost does the same with the variant
// order rotated and logs the distribution.
func BenchmarkRecording(b *testing.B) {
	for _, w := range []string{"vecadd1M", "volrender"} {
		in := costInput(b, w)
		for mode, name := range []string{"plain", "recording", "quiet"} {
			b.Run(w+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				var sum costStats
				for b.Loop() {
					c := costRun(b, b, in, mode)
					sum.cpu += c.cpu
					sum.insts += c.insts
					sum.allocs += c.allocs
					sum.gcs += c.gcs
				}
				n := float64(b.N)
				b.ReportMetric(float64(sum.cpu.Nanoseconds())/n, "cpu-ns/op")
				b.ReportMetric(float64(sum.gcs)/n, "gc/op")
				b.ReportMetric(float64(sum.insts)/n, "issues/op")
				b.ReportMetric(float64(sum.allocs)/float64(max(sum.insts, 1)), "allocs/issue")
			})
		}
	}
}

// feed sends n sp issues to every SM of r round robin, with
// pseudo-random gaps of 0 … 599 cycles and masks, and returns the last
// cycle.
func feed(r *Recorder, sms int, n int) model.Time {
	obs := make([]model.Observer, sms)
	for i := range obs {
		obs[i] = r.Observe(i)
	}
	now := make([]model.Time, sms)
	x := uint64(88172645463325252)
	var end model.Time
	for i := range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		sm := i % sms
		now[sm] += model.Time(x % 600)
		obs[sm].UnitBusy(model.UnitEvent{SM: sm, Unit: model.UnitSP, Index: int(x>>20) & 1, From: now[sm], To: now[sm] + 1, Active: uint32(x >> 32)})
		now[sm]++
		end = max(end, now[sm])
	}
	return end
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The recorder's memory does not grow with the number of issues but with
// the number of distinct idle-interval lengths, which saturates: 10M
// issues (≈ 10M-instruction kernel) take far less than 10 × what 1M take.
//
// The heap is measured in a process of its own: in the package's process,
// memory the earlier tests leave to be freed is freed during the
// measurement and shrinks it by megabytes.
func TestRecorderMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("10M events")
	}
	if os.Getenv("PTXTRACE_MEMBOUND_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderMemoryBounded$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "PTXTRACE_MEMBOUND_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("measuring process:\n%s", out)
		if err != nil {
			t.Fatalf("measuring process: %v", err)
		}
		return
	}
	spec, _ := model.Preset("gtx480")
	var grew [2]uint64
	for i, n := range []int{1_000_000, 10_000_000} {
		before := heap()
		r := NewRecorder(&spec)
		end := feed(r, spec.NumSMs, n)
		grew[i] = heap() - min(before, heap())
		l, err := r.Finish(end)
		if err != nil {
			t.Fatal(err)
		}
		bins := 0
		for _, b := range l.Lanes[model.UnitSP] {
			bins += len(b.Idle)
		}
		t.Logf("%d issues: %d idle bins over %d sp lanes", n, bins, len(l.Lanes[model.UnitSP]))
		runtime.KeepAlive(r)
	}
	t.Logf("heap grown by the recorder: 1M issues %d KiB, 10M issues %d KiB", grew[0]>>10, grew[1]>>10)
	if grew[1] > 2*grew[0]+1<<20 {
		t.Errorf("10M issues grew the heap by %d bytes, 1M by %d: not bounded", grew[1], grew[0])
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRecordingCost measures the recording overhead on model time: the
// process CPU time of the model run of every launch (costRun: one worker,
// preparing the inputs and checking the outputs not timed), plain, with a
// Session recording the activity (what ptxtrace run --activity does) and
// with a quiet observer (event delivery alone). PTXTRACE_POWER_COST=N
// (N ≥ 3; 1: 9) runs N rounds of each workload, one run of each variant
// per round in an order rotated every round (so no variant always runs
// first, after the inputs were built), and logs, per variant, the median
// CPU time and the distribution of the per-round overhead over plain.
func TestRecordingCost(t *testing.T) {
	env := os.Getenv("PTXTRACE_POWER_COST")
	if env == "" {
		t.Skip("set PTXTRACE_POWER_COST=1 (or a round count) to measure the recording overhead")
	}
	rounds := 9
	if n, err := strconv.Atoi(env); err == nil && n >= 3 {
		rounds = n
	}
	names := []string{"plain", "recording", "quiet"}
	for _, w := range []string{"vecadd1M", "volrender"} {
		in := costInput(t, w)
		times := make([][]time.Duration, len(names))
		var st [3]costStats
		for r := range rounds {
			for i := range names {
				v := (i + r) % len(names)
				st[v] = costRun(t, nil, in, v)
				times[v] = append(times[v], st[v].cpu)
			}
		}
		for v := range names {
			sorted := slices.Sorted(slices.Values(times[v]))
			line := fmt.Sprintf("%s %-9s n=%d: CPU median %v [min %v, max %v], %d allocs (%.4f per issue), %d GC",
				w, names[v], rounds, med(sorted).Round(time.Millisecond), sorted[0].Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond),
				st[v].allocs, float64(st[v].allocs)/float64(max(st[v].insts, 1)), st[v].gcs)
			if v > 0 {
				over := make([]float64, rounds)
				for r := range over {
					over[r] = 100 * (float64(times[v][r])/float64(times[0][r]) - 1)
				}
				slices.Sort(over)
				line += fmt.Sprintf("; overhead: median of rounds %+.1f %% [quartiles %+.1f, %+.1f; min %+.1f, max %+.1f], of medians %+.1f %%",
					over[len(over)/2], over[len(over)/4], over[(3*len(over))/4], over[0], over[len(over)-1],
					100*(float64(med(sorted))/float64(med(slices.Sorted(slices.Values(times[0]))))-1))
				line += fmt.Sprintf("; all %.1f", over)
			}
			line += fmt.Sprintf("; CPU ms %d", durMs(times[v]))
			t.Log(line)
		}
	}
}

// durMs is d in whole milliseconds.
func durMs(d []time.Duration) []int64 {
	ms := make([]int64, len(d))
	for i, x := range d {
		ms[i] = x.Milliseconds()
	}
	return ms
}

// med is the median of sorted durations.
func med(d []time.Duration) time.Duration {
	n := len(d)
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

// capture keeps one SM's recorder-relevant events in order.
type capture struct {
	model.BaseObserver
	evs []captured
}

type captured struct {
	kind int // 0 UnitBusy, 1 CTAStart, 2 CTAFinish, 3 Stall
	u    model.UnitEvent
	c    model.CTAEvent
	s    model.StallEvent
}

func (c *capture) UnitBusy(e model.UnitEvent) { c.evs = append(c.evs, captured{kind: 0, u: e}) }
func (c *capture) CTAStart(e model.CTAEvent)  { c.evs = append(c.evs, captured{kind: 1, c: e}) }
func (c *capture) CTAFinish(e model.CTAEvent) { c.evs = append(c.evs, captured{kind: 2, c: e}) }
func (c *capture) Stall(e model.StallEvent)   { c.evs = append(c.evs, captured{kind: 3, s: e}) }
func (c *capture) ObservesMem() bool          { return false }
func (c *capture) ObservesIssue() bool        { return false }

// TestRecorderProcessingCost isolates the recorder's own work from the
// noise of a loaded machine: it captures the events of one model run
// (vecadd 1M, volrender's first launch; UnitBusy, which counts the
// issues, CTA and Stall events), then times, by process CPU time,
// a fresh Recorder consuming exactly those events (median of 9), and
// compares it with the model's plain run (median of 5). The model's cost
// of delivering events to an observer is measured separately by
// TestRecordingCost's end-to-end numbers (PTXTRACE_POWER_COST=1).
func TestRecorderProcessingCost(t *testing.T) {
	if os.Getenv("PTXTRACE_POWER_COST") == "" {
		t.Skip("set PTXTRACE_POWER_COST=1 to measure the recorder's processing cost")
	}
	for _, w := range []string{"vecadd1M", "volrender"} {
		var in Input
		if w == "volrender" {
			in = sampleInput(t, "volrender")
		} else {
			in = sampleInput(t, "vecadd")
			spec, _ := launch.ParseSpec([]byte(vecadd1M))
			in.Spec = spec
		}
		var plain []time.Duration
		var caps []*capture
		var cycles model.Time
		for i := range 6 {
			prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: launch.SampleRegistry(), GPU: &in.Model})
			if err != nil {
				t.Fatal(err)
			}
			eo := launch.ExecOptions{Model: &in.Model, ModelOpt: model.Options{Workers: 1}}
			if i == 5 { // the last run captures the events of its first launch
				eo.ModelOpt.Observe = func(part int) model.Observer {
					if part < 0 || len(caps) == in.Model.NumSMs {
						return nil
					}
					c := &capture{}
					caps = append(caps, c)
					return c
				}
				eo.OnLaunch = func(i int, lr *launch.LaunchResult) {
					if i == 0 {
						cycles = lr.Timing.Cycles
					}
				}
			}
			runtime.GC()
			c0 := cpuTime()
			if _, err := prep.Run(context.Background(), eo); err != nil {
				t.Fatal(err)
			}
			if i < 5 {
				plain = append(plain, cpuTime()-c0)
			}
		}
		// replay: 0 every event, 1 without the Stall events; fin is the
		// time Finish took in replay 0
		var rec [2][]time.Duration
		var fin []time.Duration
		var counts [4]int
		for _, c := range caps {
			for i := range c.evs {
				counts[c.evs[i].kind]++
			}
		}
		for range 9 {
			for mode := range 2 {
				runtime.GC()
				c0 := cpuTime()
				r := NewRecorder(&in.Model)
				for sm, c := range caps {
					o := r.Observe(sm)
					for i := range c.evs {
						switch e := &c.evs[i]; e.kind {
						case 0:
							o.UnitBusy(e.u)
						case 1:
							o.CTAStart(e.c)
						case 2:
							o.CTAFinish(e.c)
						default:
							if mode == 0 {
								o.Stall(e.s)
							}
						}
					}
				}
				c1 := cpuTime()
				if _, err := r.Finish(cycles); err != nil {
					t.Fatal(err)
				}
				rec[mode] = append(rec[mode], cpuTime()-c0)
				if mode == 0 {
					fin = append(fin, cpuTime()-c1)
				}
			}
		}
		n := counts[0]
		slices.Sort(plain)
		slices.Sort(rec[0])
		slices.Sort(rec[1])
		slices.Sort(fin)
		t.Logf("%s: plain model run %v CPU (median of 5; all launches); recorder on the %d issues, %d stall events of launch 0: %v (median of 9, %.0f ns/issue, %.1f %% of plain), of which Finish %v; without the stall events %v",
			w, plain[2].Round(time.Millisecond), n, counts[3], rec[0][4].Round(100*time.Microsecond), float64(rec[0][4].Nanoseconds())/float64(max(n, 1)),
			100*float64(rec[0][4])/float64(plain[2]), fin[4].Round(100*time.Microsecond), rec[1][4].Round(100*time.Microsecond))
	}
}

// smEvents is one SM's captured UnitBusy, CTA and Stall events in order:
// kinds says which slice the next one comes from.
type smEvents struct {
	model.BaseObserver
	kinds []uint8 // 0 UnitBusy, 1 CTAStart, 2 CTAFinish, 3 Stall
	units []model.UnitEvent
	ctas  []model.CTAEvent
	stall []model.StallEvent
}

func (c *smEvents) UnitBusy(e model.UnitEvent) {
	c.kinds = append(c.kinds, 0)
	c.units = append(c.units, e)
}
func (c *smEvents) CTAStart(e model.CTAEvent) {
	c.kinds = append(c.kinds, 1)
	c.ctas = append(c.ctas, e)
}
func (c *smEvents) CTAFinish(e model.CTAEvent) {
	c.kinds = append(c.kinds, 2)
	c.ctas = append(c.ctas, e)
}
func (c *smEvents) Stall(e model.StallEvent) {
	c.kinds = append(c.kinds, 3)
	c.stall = append(c.stall, e)
}
func (c *smEvents) ObservesMem() bool   { return false }
func (c *smEvents) ObservesIssue() bool { return false }

// BenchmarkRecorderReplay is the recorder's own work without the model:
// the events of one model run of vecadd 1M and of volrender's first launch
// (captured once, outside the timer) replayed into a fresh Recorder per
// op, Finish included. It reports ns/issue.
func BenchmarkRecorderReplay(b *testing.B) {
	for _, w := range []string{"vecadd1M", "volrender"} {
		in := costInput(b, w)
		prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: launch.SampleRegistry(), GPU: &in.Model})
		if err != nil {
			b.Fatal(err)
		}
		var caps []*smEvents
		var cycles model.Time
		eo := launch.ExecOptions{Model: &in.Model, ModelOpt: model.Options{Workers: 1}}
		eo.ModelOpt.Observe = func(part int) model.Observer {
			if part < 0 || len(caps) == in.Model.NumSMs {
				return nil
			}
			c := &smEvents{}
			caps = append(caps, c)
			return c
		}
		eo.OnLaunch = func(i int, lr *launch.LaunchResult) {
			if i == 0 {
				cycles = lr.Timing.Cycles
			}
		}
		if _, err := prep.Run(context.Background(), eo); err != nil {
			b.Fatal(err)
		}
		issues := 0
		for _, c := range caps {
			issues += len(c.units)
		}
		b.Run(w, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				r := NewRecorder(&in.Model)
				for sm, c := range caps {
					o := r.Observe(sm)
					var u, t, s int
					for _, k := range c.kinds {
						switch k {
						case 0:
							o.UnitBusy(c.units[u])
							u++
						case 1:
							o.CTAStart(c.ctas[t])
							t++
						case 2:
							o.CTAFinish(c.ctas[t])
							t++
						default:
							o.Stall(c.stall[s])
							s++
						}
					}
				}
				if _, err := r.Finish(cycles); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*issues), "ns/issue")
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N*issues), "cpu-ns/issue")
		})
	}
}
