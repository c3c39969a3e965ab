package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

// concSamples are the samples whose kernels qualify for ConcurrentIssue.
var concSamples = []string{"vecadd", "matmul", "hotspot", "volrender"}

// concRun is everything a timing run produces that must not depend on
// Workers, GOMAXPROCS or the serial/parallel path.
type concRun struct {
	outputs map[string][]byte
	traces  [][]byte
	timing  []*model.Result
	conc    []bool
	why     []string
	printf  []byte
}

// runConc runs sample name (instrumented in auto mode when instr is set) on
// gtx480 with the given model workers and GOMAXPROCS; serial forces the
// serial path.
func runConc(t testing.TB, name string, instr bool, workers, procs int, serial bool) concRun {
	t.Helper()
	old := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(old)
	ms, _ := model.Preset("gtx480")
	spec, dir := loadSampleSpec(t, name)
	path := filepath.Join("..", "samples", name, name+".sm_52.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := launch.PrepareOptions{BaseDir: dir, Registry: launch.SampleRegistry(), NumSMs: ms.NumSMs}
	if instr {
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := instrument.Instrument(fset, f, instrument.Options{Mode: "auto", Output: path})
		if err != nil {
			t.Fatalf("instrument %s: %v", name, err)
		}
		src = res.PTX
		o.Manifest = res.Manifest
	}
	prog := progFromSrc(t, name+".ptx", string(src))
	prep, err := spec.Prepare(prog, o)
	if err != nil {
		t.Fatal(err)
	}
	var r concRun
	var kernels []string
	eo := launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: workers}, Serial: serial,
		OnLaunch: func(i int, lr *launch.LaunchResult) {
			if !slices.Contains(kernels, lr.Kernel) {
				kernels = append(kernels, lr.Kernel)
			}
			if lr.Trace != nil {
				r.traces = append(r.traces, append([]byte(nil), lr.Trace.Data...))
			}
			r.timing = append(r.timing, lr.Timing)
		}}
	// record the ConcurrentIssue answer of every launch's kernel
	res, err := prep.Run(context.Background(), eo)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range kernels {
		c, err := prog.Lower(name)
		if err != nil {
			t.Fatal(err)
		}
		ok, why := replay.ConcurrentSafe(c)
		r.conc = append(r.conc, ok)
		r.why = append(r.why, c.Name+": "+why)
	}
	r.outputs = outputs(prep)
	r.printf = res.Printf
	return r
}

func (a concRun) diff(b concRun) string {
	if !reflect.DeepEqual(a.outputs, b.outputs) {
		return "output buffers differ"
	}
	if len(a.traces) != len(b.traces) {
		return "number of trace buffers differs"
	}
	for i := range a.traces {
		if !bytes.Equal(a.traces[i], b.traces[i]) {
			return fmt.Sprintf("trace buffer of launch %d differs", i)
		}
	}
	if len(a.timing) != len(b.timing) {
		return "number of launches differs"
	}
	for i := range a.timing {
		if !reflect.DeepEqual(a.timing[i], b.timing[i]) {
			x, y := a.timing[i], b.timing[i]
			return fmt.Sprintf("model result of launch %d differs (cycles %d vs %d, warp insts %d vs %d)",
				i, x.Cycles, y.Cycles, x.WarpInsts, y.WarpInsts)
		}
	}
	if !bytes.Equal(a.printf, b.printf) {
		return "printf output differs"
	}
	return ""
}

