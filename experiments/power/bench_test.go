package power

import (
	"context"
	"os"
	"runtime"
	"slices"
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
// as cpu-ns/op besides wall ns/op, with allocs/op and allocs/issue. Run
// it with -benchtime=1x -count=10: the variants interleave, one run each
// per round (compare the medians with costcmp.py of the note, or
// benchstat).
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
func TestRecorderMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("10M events")
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
// process CPU time (getrusage: robust to other processes' load, unlike
// wall time) of the model run of every launch (launch.Prepared.Run, one
// worker; preparing the inputs and checking the outputs are not timed),
// plain and with a Session recording the activity (what ptxtrace run
// --activity does), 7 interleaved runs of each, reporting the median and
// the minimum (PTXTRACE_POWER_COST=1).
func TestRecordingCost(t *testing.T) {
	if os.Getenv("PTXTRACE_POWER_COST") == "" {
		t.Skip("set PTXTRACE_POWER_COST=1 to measure the recording overhead")
	}
	for _, w := range []string{"vecadd1M", "volrender"} {
		var in Input
		if w == "volrender" {
			in = sampleInput(t, "volrender")
		} else {
			in = sampleInput(t, "vecadd")
			spec, err := launch.ParseSpec([]byte(vecadd1M))
			if err != nil {
				t.Fatal(err)
			}
			in.Spec = spec
		}
		var times [2][]time.Duration
		var insts uint64
		for range 7 {
			for v := range 2 {
				prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: launch.SampleRegistry(), GPU: &in.Model})
				if err != nil {
					t.Fatal(err)
				}
				insts = 0
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
				if v == 1 {
					sess = NewSession(&in.Model)
					eo.ModelOpt.Observe = sess.Observe
				}
				runtime.GC()
				c0 := cpuTime()
				if _, err := prep.Run(context.Background(), eo); err != nil {
					t.Fatal(err)
				}
				times[v] = append(times[v], cpuTime()-c0)
				if ferr != nil {
					t.Fatal(ferr)
				}
				for _, c := range prep.Check(launch.SampleRegistry(), in.BaseDir) {
					if !c.OK {
						t.Fatalf("%s: %s", w, c.Msg)
					}
				}
			}
		}
		for v := range times {
			slices.Sort(times[v])
		}
		med := func(v int) time.Duration { return times[v][len(times[v])/2] }
		t.Logf("%s (%d warp-instructions): model CPU median plain %v, recording %v: %+.1f %%; minimum %v, %v: %+.1f %%", w, insts,
			med(0).Round(time.Millisecond), med(1).Round(time.Millisecond), 100*(float64(med(1))/float64(med(0))-1),
			times[0][0].Round(time.Millisecond), times[1][0].Round(time.Millisecond), 100*(float64(times[1][0])/float64(times[0][0])-1))
	}
}

// capture keeps one SM's recorder-relevant events in order.
type capture struct {
	model.BaseObserver
	evs []captured
}

type captured struct {
	kind int // 0 UnitBusy, 1 CTAStart, 2 CTAFinish
	u    model.UnitEvent
	c    model.CTAEvent
}

func (c *capture) UnitBusy(e model.UnitEvent) { c.evs = append(c.evs, captured{kind: 0, u: e}) }
func (c *capture) CTAStart(e model.CTAEvent)  { c.evs = append(c.evs, captured{kind: 1, c: e}) }
func (c *capture) CTAFinish(e model.CTAEvent) { c.evs = append(c.evs, captured{kind: 2, c: e}) }

// TestRecorderProcessingCost isolates the recorder's own work from the
// noise of a loaded machine: it captures the events of one model run
// (vecadd 1M, volrender's first launch), then times, by process CPU time,
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
		var rec []time.Duration
		n := 0
		for range 9 {
			runtime.GC()
			c0 := cpuTime()
			r := NewRecorder(&in.Model)
			n = 0
			for sm, c := range caps {
				o := r.Observe(sm)
				for i := range c.evs {
					switch e := &c.evs[i]; e.kind {
					case 0:
						o.UnitBusy(e.u)
						n++
					case 1:
						o.CTAStart(e.c)
					default:
						o.CTAFinish(e.c)
					}
				}
			}
			if _, err := r.Finish(cycles); err != nil {
				t.Fatal(err)
			}
			rec = append(rec, cpuTime()-c0)
		}
		slices.Sort(plain)
		slices.Sort(rec)
		t.Logf("%s: plain model run %v CPU (median of 5; all launches); recorder on the %d issues of launch 0: %v (median of 9, %.0f ns/issue)",
			w, plain[2].Round(time.Millisecond), n, rec[4].Round(100*time.Microsecond), float64(rec[4].Nanoseconds())/float64(max(n, 1)))
	}
}
