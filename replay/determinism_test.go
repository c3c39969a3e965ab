package replay_test

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/replay"
)

// TestDeterminism runs racy and atomic kernels with 1 and 8 workers (and
// GOMAXPROCS 1 and 8) twice each: the output bytes must be identical.
func TestDeterminism(t *testing.T) {
	racy := racyKernel
	spec := racySpec
	run := func(workers, procs int) []byte {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		s, _ := launch.ParseSpec([]byte(spec))
		prep, err := s.Prepare(progFromSrc(t, "k.ptx", faultHeader+racy), launch.PrepareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := prep.Kernel.Run(context.Background(), replay.RunOptions{Workers: workers}); err != nil {
			t.Fatal(err)
		}
		return append([]byte(nil), prep.Buffers[0].Alloc.Data...)
	}
	ref := run(1, 1)
	for _, c := range [][2]int{{1, 1}, {8, 8}, {8, 1}, {0, 8}, {0, 8}} {
		if got := run(c[0], c[1]); !bytes.Equal(got, ref) {
			t.Fatalf("workers %d GOMAXPROCS %d: output differs", c[0], c[1])
		}
	}
	if le(ref, 4) != 1999 {
		t.Errorf("last CTA should win, got %d", le(ref, 4))
	}
	// float sums (reduce sample, two passes without atomics): identical bits
	var first []byte
	for i, c := range [][2]int{{1, 1}, {8, 8}, {0, 2}} {
		old := runtime.GOMAXPROCS(c[1])
		prep := runSampleSpec(t, "reduce", c[0])
		runtime.GOMAXPROCS(old)
		out := prep.Buffer("out").Alloc.Data
		if i == 0 {
			first = append([]byte(nil), out...)
		} else if !bytes.Equal(out, first) {
			t.Fatalf("reduce output differs with %v", c)
		}
	}
}

// racyKernel has every thread of every CTA write its CTA id to the same 16
// words with plain stores: the last CTA in order wins, whatever the
// interleaving. racySpec launches it on 2000 CTAs.
const racyKernel = `
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 15;
	mov.u32 %r3, %ctaid.x;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r3;
	ret;
}`

const racySpec = "kernel: k\ngrid: [2000]\nblock: [64]\nparams:\n  - buffer: {type: u32, count: 16}\n"
