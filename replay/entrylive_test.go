package replay

import (
	"context"
	"encoding/binary"
	"reflect"
	"slices"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// TestEntryCopy: the entry-frame registers a warp takes from the template
// are every register some thread may read before writing it: a declared
// register read first, or a template constant (an immediate, a symbol's
// address) read by an instruction, except the address of a uniform
// ld.param, which execLdUniform reads from the template; the expected sets
// are worked out by hand from each kernel's paths.
func TestEntryCopy(t *testing.T) {
	const head = `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
`
	for _, c := range []struct {
		name string
		body string
		ok   bool
		want []string // registers read before written
		imms []uint64 // the template constants read (by value; [p] is 0)
	}{
		{"straight", `
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd1], %r2;
	ret;`, true, nil, []uint64{1}},
		{"read first", `
	ld.param.u64 %rd1, [p];
	add.s32 %r2, %r1, 1;
	mov.u32 %r1, 5;
	st.global.u32 [%rd1], %r2;
	ret;`, true, []string{"%r1"}, []uint64{1, 5}},
		{"guarded write", `
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 mov.u32 %r2, 1;
	st.global.u32 [%rd1], %r2;
	ret;`, true, []string{"%r2"}, []uint64{0, 1}},
		{"one arm", `
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra A;
	mov.u32 %r2, 1;
	mov.u32 %r3, 1;
	bra.uni B;
A:
	mov.u32 %r3, 2;
B:
	add.s32 %r4, %r2, %r3;
	st.global.u32 [%rd1], %r4;
	ret;`, true, []string{"%r2"}, []uint64{0, 1, 2}},
		{"store reads its value and guard", `
	ld.param.u64 %rd1, [p];
	@%p2 st.global.u32 [%rd1], %r5;
	ret;`, true, []string{"%p2", "%r5"}, nil},
		{"guarded exit", `
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 exit;
	st.global.u32 [%rd1], %r6;
	ret;`, true, []string{"%r6"}, []uint64{0}},
		{"loop", `
	mov.u32 %r1, 0;
L:
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 4;
	@%p1 bra L;
	ret;`, false, nil, nil},
		{"warp collective", `
	mov.u32 %r1, %tid.x;
	shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
	ret;`, false, nil, nil},
		{"vector load", `
	ld.param.u64 %rd1, [p];
	ld.global.v2.u32 {%r1, %r2}, [%rd1];
	ret;`, false, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			code := lowerK(t, "t.ptx", head+c.body+"\n}\n")
			f := code.entry
			runs, _, ok := entryCopy(f)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			var got []int32
			for _, r := range runs {
				if r[0]%32 != 0 || r[1]%32 != 0 || r[0] >= r[1] {
					t.Fatalf("run %v is not whole registers", r)
				}
				for o := r[0]; o < r[1]; o += 32 {
					got = append(got, o)
				}
			}
			var want []int32
			for _, ri := range f.inits {
				if ri.kind == initImm && slices.Contains(c.imms, ri.v) {
					want = append(want, ri.reg)
				}
			}
			for _, name := range c.want {
				i := slices.Index(f.regNames, name)
				if i < 0 {
					t.Fatalf("no register %s in %v", name, f.regNames)
				}
				want = append(want, int32(i*32))
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("copied registers %v, want %v (names %v)", got, want, f.regNames)
			}
		})
	}
}

// TestEntryCopyRecycled runs a kernel whose threads read registers before
// writing them (%r7 never written before the read; %r2 written only in a
// CTA's thread 0) and then dirty those registers, on CTAs whose warps reuse
// the register storage of earlier CTAs: every thread must still read the
// starting value 0, so out[i] is 7 for the first thread of a CTA and 0 for
// the others, functionally and in timing mode.
func TestEntryCopyRecycled(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.s32 %r5, %r3, %r4, %r1;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 mov.u32 %r2, 7;
	add.s32 %r6, %r2, %r7;
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.s32 %rd3, %r5, 4;
	add.s64 %rd3, %rd2, %rd3;
	st.global.u32 [%rd3], %r6;
	mov.u32 %r7, 1000;
	mov.u32 %r2, 2000;
	ret;
}
`
	code := lowerK(t, "t.ptx", src)
	runs, _, ok := entryCopy(code.entry)
	if !ok {
		t.Fatal("entryCopy does not apply: the test would not exercise it")
	}
	copied := 0
	for _, r := range runs {
		copied += int(r[1]-r[0]) / 32
	}
	if copied >= code.entry.nregs {
		t.Fatalf("every register copied (%d of %d): nothing skipped", copied, code.entry.nregs)
	}
	const ctas, block = 96, 64
	for _, timing := range []bool{false, true} {
		dev := NewDevice()
		bout := dev.Alloc("out", 4*ctas*block)
		for i := range bout.Data {
			bout.Data[i] = 0xab
		}
		params := make([]byte, code.ParamSize)
		binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], bout.Base)
		kern, err := NewKernel(Launch{Code: code, Grid: [3]int{ctas, 1, 1}, Block: [3]int{block, 1, 1}, Params: params, Dev: dev, NumSMs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !kern.entryPart {
			t.Fatal("the kernel copies its whole template")
		}
		if timing {
			_, _, err = kern.RunModel(context.Background(), model.A100(), model.Options{Workers: 1})
		} else {
			_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < ctas*block; i++ {
			want := uint32(0)
			if i%block == 0 {
				want = 7
			}
			if got := binary.LittleEndian.Uint32(bout.Data[4*i:]); got != want {
				t.Fatalf("timing %v: out[%d] = %d, want %d", timing, i, got, want)
			}
		}
	}
}

// TestMovSpecial: mov from a static special register computes it into the
// destination (execMovSpecial) for every lane, for the active lanes of a
// guarded mov (the others keep their value), at the mov's width; the
// special's own register is filled only when another instruction reads it.
func TestMovSpecial(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b16 %rs<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 99;
	setp.lt.u32 %p1, %r1, 5;
	@%p1 mov.u32 %r2, %laneid;
	mov.u16 %rs1, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	st.global.u32 [%rd3+4], %r2;
	st.global.u16 [%rd3+8], %rs1;
	st.global.u32 [%rd3+12], %r4;
	ret;
}
`
	code := lowerK(t, "m.ptx", src)
	movs := 0
	for i := range code.entry.code {
		if reflect.ValueOf(code.entry.code[i].exec).Pointer() == reflect.ValueOf(execMovSpecial).Pointer() {
			movs++
		}
	}
	if movs != 4 {
		t.Fatalf("%d movs from specials take execMovSpecial, want 4", movs)
	}
	const threads = 40
	k, out := oneBlock(t, code, threads, 16*threads, nil)
	if !k.entryPart || len(k.entryFill) != 0 {
		t.Fatalf("entryPart %v, specials filled %+v: want the partial copy and none", k.entryPart, k.entryFill)
	}
	if _, err := k.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < threads; i++ {
		b := out.Data[16*i:]
		want := [4]uint32{uint32(i), 99, 0, threads}
		if i < 5 {
			want[1] = uint32(i % 32)
		}
		for j, w := range want {
			if g := binary.LittleEndian.Uint32(b[4*j:]); g != w {
				t.Errorf("thread %d word %d = %d, want %d", i, j, g, w)
			}
		}
	}
}
