package replay

import (
	"context"
	"encoding/binary"
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// runOld lowers entry k of src and runs it on one CTA of 32 threads with
// one parameter, a pointer to a 128-byte buffer; it returns the buffer.
func runOld(t *testing.T, src string, ptrSize int) ([]uint32, *Alloc, error) {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), "old.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("k")
	if err != nil {
		return nil, nil, err
	}
	if len(code.Warnings) > 0 {
		t.Fatalf("warnings: %v", code.Warnings)
	}
	dev := NewDeviceFor(p)
	buf := dev.Alloc("buf", 128)
	params := make([]byte, code.ParamSize)
	if ptrSize == 4 {
		binary.LittleEndian.PutUint32(params, uint32(buf.Base))
	} else {
		binary.LittleEndian.PutUint64(params, buf.Base)
	}
	kern, err := NewKernel(Launch{Code: code, Block: [3]int{32, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		return nil, buf, err
	}
	_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
	out := make([]uint32, 32)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(buf.Data[4*i:])
	}
	return out, buf, err
}

// A PTX 1.x module declares registers at module scope; a function uses
// them as its own. Each thread stores 3*tid+1 computed through %rv1/%ra<2>.
func TestModuleScopeReg(t *testing.T) {
	src := `.version 1.4
.target sm_13
.reg .u32 %rv1;
.reg .u32 %ra<2>;
.entry k(.param .u64 pout)
{
	.reg .u64 %rd<3>;
	ld.param.u64 %rd1, [pout];
	mov.u32 %ra0, %tid.x;
	mul.lo.u32 %ra1, %ra0, 3;
	add.u32 %rv1, %ra1, 1;
	cvt.u64.u32 %rd2, %ra0;
	mul.lo.u64 %rd2, %rd2, 4;
	add.u64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %rv1;
	exit;
}
`
	out, _, err := runOld(t, src, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != uint32(3*i+1) {
			t.Fatalf("thread %d stored %d, want %d", i, v, 3*i+1)
		}
	}
}

// Two functions of one kernel sharing a module-scope register could pass a
// value through it: refused at lowering, never run with per-frame copies.
func TestModuleScopeRegSharedRefused(t *testing.T) {
	src := `.version 1.4
.target sm_13
.reg .u32 %rv1;
.func f()
{
	mov.u32 %rv1, 5;
	ret;
}
.entry k(.param .u64 pout)
{
	.reg .u64 %rd1;
	ld.param.u64 %rd1, [pout];
	call f, ();
	st.global.u32 [%rd1], %rv1;
	exit;
}
`
	_, _, err := runOld(t, src, 8)
	if err == nil || !strings.Contains(err.Error(), "module-scope register %rv1") {
		t.Fatalf("err = %v, want a refusal naming %%rv1", err)
	}
}

// A function-scope declaration shadows the module-scope register: no
// sharing, the kernel runs.
func TestModuleScopeRegShadowed(t *testing.T) {
	src := `.version 1.4
.target sm_13
.reg .u32 %rv1;
.func f()
{
	.reg .u32 %rv1;
	mov.u32 %rv1, 5;
	ret;
}
.entry k(.param .u64 pout)
{
	.reg .u64 %rd1;
	ld.param.u64 %rd1, [pout];
	mov.u32 %rv1, 7;
	call f, ();
	st.global.u32 [%rd1], %rv1;
	exit;
}
`
	out, _, err := runOld(t, src, 8)
	if err != nil {
		t.Fatal(err)
	}
	if out[0] != 7 {
		t.Fatalf("stored %d, want 7 (the entry's own %%rv1)", out[0])
	}
}

// An .address_size 32 module passes 32-bit pointers: the device places
// allocations below 4 GiB so the .u32 pointer reaches the buffer, and
// generic addresses of shared memory fit 32 bits (cvta.shared.u32 is not
// needed: a generic store through a 32-bit register holding the buffer
// address is global). Thread t stores t+100 at buf[4t].
func TestAddressSize32(t *testing.T) {
	src := `.version 2.1
.target sm_20
.address_size 32
.entry k(.param .u32 pout)
{
	.reg .u32 %r<5>;
	ld.param.u32 %r1, [pout];
	mov.u32 %r2, %tid.x;
	shl.b32 %r3, %r2, 2;
	add.u32 %r1, %r1, %r3;
	add.u32 %r4, %r2, 100;
	st.u32 [%r1], %r4;
	exit;
}
`
	out, buf, err := runOld(t, src, 4)
	if err != nil {
		t.Fatal(err)
	}
	if buf.End() > GlobalLimit32 || buf.Base < GlobalBase32 {
		t.Fatalf("buffer at %#x..%#x, want inside [%#x, %#x)", buf.Base, buf.End(), GlobalBase32, GlobalLimit32)
	}
	for i, v := range out {
		if v != uint32(i+100) {
			t.Fatalf("thread %d stored %d, want %d", i, v, i+100)
		}
	}
}

// The 32-bit address map: the shared window resolves to shared memory, the
// global base to global memory, and the windows end at 4 GiB.
func TestAddressSize32Window(t *testing.T) {
	var am = addrMap32
	sp, off := am.resolve(SharedWindow32 + 12)
	if sp != spShared || off != 12 {
		t.Fatalf("resolve(SharedWindow32+12) = %v %d, want shared 12", sp, off)
	}
	if sp, _ := am.resolve(GlobalBase32); sp != spGlobal {
		t.Fatalf("GlobalBase32 resolves to %v, want global", sp)
	}
	if ParamWindow32+Window32Size != 1<<32 {
		t.Fatalf("the 32-bit windows must end at 4 GiB")
	}
}

// A 64-bit device's allocations cannot serve a 32-bit module.
func TestAddressSize32WrongDevice(t *testing.T) {
	src := ".version 2.1\n.target sm_20\n.address_size 32\n.entry k(.param .u32 p)\n{\n\texit;\n}\n"
	code := lowerK(t, "old.ptx", src)
	dev := NewDevice()
	dev.Alloc("big", 16)
	_, err := NewKernel(Launch{Code: code, Params: make([]byte, 4), Dev: dev})
	if err == nil || !strings.Contains(err.Error(), "32-bit address space") {
		t.Fatalf("err = %v, want a 32-bit address space refusal", err)
	}
}