// TestConcurrentIssueSamples: the samples qualify, and their timing runs
// (plain and instrumented) give identical outputs, trace buffers and model
// results with Workers 1, 2, 4 and 8, GOMAXPROCS 1, 2 and 8, and on the
// serial path (with workers the model's memory side overlaps the SMs).
func TestConcurrentIssueSamples(t *testing.T) {
	combos := [][2]int{{1, 1}, {4, 8}, {4, 1}, {1, 8}, {0, 2}, {2, 2}, {8, 2}}
	names := concSamples
	if testing.Short() {
		combos = [][2]int{{1, 1}, {4, 8}}
		names = []string{"vecadd", "matmul"}
	}
	for _, name := range names {
		for _, instr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/instrumented=%v", name, instr), func(t *testing.T) {
				ref := runConc(t, name, instr, 1, 1, true)
				if len(ref.timing) == 0 || ref.timing[0].Cycles == 0 {
					t.Fatal("no timing result")
				}
				if instr && len(ref.traces) == 0 {
					t.Fatal("no trace buffer")
				}
				for _, c := range combos {
					got := runConc(t, name, instr, c[0], c[1], false)
					for i, ok := range got.conc {
						if !ok {
							t.Fatalf("ConcurrentIssue is false: %s", got.why[i])
						}
					}
					if d := got.diff(ref); d != "" {
						t.Fatalf("workers %d GOMAXPROCS %d vs serial path: %s", c[0], c[1], d)
					}
				}
			})
		}
	}
}

// TestConcurrentIssueRule checks the ConcurrentIssue rule on small kernels.
func TestConcurrentIssueRule(t *testing.T) {
	body := func(insts string) string {
		return faultHeader + `
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .b64 %__pt_a<2>;
	.reg .b32 %__pt_r<2>;
	.shared .align 4 .b32 s[32];
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u64 %__pt_a0, %rd2;
` + insts + `
	ret;
}`
	}
	cases := []struct {
		insts string
		ok    bool
	}{
		{"st.global.u32 [%rd2], %r1;\n ld.global.u32 %r2, [%rd2+4];", true},
		{"atom.shared.add.u32 %r1, [s], 1;", true},
		{"membar.cta;\n fence.acq_rel.cta;", true},
		{"ld.relaxed.cta.global.u32 %r1, [%rd2];", true},
		{"atom.add.u32 %__pt_r1, [%__pt_a0], 1;", true},
		{"@%p1 st.volatile.b32 [%__pt_a0+8], %r1;", true},
		{"atom.global.add.u32 %r1, [%rd2], 1;", false},
		{"@%p1 red.global.add.f32 [%rd2], 0f3F800000;", false},
		{"atom.add.u32 %r1, [%rd1], 1;", false},
		{"st.volatile.global.u32 [%rd2], %r1;", false},
		{"ld.volatile.u32 %r1, [%rd1];", false},
		{"ld.relaxed.gpu.global.u32 %r1, [%rd2];", false},
		{"ld.acquire.gpu.global.u32 %r1, [%rd2];", false},
		{"st.release.sys.global.u32 [%rd2], %r1;", false},
		{"membar.gl;", false},
		{"membar.sys;", false},
		{"fence.sc.gpu;", false},
		{"fence.acq_rel.sys;", false},
	}
	for _, c := range cases {
		prog := progFromSrc(t, "k.ptx", body(c.insts))
		code, err := prog.Lower("k")
		if err != nil {
			t.Fatalf("%s: %v", c.insts, err)
		}
		if ok, why := replay.ConcurrentSafe(code); ok != c.ok {
			t.Errorf("%q: ConcurrentIssue %v (%s), want %v", c.insts, ok, why, c.ok)
		}
	}
}

// reduceAtomic is the classic block reduction finished with a global
// atomicAdd: CTAs communicate through the atomic, so it must run serially.
const reduceAtomic = `
.visible .entry k(.param .u64 p, .param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r1, %r2, %r3, %r1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.f32 %f1, [%rd4];
	atom.global.add.f32 %f2, [%rd2], %f1;
	ret;
}`

