package replay_test

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/replay"
)

// benchKernel runs spec on src b.N times and reports thread-instructions/s.
func benchKernel(b *testing.B, src, spec string) {
	s, err := launch.ParseSpec([]byte(spec))
	if err != nil {
		b.Fatal(err)
	}
	prog := progFromSrc(b, "k.ptx", src)
	var ti uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		prep, err := s.Prepare(prog, launch.PrepareOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := prep.Kernel.Run(context.Background(), replay.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ti += res.ThreadInsts
	}
	b.ReportMetric(float64(ti)/b.Elapsed().Seconds(), "thread-insts/s")
}

// BenchmarkVecadd1M is the memory-bound case: the vecadd sample on 1M
// elements (GPGPU-Sim's functional mode: a few million thread-insts/s).
func BenchmarkVecadd1M(b *testing.B) {
	src := mustRead(b, "../samples/vecadd/vecadd.sm_52.ptx")
	benchKernel(b, src, `kernel: vecadd
grid: [4096]
block: [256]
params:
  - buffer: {type: f32, count: 1048576, init: {ramp: {start: 0, step: 1}}}
  - buffer: {type: f32, count: 1048576, init: {ramp: {start: 0, step: 2}}}
  - buffer: {type: f32, count: 1048576}
  - value: 1048576
`)
}

// BenchmarkComputeFMA is compute-bound: 256 dependent FMAs and a loop
// counter per thread, one store.
func BenchmarkComputeFMA(b *testing.B) {
	benchKernel(b, faultHeader+`
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	cvt.rn.f32.u32 %f1, %r1;
	mov.f32 %f2, 0f3F800000;
	mov.u32 %r2, 0;
L:
	fma.rn.f32 %f2, %f2, 0f3F7FF000, %f1;
	fma.rn.f32 %f2, %f2, 0f3F7FF000, %f1;
	fma.rn.f32 %f2, %f2, 0f3F7FF000, %f1;
	fma.rn.f32 %f2, %f2, 0f3F7FF000, %f1;
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, 64;
	@%p1 bra L;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.f32 [%rd3], %f2;
	ret;
}`, `kernel: k
grid: [64]
block: [256]
params:
  - buffer: {type: f32, count: 256}
`)
}
