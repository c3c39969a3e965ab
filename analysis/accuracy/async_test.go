package accuracy

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
)

// asyncRegistry holds the Go references of the async test kernels,
// computed from the launch spec's inputs (ramps: element i is i).
func asyncRegistry() launch.Registry {
	f32s := func(v []float32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return b
	}
	return launch.Registry{Refs: map[string]launch.RefFunc{
		// out[b·256+t] = Σ_{j<8} in[(b·8+j)·256 + t]: integers below
		// 2^24, exact in f32
		"cpasync_sum": func(launch.RefInput) ([]byte, error) {
			out := make([]float32, 4096)
			for b := 0; b < 16; b++ {
				for t := 0; t < 256; t++ {
					s := 0
					for j := 0; j < 8; j++ {
						s += (b*8+j)*256 + t
					}
					out[b*256+t] = float32(s)
				}
			}
			return f32s(out), nil
		},
		// float4 i of CTA b is tile[63 − t] reversed: out[4i+k] =
		// in[4(64b + 63 − t) + 3 − k]
		"cpasync_tile": func(launch.RefInput) ([]byte, error) {
			out := make([]float32, 8192)
			for b := 0; b < 32; b++ {
				for t := 0; t < 64; t++ {
					for k := 0; k < 4; k++ {
						out[4*(64*b+t)+k] = float32(4*(64*b+63-t) + 3 - k)
					}
				}
			}
			return f32s(out), nil
		},
		// out[32c + l] = Σ_{t<4} Σ_{r∈{0,8,16,24}} x[((4c+t)·32 + r)·32 + l]
		"tma_sum": func(launch.RefInput) ([]byte, error) { return colSums(32), nil },
		// the same per thread of two warps: out[64c + tid], l = tid % 32
		"tma_sum_if": func(launch.RefInput) ([]byte, error) { return colSums(64), nil },
	}}
}

// colSums is tma_sum's output for block threads per CTA: out[block·c +
// tid] = Σ_{t<4} Σ_{r∈{0,8,16,24}} x[((4c+t)·32 + r)·32 + tid % 32] over
// the ramp x[i] = i.
func colSums(block int) []byte {
	b := make([]byte, 4*8*block)
	for c := 0; c < 8; c++ {
		for tid := 0; tid < block; tid++ {
			s := uint32(0)
			for t := 0; t < 4; t++ {
				for r := 0; r < 32; r += 8 {
					s += uint32(((4*c+t)*32+r)*32 + tid%32)
				}
			}
			binary.LittleEndian.PutUint32(b[4*(block*c+tid):], s)
		}
	}
	return b
}

