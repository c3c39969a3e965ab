package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// TMA tests: a tensor of u16 elements whose value encodes its coordinates,
// one box copied to shared memory by thread 0, completion observed through
// the mbarrier, the shared tile copied out and checked element by element
// against the box computed here (zeros outside the tensor; with a swizzle,
// 16-byte chunk c of row r lands at chunk c XOR (r·W/128 mod W/16)).

type tmaCase struct {
	spelling string
	tm       TensorMap
	coords   []int32
	race     bool // read the destination before waiting: must fault
}

func tmaVal(idx [5]int) uint16 {
	return uint16(idx[0] + 7*idx[1] + 13*idx[2] + 17*idx[3] + 19*idx[4] + 1)
}

func tmaCases() []tmaCase {
	mk := func(rank int, dims []uint64, box []uint32, swz int) TensorMap {
		tm := TensorMap{Rank: rank, ElemSize: 2, Swizzle: swz}
		st := uint64(2)
		for d := 0; d < rank; d++ {
			tm.Dims[d], tm.Box[d] = dims[d], box[d]
			if d > 0 {
				tm.Strides[d] = st
			}
			st *= dims[d]
			if d == 0 {
				st = (st + 15) / 16 * 16
			}
		}
		return tm
	}
	sp := func(rank int, dst string) string {
		return fmt.Sprintf("cp.async.bulk.tensor.%dd.%s.global.mbarrier::complete_tx::bytes", rank, dst)
	}
	return []tmaCase{
		{spelling: sp(1, "shared::cluster"), tm: mk(1, []uint64{100}, []uint32{64}, 0), coords: []int32{50}},
		{spelling: sp(2, "shared::cluster"), tm: mk(2, []uint64{64, 40}, []uint32{64, 16}, 128), coords: []int32{0, 30}},
		{spelling: strings.Replace(sp(2, "shared::cta"), ".global", ".global.tile", 1), tm: mk(2, []uint64{40, 20}, []uint32{32, 8}, 64), coords: []int32{-8, -2}},
		{spelling: sp(3, "shared::cluster"), tm: mk(3, []uint64{16, 5, 4}, []uint32{16, 4, 2}, 32), coords: []int32{0, 1, 2}},
		{spelling: sp(4, "shared::cluster"), tm: mk(4, []uint64{8, 3, 3, 3}, []uint32{8, 2, 2, 2}, 0), coords: []int32{0, 2, 0, 1}},
		{spelling: sp(5, "shared::cluster"), tm: mk(5, []uint64{8, 2, 2, 2, 3}, []uint32{8, 2, 1, 2, 2}, 0), coords: []int32{0, 1, 1, 0, 2}},
		{spelling: sp(2, "shared::cluster"), tm: mk(2, []uint64{64, 40}, []uint32{64, 16}, 128), coords: []int32{0, 0}, race: true},
	}
}

func tmaSpellings() []string {
	out := []string{bulkSpellings[0], bulkSpellings[1]}
	for _, c := range tmaCases() {
		out = append(out, c.spelling)
	}
	return out
}

