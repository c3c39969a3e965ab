package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/trace"
)

var presets = []string{"gtx480", "rtx3080", "a100", "h100"}

// residentCTAs is the number of CTAs of k one SM of ms holds, by the
// model's admission rule (model/sm.go fits), written out here
// independently of the occupancy calculator PlanStaging uses.
func residentCTAs(ms *model.Spec, k *replay.Kernel) int {
	return resident(ms, k.ThreadsPerCTA(), k.RegsPerThread(), k.SharedPerCTA())
}

func resident(ms *model.Spec, threads, regs, shared int) int {
	warps := (threads + 31) / 32
	n := min(ms.SM.MaxCTAs, ms.SM.MaxThreads/threads, ms.SM.MaxWarps/warps)
	perWarp := (regs*32 + ms.SM.RegAllocUnit - 1) / ms.SM.RegAllocUnit * ms.SM.RegAllocUnit
	if perWarp > 0 {
		n = min(n, ms.SM.Registers/(perWarp*warps))
	}
	sh := (shared + ms.SM.SharedAllocUnit - 1) / ms.SM.SharedAllocUnit * ms.SM.SharedAllocUnit
	if sh > 0 {
		n = min(n, ms.Shared.Bytes/sh)
	}
	return n
}

func instrumentOpts(t testing.TB, name string, src []byte, o instrument.Options) ([]byte, *manifest.Manifest) {
	t.Helper()
	fset, f := parse(t, name, src)
	o.Output = name
	res, err := instrument.Instrument(fset, f, o)
	if err != nil {
		t.Fatalf("instrument %s: %v", name, err)
	}
	return res.PTX, res.Manifest
}

func prepare(t testing.TB, prog *replay.Program, spec *launch.Spec, dir string, man *manifest.Manifest, ms *model.Spec) *launch.Prepared {
	t.Helper()
	prep, err := spec.Prepare(prog, launch.PrepareOptions{BaseDir: dir, Manifest: man, Registry: launch.SampleRegistry(), GPU: ms})
	if err != nil {
		t.Fatal(err)
	}
	return prep
}

// TestStagingKeepsOccupancy: the single-launch samples instrumented in
// auto mode keep the model's resident CTAs per SM on every preset (neither
// staging nor the probes' registers lower it), and stage in shared memory
// on at least one.
func TestStagingKeepsOccupancy(t *testing.T) {
	staged := 0
	for _, name := range []string{"matmul", "nn", "vecadd", "volrender"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "samples", name, name+".sm_52.ptx"))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("..", "..", "launch", "testdata", "samples", name)
		b, err := os.ReadFile(filepath.Join(dir, "launch.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := launch.ParseSpec(b)
		if err != nil {
			t.Fatal(err)
		}
		out, man := instrumentOpts(t, name+".inst.ptx", src, instrument.Options{})
		for _, preset := range presets {
			ms, _ := model.Preset(preset)
			orig := prepare(t, program(t, name+".ptx", src), spec, dir, nil, &ms).Kernel
			inst := prepare(t, program(t, name+".inst.ptx", out), spec, dir, man, &ms).Kernel
			// Staging must not lower occupancy: the instrumented kernel
			// with its staging bytes holds as many CTAs per SM as it
			// would with the original's shared memory. (The registers the
			// probes add are a separate cost, logged.)
			before, after := resident(&ms, inst.ThreadsPerCTA(), inst.RegsPerThread(), orig.SharedPerCTA()), residentCTAs(&ms, inst)
			if before != after {
				t.Errorf("%s on %s: %d CTAs per SM, %d with staging (shared %d → %d bytes)", name, preset, before, after, orig.SharedPerCTA(), inst.SharedPerCTA())
			}
			// Nor may the probes' registers: the instrumented kernel is
			// bounded to the original's register count (.maxnreg on real
			// GPUs, the model's estimate of the original here).
			if o := residentCTAs(&ms, orig); o != after {
				t.Errorf("%s on %s: %d CTAs per SM, %d instrumented: registers %d → %d (model estimate)", name, preset, o, after, orig.RegsPerThread(), inst.RegsPerThread())
			}
			if inst.SharedPerCTA() > orig.SharedPerCTA() {
				staged++
			}
		}
	}
	if staged == 0 {
		t.Error("no sample staged in shared memory on any preset")
	}
}

