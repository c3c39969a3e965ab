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
