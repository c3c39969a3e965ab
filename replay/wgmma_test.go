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
	"github.com/ptxtrace/ptxtrace/ptx"
)

// wgmma tests: one warpgroup (128 threads). The test lays A (64×K) and B
// (N×K, i.e. K×N stored K-major, or MN-major) out in a shared-memory image
// itself, from the canonical layouts written as "16-byte chunk index XOR
// row-in-atom" (not as the address-bit XOR replay uses), copies it to
// shared memory, runs one wgmma and checks every D register of every lane
// against a direct product, with D's fragment positions from the ISA's
// figure for the wgmma .m64nNk16 accumulator: warp w, lane t, register i
// → row 16w + t/4 + 8·((i/2)%2), column 8·(i/4) + 2·(t%4) + i%2.

type wgCase struct {
	typ      string // f16 bf16 e4m3 e5m2
	n        int
	swz      int  // 128, 64, 32 bytes; 0 interleaved
	transB   bool // B MN-major
	regA     bool // A from registers
	scaleD   int  // 0 or 1
	negA     bool
	spelling string
}

func (c wgCase) k() int {
	if c.typ == "e4m3" || c.typ == "e5m2" {
		return 32
	}
	return 16
}

func (c wgCase) es() int { return 32 / c.k() }

func (c wgCase) text() string {
	return fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s", c.n, c.k(), c.typ, c.typ)
}

// small integers exact in every type (e4m3 and e5m2 hold -8..8 exactly)
func wgA(i, k int) float64 { return float64((i*3+k*5)%9 - 4) }
func wgB(k, j int) float64 { return float64((k*5+j*3)%7 - 3) }
func wgC(i, j int) float64 { return float64((i+2*j)%11 - 5) }

func wgEnc(typ string, v float64) []byte {
	switch typ {
	case "f16":
		return binary.LittleEndian.AppendUint16(nil, fpx.F64ToF16(v, fpx.RN))
	case "bf16":
		return binary.LittleEndian.AppendUint16(nil, fpx.F64ToBF16(v, fpx.RN))
	case "e5m2":
		return []byte{byte(fpx.F64ToF16(v, fpx.RN) >> 8)} // exact for small integers
	}
	// e4m3: sign, 4-bit exponent (bias 7), 3-bit mantissa; |v| ≤ 8 integer
	var b byte
	if v < 0 {
		b, v = 0x80, -v
	}
	if v == 0 {
		return []byte{b}
	}
	e := int(math.Floor(math.Log2(v)))
	m := int((v/math.Ldexp(1, e) - 1) * 8)
	return []byte{b | byte(e+7)<<3 | byte(m)}
}

// place returns the byte offset of element (r, kb-th byte along K) of a
// K-major operand, or of (r along MN, k) for MN-major, in a tile with
// swizzle width swz; sbo/lbo as the descriptor's.
func place(swz int, mn bool, r, k, es, sbo, lbo int) int {
	if swz == 0 { // K-major interleaved: 8×16-byte core matrices
		kb := k * es
		return (r/8)*sbo + (kb/16)*lbo + (r%8)*16 + kb%16
	}
	if mn {
		per := swz / es // elements along MN in one swizzle row
		row := k % 8    // row of the 8-row atom
		byteInRow := (r % per) * es
		chunk := byteInRow / 16
		return (r/per)*lbo + (k/8)*sbo + row*swz + (chunk^(row*swz/128%(swz/16)))*16 + byteInRow%16
	}
	row := r % 8
	kb := k * es
	chunk := kb / 16
	return (r/8)*sbo + row*swz + (chunk^(row*swz/128%(swz/16)))*16 + kb%16
}

func wgSwzBits(swz int) uint64 {
	return map[int]uint64{0: 0, 128: 1, 64: 2, 32: 3}[swz]
}