func runTma(t testing.TB, c tmaCase) ([]byte, int, error) {
	t.Helper()
	tm := c.tm
	// the tensor in global memory
	size := uint64(2)
	if tm.Rank > 1 {
		size = tm.Strides[tm.Rank-1] * tm.Dims[tm.Rank-1]
	} else {
		size = 2 * tm.Dims[0]
	}
	total := 2
	for d := 0; d < tm.Rank; d++ {
		total *= int(tm.Box[d])
	}
	dev := NewDevice()
	ten := dev.Alloc("tensor", int(size)+16)
	var idx [5]int
	var fill func(d int, off uint64)
	fill = func(d int, off uint64) {
		if d < 0 {
			binary.LittleEndian.PutUint16(ten.Data[off:], tmaVal(idx))
			return
		}
		for i := 0; i < int(tm.Dims[d]); i++ {
			idx[d] = i
			st := uint64(2)
			if d > 0 {
				st = tm.Strides[d]
			}
			fill(d-1, off+uint64(i)*st)
		}
		idx[d] = 0
	}
	fill(tm.Rank-1, 0)
	tm.Base = ten.Base
	var coords []string
	for i := range c.coords {
		coords = append(coords, fmt.Sprintf("%%c%d", i))
	}
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90a\n.address_size 64\n.shared .align 1024 .b8 tile[8192];\n.shared .align 8 .b64 bar;\n")
	b.WriteString(".visible .entry k(.param .align 128 .b8 tmap[128], .param .u64 pout)\n{\n")
	b.WriteString("\t.reg .b32 %tid, %d, %mb, %c<5>, %i, %n, %x;\n\t.reg .b64 %tm, %out, %p, %v;\n\t.reg .pred %lead, %ok, %more;\n")
	b.WriteString("\tmov.u32 %tid, %tid.x;\n\tld.param.u64 %out, [pout];\n\tmov.u32 %d, tile;\n\tmov.u32 %mb, bar;\n")
	b.WriteString("\tmov.b64 %tm, tmap;\n\tcvta.param.u64 %tm, %tm;\n\tsetp.eq.u32 %lead, %tid, 0;\n")
	for i, v := range c.coords {
		fmt.Fprintf(&b, "\tmov.u32 %%c%d, %d;\n", i, v)
	}
	b.WriteString("\t@%lead mbarrier.init.shared.b64 [%mb], 1;\n\tbar.sync 0;\n")
	fmt.Fprintf(&b, "\t@%%lead mbarrier.arrive.expect_tx.shared.b64 _, [%%mb], %d;\n", total)
	fmt.Fprintf(&b, "\t@%%lead %s [%%d], [%%tm, {%s}], [%%mb];\n", c.spelling, strings.Join(coords, ", "))
	if c.race {
		b.WriteString("\tld.shared.u32 %x, [%d];\n")
	}
	b.WriteString("$Lwait:\n\tmbarrier.try_wait.parity.shared.b64 %ok, [%mb], 0;\n\t@!%ok bra $Lwait;\n")
	// copy the tile out: thread t copies u32 words t, t+32, ...
	fmt.Fprintf(&b, "\tmov.u32 %%i, %%tid;\n$Lcopy:\n\tshl.b32 %%n, %%i, 2;\n\tadd.u32 %%x, %%d, %%n;\n\tld.shared.u32 %%x, [%%x];\n\tcvt.u64.u32 %%p, %%n;\n\tadd.u64 %%p, %%out, %%p;\n\tst.global.u32 [%%p], %%x;\n\tadd.u32 %%i, %%i, 32;\n\tsetp.lt.u32 %%more, %%i, %d;\n\t@%%more bra $Lcopy;\n\tret;\n}\n", (total+3)/4)
	f, err := ptx.ParseFile(token.NewFileSet(), "tma.ptx", []byte(b.String()), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, b.String())
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("k")
	if err != nil || len(code.Warnings) > 0 {
		t.Fatalf("lower: %v %v\n%s", err, code.Warnings, b.String())
	}
	out := dev.Alloc("out", total+4)
	params := make([]byte, code.ParamSize)
	enc := tm.Encode()
	copy(params[code.Params[0].Offset:], enc[:])
	binary.LittleEndian.PutUint64(params[code.Params[1].Offset:], out.Base)
	kern, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
	return out.Data, total, err
}