// scanKernel is a scan-like kernel with 16,128 bytes of static shared
// memory (4032 floats) and 256 threads: on gtx480 (16 KB shared per SM)
// one CTA fits, with 256 bytes to spare. Each thread loads LOADS values
// from global memory into shared memory and back (2×LOADS probed loads).
const scanKernel = `.version 7.8
.target sm_52
.address_size 64

.visible .entry scan(
	.param .u64 scan_in,
	.param .u64 scan_out
)
.reqntid 256
{
	.reg .pred 	%%p<2>;
	.reg .f32 	%%f<3>;
	.reg .b32 	%%r<8>;
	.reg .b64 	%%rd<8>;
	.shared .align 4 .b8 buf[16128];

	ld.param.u64 	%%rd1, [scan_in];
	ld.param.u64 	%%rd2, [scan_out];
	cvta.to.global.u64 	%%rd1, %%rd1;
	cvta.to.global.u64 	%%rd2, %%rd2;
	mov.u32 	%%r1, %%tid.x;
	mov.u32 	%%r2, %%ctaid.x;
	mad.lo.s32 	%%r3, %%r2, 256, %%r1;
	mul.wide.u32 	%%rd3, %%r3, 4;
	add.s64 	%%rd4, %%rd1, %%rd3;
	mov.u32 	%%r4, buf;
	shl.b32 	%%r5, %%r1, 2;
	add.s32 	%%r4, %%r4, %%r5;
	mov.f32 	%%f2, 0f00000000;
	mov.u32 	%%r6, 0;
$L_loop:
	ld.global.f32 	%%f1, [%%rd4];
	st.shared.f32 	[%%r4+%d], %%f1;
	ld.shared.f32 	%%f1, [%%r4];
	add.f32 	%%f2, %%f2, %%f1;
	add.s32 	%%r6, %%r6, 1;
	setp.lt.s32 	%%p1, %%r6, %d;
	@%%p1 bra 	$L_loop;
	add.s64 	%%rd5, %%rd2, %%rd3;
	st.global.f32 	[%%rd5], %%f2;
	ret;

}
`

const scanSpec = `kernel: scan
grid: [30]
block: [256]
params:
  - {name: in, buffer: {type: f32, count: 7680, init: {random: {seed: 3, min: -1, max: 1}}}}
  - {name: out, buffer: {type: f32, count: 7680, output: true}}
`

// TestScanSharedRunsOnGTX480: an instrumented kernel with 16,128 bytes of
// shared memory runs on gtx480 with its output unchanged and one CTA per
// SM (a static staging array of 8 warps × 1056 bytes made it unlaunchable).
// Each warp writes 2 × 2 × 40 = 160 records, over the 64 the spare 256
// bytes... hold none (256/8 − 32 = 0): global staging.
func TestScanSharedRunsOnGTX480(t *testing.T) {
	src := []byte(fmt.Sprintf(scanKernel, 1024, 40))
	spec, err := launch.ParseSpec([]byte(scanSpec))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := model.Preset("gtx480")
	orig := runSpec(t, program(t, "scan.ptx", src), spec, "", nil, &ms)
	out, man := instrumentOpts(t, "scan.inst.ptx", src, instrument.Options{Capacity: 256})
	prep := prepare(t, program(t, "scan.inst.ptx", out), spec, "", man, &ms)
	if a, b := residentCTAs(&ms, orig.prep.Kernel), residentCTAs(&ms, prep.Kernel); a != 1 || b != 1 {
		t.Fatalf("CTAs per SM %d (original), %d (instrumented), want 1 and 1", a, b)
	}
	res, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(prep.Buffer("out").Alloc.Data, orig.prep.Buffer("out").Alloc.Data) {
		t.Error("the instrumented kernel's output differs")
	}
	tr, err := trace.Decode(res.Launches[0].Trace.Data, man, "scan")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warps) != 30*8 || tr.Warps[0].Count != 160 || tr.Warps[0].Lost != 0 {
		t.Errorf("%d warps, first: %+v", len(tr.Warps), tr.Warps[0])
	}
}

// TestCarveoutStaging: a scan-like kernel whose CTA needs 20 KB of shared
// memory runs on gtx480 with 48 KB shared / 16 KB L1 (the runtime's
// switch, model.Spec.ForShared), two CTAs per SM; instrumented, its shared
// staging is sized within that split (the spare 2 × 24 KB − 2 × 20 KB), so
// it runs with the same split, the same CTAs per SM and the same output.
func TestCarveoutStaging(t *testing.T) {
	src := []byte(strings.Replace(fmt.Sprintf(scanKernel, 1024, 40), "buf[16128]", "buf[20480]", 1))
	spec, err := launch.ParseSpec([]byte(scanSpec))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := model.Preset("gtx480")
	orig := runSpec(t, program(t, "scan.ptx", src), spec, "", nil, &ms)
	out, man := instrumentOpts(t, "scan.inst.ptx", src, instrument.Options{})
	inst := runSpec(t, program(t, "scan.inst.ptx", out), spec, "", man, &ms)
	split := func(r runOut) *model.Carveout { return r.res.Launches[0].Timing.Carveout }
	if split(orig) == nil || split(inst) == nil || *split(orig) != *split(inst) || split(orig).SharedBytes != 48<<10 {
		t.Fatalf("carveouts %+v (original), %+v (instrumented), want both 48 KB shared", split(orig), split(inst))
	}
	big := ms
	big.Shared.Bytes = 48 << 10
	a, b := residentCTAs(&big, orig.prep.Kernel), residentCTAs(&big, inst.prep.Kernel)
	if a != 2 || b != 2 {
		t.Errorf("CTAs per SM %d (original), %d (instrumented), want 2 and 2", a, b)
	}
	if inst.prep.Kernel.SharedPerCTA() <= orig.prep.Kernel.SharedPerCTA() {
		t.Errorf("shared per CTA %d → %d: not staged in shared memory", orig.prep.Kernel.SharedPerCTA(), inst.prep.Kernel.SharedPerCTA())
	}
	if !bytes.Equal(inst.prep.Buffer("out").Alloc.Data, orig.prep.Buffer("out").Alloc.Data) {
		t.Error("the instrumented kernel's output differs")
	}
}

