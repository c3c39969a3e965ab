package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// indirectSrc: out[i] = f(i) where f is chosen per lane by i%4 among
// double, triple, add7 (through a register) and, for i%4 == 3, the value
// selected by the parameter sel: 0 the fourth function (times 10), 1 a
// function with two parameters (prototype mismatch), 2 the kernel itself,
// 3 a non-function value.
const indirectSrc = `.version 7.0
.target sm_80
.address_size 64
.func (.param .b32 r) dbl(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; shl.b32 %x, %x, 1; st.param.b32 [r], %x; ret; }
.func (.param .b32 r) tpl(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; mul.lo.u32 %x, %x, 3; st.param.b32 [r], %x; ret; }
.func (.param .b32 r) add7(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; add.u32 %x, %x, 7; st.param.b32 [r], %x; ret; }
.func (.param .b32 r) ten(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; mul.lo.u32 %x, %x, 10; st.param.b32 [r], %x; ret; }
.func (.param .b32 r) two(.param .b32 a, .param .b32 b) { .reg .b32 %x; ld.param.b32 %x, [a]; st.param.b32 [r], %x; ret; }
.visible .entry k(.param .u64 pout, .param .u32 psel)
{
	.reg .pred %p<5>;
	.reg .b32 %i, %m, %v, %sel;
	.reg .b64 %f, %o, %a;
	ld.param.u64 %o, [pout];
	ld.param.u32 %sel, [psel];
	mov.u32 %i, %tid.x;
	and.b32 %m, %i, 3;
	mov.u64 %f, dbl;
	setp.eq.u32 %p1, %m, 1;
	@%p1 mov.u64 %f, tpl;
	setp.eq.u32 %p2, %m, 2;
	@%p2 mov.u64 %f, add7;
	setp.eq.u32 %p3, %m, 3;
	setp.eq.u32 %p4, %sel, 0;
	@%p3 mov.u64 %f, ten;
	setp.eq.u32 %p4, %sel, 1;
	and.pred %p4, %p4, %p3;
	@%p4 mov.u64 %f, two;
	setp.eq.u32 %p4, %sel, 2;
	and.pred %p4, %p4, %p3;
	@%p4 mov.u64 %f, k;
	setp.eq.u32 %p4, %sel, 3;
	and.pred %p4, %p4, %p3;
	@%p4 mov.u64 %f, 12345;
	{
	.param .b32 param0;
	.param .b32 retval0;
	st.param.b32 [param0], %i;
	proto: .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), %f, (param0), proto;
	ld.param.b32 %v, [retval0];
	}
	mul.wide.u32 %a, %i, 4;
	add.u64 %a, %o, %a;
	st.global.u32 [%a], %v;
	ret;
}
`

func runIndirect(t *testing.T, sel uint32) ([]uint32, error) {
	t.Helper()
	code := lowerK(t, "ind.ptx", indirectSrc)
	dev := NewDevice()
	out := dev.Alloc("out", 4*64)
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], out.Base)
	binary.LittleEndian.PutUint32(params[code.Params[1].Offset:], sel)
	k, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Run(context.Background(), RunOptions{Workers: 1})
	res := make([]uint32, 64)
	for i := range res {
		res[i] = binary.LittleEndian.Uint32(out.Data[4*i:])
	}
	return res, err
}

// TestIndirectCall: lanes of one warp call four different functions through
// a register; each lane gets its own function's result.
func TestIndirectCall(t *testing.T) {
	got, err := runIndirect(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		var want uint32
		switch i % 4 {
		case 0:
			want = uint32(2 * i)
		case 1:
			want = uint32(3 * i)
		case 2:
			want = uint32(i + 7)
		case 3:
			want = uint32(10 * i)
		}
		if v != want {
			t.Errorf("out[%d] = %d, want %d", i, v, want)
		}
	}
}

// TestIndirectCallFaults: a callee whose signature differs from the call,
// a kernel entry and a value that is no function address fault on the
// first lane that names them (lane 3).
func TestIndirectCallFaults(t *testing.T) {
	for sel, want := range map[uint32]string{1: "indirect call of two: 2 parameters", 2: "indirect call of k: a kernel entry", 3: "indirect call to 0x3039"} {
		_, err := runIndirect(t, sel)
		var f *Fault
		if !errors.As(err, &f) || f.Kind != FaultInvalid || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "lane 3") {
			t.Errorf("sel %d: err %v, want an invalid fault containing %q at lane 3", sel, err, want)
		}
	}
}