func TestTma(t *testing.T) {
	for _, c := range tmaCases() {
		t.Run(c.spelling+fmt.Sprint(c.coords, c.race), func(t *testing.T) {
			got, total, err := runTma(t, c)
			if c.race {
				var f *Fault
				if !errors.As(err, &f) || f.Kind != FaultAsyncRace || !strings.Contains(err.Error(), "cp.async.bulk copy") {
					t.Fatalf("err %v, want an async-race fault naming the TMA copy", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tm := c.tm
			var box [5]int
			for d := range box {
				box[d] = 1
				if d < tm.Rank {
					box[d] = int(tm.Box[d])
				}
			}
			row := box[0] * 2
			n := 0
			for i4 := 0; i4 < box[4]; i4++ {
				for i3 := 0; i3 < box[3]; i3++ {
					for i2 := 0; i2 < box[2]; i2++ {
						for i1 := 0; i1 < box[1]; i1++ {
							r := ((i4*box[3]+i3)*box[2]+i2)*box[1] + i1
							for i0 := 0; i0 < box[0]; i0++ {
								g := [5]int{i0, i1, i2, i3, i4}
								want := uint16(0)
								inside := true
								for d := 0; d < tm.Rank; d++ {
									g[d] += int(c.coords[d])
									if g[d] < 0 || g[d] >= int(tm.Dims[d]) {
										inside = false
									}
								}
								if inside {
									want = tmaVal(g)
								}
								off := r*row + 2*i0
								if w := tm.Swizzle; w != 0 {
									chunk := (off % w) / 16
									off = off - (off%w)/16*16 + (chunk^(r*w/128%(w/16)))*16
								}
								if v := binary.LittleEndian.Uint16(got[off:]); v != want {
									t.Fatalf("box element %v (row %d) at byte %d = %d, want %d", [5]int{i0, i1, i2, i3, i4}, r, off, v, want)
								}
								n++
							}
						}
					}
				}
			}
			if 2*n != total {
				t.Fatalf("checked %d elements, box has %d bytes", n, total)
			}
		})
	}
}

// TestTensorMapValidate: the encoding round-trips, and maps that break the
// rules replay relies on are rejected.
func TestTensorMapValidate(t *testing.T) {
	good := TensorMap{Base: 0x1000, Rank: 2, ElemSize: 2, Dims: [5]uint64{64, 64}, Strides: [5]uint64{0, 128}, Box: [5]uint32{64, 8}, Swizzle: 128}
	enc := good.Encode()
	back, err := DecodeTensorMap(enc[:])
	if err != nil || back != good {
		t.Fatalf("round trip: %+v %v, want %+v", back, err, good)
	}
	for _, c := range []struct {
		mod  func(*TensorMap)
		want string
	}{
		{func(m *TensorMap) { m.Rank = 6 }, "rank"},
		{func(m *TensorMap) { m.ElemSize = 3 }, "element size"},
		{func(m *TensorMap) { m.Base = 8 }, "aligned"},
		{func(m *TensorMap) { m.Box[1] = 300 }, "boxes"},
		{func(m *TensorMap) { m.Strides[1] = 100 }, "multiple of 16"},
		{func(m *TensorMap) { m.Box[0] = 4 }, "multiple of 16"},
		{func(m *TensorMap) { m.Box[0] = 32 }, "swizzle"},
	} {
		m := good
		c.mod(&m)
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", m, err, c.want)
		}
	}
	if _, err := DecodeTensorMap(make([]byte, 128)); err == nil || !strings.Contains(err.Error(), "not a replay tensor map") {
		t.Errorf("zero bytes: %v", err)
	}
}

// BenchmarkTma: parse, lower and run a 64×16 2-byte TMA box load with the
// 128-byte swizzle.
func BenchmarkTma(b *testing.B) {
	c := tmaCases()[1]
	for i := 0; i < b.N; i++ {
		if _, _, err := runTma(b, c); err != nil {
			b.Fatal(err)
		}
	}
}

var bulkSpellings = []string{
	"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
	"cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
}

// TestBulkCopy: cp.async.bulk copies size bytes from global to shared
// memory, visible after the mbarrier wait; a size that is not a multiple
// of 16 faults.
func TestBulkCopy(t *testing.T) {
	src := func(spelling string, size int) string {
		return ".version 8.5\n.target sm_90a\n.address_size 64\n.shared .align 128 .b8 tile[256];\n.shared .align 8 .b64 bar;\n" +
			".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n\t.reg .b32 %tid, %d, %mb, %v, %o;\n\t.reg .b64 %in, %out, %p;\n\t.reg .pred %lead, %ok;\n" +
			"\tmov.u32 %tid, %tid.x;\n\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tmov.u32 %d, tile;\n\tmov.u32 %mb, bar;\n\tsetp.eq.u32 %lead, %tid, 0;\n" +
			"\t@%lead mbarrier.init.shared.b64 [%mb], 1;\n\tbar.sync 0;\n" +
			fmt.Sprintf("\t@%%lead mbarrier.arrive.expect_tx.shared.b64 _, [%%mb], %d;\n\t@%%lead %s [%%d], [%%in+16], %d, [%%mb];\n", size, spelling, size) +
			"$Lw:\n\tmbarrier.try_wait.parity.shared.b64 %ok, [%mb], 0;\n\t@!%ok bra $Lw;\n" +
			"\tshl.b32 %o, %tid, 2;\n\tadd.u32 %d, %d, %o;\n\tld.shared.u32 %v, [%d];\n\tcvt.u64.u32 %p, %o;\n\tadd.u64 %p, %out, %p;\n\tst.global.u32 [%p], %v;\n\tret;\n}\n"
	}
	in := make([]byte, 256)
	for i := range in {
		in[i] = byte(i)
	}
	for _, sp := range bulkSpellings {
		out, warns, err := runEntry(t, src(sp, 64), 32, in, 128, 0)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", sp, err, warns)
		}
		for i := 0; i < 128; i++ {
			want := byte(0) // shared memory starts zeroed; 64 bytes copied
			if i < 64 {
				want = byte(16 + i)
			}
			if out[i] != want {
				t.Fatalf("%s: byte %d = %d, want %d", sp, i, out[i], want)
			}
		}
	}
	if _, _, err := runEntry(t, src(bulkSpellings[0], 24), 32, in, 128, 0); err == nil || !strings.Contains(err.Error(), "multiples of 16") {
		t.Errorf("size 24: %v, want a fault", err)
	}
}