// TestStagingSpillMatchesGlobal: a kernel whose warps write many more
// records than their shared slots hold (8448 bytes of static shared memory
// on gtx480 leave 7936 bytes: 60 records per warp, PlanStaging's own test)
// gives, per warp, the same records (probe ids, in order) staged in shared
// memory as staged in global memory.
func TestStagingSpillMatchesGlobal(t *testing.T) {
	src := []byte(fmt.Sprintf(scanKernel, 0, 40))
	src = bytes.Replace(src, []byte("buf[16128]"), []byte("buf[8448]"), 1)
	spec, err := launch.ParseSpec([]byte(scanSpec))
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := model.Preset("gtx480")
	orig := runSpec(t, program(t, "spill.ptx", src), spec, "", nil, &ms)
	ids := map[string][][]uint32{}
	for _, staging := range []string{"auto", "global"} {
		out, man := instrumentOpts(t, "spill.inst.ptx", src, instrument.Options{Capacity: 256, Staging: staging})
		prep := prepare(t, program(t, "spill.inst.ptx", out), spec, "", man, &ms)
		res, err := prep.Run(context.Background(), launch.ExecOptions{Model: &ms})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(prep.Buffer("out").Alloc.Data, orig.prep.Buffer("out").Alloc.Data) {
			t.Errorf("%s: the instrumented kernel's output differs", staging)
		}
		raw := res.Launches[0].Trace.Data
		tr, err := trace.Decode(raw, man, "scan")
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.CheckValid(); err != nil {
			t.Fatalf("%s: %v", staging, err)
		}
		// Probe ids of each warp's stored records, read from the raw
		// segments (layout in docs/buffer.md).
		seg := man.Buffer.SegmentBytes
		var perWarp [][]uint32
		for _, w := range tr.Warps {
			if staging == "auto" && !w.Staged() {
				t.Fatalf("warp %d not staged in shared memory", w.Segment)
			}
			base := manifest.HeaderBytes + int(w.Segment)*seg + manifest.SegmentHeaderBytes
			var list []uint32
			for i := 0; i < int(w.Stored); i++ {
				r := raw[base+i*manifest.RecordBytes:]
				list = append(list, uint32(r[0])|uint32(r[1])<<8|uint32(r[2])<<16|uint32(r[3])<<24)
			}
			perWarp = append(perWarp, list)
		}
		ids[staging] = perWarp
	}
	a, g := ids["auto"], ids["global"]
	if len(a) != len(g) || len(a) != 240 {
		t.Fatalf("%d and %d warps, want 240", len(a), len(g))
	}
	for w := range a {
		// 2 loads × 2 records × 40 iterations: 160 > 60 staged.
		if len(a[w]) != 160 || fmt.Sprint(a[w]) != fmt.Sprint(g[w]) {
			t.Fatalf("warp %d: shared %d records %v, global %d records %v", w, len(a[w]), a[w], len(g[w]), g[w])
		}
	}
}

// TestInstrumentedRegsKeepOccupancy: for every kernel of every sample and
// every preset, the registers the model allocates to the instrumented
// kernel (launch.InstrumentedRegs) give as many CTAs per SM as the
// original kernel's estimate, for every block size of a multiple of 64
// threads up to 1024 (multi-launch samples size their blocks at run time).
func TestInstrumentedRegsKeepOccupancy(t *testing.T) {
	for _, name := range []string{"bfs", "gaussian", "hotspot", "lud", "matmul", "nn", "pathfinder", "reduce", "vecadd", "volrender"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "samples", name, name+".sm_52.ptx"))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := instrumentOpts(t, name+".inst.ptx", src, instrument.Options{})
		orig, inst := program(t, name+".ptx", src), program(t, name+".inst.ptx", out)
		for _, kn := range orig.Entries() {
			oc, err := orig.Lower(kn)
			if err != nil {
				t.Fatal(err)
			}
			ic, err := inst.Lower(kn)
			if err != nil {
				t.Fatal(err)
			}
			or := min(oc.EstimateRegs(), replay.DefaultMaxRegs)
			ir := launch.InstrumentedRegs(ic)
			if ic.EstimateRegs() <= oc.EstimateRegs() {
				t.Logf("%s.%s: the probes add no registers (%d → %d)", name, kn, oc.EstimateRegs(), ic.EstimateRegs())
			}
			for _, preset := range presets {
				ms, _ := model.Preset(preset)
				for threads := 64; threads <= 1024; threads += 64 {
					if a, b := resident(&ms, threads, or, oc.SharedStatic), resident(&ms, threads, ir, oc.SharedStatic); a != b {
						t.Errorf("%s.%s on %s, %d threads: %d CTAs per SM, %d instrumented (registers %d → %d)", name, kn, preset, threads, a, b, or, ir)
					}
				}
			}
		}
	}
}