// TestConcurrentIssueAtomics: a kernel with a cross-CTA atomic answers
// false and still gives identical results across Workers and GOMAXPROCS.
func TestConcurrentIssueAtomics(t *testing.T) {
	spec := "kernel: k\ngrid: [64]\nblock: [128]\nparams:\n  - buffer: {type: f32, count: 8192, init: {ramp: {start: 0.1, step: 0.37}}}\n  - {name: out, buffer: {type: f32, count: 1, output: true}}\n"
	ms, _ := model.Preset("gtx480")
	var ref []byte
	var refT *model.Result
	for i, c := range [][2]int{{1, 1}, {4, 8}, {4, 1}} {
		old := runtime.GOMAXPROCS(c[1])
		s, _ := launch.ParseSpec([]byte(spec))
		prep, err := s.Prepare(progFromSrc(t, "k.ptx", faultHeader+reduceAtomic), launch.PrepareOptions{NumSMs: ms.NumSMs})
		if err != nil {
			t.Fatal(err)
		}
		if prep.Kernel.ConcurrentIssue() {
			t.Fatal("ConcurrentIssue is true for a kernel with a global atomicAdd")
		}
		res, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: c[0]}})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		out := prep.Buffer("out").Alloc.Data
		if i == 0 {
			ref, refT = append([]byte(nil), out...), res.Launches[0].Timing
		} else if !bytes.Equal(out, ref) || !reflect.DeepEqual(res.Launches[0].Timing, refT) {
			t.Fatalf("workers %d GOMAXPROCS %d: result differs", c[0], c[1])
		}
	}
}

// TestConcurrentOverlayPrintf: printf output and the CTAs' overlays with a
// concurrent kernel: each CTA prints and writes, and the output is in CTA
// order whatever the workers.
func TestConcurrentOverlayPrintf(t *testing.T) {
	src := faultHeader + `
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[9] = {99, 116, 97, 32, 37, 100, 10, 0};
.visible .entry k(.param .u64 p)
{
	.local .align 8 .b8 __local_depot0[8];
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<10>;
	mov.u64 %rd9, __local_depot0;
	cvta.local.u64 %rd8, %rd9;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r4;
	ld.global.u32 %r5, [%rd4];
	add.u32 %r5, %r5, 1;
	st.global.u32 [%rd4], %r5;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	st.local.u32 [%rd9], %r2;
	mov.u64 %rd5, $str;
	cvta.global.u64 %rd6, %rd5;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd6;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd8;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	}
DONE:
	ret;
}`
	spec := "kernel: k\ngrid: [200]\nblock: [64]\nparams:\n  - {name: out, buffer: {type: u32, count: 12800, output: true}}\n"
	ms, _ := model.Preset("gtx480")
	var ref, refOut []byte
	for i, c := range [][2]int{{1, 1}, {4, 8}, {2, 2}} {
		old := runtime.GOMAXPROCS(c[1])
		s, _ := launch.ParseSpec([]byte(spec))
		prep, err := s.Prepare(progFromSrc(t, "k.ptx", src), launch.PrepareOptions{NumSMs: ms.NumSMs})
		if err != nil {
			t.Fatal(err)
		}
		if !prep.Kernel.ConcurrentIssue() {
			_, why := replay.ConcurrentSafe(prep.Kernel.Code())
			t.Fatalf("ConcurrentIssue is false: %s", why)
		}
		res, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: c[0]}})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		out := prep.Buffer("out").Alloc.Data
		if i == 0 {
			ref, refOut = res.Printf, append([]byte(nil), out...)
			var want bytes.Buffer
			for c := 0; c < 200; c++ {
				fmt.Fprintf(&want, "cta %d\n", c)
			}
			if !bytes.Equal(ref, want.Bytes()) {
				t.Fatalf("printf output:\n%s", ref)
			}
			for j := 0; j < 12800; j++ {
				if le(out[4*j:], 4) != uint64(j+1) {
					t.Fatalf("out[%d] = %d, want %d", j, le(out[4*j:], 4), j+1)
				}
			}
		} else if !bytes.Equal(res.Printf, ref) || !bytes.Equal(out, refOut) {
			t.Fatalf("workers %d GOMAXPROCS %d: result differs", c[0], c[1])
		}
	}
}