func runWgmma(t testing.TB, c wgCase) {
	t.Helper()
	K, es := c.k(), c.es()
	const aOff, bOff = 0, 16384 // 1024-aligned tiles
	img := make([]byte, 65536)
	swzA := c.swz
	sboA, lboA := 8*max(swzA, 16), 128
	if swzA == 0 {
		sboA, lboA = 128, 2048 // 8 rows × 16 B per core matrix; K chunks far apart
	}
	for i := 0; i < 64; i++ {
		for k := 0; k < K; k++ {
			copy(img[aOff+place(swzA, false, i, k, es, sboA, lboA):], wgEnc(c.typ, wgA(i, k)))
		}
	}
	sboB, lboB := sboA, lboA
	if c.transB {
		sboB, lboB = 8*c.swz, 8192 // K groups of 8 rows; MN atoms 8 KiB apart
	}
	for j := 0; j < c.n; j++ {
		for k := 0; k < K; k++ {
			copy(img[bOff+place(c.swz, c.transB, j, k, es, sboB, lboB):], wgEnc(c.typ, wgB(k, j)))
		}
	}
	desc := func(start, lbo, sbo int) uint64 {
		return uint64(start>>4) | uint64(lbo>>4)<<16 | uint64(sbo>>4)<<32 | wgSwzBits(c.swz)<<62
	}
	// input: image (64 KiB), then C per lane: 128 threads × n/2 f32
	nd := c.n / 2
	in := make([]byte, 65536+128*4*nd)
	copy(in, img)
	for tid := 0; tid < 128; tid++ {
		wp, l := tid/32, tid%32
		for i := 0; i < nd; i++ {
			r, col := 16*wp+l/4+8*((i/2)%2), 8*(i/4)+2*(l%4)+i%2
			binary.LittleEndian.PutUint32(in[65536+4*(tid*nd+i):], math.Float32bits(float32(wgC(r, col))))
		}
	}
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90a\n.address_size 64\n.shared .align 1024 .b8 tile[65536];\n")
	b.WriteString(".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pda, .param .u64 pdb)\n{\n")
	fmt.Fprintf(&b, "\t.reg .f32 %%d<%d>;\n\t.reg .b32 %%a<4>, %%tid, %%w, %%i;\n\t.reg .b64 %%in, %%out, %%da, %%db, %%p, %%q, %%s, %%v;\n\t.reg .pred %%more, %%sd;\n", nd)
	b.WriteString("\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tld.param.u64 %da, [pda];\n\tld.param.u64 %db, [pdb];\n\tmov.u32 %tid, %tid.x;\n")
	// copy the image: thread t copies 8-byte words t, t+128, ...
	b.WriteString("\tmov.u32 %i, %tid;\n$Lcopy:\n\tmul.wide.u32 %p, %i, 8;\n\tadd.u64 %q, %in, %p;\n\tld.global.b64 %v, [%q];\n\tmov.u64 %s, tile;\n\tadd.u64 %s, %s, %p;\n\tst.shared.b64 [%s], %v;\n")
	b.WriteString("\tadd.u32 %i, %i, 128;\n\tsetp.lt.u32 %more, %i, 8192;\n\t@%more bra $Lcopy;\n\tbar.sync 0;\n\tfence.proxy.async.shared::cta;\n")
	fmt.Fprintf(&b, "\tmul.wide.u32 %%p, %%tid, %d;\n\tadd.u64 %%q, %%in, %%p;\n\tadd.u64 %%out, %%out, %%p;\n", 4*nd)
	for i := 0; i < nd; i++ {
		fmt.Fprintf(&b, "\tld.global.f32 %%d%d, [%%q+%d];\n", i, 65536+4*i)
	}
	var ds []string
	for i := 0; i < nd; i++ {
		ds = append(ds, fmt.Sprintf("%%d%d", i))
	}
	aOp := "%da"
	if c.regA {
		// A fragment: mma.m16n8k16 A layout of this warp's 16 rows, built
		// from the same values (registers a_i/2 halves)
		b.WriteString("\tshr.u32 %w, %tid, 5;\n")
		aOp = "{%a0, %a1, %a2, %a3}"
		// the harness passes the per-lane A registers in the image after C
		fmt.Fprintf(&b, "\tmul.wide.u32 %%p, %%tid, 16;\n\tadd.u64 %%q, %%in, %%p;\n")
		for i := 0; i < 4; i++ {
			fmt.Fprintf(&b, "\tld.global.b32 %%a%d, [%%q+%d];\n", i, 65536+128*4*nd+4*i)
		}
	}
	fmt.Fprintf(&b, "\tsetp.ne.u32 %%sd, %d, 0;\n\twgmma.fence.sync.aligned;\n", c.scaleD)
	scaleA := "1"
	if c.negA {
		scaleA = "-1"
	}
	trans := ""
	if c.k() == 16 {
		tb := "0"
		if c.transB {
			tb = "1"
		}
		trans = ", " + tb
		if !c.regA {
			trans = ", 0" + trans
		}
	}
	fmt.Fprintf(&b, "\t%s {%s}, %s, %%db, %%sd, %s, 1%s;\n", c.text(), strings.Join(ds, ", "), aOp, scaleA, trans)
	b.WriteString("\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n")
	for i := 0; i < nd; i++ {
		fmt.Fprintf(&b, "\tst.global.f32 [%%out+%d], %%d%d;\n", 4*i, i)
	}
	b.WriteString("\tret;\n}\n")
	if c.regA {
		ext := make([]byte, 128*16)
		for tid := 0; tid < 128; tid++ {
			wp, l := tid/32, tid%32
			for i := 0; i < 8; i++ {
				r, col := isaA(l, i)
				v := wgEnc(c.typ, wgA(16*wp+r, col))
				copy(ext[16*tid+4*(i/2)+2*(i%2):], v)
			}
		}
		in = append(in, ext...)
	}
	f, err := ptx.ParseFile(token.NewFileSet(), "wg.ptx", []byte(b.String()), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, b.String())
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("k")
	if err != nil || len(code.Warnings) > 0 {
		t.Fatalf("lower: %v %v", err, code.Warnings)
	}
	if len(code.Notices) != 1 || !strings.Contains(code.Notices[0], "not bit-exact") {
		t.Fatalf("notices %q, want one for the wgmma", code.Notices)
	}
	dev := NewDevice()
	bin, bout := dev.Alloc("in", len(in)), dev.Alloc("out", 128*4*nd)
	copy(bin.Data, in)
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], bin.Base)
	binary.LittleEndian.PutUint64(params[code.Params[1].Offset:], bout.Base)
	binary.LittleEndian.PutUint64(params[code.Params[2].Offset:], desc(aOff, lboA, sboA))
	binary.LittleEndian.PutUint64(params[code.Params[3].Offset:], desc(bOff, lboB, sboB))
	kern, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kern.Run(context.Background(), RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for tid := 0; tid < 128; tid++ {
		wp, l := tid/32, tid%32
		for i := 0; i < nd; i++ {
			r, col := 16*wp+l/4+8*((i/2)%2), 8*(i/4)+2*(l%4)+i%2
			want := 0.0
			if c.scaleD == 1 {
				want = wgC(r, col)
			}
			for k := 0; k < K; k++ {
				a := wgA(r, k)
				if c.negA {
					a = -a
				}
				want += a * wgB(k, col)
			}
			got := float64(math.Float32frombits(binary.LittleEndian.Uint32(bout.Data[4*(tid*nd+i):])))
			if got != want {
				t.Fatalf("thread %d d%d (D[%d][%d]) = %v, want %v", tid, i, r, col, got, want)
			}
		}
	}
}

