package replay

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"math"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// tiledMMA is a Triton-style tiled matmul for one warp: C (16×8 f32) =
// A (16×64 f16, row-major) · B (64×8 f16, row-major), over four k-tiles of
// 16 with a two-stage cp.async pipeline (commit per tile, wait_group 1),
// ldmatrix.x4 for A, ldmatrix.x2.trans for B and mma.sync m16n8k16.
func tiledMMA() string {
	var b strings.Builder
	b.WriteString(`.version 8.0
.target sm_80
.address_size 64
.shared .align 16 .b8 As[1024];
.shared .align 16 .b8 Bs[512];
.visible .entry mm(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
	.reg .pred %pb;
	.reg .b32 %l, %t, %u, %i, %r, %a<4>, %b<2>;
	.reg .f32 %c<4>;
	.reg .b64 %rA, %rB, %rC, %sA, %sB, %x, %aS, %aD, %bS, %bD, %aL, %bL;
	ld.param.u64 %rA, [pa];
	ld.param.u64 %rB, [pb];
	ld.param.u64 %rC, [pc];
	mov.u64 %sA, As;
	mov.u64 %sB, Bs;
	mov.u32 %l, %tid.x;
	shr.u32 %t, %l, 1;
	mul.lo.u32 %t, %t, 128;
	and.b32 %u, %l, 1;
	mul.lo.u32 %u, %u, 16;
	add.u32 %t, %t, %u;
	cvt.u64.u32 %x, %t;
	add.u64 %aS, %rA, %x;
	mul.wide.u32 %x, %l, 16;
	add.u64 %aD, %sA, %x;
	add.u64 %bS, %rB, %x;
	add.u64 %bD, %sB, %x;
	setp.lt.u32 %pb, %l, 16;
	shr.u32 %i, %l, 3;
	and.b32 %r, %l, 7;
	and.b32 %t, %i, 1;
	mul.lo.u32 %t, %t, 8;
	add.u32 %t, %t, %r;
	mul.lo.u32 %t, %t, 32;
	shr.u32 %u, %i, 1;
	mul.lo.u32 %u, %u, 16;
	add.u32 %t, %t, %u;
	cvt.u64.u32 %x, %t;
	add.u64 %aL, %sA, %x;
	and.b32 %t, %l, 15;
	mul.wide.u32 %x, %t, 16;
	add.u64 %bL, %sB, %x;
	mov.f32 %c0, 0f00000000;
	mov.f32 %c1, 0f00000000;
	mov.f32 %c2, 0f00000000;
	mov.f32 %c3, 0f00000000;
`)
	load := func(kt int) {
		s := kt % 2
		fmt.Fprintf(&b, "\tcp.async.cg.shared.global [%%aD+%d], [%%aS+%d], 16;\n", 512*s, 32*kt)
		fmt.Fprintf(&b, "\t@%%pb cp.async.cg.shared.global [%%bD+%d], [%%bS+%d], 16;\n", 256*s, 256*kt)
		b.WriteString("\tcp.async.commit_group;\n")
	}
	load(0)
	for kt := 0; kt < 4; kt++ {
		if kt+1 < 4 {
			load(kt + 1)
		} else {
			b.WriteString("\tcp.async.commit_group;\n") // an empty group keeps wait_group 1 uniform
		}
		s := kt % 2
		b.WriteString("\tcp.async.wait_group 1;\n\tbar.sync 0;\n")
		fmt.Fprintf(&b, "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%%a0, %%a1, %%a2, %%a3}, [%%aL+%d];\n", 512*s)
		fmt.Fprintf(&b, "\tldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%%b0, %%b1}, [%%bL+%d];\n", 256*s)
		b.WriteString("\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%c0, %c1, %c2, %c3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};\n")
		b.WriteString("\tbar.sync 0;\n")
	}
	b.WriteString(`	shr.u32 %t, %l, 2;
	mul.lo.u32 %t, %t, 8;
	and.b32 %u, %l, 3;
	mul.lo.u32 %u, %u, 2;
	add.u32 %t, %t, %u;
	mul.wide.u32 %x, %t, 4;
	add.u64 %rC, %rC, %x;
	st.global.f32 [%rC], %c0;
	st.global.f32 [%rC+4], %c1;
	st.global.f32 [%rC+256], %c2;
	st.global.f32 [%rC+260], %c3;
}
`)
	return b.String()
}

// TestTiledMMA runs the tiled matmul on pseudo-random f16 inputs in
// [-1, 1) and compares with a float64 reference within the documented
// mma tolerance (docs/launch.md): 2 ulp of f32 plus K·2^-23·Σ|a·b| — here
// with K = 64 as C is rounded to f32 after each k-tile.
func TestTiledMMA(t *testing.T) {
	src := tiledMMA()
	f, err := ptx.ParseFile(token.NewFileSet(), "mm.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("mm")
	if err != nil || len(code.Warnings) > 0 {
		t.Fatalf("lower: %v %v", err, code.Warnings)
	}
	if len(code.Notices) != 4 {
		t.Fatalf("%d notices, want one per mma (4): %q", len(code.Notices), code.Notices)
	}
	seed := uint32(12345)
	rnd := func() float64 { // f16-representable values in [-1, 1)
		seed = seed*1664525 + 1013904223
		return float64(int(seed>>20)%2048-1024) / 1024
	}
	const M, N, K = 16, 8, 64
	var A [M][K]float64
	var B [K][N]float64
	for i := range A {
		for k := range A[i] {
			A[i][k] = rnd()
		}
	}
	for k := range B {
		for j := range B[k] {
			B[k][j] = rnd()
		}
	}
	for _, timing := range []bool{false, true} {
		dev := NewDevice()
		ba, bb, bc := dev.Alloc("A", M*K*2), dev.Alloc("B", K*N*2), dev.Alloc("C", M*N*4)
		for i := 0; i < M; i++ {
			for k := 0; k < K; k++ {
				binary.LittleEndian.PutUint16(ba.Data[2*(i*K+k):], fpx.F64ToF16(A[i][k], fpx.RN))
			}
		}
		for k := 0; k < K; k++ {
			for j := 0; j < N; j++ {
				binary.LittleEndian.PutUint16(bb.Data[2*(k*N+j):], fpx.F64ToF16(B[k][j], fpx.RN))
			}
		}
		params := make([]byte, code.ParamSize)
		binary.LittleEndian.PutUint64(params[0:], ba.Base)
		binary.LittleEndian.PutUint64(params[8:], bb.Base)
		binary.LittleEndian.PutUint64(params[16:], bc.Base)
		kern, err := NewKernel(Launch{Code: code, Block: [3]int{32, 1, 1}, Params: params, Dev: dev})
		if err != nil {
			t.Fatal(err)
		}
		if timing {
			_, _, err = kern.RunModel(context.Background(), model.A100(), model.Options{Workers: 1})
		} else {
			_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
		}
		if err != nil {
			t.Fatalf("timing=%v: %v", timing, err)
		}
		for i := 0; i < M; i++ {
			for j := 0; j < N; j++ {
				want, mag := 0.0, 0.0
				for k := 0; k < K; k++ {
					want += A[i][k] * B[k][j]
					mag += math.Abs(A[i][k] * B[k][j])
				}
				got := float64(math.Float32frombits(binary.LittleEndian.Uint32(bc.Data[4*(i*N+j):])))
				tol := 2*math.Abs(want)*0x1p-23 + K*0x1p-23*mag
				if math.Abs(got-want) > tol {
					t.Fatalf("timing=%v: C[%d][%d] = %v, want %v ± %v", timing, i, j, got, want, tol)
				}
			}
		}
	}
}
