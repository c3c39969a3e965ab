package launch

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// withTransfers adds a copy-in of every input buffer and a copy-out of
// every output buffer (method auto, except the first copy-in: iorw).
func withTransfers(s *Spec) {
	add := func(name string, out bool) {
		c := CopySpec{Buffer: name, Dir: "in", Method: AutoMethod}
		if out {
			c.Dir = "out"
		}
		if !out && len(s.Transfers) == 0 {
			c.Method = "iorw"
		}
		s.Transfers = append(s.Transfers, c)
	}
	for i, p := range s.Params {
		if p.Buffer != nil {
			name := p.Name
			if name == "" {
				name = fmt.Sprintf("param%d", i)
			}
			add(name, p.Buffer.Output)
		}
	}
	for _, b := range s.Buffers {
		add(b.Name, b.Output)
	}
}

// TestSamplesTransfers: every sample runs on the gtx480 model with
// transfers around each launch; the outputs are the functional run's
// bytes, the cycles those of the run without transfers, and each launch's transfers are consistent: copy-ins back to
// back ending at the kernel's start, copy-outs back to back from its end,
// each the size of its buffer, auto picking a fastest method, the sum
// in SeqResult.TransferPs.
func TestSamplesTransfers(t *testing.T) {
	if testing.Short() {
		t.Skip("timing mode of every sample is slow with -short")
	}
	ms, _ := model.Preset("gtx480")
	ts := model.GTX480Transfer()
	for _, name := range sampleNames {
		t.Run(name, func(t *testing.T) {
			fprep, _ := runSample(t, name, 0, nil)
			_, plain := runSample(t, name, 0, &ms)
			spec, dir := loadSampleSpec(t, name)
			withTransfers(spec)
			if len(spec.Transfers) == 0 {
				t.Fatal("sample has no buffers")
			}
			prog := loadPTX(t, filepath.Join("..", "samples", name, name+".sm_52.ptx"))
			prep, err := spec.Prepare(prog, PrepareOptions{BaseDir: dir, Registry: SampleRegistry(), NumSMs: ms.NumSMs})
			if err != nil {
				t.Fatal(err)
			}
			res, err := prep.Run(context.Background(), ExecOptions{Model: &ms, Transfer: &ts})
			if err != nil {
				t.Fatal(err)
			}
			checkSample(t, name, prep)
			fo, to := outputs(fprep), outputs(prep)
			for k, v := range fo {
				if !bytes.Equal(v, to[k]) {
					t.Errorf("output %s differs from the functional run", k)
				}
			}
			if res.Cycles != plain.Cycles || len(res.Launches) != len(plain.Launches) {
				t.Errorf("%d cycles in %d launches with transfers, %d in %d without", res.Cycles, len(res.Launches), plain.Cycles, len(plain.Launches))
			}
			var sum int64
			for _, lr := range res.Launches {
				if len(lr.Transfers) != len(spec.Transfers) {
					t.Fatalf("launch %d: %d transfers, want %d", lr.Index, len(lr.Transfers), len(spec.Transfers))
				}
				kps := KernelPs(lr.Timing.Cycles, ms.CoreMHz)
				var in, out []int64 // starts and ends in order
				for i, tr := range lr.Transfers {
					b := prep.Buffer(tr.Buffer)
					if tr.Bytes != int64(len(b.Alloc.Data)) || tr.EndPs <= tr.StartPs {
						t.Errorf("launch %d transfer %d: %+v (buffer of %d bytes)", lr.Index, i, tr, len(b.Alloc.Data))
					}
					d := model.HostToDevice
					if tr.Dir == "d2h" {
						d = model.DeviceToHost
					}
					for _, m := range model.TransferMethods() {
						ps, err := ts.TransferTime(m, d, HostBufferAlign+b.Alloc.Base%HostBufferAlign, b.Alloc.Base, tr.Bytes)
						if err != nil {
							t.Fatal(err)
						}
						if m == model.TransferMethod(tr.Method) && ps != tr.EndPs-tr.StartPs {
							t.Errorf("%s by %s: %d ps, the model says %d", tr.Buffer, m, tr.EndPs-tr.StartPs, ps)
						}
						if i > 0 && ps < tr.EndPs-tr.StartPs { // transfer 0 is iorw by choice, the rest auto
							t.Errorf("auto chose %s for %s, but %s is faster", tr.Method, tr.Buffer, m)
						}
					}
					if tr.Dir == "h2d" {
						in = append(in, tr.StartPs, tr.EndPs)
					} else {
						out = append(out, tr.StartPs, tr.EndPs)
					}
					sum += tr.EndPs - tr.StartPs
				}
				if len(in) > 0 && in[len(in)-1] != 0 {
					t.Errorf("launch %d: copy-ins end at %d ps, not at the kernel's start", lr.Index, in[len(in)-1])
				}
				if len(out) > 0 && out[0] != kps {
					t.Errorf("launch %d: copy-outs start at %d ps, kernel ends at %d", lr.Index, out[0], kps)
				}
				for _, seq := range [][]int64{in, out} {
					for i := 2; i < len(seq); i += 2 {
						if seq[i] != seq[i-1] {
							t.Errorf("launch %d: gap or overlap between transfers: %v", lr.Index, seq)
						}
					}
				}
			}
			if sum != res.TransferPs || sum == 0 {
				t.Errorf("TransferPs %d, transfers sum to %d", res.TransferPs, sum)
			}
			t.Logf("%d launches, %d transfers each, %.1f µs of transfers, %.1f µs of kernels", len(res.Launches), len(spec.Transfers), float64(res.TransferPs)/1e6, float64(res.KernelPs)/1e6)
		})
	}
}

func TestTransfersRefused(t *testing.T) {
	bad := []struct{ yaml, want string }{
		{"kernel: k\ngrid: [1]\nblock: [1]\ntransfers:\n  - {buffer: a, dir: sideways}\n", "dir"},
		{"kernel: k\ngrid: [1]\nblock: [1]\ntransfers:\n  - {buffer: a, dir: in, method: pio}\n", "unknown transfer method"},
		{"kernel: k\ngrid: [1]\nblock: [1]\ntransfers:\n  - {dir: in}\n", "buffer missing"},
	}
	for _, b := range bad {
		if _, err := ParseSpec([]byte(b.yaml)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: %v, want %q", b.yaml, err, b.want)
		}
	}
	spec, dir := loadSampleSpec(t, "vecadd")
	spec.Transfers = []CopySpec{{Buffer: "nosuch", Dir: "in"}}
	prog := loadPTX(t, filepath.Join("..", "samples", "vecadd", "vecadd.sm_52.ptx"))
	prep, err := spec.Prepare(prog, PrepareOptions{BaseDir: dir, Registry: SampleRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prep.Run(context.Background(), ExecOptions{}); err == nil || !strings.Contains(err.Error(), `no buffer "nosuch"`) {
		t.Errorf("unknown buffer: %v", err)
	}
}