// TestConcurrentRacyDeterminism: in timing mode a racy kernel (every CTA
// writes its id to the same 16 words with plain stores) qualifies for
// ConcurrentIssue; the overlays merge in CTA order at the model's serial
// phases, so the bytes and the model result depend on neither Workers nor
// GOMAXPROCS.
func TestConcurrentRacyDeterminism(t *testing.T) {
	racy, spec := racyKernel, racySpec
	ms, _ := model.Preset("gtx480")
	run := func(workers, procs int) ([]byte, *model.Result) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		s, _ := launch.ParseSpec([]byte(spec))
		prep, err := s.Prepare(progFromSrc(t, "k.ptx", faultHeader+racy), launch.PrepareOptions{NumSMs: ms.NumSMs})
		if err != nil {
			t.Fatal(err)
		}
		if !prep.Kernel.ConcurrentIssue() {
			t.Fatal("racy kernel: ConcurrentIssue is false")
		}
		res, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), prep.Buffers[0].Alloc.Data...), res.Launches[0].Timing
	}
	ref, rt := run(1, 1)
	combos := [][2]int{{4, 8}, {4, 1}, {1, 8}, {0, 2}, {4, 8}}
	if testing.Short() {
		combos = combos[:2]
	}
	for _, c := range combos {
		got, gt := run(c[0], c[1])
		if !bytes.Equal(got, ref) || !reflect.DeepEqual(gt, rt) {
			t.Fatalf("workers %d GOMAXPROCS %d: result differs", c[0], c[1])
		}
	}
}

// BenchmarkVecadd1MTiming is timing mode (gtx480) on the 1M-element vecadd
// on the serial path and with model Workers 1 and 2: thread-instructions per second of wall time
// and the CPU seconds per run, and thread-instructions per CPU-second (docs/performance.md).
func BenchmarkVecadd1MTiming(b *testing.B) {
	src := mustRead(b, "../samples/vecadd/vecadd.sm_52.ptx")
	s, err := launch.ParseSpec([]byte(`kernel: vecadd
grid: [4096]
block: [256]
params:
  - buffer: {type: f32, count: 1048576, init: {ramp: {start: 0, step: 1}}}
  - buffer: {type: f32, count: 1048576, init: {ramp: {start: 0, step: 2}}}
  - buffer: {type: f32, count: 1048576}
  - value: 1048576
`))
	if err != nil {
		b.Fatal(err)
	}
	prog := progFromSrc(b, "k.ptx", src)
	ms, _ := model.Preset("gtx480")
	for _, v := range []struct {
		name    string
		workers int
		serial  bool
	}{{"serial", 1, true}, {"workers=1", 1, false}, {"workers=2", 2, false}} {
		workers := v.workers
		b.Run(v.name, func(b *testing.B) {
			var ti uint64
			var cpu float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				prep, err := s.Prepare(prog, launch.PrepareOptions{NumSMs: ms.NumSMs})
				if err != nil {
					b.Fatal(err)
				}
				c0 := cpuSeconds()
				b.StartTimer()
				res, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: workers}, Serial: v.serial})
				b.StopTimer()
				cpu += cpuSeconds() - c0
				if err != nil {
					b.Fatal(err)
				}
				ti += res.ThreadInsts
				b.StartTimer()
			}
			b.ReportMetric(float64(ti)/b.Elapsed().Seconds(), "thread-insts/s")
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
			if cpu > 0 {
				b.ReportMetric(float64(ti)/cpu, "thread-insts/cpu-s")
			}
		})
	}
}

// BenchmarkVolrenderTiming is timing mode (gtx480) on the volrender sample
// (its launch spec, preparation included) on the serial path and with model
// Workers 2: the parallel-scaling point on a workload other than vecadd
// (docs/performance.md). It reports the CPU seconds per run.
func BenchmarkVolrenderTiming(b *testing.B) {
	for _, v := range []struct {
		name    string
		workers int
		serial  bool
	}{{"serial", 1, true}, {"workers=2", 2, false}} {
		b.Run(v.name, func(b *testing.B) {
			var cpu float64
			for i := 0; i < b.N; i++ {
				c0 := cpuSeconds()
				r := runConc(b, "volrender", false, v.workers, runtime.GOMAXPROCS(0), v.serial)
				cpu += cpuSeconds() - c0
				if len(r.timing) == 0 || r.timing[0].Cycles == 0 {
					b.Fatal("no timing result")
				}
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
		})
	}
}
