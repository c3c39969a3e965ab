package replay

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// TestLdUniform: loads from the param and const spaces whose address is a
// symbol (the same in every lane) take execLdUniform, and every lane reads
// the value the bytes hold: unsigned and sign-extended 1, 2, 4 and 8-byte
// elements, a guarded load (lanes whose guard is false keep their value),
// a const variable with an offset. Expected values are the bytes the test
// writes, read by hand.
func TestLdUniform(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.const .align 8 .b64 tab[2] = {0x1111111111111111, 0x8877665544332211};
.visible .entry k(.param .u64 out, .param .u8 pb, .param .s16 ph, .param .u32 pw, .param .u64 pd, .param .s32 pn)
{
	.reg .pred %p<2>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 40;
	add.s64 %rd3, %rd1, %rd2;
	ld.param.u8 %rs1, [pb];
	ld.param.s16 %rs2, [ph];
	ld.param.u32 %r2, [pw];
	ld.param.u64 %rd4, [pd];
	ld.param.s32 %r3, [pn];
	ld.const.u64 %rd5, [tab+8];
	mov.u32 %r4, 7;
	setp.lt.u32 %p1, %r1, 5;
	@%p1 ld.param.u32 %r4, [pw];
	st.global.u8 [%rd3], %rs1;
	st.global.u16 [%rd3+2], %rs2;
	st.global.u32 [%rd3+4], %r2;
	st.global.u64 [%rd3+8], %rd4;
	st.global.u32 [%rd3+16], %r3;
	st.global.u32 [%rd3+20], %r4;
	st.global.u64 [%rd3+24], %rd5;
	ld.param.s16 %r5, [ph];
	st.global.u32 [%rd3+32], %r5;
	ret;
}
`
	code := lowerK(t, "u.ptx", src)
	uni := 0
	for i := range code.entry.code {
		if code.entry.code[i].flags&fUniAddr != 0 {
			uni++
		}
	}
	if uni != 9 {
		t.Fatalf("%d loads take the uniform path, want 9 (8 ld.param with a symbol address, 1 ld.const)", uni)
	}
	const threads = 40 // a full warp and a partial one
	k, out := oneBlock(t, code, threads, 40*threads, func(params []byte) {
		params[code.Params[1].Offset] = 0xab
		binary.LittleEndian.PutUint16(params[code.Params[2].Offset:], 0xfffe) // -2
		binary.LittleEndian.PutUint32(params[code.Params[3].Offset:], 0xdeadbeef)
		binary.LittleEndian.PutUint64(params[code.Params[4].Offset:], 0x0123456789abcdef)
		binary.LittleEndian.PutUint32(params[code.Params[5].Offset:], 0xfffffffb) // -5
	})
	if _, err := k.Run(context.Background(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < threads; i++ {
		b := out.Data[40*i : 40*i+40]
		guarded := uint32(7)
		if i < 5 {
			guarded = 0xdeadbeef
		}
		if b[0] != 0xab || binary.LittleEndian.Uint16(b[2:]) != 0xfffe ||
			binary.LittleEndian.Uint32(b[4:]) != 0xdeadbeef ||
			binary.LittleEndian.Uint64(b[8:]) != 0x0123456789abcdef ||
			binary.LittleEndian.Uint32(b[16:]) != 0xfffffffb ||
			binary.LittleEndian.Uint32(b[20:]) != guarded ||
			binary.LittleEndian.Uint64(b[24:]) != 0x8877665544332211 ||
			binary.LittleEndian.Uint32(b[32:]) != 0xfffffffe {
			t.Errorf("thread %d wrote % x", i, b)
		}
	}
}

// TestLdUniformFault: a uniform ld.param whose address is a template
// constant the entry frame does not copy (fUniConst) and that leaves the
// fast path (misaligned, out of range) faults at the address the full
// frame would give: execLd, the fallback, reads the address register, so
// the template's value must be in the frame by then.
func TestLdUniformFault(t *testing.T) {
	for _, c := range []struct {
		off  int
		kind string
	}{{2, "misaligned"}, {4096, "out-of-bounds"}} {
		src := fmt.Sprintf(`.version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 pw)
{
	.reg .b32 %%r<8>;
	.reg .b64 %%rd<8>;
	ld.param.u64 %%rd1, [out];
	ld.param.u32 %%r2, [pw+%d];
	cvta.to.global.u64 %%rd1, %%rd1;
	st.global.u32 [%%rd1], %%r2;
	ret;
}
`, c.off)
		code := lowerK(t, "u.ptx", src)
		k, _ := oneBlock(t, code, 32, 64, nil)
		if !k.entryPart || code.entry.code[1].flags&fUniConst == 0 {
			t.Fatalf("entryPart %v, flags %#x: the load does not take the template's address", k.entryPart, code.entry.code[1].flags)
		}
		_, err := k.Run(context.Background(), RunOptions{})
		want := fmt.Sprintf("at %#x", code.Params[1].Offset+c.off)
		if err == nil || !strings.Contains(err.Error(), c.kind) || !strings.Contains(err.Error(), want) {
			t.Errorf("offset %d: %v, want a %s fault %s", c.off, err, c.kind, want)
		}
	}
}

// oneBlock makes a kernel of code on one block of threads, its first
// parameter pointing at a fresh output buffer of outBytes (returned); set,
// when not nil, writes the other parameters.
func oneBlock(t *testing.T, code *Code, threads, outBytes int, set func(params []byte)) (*Kernel, *Alloc) {
	t.Helper()
	dev := NewDeviceFor(code.Prog)
	out := dev.Alloc("out", outBytes)
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], out.Base)
	if set != nil {
		set(params)
	}
	k, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{threads, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	return k, out
}
