package replay_test

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
)

const texHeader = `.version 7.8
.target sm_52
.address_size 64
`

func runTexSrc(t *testing.T, src, spec string, ms *model.Spec) (*launch.Prepared, error) {
	t.Helper()
	s, err := launch.ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := s.Prepare(progFromSrc(t, "k.ptx", texHeader+src), launch.PrepareOptions{})
	if err != nil {
		return nil, err
	}
	_, err = prep.Run(context.Background(), launch.ExecOptions{Model: ms})
	return prep, err
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// TestTexRef: an old-style texture reference bound by name, integer and
// float coordinates, element and normalized reads, txq.
func TestTexRef(t *testing.T) {
	src := `.global .texref tr;
.tex .u64 old;
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<12>; .reg .f32 %f<12>; .reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 32;
	add.s64 %rd1, %rd1, %rd2;
	tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [tr, {%r1}];
	st.global.u32 [%rd1], %r2;
	st.global.u32 [%rd1+4], %r3;
	cvt.rn.f32.u32 %f1, %r1;
	add.f32 %f1, %f1, 0f3F000000;
	tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [old, {%f1, %f1}];
	st.global.f32 [%rd1+8], %f2;
	txq.width.b32 %r6, [tr];
	st.global.u32 [%rd1+12], %r6;
	txq.height.b32 %r6, [old];
	st.global.u32 [%rd1+16], %r6;
	ret;
}
`
	spec := `kernel: k
grid: [1]
block: [4]
params:
  - {name: out, buffer: {type: u32, count: 32, output: true}}
textures:
  - {name: a, ref: tr, dims: 1, width: 4, format: s32x2, init: {values: [10, 11, 20, 21, 30, 31, 40, 41]}}
  - {name: b, ref: old, dims: 2, width: 4, height: 4, format: u8, read_mode: normalized, init: {ramp: {start: 0, step: 17}}}
`
	for _, ms := range []*model.Spec{nil, ptrSpec("gtx480")} {
		prep, err := runTexSrc(t, src, spec, ms)
		if err != nil {
			t.Fatal(err)
		}
		out := u32s(prep.Buffer("out").Alloc.Data)
		for i := 0; i < 4; i++ {
			r := out[8*i : 8*i+5]
			if r[0] != uint32(10*(i+1)) || r[1] != uint32(10*(i+1)+1) || r[3] != 4 || r[4] != 4 {
				t.Fatalf("lane %d: %v", i, r)
			}
			// point sampling at texel (i, i) of a 4x4 ramp ×17, normalized /255
			want := float32(17*(i*4+i)) / 255
			if got := math.Float32frombits(r[2]); math.Abs(float64(got-want)) > 1e-6 {
				t.Fatalf("lane %d: tex.2d = %v, want %v", i, got, want)
			}
		}
	}
	// an unbound reference faults
	_, err := runTexSrc(t, src, "kernel: k\ngrid: [1]\nblock: [4]\nparams:\n  - {name: out, buffer: {type: u32, count: 32}}\n", nil)
	if err == nil || !strings.Contains(err.Error(), "not bound") {
		t.Fatalf("unbound texref: %v", err)
	}
}

func ptrSpec(name string) *model.Spec {
	s, _ := model.Preset(name)
	return &s
}

// TestTexObjects: texture objects passed as handles (3D linear, layered 2D
// via tex.a2d, tld4) and the model's texture counters.
func TestTexObjects(t *testing.T) {
	src := `.visible .entry k(.param .u64 out, .param .u64 t3, .param .u64 t2, .param .u64 lay)
{
	.reg .b32 %r<12>; .reg .f32 %f<20>; .reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd3, [t3];
	ld.param.u64 %rd4, [t2];
	ld.param.u64 %rd5, [lay];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 32;
	add.s64 %rd1, %rd1, %rd2;
	mov.f32 %f1, 0f3F000000;
	tex.3d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd3, {%f1, %f1, %f1, %f1}];
	st.global.f32 [%rd1], %f2;
	mov.f32 %f6, 0f3F800000;
	tld4.r.2d.v4.f32.f32 {%f7, %f8, %f9, %f10}, [%rd4, {%f6, %f6}];
	st.global.v4.f32 [%rd1+16], {%f7, %f8, %f9, %f10};
	mov.f32 %f11, 0f3FC00000;
	tex.a2d.v4.f32.f32 {%f12, %f13, %f14, %f15}, [%rd5, {%r1, %f11, %f11, %f11}];
	st.global.f32 [%rd1+4], %f12;
	ret;
}
`
	spec := `kernel: k
grid: [1]
block: [2]
params:
  - {name: out, buffer: {type: f32, count: 16, output: true}}
  - {texture: v}
  - {texture: g}
  - {texture: l}
textures:
  - {name: v, dims: 3, width: 2, height: 2, depth: 2, format: f32, filter: linear, normalized_coords: true, init: {values: [0, 1, 2, 3, 4, 5, 6, 7]}}
  - {name: g, dims: 2, width: 2, height: 2, format: f32, init: {values: [1, 2, 3, 4]}}
  - {name: l, dims: 2, layered: true, layers: 2, width: 2, height: 2, format: f32, init: {values: [1, 2, 3, 4, 5, 6, 7, 8]}}
`
	for _, ms := range []*model.Spec{nil, ptrSpec("gtx480")} {
		prep, err := runTexSrc(t, src, spec, ms)
		if err != nil {
			t.Fatal(err)
		}
		out := prep.Buffer("out").Alloc.Data
		f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])) }
		for l := 0; l < 2; l++ {
			b := 8 * l
			if f(b) != 3.5 { // centre of a 2x2x2 volume: mean of 0..7
				t.Fatalf("lane %d: tex.3d = %v", l, f(b))
			}
			// tld4 at (1, 1) texel coords: footprint i0 = j0 = 0: (0,1) (1,1) (1,0) (0,0)
			if f(b+4) != 3 || f(b+5) != 4 || f(b+6) != 2 || f(b+7) != 1 {
				t.Fatalf("lane %d: tld4 = %v %v %v %v", l, f(b+4), f(b+5), f(b+6), f(b+7))
			}
			// layer l, texel (1, 1) by point sampling
			if want := float32(4 + 4*l); f(b+1) != want {
				t.Fatalf("lane %d: tex.a2d = %v, want %v", l, f(b+1), want)
			}
		}
	}
}