// asyncCases are the async-copy kernels: two cp.async kernels (nvcc 11.8
// -arch=sm_80 from testdata/async/cpasync.cu) and two hand-written TMA
// kernels (sm_90a: the copy predicated on lane 0 of the CTA's one warp, or
// issued by thread 0 in an if-block of a two-warp CTA), each run for every
// preset from the same PTX.
func asyncCases(t testing.TB) []Case {
	t.Helper()
	dir := filepath.Join("testdata", "async")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cp, tma := read("cpasync.sm_80.ptx"), read("tma.sm_90a.ptx")
	var cs []Case
	for _, c := range []struct {
		name string
		ptx  []byte
	}{{"cpasync_sum", cp}, {"cpasync_tile", cp}, {"tma_sum", tma}, {"tma_sum_if", tma}} {
		spec, err := launch.ParseSpec(read(c.name + ".yaml"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cs = append(cs, Case{Name: c.name, PTX: map[string][]byte{"async": c.ptx}, Spec: spec, Registry: asyncRegistry()})
	}
	return cs
}

// TestAsyncProbes is issue 23's probe accuracy for asynchronous copies:
// instrumented (auto mode), every cp.async site is timed from its issue to
// the cp.async.wait_group that covers it and every TMA site to the exit of
// its mbarrier wait loop; on every preset each async site's measured time
// must be within 5 % of the model's ground truth for the same copy
// (Complete − Issue) plus the probe's documented post cost once the issue
// wait (reported) is taken out — the acceptance of load probes (Row.OK) —
// and the strict error (issue wait counted) is logged. Naive mode ends the
// region right after the copy issues and must underestimate by ≥ 80 %.
// The instrumented kernels' outputs equal the originals' (Measure checks
// it) and the originals match Go references.
//
// With the 32-bit %clock timer (the async begin timestamp then lives in
// %__pt_r24) the same holds; it is checked on rtx3080.
func TestAsyncProbes(t *testing.T) {
	rows, err := Measure(context.Background(), asyncCases(t), Options{
		Modes: []string{"naive", "auto"},
		Arch:  func(string) string { return "async" },
	})
	if err != nil {
		t.Fatal(err)
	}
	clock, err := Measure(context.Background(), asyncCases(t), Options{
		Presets:    []string{"rtx3080"},
		Modes:      []string{"auto"},
		Arch:       func(string) string { return "async" },
		Instrument: func(o *instrument.Options) { o.Timer = "clock" },
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range clock {
		clock[i].Preset += "/clock"
	}
	rows = append(rows, clock...)
	asyncModes := map[string]bool{"wait_group": true, "mbarrier": true}
	for _, r := range rows {
		if r.Err != nil || r.NotRun != "" {
			t.Errorf("%s/%s/%s: err %v, not run %q", r.Kernel, r.Preset, r.Mode, r.Err, r.NotRun)
			continue
		}
		found := false
		for _, s := range r.Spaces {
			if r.Mode == "naive" && s.Space == "global" {
				found = true
				t.Logf("%-13s %-8s naive   %-10s regions %4d true %7.1f measured %6.1f under %5.1f%%",
					r.Kernel, r.Preset, s.Space, s.Regions, s.TrueMean, s.MeasMean, 100*s.Under)
				if s.Under < MinNaiveUnder {
					t.Errorf("%s/%s naive: underestimates by %.1f%%, want ≥ %.0f%%", r.Kernel, r.Preset, 100*s.Under, 100*MinNaiveUnder)
				}
			}
			if !asyncModes[s.Probe] {
				continue
			}
			found = true
			t.Logf("%-13s %-8s %-10s regions %4d true %7.1f measured %7.1f cost %5.1f issue wait %5.2f error %5.2f%% strict %5.2f%%",
				r.Kernel, r.Preset, s.Probe, s.Regions, s.TrueMean, s.MeasMean, s.CostMean, s.IssueWait, 100*s.NetErr, 100*s.RelErr)
			if s.NetErr > MaxRelErr {
				t.Errorf("%s/%s %s: error %.2f%% beyond %.0f%% (measured %.1f, true %.1f, cost %.1f, issue wait %.2f)",
					r.Kernel, r.Preset, s.Probe, 100*s.NetErr, 100*MaxRelErr, s.MeasMean, s.TrueMean, s.CostMean, s.IssueWait)
			}
		}
		if !found {
			t.Errorf("%s/%s/%s: no async copy region measured (spaces %s)", r.Kernel, r.Preset, r.Mode, spaceList(r.Spaces))
		}
	}
}

func spaceList(ss []SpaceStat) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s/%s", s.Space, s.Probe))
	}
	return strings.Join(out, ",")
}

// TestAsyncProbesCorpusGemm measures the TMA probes on a third-party
// kernel: the shared corpus' sm_90a GEMM (zhang677__PTXBench__gemm_kernel,
// replay's TestCorpusGemmParity) with its two wrong mbarrier parities
// corrected (as published it races: replay faults). Thread 0 issues each
// k-tile's two TMA copies in an if-block; instrument probes the three waits
// whose barrier address it can prove equal to the copies' (joined sites,
// mode mbarrier) and pairs the fourth k-tile's copies at run time by
// barrier phase (mode phase_seq).
// Inputs: 128×5120 bf16 operands of zeros (the values do not change the
// timing), 2×2 CTAs, on a100 and h100.
func TestAsyncProbesCorpusGemm(t *testing.T) {
	var src []byte
	for _, dir := range []string{os.Getenv("PTXTRACE_CORPUS_DIR"), "../../../shared/corpus/ptx", "../../../../shared/corpus/ptx"} {
		if b, err := os.ReadFile(filepath.Join(dir, "zhang677__PTXBench__gemm_kernel.ptx")); dir != "" && err == nil {
			src = b
			break
		}
	}
	if src == nil {
		t.Skip("shared corpus absent")
	}
	fixed := bytes.Replace(src, []byte("mov.u32 \t%r115, 1;"), []byte("mov.u32 \t%r115, 0;"), 1)
	fixed = bytes.Replace(fixed, []byte("mov.u32 \t%r135, 0;"), []byte("mov.u32 \t%r135, 1;"), 1)
	if bytes.Equal(fixed, src) {
		t.Fatal("the corpus GEMM changed: its parity constants were not found")
	}
	spec, err := launch.ParseSpec([]byte(`buffers:
  - {name: a, type: bf16, count: 655360}
  - {name: b, type: bf16, count: 655360}
  - {name: c, type: bf16, count: 16384, output: true}
steps:
  - launch:
      kernel: _ZN12tvm_ffi_gemm11gemm_kernelE14CUtensorMap_stS0_P13__nv_bfloat16ii
      grid: [2, 2]
      block: [128]
      dynamic_shared: 16400
      params:
        - {tensor_map: {ref: a, dims: [5120, 128], box: [64, 64], swizzle: 128}}
        - {tensor_map: {ref: b, dims: [5120, 128], box: [64, 64], swizzle: 128}}
        - {ref: c}
        - {value: 128}
        - {value: 128}
`))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Measure(context.Background(), []Case{{Name: "corpus-gemm", PTX: map[string][]byte{"x": fixed}, Spec: spec}},
		Options{Presets: []string{"a100", "h100"}, Modes: []string{"auto"}, Arch: func(string) string { return "x" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Err != nil || r.NotRun != "" || r.Unmatched > 0 {
			t.Fatalf("%s: err %v, not run %q, %d unmatched", r.Preset, r.Err, r.NotRun, r.Unmatched)
		}
		n := 0
		for _, s := range r.Spaces {
			if s.Probe != "mbarrier" && s.Probe != "phase_seq" {
				continue
			}
			n += s.Regions
			t.Logf("%s %s: regions %d true %.1f measured %.1f cost %.1f issue wait %.2f error %.2f%% strict %.2f%%",
				r.Preset, s.Probe, s.Regions, s.TrueMean, s.MeasMean, s.CostMean, s.IssueWait, 100*s.NetErr, 100*s.RelErr)
			if s.NetErr > MaxRelErr {
				t.Errorf("%s: error %.2f%% beyond %.0f%%", r.Preset, 100*s.NetErr, 100*MaxRelErr)
			}
		}
		if n == 0 {
			t.Errorf("%s: no TMA region measured", r.Preset)
		}
	}
}
