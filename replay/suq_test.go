package replay_test

import (
	"testing"
)

// TestSurfaceQuery: suq on a surface object (PTX ISA: .width, .height in
// elements).
func TestSurfaceQuery(t *testing.T) {
	src := `.visible .entry k(.param .u64 out, .param .u64 s)
{
	.reg .b32 %r<4>; .reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd3, [s];
	suq.width.b32 %r1, [%rd3];
	suq.height.b32 %r2, [%rd3];
	st.global.u32 [%rd1], %r1;
	st.global.u32 [%rd1+4], %r2;
	ret;
}
`
	spec := `kernel: k
grid: [1]
block: [1]
params:
  - {name: out, buffer: {type: u32, count: 2, output: true}}
  - {texture: s}
textures:
  - {name: s, surface: true, dims: 2, width: 4, height: 2, format: u32}
`
	prep, err := runTexSrc(t, src, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := u32s(prep.Buffer("out").Alloc.Data); out[0] != 4 || out[1] != 2 {
		t.Fatalf("suq width, height = %v, want [4 2]", out)
	}
}
