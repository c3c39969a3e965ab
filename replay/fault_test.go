package replay_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/replay"
)

// runSrc runs kernel k of src with the YAML launch spec body.
func runSrc(t testing.TB, src, spec string) (*launch.Prepared, error) {
	t.Helper()
	s, err := launch.ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := s.Prepare(progFromSrc(t, "k.ptx", faultHeader+src), launch.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = prep.Kernel.Run(context.Background(), replay.RunOptions{})
	return prep, err
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name, src, spec string
		kind            replay.FaultKind
		line            int
		msg             string
	}{
		{"oob-global", `
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r1;
	ret;
}`, "kernel: k\ngrid: [1]\nblock: [64]\nparams:\n  - buffer: {type: u32, count: 40}\n",
			replay.FaultOutOfBounds, 14, "invalid global write of 4 bytes"},
		{"misaligned", `
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1+2];
	ret;
}`, "kernel: k\ngrid: [1]\nblock: [32]\nparams:\n  - buffer: {type: u32, count: 40}\n",
			replay.FaultMisaligned, 10, "misaligned global access of 4 bytes"},
		{"shared-oob", `
.visible .entry k()
{
	.reg .b32 %r<3>;
	.shared .align 4 .b8 s[64];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	st.shared.u32 [%r2], %r1;
	ret;
}`, "kernel: k\ngrid: [1]\nblock: [32]\nparams: []\n",
			replay.FaultOutOfBounds, 11, "invalid shared write"},
		{"barrier-divergence", `
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@!%p1 bra L;
	bar.sync 0;
L:
	bar.sync 0;
	ret;
}`, "kernel: k\ngrid: [1]\nblock: [64]\nparams: []\n",
			replay.FaultBarrierDiverg, 14, "barrier divergence"},
		{"deadlock", `
.visible .entry k()
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra L;
	bar.sync 1, 64;
	ret;
L:
	bar.sync 0;
	ret;
}`, "kernel: k\ngrid: [1]\nblock: [64]\nparams: []\n",
			replay.FaultDeadlock, 0, "barrier deadlock"},
		{"runaway", `
.visible .entry k()
{
L:
	bra L;
}`, "kernel: k\ngrid: [1]\nblock: [32]\nmax_warp_insts: 1000\nparams: []\n",
			replay.FaultRunaway, 0, "more than 1000 instructions"},
		{"trap", `
.visible .entry k()
{
	trap;
}`, "kernel: k\ngrid: [1]\nblock: [32]\nparams: []\n",
			replay.FaultTrap, 7, "trap executed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSrc(t, tc.src, tc.spec)
			var f *replay.Fault
			if !errors.As(err, &f) {
				t.Fatalf("want a fault, got %v", err)
			}
			if f.Kind != tc.kind || !strings.Contains(f.Error(), tc.msg) {
				t.Fatalf("got %v", f)
			}
			if tc.line != 0 && f.Line != tc.line {
				t.Errorf("line %d, want %d: %v", f.Line, tc.line, f)
			}
			if f.File != "k.ptx" || f.Kernel != "k" {
				t.Errorf("location: %v", f)
			}
			rep := f.Report()
			if !strings.Contains(rep, "=========") {
				t.Errorf("report: %s", rep)
			}
			t.Log(f.Error())
		})
	}
}
