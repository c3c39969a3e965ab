package replay

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// runEntry parses src, lowers entry k(.param .u64 pin, .param .u64 pout
// [, .param .u32 pn]) and runs it on one CTA of block threads with the
// given input bytes and an output buffer of outBytes (0xab-filled). It
// returns the output, the lowering warnings and the run error.
func runEntry(t *testing.T, src string, block int, in []byte, outBytes int, n uint32) ([]byte, []string, error) {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), "case.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatalf("program: %v", err)
	}
	code, err := p.Lower("k")
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	dev := NewDevice()
	bin, bout := dev.Alloc("in", max(len(in), 8)), dev.Alloc("out", outBytes)
	copy(bin.Data, in)
	for i := range bout.Data {
		bout.Data[i] = 0xab
	}
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], bin.Base)
	binary.LittleEndian.PutUint64(params[code.Params[1].Offset:], bout.Base)
	if len(code.Params) > 2 {
		binary.LittleEndian.PutUint32(params[code.Params[2].Offset:], n)
	}
	kern, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{block, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatalf("kernel: %v", err)
	}
	_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
	return bout.Data, code.Warnings, err
}

// matrixKernel builds a one-warp kernel around an ldmatrix or stmatrix.
// Lane L supplies the row address of row r = L%8 of matrix i = L/8 at byte
// offset ((7-r)*4 + i)*16 of a 512-byte shared tile (rows reversed and
// matrices interleaved, so a lane-to-row mix-up shows).
func matrixKernel(op string, num int, generic bool) string {
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n.shared .align 16 .b8 tile[512];\n")
	b.WriteString(".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %lane, %i, %r, %row, %d<4>;\n\t.reg .b64 %in, %out, %p, %q, %a, %v0, %v1, %sa;\n")
	b.WriteString("\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tmov.u32 %lane, %tid.x;\n")
	b.WriteString("\tmul.wide.u32 %p, %lane, 16;\n\tmov.u64 %sa, tile;\n\tadd.u64 %q, %in, %p;\n")
	b.WriteString("\tld.global.v2.u64 {%v0, %v1}, [%q];\n\tadd.u64 %q, %sa, %p;\n\tst.shared.v2.u64 [%q], {%v0, %v1};\n")
	b.WriteString("\tbar.sync 0;\n")
	b.WriteString("\tshr.u32 %i, %lane, 3;\n\tand.b32 %r, %lane, 7;\n\tsub.u32 %row, 7, %r;\n\tshl.b32 %row, %row, 2;\n")
	b.WriteString("\tadd.u32 %row, %row, %i;\n\tshl.b32 %row, %row, 4;\n\tcvt.u64.u32 %a, %row;\n\tadd.u64 %a, %sa, %a;\n")
	ss := ".shared"
	if generic {
		b.WriteString("\tcvta.shared.u64 %a, %a;\n")
		ss = ""
	}
	regs := make([]string, num)
	for i := range regs {
		regs[i] = fmt.Sprintf("%%d%d", i)
	}
	vec := "{" + strings.Join(regs, ", ") + "}"
	if strings.HasPrefix(op, "ldmatrix") {
		fmt.Fprintf(&b, "\t%s.x%d%s.b16 %s, [%%a];\n", op, num, ss, vec)
		fmt.Fprintf(&b, "\tadd.u64 %%q, %%out, %%p;\n")
		for i := 0; i < num; i++ {
			fmt.Fprintf(&b, "\tst.global.u32 [%%q+%d], %%d%d;\n", 4*i, i)
		}
	} else {
		// register i of lane t: halves h(t,i,0) | h(t,i,1)<<16, h = i<<8 | t<<1 | half
		for i := 0; i < num; i++ {
			fmt.Fprintf(&b, "\tshl.b32 %%d%d, %%lane, 1;\n\tor.b32 %%d%d, %%d%d, %d;\n", i, i, i, i<<8|(i<<8|1)<<16)
			fmt.Fprintf(&b, "\tshl.b32 %%r, %%lane, 17;\n\tor.b32 %%d%d, %%d%d, %%r;\n", i, i)
		}
		fmt.Fprintf(&b, "\tbar.sync 0;\n\t%s.x%d%s.b16 [%%a], %s;\n\tbar.sync 0;\n", op, num, ss, vec)
		b.WriteString("\tadd.u64 %q, %sa, %p;\n\tld.shared.v2.u64 {%v0, %v1}, [%q];\n")
		b.WriteString("\tadd.u64 %q, %out, %p;\n\tst.global.v2.u64 [%q], {%v0, %v1};\n")
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

// tileOff is the byte offset of element (row r, col c) of matrix i in the
// test's tile layout.
func tileOff(i, r, c int) int { return ((7-r)*4+i)*16 + 2*c }

func TestLdmatrix(t *testing.T) {
	// the tile holds u16 0x1000 + o/2 at every even byte offset o
	in := make([]byte, 512)
	for o := 0; o < 512; o += 2 {
		binary.LittleEndian.PutUint16(in[o:], uint16(0x1000+o/2))
	}
	elem := func(i, r, c int) uint32 { return uint32(0x1000 + tileOff(i, r, c)/2) }
	for _, trans := range []bool{false, true} {
		for _, num := range []int{1, 2, 4} {
			for _, generic := range []bool{false, true} {
				src := matrixKernel("ldmatrix.sync.aligned.m8n8", num, generic)
				if trans {
					src = strings.Replace(src, fmt.Sprintf("m8n8.x%d", num), fmt.Sprintf("m8n8.x%d.trans", num), 1)
				}
				out, warns, err := runEntry(t, src, 32, in, 32*16, 0)
				if err != nil || len(warns) > 0 {
					t.Fatalf("trans=%v x%d: %v %v\n%s", trans, num, err, warns, src)
				}
				for lane := 0; lane < 32; lane++ {
					for i := 0; i < num; i++ {
						got := binary.LittleEndian.Uint32(out[16*lane+4*i:])
						// PTX ISA: lane t holds (t/4, 2(t%4)) low and
						// (t/4, 2(t%4)+1) high; .trans: (2(t%4), t/4) and
						// (2(t%4)+1, t/4)
						g, q := lane/4, lane%4
						want := elem(i, g, 2*q) | elem(i, g, 2*q+1)<<16
						if trans {
							want = elem(i, 2*q, g) | elem(i, 2*q+1, g)<<16
						}
						if got != want {
							t.Errorf("trans=%v x%d generic=%v lane %d reg %d: got %#08x want %#08x", trans, num, generic, lane, i, got, want)
						}
					}
				}
				if num == 4 && !generic {
					// hand-computed spot checks: lane 0 reg 0 = elements
					// (0,0),(0,1) at tile offsets 448, 450 -> 0x10e0, 0x10e1;
					// lane 5 reg 2: (1,2),(1,3) of matrix 2 at offsets
					// 26*16+4, +6 -> 0x10d2, 0x10d3; transposed: (2,1) at
					// 22*16+2 -> 0x10b1 and (3,1) at 18*16+2 -> 0x1091;
					// transposed lane 0 reg 0: (0,0) -> 0x10e0 and (1,0) at
					// 24*16 -> 0x10c0
					spot := map[[2]int]uint32{{0, 0}: 0x10e110e0, {5, 2}: 0x10d310d2}
					if trans {
						spot = map[[2]int]uint32{{5, 2}: 0x109110b1, {0, 0}: 0x10c010e0}
					}
					for k, want := range spot {
						if got := binary.LittleEndian.Uint32(out[16*k[0]+4*k[1]:]); got != want {
							t.Errorf("trans=%v lane %d reg %d: got %#08x want %#08x", trans, k[0], k[1], got, want)
						}
					}
				}
			}
		}
	}
}

func TestStmatrix(t *testing.T) {
	h := func(lane, i, half int) uint16 { return uint16(i<<8 | lane<<1 | half) }
	for _, trans := range []bool{false, true} {
		for _, num := range []int{1, 2, 4} {
			op := "stmatrix.sync.aligned.m8n8"
			src := matrixKernel(op, num, false)
			if trans {
				src = strings.Replace(src, fmt.Sprintf("m8n8.x%d", num), fmt.Sprintf("m8n8.x%d.trans", num), 1)
			}
			in := make([]byte, 512) // zero tile
			out, warns, err := runEntry(t, src, 32, in, 512, 0)
			if err != nil || len(warns) > 0 {
				t.Fatalf("trans=%v x%d: %v %v\n%s", trans, num, err, warns, src)
			}
			want := make([]byte, 512)
			for i := 0; i < num; i++ {
				for r := 0; r < 8; r++ {
					for c := 0; c < 8; c++ {
						// element (r, c) of matrix i comes from lane
						// 4r + c/2, half c%2; .trans: lane 4c + r/2, half r%2
						v := h(4*r+c/2, i, c%2)
						if trans {
							v = h(4*c+r/2, i, r%2)
						}
						binary.LittleEndian.PutUint16(want[tileOff(i, r, c):], v)
					}
				}
			}
			for o := 0; o < 512; o += 2 {
				if g, w := binary.LittleEndian.Uint16(out[o:]), binary.LittleEndian.Uint16(want[o:]); g != w {
					t.Errorf("trans=%v x%d: tile offset %d: got %#04x want %#04x", trans, num, o, g, w)
				}
			}
			// hand check: row 0 of matrix 0 (offset 448) holds lane 0's
			// halves then lane 1's: 0x0000 0x0001 0x0002 0x0003
			if !trans && (binary.LittleEndian.Uint64(out[448:]) != 0x0003000200010000) {
				t.Errorf("x%d: row 0 = %#016x", num, binary.LittleEndian.Uint64(out[448:]))
			}
		}
	}
}

// TestMatrixRefusals: spellings replay does not execute exactly are
// refused at lowering with a positioned message and fault when reached.
func TestMatrixRefusals(t *testing.T) {
	for _, tc := range []struct{ inst, want string }{
		{"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%d0, %d1}, [%a];", "replay: ldmatrix is not supported"},
		{"wmma.load.a.sync.aligned.row.m16n16k16.f16 {%d0, %d1, %d2, %d3, %d0, %d1, %d2, %d3}, [%a];", "replay: wmma.load is not supported"},
		{"wmma.store.d.sync.aligned.row.m16n16k16.f32 [%a], {%d0, %d1, %d2, %d3, %d0, %d1, %d2, %d3};", "replay: wmma.store is not supported"},
		{"cvt.pack.sat.u8.s32.b32 %d0, %d1, %d2, %d3;", "replay: cvt.pack is not supported"},
		{"barrier.cluster.arrive;", "replay: barrier.cluster is not supported"},
		{"atom.global.v2.f32.add {%d0, %d1}, [%a], {%d2, %d3};", "replay: atom is not supported: modifier .v2"},
		{"st.async.b32 [%a], %d0, [%a];", "replay: st.async is not supported"},
		{"atom.global.min.f16 %d0, [%a], %d1;", "replay: atom is not supported: .min on .f16"},
		{"mad24.lo.sat.s32 %d0, %d1, %d2, %d3;", "replay: mad24 is not supported: .sat is defined for .hi.s32 only"},
		{"ld.global.b128 %d0, [%a];", "replay: ld is not supported: modifier .b128"},
		{"bar.warp.sync.aligned 0xffffffff;", "replay: bar.warp.sync is not supported: modifier .aligned"},
	} {
		src := ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n" +
			"\t.reg .b32 %d<4>;\n\t.reg .b64 %a;\n\tld.param.u64 %a, [pin];\n\t" + tc.inst + "\n\tret;\n}\n"
		_, warns, err := runEntry(t, src, 32, nil, 8, 0)
		if len(warns) != 1 || !strings.HasPrefix(warns[0], "case.ptx:9:2: ") || !strings.Contains(warns[0], tc.want) {
			t.Errorf("%s: warnings %q, want one at case.ptx:9:2 containing %q", tc.inst, warns, tc.want)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: run error %v, want a fault containing %q", tc.inst, err, tc.want)
		}
	}
}