// wgmmaCases are the wgmma instructions the tests run (the spelling
// coverage test counts them as conformance cases): every accepted shape
// with both K, every type, every swizzle, MN-major B, A from registers,
// scale-d 0 and 1 and a negated A.
func wgmmaCases() []wgCase {
	cs := []wgCase{
		{typ: "f16", n: 64, swz: 128, scaleD: 1},
		{typ: "f16", n: 64, swz: 128, scaleD: 0, negA: true},
		{typ: "bf16", n: 32, swz: 64, scaleD: 1},
		{typ: "f16", n: 16, swz: 32, scaleD: 1},
		{typ: "f16", n: 24, swz: 0, scaleD: 1},
		{typ: "f16", n: 64, swz: 128, transB: true, scaleD: 1},
		{typ: "bf16", n: 128, swz: 64, transB: true, scaleD: 1},
		{typ: "f16", n: 64, swz: 128, transB: true, regA: true, scaleD: 1},
		{typ: "e4m3", n: 16, swz: 32, scaleD: 1},
		{typ: "e5m2", n: 16, swz: 32, scaleD: 1},
	}
	for n := 8; n <= 256; n += 8 {
		cs = append(cs, wgCase{typ: "f16", n: n, swz: 32, scaleD: 1}, wgCase{typ: "e5m2", n: n, swz: 32, scaleD: 1})
	}
	return cs
}