// TestSurfaces: sust/suld .b with trap, clamp and zero on a surface object
// and a .surfref; the surface is an output.
func TestSurfaces(t *testing.T) {
	src := `.global .surfref sr;
.visible .entry k(.param .u64 out, .param .u64 s)
{
	.reg .b32 %r<12>; .reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd3, [s];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd1, %rd1, %rd2;
	add.u32 %r3, %r1, 100;
	sust.b.2d.b32.trap [%rd3, {%r2, 1}], %r3;
	suld.b.2d.b32.trap %r4, [%rd3, {%r2, 1}];
	st.global.u32 [%rd1], %r4;
	suld.b.2d.b32.zero %r5, [%rd3, {%r2, 7}];
	st.global.u32 [%rd1+4], %r5;
	suld.b.2d.b32.clamp %r6, [%rd3, {%r2, 7}];
	st.global.u32 [%rd1+8], %r6;
	suld.b.1d.b32.trap %r7, [sr, {%r2}];
	st.global.u32 [%rd1+12], %r7;
	ret;
}
`
	spec := `kernel: k
grid: [1]
block: [4]
params:
  - {name: out, buffer: {type: u32, count: 16, output: true}}
  - {texture: s}
textures:
  - {name: s, surface: true, output: true, dims: 2, width: 4, height: 2, format: u32}
  - {name: r, surface: true, ref: sr, dims: 1, width: 4, format: u32, init: {values: [5, 6, 7, 8]}}
`
	for _, ms := range []*model.Spec{nil, ptrSpec("gtx480")} {
		prep, err := runTexSrc(t, src, spec, ms)
		if err != nil {
			t.Fatal(err)
		}
		out := u32s(prep.Buffer("out").Alloc.Data)
		for l := 0; l < 4; l++ {
			r := out[4*l : 4*l+4]
			if r[0] != uint32(100+l) || r[1] != 0 || r[2] != uint32(100+l) || r[3] != uint32(5+l) {
				t.Fatalf("lane %d: %v", l, r)
			}
		}
		if s := u32s(prep.Buffer("s").Alloc.Data); s[4] != 100 || s[7] != 103 || s[0] != 0 {
			t.Fatalf("surface: %v", s)
		}
	}
	bad := strings.Replace(src, "suld.b.2d.b32.zero %r5, [%rd3, {%r2, 7}]", "suld.b.2d.b32.trap %r5, [%rd3, {%r2, 7}]", 1)
	if _, err := runTexSrc(t, bad, spec, nil); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("trap: %v", err)
	}
}
