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

// Fragment positions of mma.m16n8k16 (.f16/.bf16), transcribed from the
// PTX ISA's tables ("Matrix Fragments for mma.m16n8k16 with floating point
// type"): groupID = lane>>2, threadID_in_group = lane%4.
func isaA(lane, i int) (row, col int) {
	g, t := lane>>2, lane%4
	row = g
	if i == 2 || i == 3 || i == 6 || i == 7 {
		row = g + 8
	}
	col = t*2 + (i & 1)
	if i >= 4 {
		col += 8
	}
	return
}

func isaB(lane, i int) (row, col int) {
	g, t := lane>>2, lane%4
	row = t*2 + (i & 1)
	if i >= 2 {
		row += 8
	}
	return row, g
}

func isaC(lane, i int) (row, col int) {
	g, t := lane>>2, lane%4
	row = g
	if i >= 2 {
		row = g + 8
	}
	return row, t*2 + (i & 1)
}

// Small integers: every product and sum is exact, so the expected D does
// not depend on the accumulation order; each element is distinct enough
// that a misplaced fragment element changes the result.
func mmaA(i, k int) float64 { return float64((i*3+k*5)%7 - 3) }
func mmaB(k, j int) float64 { return float64((k*2+j*3)%5 - 2) }
func mmaC(i, j int) float64 { return float64(i - 2*j) }