func wgmmaSpellings() []string {
	out := []string{"wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned"}
	for _, c := range wgmmaCases() {
		out = append(out, c.text())
	}
	return out
}

func TestWgmma(t *testing.T) {
	for _, c := range wgmmaCases() {
		name := fmt.Sprintf("%s-n%d-swz%d-trans%v-regA%v-sd%d-neg%v", c.typ, c.n, c.swz, c.transB, c.regA, c.scaleD, c.negA)
		t.Run(name, func(t *testing.T) { runWgmma(t, c) })
	}
}

// TestWgmmaRefusals: an incomplete warpgroup and a non-uniform descriptor
// fault, and so do a descriptor with a base offset and warps of one
// warpgroup passing different descriptors.
func TestWgmmaRefusals(t *testing.T) {
	src := func(pre string, block int) (string, int) {
		return ".version 8.5\n.target sm_90a\n.address_size 64\n.shared .align 1024 .b8 tile[4096];\n" +
			".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n\t.reg .f32 %d<4>;\n\t.reg .b32 %tid;\n\t.reg .b64 %da, %o;\n" +
			"\tmov.u32 %tid, %tid.x;\n\tmov.u64 %da, 0x4000004000000000;\n" + pre +
			"\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %da, %da, 0, 1, 1, 0, 0;\n\tret;\n}\n", block
	}
	for _, c := range []struct {
		pre   string
		block int
		want  string
	}{
		{"", 64, "incomplete"},
		{"\tcvt.u64.u32 %o, %tid;\n\tshl.b64 %o, %o, 4;\n\tadd.u64 %da, %da, %o;\n", 128, "warp-uniform"},
		{"\tmov.u64 %da, 0x4002004000000000;\n", 128, "base offset"},
		{"\tshr.u32 %tid, %tid, 5;\n\tcvt.u64.u32 %o, %tid;\n\tshl.b64 %o, %o, 4;\n\tadd.u64 %da, %da, %o;\n", 128, "the warpgroup must execute"},
	} {
		s, block := src(c.pre, c.block)
		_, warns, err := runEntry(t, s, block, make([]byte, 64), 64, 0)
		if msg := fmt.Sprint(err, warns); err == nil || !strings.Contains(msg, c.want) {
			t.Errorf("got %s, want a fault containing %q", msg, c.want)
		}
	}
}

// BenchmarkWgmma: parse, lower and run one warpgroup kernel with an
// m64n64k16 f16 wgmma (128-byte swizzle) and its 64 KiB shared-memory copy.
func BenchmarkWgmma(b *testing.B) {
	for i := 0; i < b.N; i++ {
		runWgmma(b, wgCase{typ: "f16", n: 64, swz: 128, scaleD: 1})
	}
}