func runMma(t *testing.T, spelling string, block int) ([32][4]uint32, error) {
	t.Helper()
	parts := strings.Split(spelling, ".")
	dt, at, ct := parts[len(parts)-4], parts[len(parts)-3], parts[len(parts)-1]
	nd, nc := 4, 4
	if dt == "f16" {
		nd = 2
	}
	if ct == "f16" {
		nc = 2
	}
	regs := func(p string, n int) string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, fmt.Sprintf("%%%s%d", p, i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %a<4>, %b<2>, %c<4>, %d<4>, %tid;\n\t.reg .b64 %in, %out, %o;\n")
	b.WriteString("\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tmov.u32 %tid, %tid.x;\n")
	b.WriteString("\tmul.wide.u32 %o, %tid, 40;\n\tadd.u64 %in, %in, %o;\n\tmul.wide.u32 %o, %tid, 16;\n\tadd.u64 %out, %out, %o;\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, "\tld.global.b32 %%a%d, [%%in+%d];\n", i, 4*i)
		fmt.Fprintf(&b, "\tld.global.b32 %%c%d, [%%in+%d];\n", i, 24+4*i)
	}
	b.WriteString("\tld.global.b32 %b0, [%in+16];\n\tld.global.b32 %b1, [%in+20];\n")
	fmt.Fprintf(&b, "\t%s %s, %s, %s, %s;\n", spelling, regs("d", nd), regs("a", 4), regs("b", 2), regs("c", nc))
	for i := 0; i < nd; i++ {
		fmt.Fprintf(&b, "\tst.global.b32 [%%out+%d], %%d%d;\n", 4*i, i)
	}
	b.WriteString("}\n")
	f, err := ptx.ParseFile(token.NewFileSet(), "mma.ptx", []byte(b.String()), 0)
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
	if len(code.Notices) != 1 || !strings.Contains(code.Notices[0], "mma.ptx:") || !strings.Contains(code.Notices[0], "not bit-exact") {
		t.Fatalf("notices %q, want one positioned notice for the mma", code.Notices)
	}
	enc := func(v float64, typ string) uint32 {
		switch typ {
		case "f16":
			return uint32(fpx.F64ToF16(v, fpx.RN))
		case "bf16":
			return uint32(fpx.F64ToBF16(v, fpx.RN))
		}
		return math.Float32bits(float32(v))
	}
	dev := NewDevice()
	bin, bout := dev.Alloc("in", 40*32), dev.Alloc("out", 16*32)
	for l := 0; l < 32; l++ {
		w := make([]uint32, 10)
		for i := 0; i < 8; i++ {
			r, c := isaA(l, i)
			w[i/2] |= enc(mmaA(r, c), at) << (16 * (i % 2))
		}
		for i := 0; i < 4; i++ {
			r, c := isaB(l, i)
			w[4+i/2] |= enc(mmaB(r, c), at) << (16 * (i % 2))
		}
		for i := 0; i < 4; i++ {
			r, c := isaC(l, i)
			if nc == 4 {
				w[6+i] = enc(mmaC(r, c), "f32")
			} else {
				w[6+i/2] |= enc(mmaC(r, c), "f16") << (16 * (i % 2))
			}
		}
		for i, v := range w {
			binary.LittleEndian.PutUint32(bin.Data[40*l+4*i:], v)
		}
	}
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params, bin.Base)
	binary.LittleEndian.PutUint64(params[8:], bout.Base)
	kern, err := NewKernel(Launch{Code: code, Block: [3]int{block, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	var out [32][4]uint32
	_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
	for l := 0; l < 32; l++ {
		for i := 0; i < 4; i++ {
			out[l][i] = binary.LittleEndian.Uint32(bout.Data[16*l+4*i:])
		}
	}
	return out, err
}

// TestMmaFragments checks D lane by lane against a direct product.
func TestMmaFragments(t *testing.T) {
	for _, sp := range []string{
		"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
		"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
		"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16",
		"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32",
		"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
	} {
		out, err := runMma(t, sp, 32)
		if err != nil {
			t.Fatalf("%s: %v", sp, err)
		}
		d := func(i, j int) float64 {
			s := mmaC(i, j)
			for k := 0; k < 16; k++ {
				s += mmaA(i, k) * mmaB(k, j)
			}
			return s
		}
		f16 := strings.Contains(sp, "col.f16")
		for l := 0; l < 32; l++ {
			for i := 0; i < 4; i++ {
				r, c := isaC(l, i)
				var got float64
				if f16 {
					got = float64(fpx.F16ToF32(uint16(out[l][i/2] >> (16 * (i % 2)))))
				} else {
					got = float64(math.Float32frombits(out[l][i]))
				}
				if got != d(r, c) {
					t.Fatalf("%s: lane %d d%d (D[%d][%d]) = %v, want %v", sp, l, i, r, c, got, d(r, c))
				}
			}
		}
	}
}

// mma.sync.aligned needs the whole warp: a 16-thread block faults.
func TestMmaPartialWarp(t *testing.T) {
	_, err := runMma(t, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16)
	if err == nil || !strings.Contains(err.Error(), "all 32 threads") {
		t.Fatalf("err = %v, want a fault for a partial warp", err)
	}
}

// runMmaRegs runs one mma with per-lane register words: na A, nb B, nc C
// registers of width bits (32 or 64), nd D registers; it returns D per lane.
func runMmaRegs(t *testing.T, spelling string, width, na, nb, nc, nd int, regs func(lane int) []uint64) [32][4]uint64 {
	t.Helper()
	list := func(p string, n int) string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, fmt.Sprintf("%%%s%d", p, i))
		}
		return "{" + strings.Join(s, ", ") + "}"
	}
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n")
	fmt.Fprintf(&b, "\t.reg .b%d %%a<4>, %%b<2>, %%c<4>, %%d<4>;\n\t.reg .b32 %%tid;\n\t.reg .b64 %%in, %%out, %%o;\n", width)
	b.WriteString("\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tmov.u32 %tid, %tid.x;\n")
	b.WriteString("\tmul.wide.u32 %o, %tid, 80;\n\tadd.u64 %in, %in, %o;\n\tmul.wide.u32 %o, %tid, 32;\n\tadd.u64 %out, %out, %o;\n")
	slotOf := 0
	load := func(p string, n int) {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "\tld.global.b%d %%%s%d, [%%in+%d];\n", width, p, i, 8*slotOf)
			slotOf++
		}
	}
	load("a", na)
	load("b", nb)
	load("c", nc)
	fmt.Fprintf(&b, "\t%s %s, %s, %s, %s;\n", spelling, list("d", nd), list("a", na), list("b", nb), list("c", nc))
	for i := 0; i < nd; i++ {
		fmt.Fprintf(&b, "\tst.global.b%d [%%out+%d], %%d%d;\n", width, 8*i, i)
	}
	b.WriteString("}\n")
	f, err := ptx.ParseFile(token.NewFileSet(), "mma.ptx", []byte(b.String()), 0)
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
	// integer mma is exact (no notice); floating point is reported
	wantNotices := 1
	if strings.Contains(spelling, "8.s32") {
		wantNotices = 0
	}
	if len(code.Notices) != wantNotices {
		t.Fatalf("notices %q, want %d", code.Notices, wantNotices)
	}
	dev := NewDevice()
	bin, bout := dev.Alloc("in", 80*32), dev.Alloc("out", 32*32)
	for l := 0; l < 32; l++ {
		for i, v := range regs(l) {
			binary.LittleEndian.PutUint64(bin.Data[80*l+8*i:], v)
		}
	}
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params, bin.Base)
	binary.LittleEndian.PutUint64(params[8:], bout.Base)
	kern, err := NewKernel(Launch{Code: code, Block: [3]int{32, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kern.Run(context.Background(), RunOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	var out [32][4]uint64
	for l := 0; l < 32; l++ {
		for i := 0; i < nd; i++ {
			out[l][i] = binary.LittleEndian.Uint64(bout.Data[32*l+8*i:])
			if width == 32 {
				out[l][i] &= 0xffffffff
			}
		}
	}
	return out
}

// TestMmaInt8Fragments: m16n8k32 .s32.s8.u8.s32, positions from the ISA's
// tables ("Matrix Fragments for mma.m16n8k32"): a_i row groupID for i < 4
// and 8 ≤ i < 12, else groupID+8; column threadID_in_group·4 + (i & 3),
// +16 for i ≥ 8. b_i row threadID_in_group·4 + (i & 3), +16 for i ≥ 4;
// column groupID. C/D as the f32 accumulators of m16n8k16.
func TestMmaInt8Fragments(t *testing.T) {
	A := func(i, k int) int64 { return int64((i*7+k*3)%11 - 5) } // s8
	B := func(k, j int) int64 { return int64((k*5 + j*9) % 13) } // u8
	C := func(i, j int) int64 { return int64(100*i - 7*j) }
	posA := func(l, i int) (int, int) {
		g, q := l>>2, l%4
		r := g
		if (i >= 4 && i < 8) || i >= 12 {
			r = g + 8
		}
		c := q*4 + (i & 3)
		if i >= 8 {
			c += 16
		}
		return r, c
	}
	posB := func(l, i int) (int, int) {
		g, q := l>>2, l%4
		r := q*4 + (i & 3)
		if i >= 4 {
			r += 16
		}
		return r, g
	}
	out := runMmaRegs(t, "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", 32, 4, 2, 4, 4, func(l int) []uint64 {
		w := make([]uint64, 10)
		for i := 0; i < 16; i++ {
			r, c := posA(l, i)
			w[i/4] |= uint64(uint8(int8(A(r, c)))) << (8 * (i % 4))
		}
		for i := 0; i < 8; i++ {
			r, c := posB(l, i)
			w[4+i/4] |= uint64(uint8(B(r, c))) << (8 * (i % 4))
		}
		for i := 0; i < 4; i++ {
			r, c := isaC(l, i)
			w[6+i] = uint64(uint32(int32(C(r, c))))
		}
		return w
	})
	for l := 0; l < 32; l++ {
		for i := 0; i < 4; i++ {
			r, c := isaC(l, i)
			want := C(r, c)
			for k := 0; k < 32; k++ {
				want += A(r, k) * B(k, c)
			}
			if got := int64(int32(uint32(out[l][i]))); got != want {
				t.Fatalf("lane %d d%d (D[%d][%d]) = %d, want %d", l, i, r, c, got, want)
			}
		}
	}
}

// TestMmaF64Fragments: m8n8k4 .f64 ("Matrix Fragments for mma.m8n8k4 with
// .f64"): a0 row groupID, column threadID_in_group; b0 row
// threadID_in_group, column groupID; c_i row groupID, column
// threadID_in_group·2 + i. Small integers: exact whatever the order.
func TestMmaF64Fragments(t *testing.T) {
	A := func(i, k int) float64 { return float64(i*4 + k) }
	B := func(k, j int) float64 { return float64(k - 2*j) }
	C := func(i, j int) float64 { return float64(i*j) + 0.5 }
	out := runMmaRegs(t, "mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64", 64, 1, 1, 2, 2, func(l int) []uint64 {
		g, q := l>>2, l%4
		return []uint64{math.Float64bits(A(g, q)), math.Float64bits(B(q, g)),
			math.Float64bits(C(g, 2*q)), math.Float64bits(C(g, 2*q+1))}
	})
	for l := 0; l < 32; l++ {
		g, q := l>>2, l%4
		for i := 0; i < 2; i++ {
			r, c := g, 2*q+i
			want := C(r, c)
			for k := 0; k < 4; k++ {
				want += A(r, k) * B(k, c)
			}
			if got := math.Float64frombits(out[l][i]); got != want {
				t.Fatalf("lane %d d%d (D[%d][%d]) = %v, want %v", l, i, r, c, got, want)
			}
		}
	}
}

// TestMmaTF32Fragments: m16n8k8 .f32.tf32.tf32.f32, positions from the
// ISA's table ("Matrix Fragments for mma.m16n8k8", .tf32): a0/a2 row
// groupID, a1/a3 groupID+8; a0/a1 column threadID_in_group, a2/a3
// threadID_in_group+4; b0 row threadID_in_group, b1 +4, column groupID;
// C/D as m16n8k16. Small integers (exact in tf32): exact whatever the order.
func TestMmaTF32Fragments(t *testing.T) {
	A := func(i, k int) float64 { return float64((i*3+k*5)%7 - 3) }
	B := func(k, j int) float64 { return float64((k*2+j*3)%5 - 2) }
	C := func(i, j int) float64 { return float64(i - 2*j) }
	f := func(v float64) uint64 { return uint64(math.Float32bits(float32(v))) }
	out := runMmaRegs(t, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 32, 4, 2, 4, 4, func(l int) []uint64 {
		g, q := l>>2, l%4
		return []uint64{f(A(g, q)), f(A(g+8, q)), f(A(g, q+4)), f(A(g+8, q+4)),
			f(B(q, g)), f(B(q+4, g)),
			f(C(g, 2*q)), f(C(g, 2*q+1)), f(C(g+8, 2*q)), f(C(g+8, 2*q+1))}
	})
	for l := 0; l < 32; l++ {
		for i := 0; i < 4; i++ {
			r, c := isaC(l, i)
			want := C(r, c)
			for k := 0; k < 8; k++ {
				want += A(r, k) * B(k, c)
			}
			if got := float64(math.Float32frombits(uint32(out[l][i]))); got != want {
				t.Fatalf("lane %d d%d (D[%d][%d]) = %v, want %v", l, i, r, c, got, want)
			}
		}
	}
}
