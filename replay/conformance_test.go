package replay

// Conformance suite: table-driven single-instruction tests. Every case is
// an instruction spelling, operand bit patterns and the expected result
// bits, derived by hand from the PTX ISA and IEEE 754 rules (never by
// calling replay or fpx). The derivation of non-obvious values is written
// next to the case.
//
// Each case becomes a tiny kernel run for one warp (32 threads): lane l
// loads its source operands from in[l*64 + 8*i], executes the instruction
// text and stores its destinations to out[l*32 + 8*j]. Lanes outside the
// case's active mask branch around the instruction and must leave their
// output untouched.

import (
	"context"
	"encoding/binary"
	"fmt"
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// A conformance case. asm is one or more PTX instructions (';'-terminated
// or not) written with placeholders: $d $q $r $s are destinations, $a $b
// $c $e $f $g sources. Further names usable in asm: %gm (this lane's
// 8-byte global scratch word, initialised to 0), %gm0 (lane 0's scratch
// word, shared by all lanes), %sm / %sm0 (the same in shared memory),
// %tid (u32 lane id), %t32/%t64 (scratch registers).
type ccase struct {
	asm  string
	sig  string // "dests:srcs", widths 16/32/64 or p (predicate), e.g. "32:32,32"
	in   []uint64
	want []uint64 // expected destination bits (lane-uniform cases)
	// tol > 0: the first destination may differ from want by up to tol
	// units in the last place (approximate instructions; same sign).
	tol uint64
	// warp-level cases: per-lane inputs/expectations and the active lanes
	lanesIn   func(l int) []uint64
	lanesWant func(l int) []uint64 // nil result: lane output must stay untouched
	active    uint32               // 0: all 32 lanes
	// module is module-level PTX placed before the kernel (.func, .const
	// variables); fault, when set, is text the run's fault must contain
	// (the case then checks no values)
	module string
	fault  string
}

func (c ccase) label() string {
	s := strings.Join(strings.Fields(c.asm), " ")
	if c.lanesIn == nil {
		var ins []string
		for _, v := range c.in {
			ins = append(ins, fmt.Sprintf("%#x", v))
		}
		s += " [" + strings.Join(ins, ",") + "]"
	}
	return s
}

// constructors
func k(asm, sig string, want uint64, in ...uint64) ccase {
	return ccase{asm: asm, sig: sig, in: in, want: []uint64{want}}
}
func k2(asm, sig string, want []uint64, in ...uint64) ccase {
	return ccase{asm: asm, sig: sig, in: in, want: want}
}

// un/bin/tern: "op $d, $a[, $b[, $c]]" with every operand w bits wide.
func un(op string, w int, want, a uint64) ccase {
	return k(op+" $d, $a", fmt.Sprintf("%d:%d", w, w), want, a)
}
func bin(op string, w int, want, a, b uint64) ccase {
	return k(op+" $d, $a, $b", fmt.Sprintf("%d:%d,%d", w, w, w), want, a, b)
}
func tern(op string, w int, want, a, b, c uint64) ccase {
	return k(op+" $d, $a, $b, $c", fmt.Sprintf("%d:%d,%d,%d", w, w, w, w), want, a, b, c)
}

const sentinel = 0xabababababababab

var dstNames = []string{"d", "q", "r", "s"}
var srcNames = []string{"a", "b", "c", "e", "f", "g"}

func sigParts(sig string) (dst, src []string) {
	d, s, _ := strings.Cut(sig, ":")
	if d != "" {
		dst = strings.Split(d, ",")
	}
	if s != "" {
		src = strings.Split(s, ",")
	}
	return
}

func regName(kind, w string) string {
	if w == "p" {
		return "%p" + kind
	}
	return "%x" + kind
}

// kernelText builds the PTX module of a case.
func kernelText(c ccase) string {
	dst, src := sigParts(c.sig)
	var b strings.Builder
	b.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n")
	b.WriteString(".shared .align 8 .b8 smem[256];\n")
	b.WriteString(c.module)
	b.WriteString(".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u64 pmem, .param .u32 pact)\n{\n")
	b.WriteString("\t.reg .pred %skip;\n\t.reg .b32 %tid, %act, %t32;\n\t.reg .b64 %rin, %rout, %gm, %gm0, %sm, %sm0, %off, %t64;\n")
	decl := func(kind, w string) {
		if w == "p" {
			fmt.Fprintf(&b, "\t.reg .pred %s;\n", regName(kind, w))
		} else {
			fmt.Fprintf(&b, "\t.reg .b%s %s;\n", regW(w), regName(kind, w))
		}
	}
	for i, w := range dst {
		decl(dstNames[i], w)
	}
	for i, w := range src {
		decl(srcNames[i], w)
	}
	b.WriteString(`	ld.param.u64 %rin, [pin];
	ld.param.u64 %rout, [pout];
	ld.param.u64 %gm0, [pmem];
	ld.param.u32 %act, [pact];
	mov.u32 %tid, %tid.x;
	mul.wide.u32 %off, %tid, 64;
	add.s64 %rin, %rin, %off;
	mul.wide.u32 %off, %tid, 32;
	add.s64 %rout, %rout, %off;
	mul.wide.u32 %off, %tid, 8;
	add.s64 %gm, %gm0, %off;
	mov.u64 %sm0, smem;
	add.s64 %sm, %sm0, %off;
	st.shared.u64 [%sm], 0;
	bar.sync 0;
	shr.b32 %t32, %act, %tid;
	and.b32 %t32, %t32, 1;
	setp.eq.u32 %skip, %t32, 0;
`)
	for i, w := range src {
		if w == "p" {
			fmt.Fprintf(&b, "\tld.global.u32 %%t32, [%%rin+%d];\n\tsetp.ne.u32 %s, %%t32, 0;\n", 8*i, regName(srcNames[i], w))
		} else {
			fmt.Fprintf(&b, "\tld.global.b%s %s, [%%rin+%d];\n", w, regName(srcNames[i], w), 8*i)
		}
	}
	b.WriteString("\t@%skip bra DONE;\n")
	body := c.asm
	for i, w := range dst {
		body = strings.ReplaceAll(body, "$"+dstNames[i], regName(dstNames[i], w))
	}
	for i, w := range src {
		body = strings.ReplaceAll(body, "$"+srcNames[i], regName(srcNames[i], w))
	}
	for _, ins := range strings.Split(body, ";") {
		if ins = strings.TrimSpace(ins); ins != "" {
			b.WriteString("\t" + ins + ";\n")
		}
	}
	for i, w := range dst {
		if w == "p" {
			fmt.Fprintf(&b, "\tselp.u32 %%t32, 1, 0, %s;\n\tst.global.u32 [%%rout+%d], %%t32;\n", regName(dstNames[i], w), 8*i)
		} else {
			fmt.Fprintf(&b, "\tst.global.b%s [%%rout+%d], %s;\n", w, 8*i, regName(dstNames[i], w))
		}
	}
	b.WriteString("DONE:\n\tret;\n}\n")
	return b.String()
}

// regW is the register width of an operand width (bytes live in .b16).
func regW(w string) string {
	if w == "8" {
		return "16"
	}
	return w
}

func widthBits(w string) int {
	if w == "p" {
		return 1
	}
	var n int
	fmt.Sscan(w, &n)
	return n
}

// runCase runs a case and returns the lane outputs (32 × 4 words).
func runCase(t *testing.T, c ccase) ([32][4]uint64, error) {
	var res [32][4]uint64
	src := kernelText(c)
	f, err := ptx.ParseFile(token.NewFileSet(), "conformance.ptx", []byte(src), 0)
	if err != nil {
		return res, fmt.Errorf("parse: %v\n%s", err, src)
	}
	p, err := NewProgram(f)
	if err != nil {
		return res, fmt.Errorf("program: %v", err)
	}
	code, err := p.Lower("k")
	if err != nil {
		return res, fmt.Errorf("lower: %v\n%s", err, src)
	}
	dev := NewDevice()
	in, out, mem := dev.Alloc("in", 64*32), dev.Alloc("out", 32*32), dev.Alloc("mem", 8*32)
	for i := range out.Data {
		out.Data[i] = 0xab
	}
	for l := 0; l < 32; l++ {
		vals := c.in
		if c.lanesIn != nil {
			vals = c.lanesIn(l)
		}
		for i, v := range vals {
			binary.LittleEndian.PutUint64(in.Data[64*l+8*i:], v)
		}
	}
	act := c.active
	if act == 0 {
		act = 0xffffffff
	}
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], in.Base)
	binary.LittleEndian.PutUint64(params[code.Params[1].Offset:], out.Base)
	binary.LittleEndian.PutUint64(params[code.Params[2].Offset:], mem.Base)
	binary.LittleEndian.PutUint32(params[code.Params[3].Offset:], act)
	kern, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		return res, fmt.Errorf("kernel: %v", err)
	}
	if _, err := kern.Run(context.Background(), RunOptions{Workers: 1}); err != nil {
		return res, fmt.Errorf("run: %v\n%s", err, src)
	}
	for l := 0; l < 32; l++ {
		for j := 0; j < 4; j++ {
			res[l][j] = binary.LittleEndian.Uint64(out.Data[32*l+8*j:])
		}
	}
	return res, nil
}

func within(got, want, tol uint64) bool {
	if got == want {
		return true
	}
	if tol == 0 || (got^want)>>31&1 != 0 && want>>32 == 0 {
		return false
	}
	d := got - want
	if want > got {
		d = want - got
	}
	return d <= tol
}

func checkCase(t *testing.T, c ccase) {
	t.Helper()
	dst, _ := sigParts(c.sig)
	res, err := runCase(t, c)
	if c.fault != "" {
		if err == nil || !strings.Contains(err.Error(), c.fault) {
			t.Errorf("%s: error %v, want a fault containing %q", c.label(), err, c.fault)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", c.label(), err)
		return
	}
	act := c.active
	if act == 0 {
		act = 0xffffffff
	}
	bad := 0
	for l := 0; l < 32 && bad == 0; l++ {
		want := c.want
		if c.lanesWant != nil {
			want = c.lanesWant(l)
		}
		for j, w := range dst {
			n := widthBits(w)
			if n == 1 {
				n = 32
			}
			m := uint64(1)<<n - 1
			if n == 64 {
				m = ^uint64(0)
			}
			got := res[l][j] & m
			if act>>l&1 == 0 || want == nil {
				if got != sentinel&m {
					t.Errorf("%s: lane %d (inactive) dest %d written: %#x", c.label(), l, j, got)
					bad++
				}
				continue
			}
			tol := uint64(0)
			if j == 0 {
				tol = c.tol
			}
			if !within(got, want[j]&m, tol) {
				t.Errorf("%s: lane %d dest $%s = %#x, want %#x", c.label(), l, dstNames[j], got, want[j]&m)
				bad++
				break
			}
		}
	}
}

// conformanceGroups is the whole suite, by group.
func conformanceGroups() []struct {
	name  string
	cases []ccase
} {
	return []struct {
		name  string
		cases []ccase
	}{
		{"int", intCases()},
		{"bits", bitCases()},
		{"carry", carryCases()},
		{"f32", f32Cases()},
		{"f64", f64Cases()},
		{"half", halfCases()},
		{"cmp", cmpCases()},
		{"cvt", cvtCases()},
		{"atom", atomCases()},
		{"warp", warpCases()},
		{"spelling", spellingCases()},
	}
}

func TestConformance(t *testing.T) {
	groups := conformanceGroups()
	seen := map[string]bool{}
	n := 0
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				checkCase(t, c)
			}
		})
		for _, c := range g.cases {
			n++
			seen[comboKey(c.asm)] = true
		}
	}
	t.Logf("conformance: %d cases, %d distinct opcode/type/modifier combinations", n, len(seen))
}

// comboKey is the opcode spellings of a case's instructions (without
// operands), the unit counted as one opcode/type/modifier combination.
func comboKey(asm string) string {
	var ops []string
	for _, ins := range strings.Split(asm, ";") {
		f := strings.Fields(ins)
		if len(f) > 0 {
			ops = append(ops, f[0])
		}
	}
	return strings.Join(ops, ";")
}

// ---------------------------------------------------------------------
// Integer arithmetic

func intCases() []ccase {
	return []ccase{
		bin("add.s32", 32, 0x80000000, 0x7fffffff, 1), // wraps
		bin("add.u16", 16, 0x0000, 0xffff, 1),
		bin("add.s64", 64, 0x8000000000000000, 0x7fffffffffffffff, 1),
		bin("sub.u64", 64, 0xffffffffffffffff, 0, 1),
		bin("sub.s16", 16, 0x7fff, 0x8000, 1),
		// .sat clamps the infinitely precise s32 result to [MinInt32, MaxInt32]
		bin("add.sat.s32", 32, 0x7fffffff, 0x7fffffff, 1),
		bin("add.sat.s32", 32, 0x80000000, 0x80000000, 0xffffffff),
		bin("add.sat.s32", 32, 0xfffffffe, 0xffffffff, 0xffffffff),
		bin("sub.sat.s32", 32, 0x80000000, 0x80000000, 1),
		bin("sub.sat.s32", 32, 0x7fffffff, 0x7fffffff, 0xffffffff),
		bin("sub.sat.s32", 32, 0x7fffffff, 0x7ffffffe, 0x80000000), // 2^32-2 clamps to MaxInt32
		bin("mul.lo.s32", 32, 0, 0x10000, 0x10000),
		bin("mul.lo.u16", 16, 0x0001, 0xffff, 0xffff), // 0xfffe0001 low half
		bin("mul.lo.s64", 64, 0xfffffffffffffffe, 0xffffffffffffffff, 2),
		// .hi: upper half of the 2n-bit product; signed products sign-extend
		bin("mul.hi.u32", 32, 0xfffffffe, 0xffffffff, 0xffffffff),
		bin("mul.hi.s32", 32, 0, 0xffffffff, 0xffffffff),          // (-1)(-1) = 1
		bin("mul.hi.s32", 32, 0x40000000, 0x80000000, 0x80000000), // 2^62
		bin("mul.hi.s32", 32, 0xffffffff, 0x80000000, 2),          // -2^32
		bin("mul.hi.u16", 16, 0xfffe, 0xffff, 0xffff),
		bin("mul.hi.s16", 16, 0xfffe, 0x8000, 0x0003), // -98304 = 0xfffe8000
		bin("mul.hi.u64", 64, 0xfffffffffffffffe, 0xffffffffffffffff, 0xffffffffffffffff),
		bin("mul.hi.s64", 64, 0xffffffffffffffff, 0xffffffffffffffff, 0x7fffffffffffffff), // -(2^63-1)
		bin("mul.hi.s64", 64, 0x4000000000000000, 0x8000000000000000, 0x8000000000000000), // 2^126
		// .wide: 2n-bit product, signed operands sign-extended
		k("mul.wide.s16 $d, $a, $b", "32:16,16", 0xfffffffe, 0xffff, 2),
		k("mul.wide.u16 $d, $a, $b", "32:16,16", 0xfffe0001, 0xffff, 0xffff),
		k("mul.wide.s32 $d, $a, $b", "64:32,32", 0x4000000000000000, 0x80000000, 0x80000000),
		k("mul.wide.s32 $d, $a, $b", "64:32,32", 0xfffffffffffffffb, 0xffffffff, 5),
		k("mul.wide.u32 $d, $a, $b", "64:32,32", 0xfffffffe00000001, 0xffffffff, 0xffffffff),
		tern("mad.lo.s32", 32, 0xfffffff8, 3, 4, 0xffffffec),                 // 12 - 20
		tern("mad.lo.u64", 64, 1, 0xffffffffffffffff, 0xffffffffffffffff, 0), // (2^64-1)^2 mod 2^64 = 1
		tern("mad.hi.u32", 32, 0, 0xffffffff, 0xffffffff, 2),                 // 0xfffffffe + 2 wraps
		tern("mad.hi.s32", 32, 0xfffffffe, 0x80000000, 2, 0xffffffff),        // -1 + -1
		// mad.hi.sat.s32: hi(0x7fffffff^2) = 0x3fffffff, + 0x7fffffff overflows -> MaxInt32
		tern("mad.hi.sat.s32", 32, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff),
		tern("mad.hi.sat.s32", 32, 0x80000000, 0x80000000, 0x7fffffff, 0x80000000),              // hi(-2^62+2^31) = 0xc0000000 + MinInt32 < MinInt32
		k("mad.wide.s16 $d, $a, $b, $c", "32:16,16,32", 0x3fffffff, 0x8000, 0x8000, 0xffffffff), // 2^30 - 1
		k("mad.wide.u16 $d, $a, $b, $c", "32:16,16,32", 0xfffe0002, 0xffff, 0xffff, 1),
		k("mad.wide.u32 $d, $a, $b, $c", "64:32,32,64", 0xffffffffffffffff, 0xffffffff, 0xffffffff, 0x1fffffffe),
		k("mad.wide.s32 $d, $a, $b, $c", "64:32,32,64", 0xfffffffffffffff6, 0xfffffffd, 3, 0xffffffffffffffff), // -9 - 1
		// mul24: 24-bit operands (upper byte ignored; .s32 sign-extends bit 23)
		bin("mul24.lo.u32", 32, 15, 0xff000003, 5),
		bin("mul24.lo.s32", 32, 0xfffffffe, 0x00ffffff, 2),          // (-1)*2
		bin("mul24.hi.u32", 32, 0xfffffe00, 0x00ffffff, 0x00ffffff), // 0xfffffe000001 bits 47..16
		bin("mul24.hi.s32", 32, 0xffffffff, 0x00ffffff, 2),          // -2 as 48 bits, bits 47..16
		tern("mad24.lo.u32", 32, 0x01000001, 0x1000, 0x1000, 1),
		tern("mad24.hi.u32", 32, 0xfffffe01, 0x00ffffff, 0x00ffffff, 1),
		// sad: c + |a-b|
		tern("sad.u32", 32, 107, 3, 10, 100),
		tern("sad.u32", 32, 0xffffffff, 0, 0xffffffff, 0),
		tern("sad.s32", 32, 8, 0xfffffffd, 4, 1),
		tern("sad.s16", 16, 0xffff, 0x7fff, 0x8000, 0),   // |32767 - (-32768)| = 65535
		tern("sad.u64", 64, 2, 0xffffffffffffffff, 0, 3), // 3 + 2^64-1 wraps to 2
		// div/rem truncate toward zero; rem takes the dividend's sign
		bin("div.u32", 32, 3, 7, 2),
		bin("div.s32", 32, 0xfffffffd, 0xfffffff9, 2), // -7/2 = -3
		bin("div.s16", 16, 0xfffd, 7, 0xfffe),         // 7/-2 = -3
		bin("div.u64", 64, 0x5555555555555555, 0xffffffffffffffff, 3),
		bin("div.s64", 64, 0x4000000000000000, 0x8000000000000000, 0xfffffffffffffffe),
		bin("rem.s32", 32, 0xffffffff, 0xfffffff9, 2), // -7 % 2 = -1
		bin("rem.u32", 32, 1, 7, 3),
		bin("rem.s64", 64, 1, 7, 0xfffffffffffffffd), // 7 % -3 = 1
		bin("rem.u16", 16, 0x0fff, 0xffff, 0x1000),
		// abs/neg wrap on the most negative value
		un("abs.s32", 32, 0x80000000, 0x80000000),
		un("abs.s16", 16, 0x000a, 0xfff6),
		un("abs.s64", 64, 5, 0xfffffffffffffffb),
		un("neg.s32", 32, 0x80000000, 0x80000000),
		un("neg.s64", 64, 0xffffffffffffffff, 1),
		un("neg.s16", 16, 0xffff, 1),
		bin("min.s32", 32, 0xffffffff, 0xffffffff, 1),
		bin("min.u32", 32, 1, 0xffffffff, 1),
		bin("max.s64", 64, 1, 0x8000000000000000, 1),
		bin("max.u16", 16, 0x8000, 0x8000, 0x7fff),
		bin("min.s16", 16, 0x8000, 0x8000, 0x7fff),
		bin("max.u64", 64, 0xffffffffffffffff, 0xffffffffffffffff, 0),
		bin("min.relu.s32", 32, 0, 0xfffffffb, 0xfffffffd), // min = -5, relu -> 0
		bin("max.relu.s32", 32, 3, 0xfffffffb, 3),
		bin("max.relu.s32", 32, 0, 0xfffffffb, 0xfffffffd),
	}
}

// ---------------------------------------------------------------------
// Bit manipulation

func bitCases() []ccase {
	const A = 0x44332211 // bytes b0..b3 = 11 22 33 44
	const B = 0x88776655 // bytes b4..b7 = 55 66 77 88
	prmt := func(mode string, c, want uint64) ccase {
		return k("prmt.b32"+mode+" $d, $a, $b, $c", "32:32,32,32", want, A, B, c)
	}
	lop3 := func(lut int, want, a, b, c uint64) ccase {
		return k(fmt.Sprintf("lop3.b32 $d, $a, $b, $c, 0x%02x", lut), "32:32,32,32", want, a, b, c)
	}
	return []ccase{
		un("popc.b32", 32, 32, 0xffffffff),
		un("popc.b32", 32, 0, 0),
		k("popc.b64 $d, $a", "32:64", 64, 0xffffffffffffffff),
		k("popc.b64 $d, $a", "32:64", 1, 0x8000000000000000),
		un("clz.b32", 32, 32, 0),
		un("clz.b32", 32, 31, 1),
		un("clz.b32", 32, 0, 0x80000000),
		k("clz.b64 $d, $a", "32:64", 64, 0),
		k("clz.b64 $d, $a", "32:64", 31, 0x0000000100000000),
		// bfind: bit position of the msb (signed: of the most significant
		// bit that differs from the sign); 0xffffffff when none
		un("bfind.u32", 32, 0xffffffff, 0),
		un("bfind.u32", 32, 31, 0x80000000),
		un("bfind.s32", 32, 0xffffffff, 0xffffffff),
		un("bfind.s32", 32, 3, 0xfffffff0),
		un("bfind.s32", 32, 30, 0x40000000),
		un("bfind.shiftamt.u32", 32, 31, 1),
		un("bfind.shiftamt.u32", 32, 0xffffffff, 0),
		k("bfind.u64 $d, $a", "32:64", 63, 0x8000000000000000),
		k("bfind.s64 $d, $a", "32:64", 62, 0x8000000000000000), // ~a = 0x7fff.. msb 62
		un("brev.b32", 32, 0x80000000, 1),
		un("brev.b32", 32, 0x1e6a2c48, 0x12345678),
		un("brev.b64", 64, 0x8000000000000000, 1),
		un("brev.b64", 64, 0x0f0000000000000f, 0xf0000000000000f0),
		// bfe: pos = b&0xff, len = c&0xff; bits beyond msb and beyond len
		// replicate sbit = (signed && len != 0) ? a[min(pos+len-1, msb)] : 0
		k("bfe.u32 $d, $a, $b, $c", "32:32,32,32", 0x56, 0x12345678, 8, 8),
		k("bfe.u32 $d, $a, $b, $c", "32:32,32,32", 0x56, 0x12345678, 0x108, 0x208), // only the low bytes count
		k("bfe.u32 $d, $a, $b, $c", "32:32,32,32", 0x1, 0x12345678, 28, 8),         // runs off the msb
		k("bfe.u32 $d, $a, $b, $c", "32:32,32,32", 0x12345678, 0x12345678, 0, 255),
		k("bfe.u32 $d, $a, $b, $c", "32:32,32,32", 0, 0x12345678, 40, 4), // pos >= width
		k("bfe.s32 $d, $a, $b, $c", "32:32,32,32", 0xffffffff, 0x0000ff00, 8, 8),
		k("bfe.s32 $d, $a, $b, $c", "32:32,32,32", 0x7f, 0x00007f00, 8, 8),
		k("bfe.s32 $d, $a, $b, $c", "32:32,32,32", 0, 0xffffffff, 8, 0),           // len 0: sbit = 0
		k("bfe.s32 $d, $a, $b, $c", "32:32,32,32", 0xffffffff, 0x80000000, 31, 8), // sbit = a[31]
		k("bfe.s32 $d, $a, $b, $c", "32:32,32,32", 0xffffffff, 0x80000000, 40, 4), // pos >= 32: all sbit = a[31]
		k("bfe.s32 $d, $a, $b, $c", "32:32,32,32", 0, 0x7fffffff, 40, 4),
		k("bfe.u64 $d, $a, $b, $c", "64:64,32,32", 0x5678, 0x123456789abcdef0, 32, 16),
		k("bfe.s64 $d, $a, $b, $c", "64:64,32,32", 0xffffffffffffffff, 0xf000000000000000, 60, 4),
		k("bfe.s64 $d, $a, $b, $c", "64:64,32,32", 0xfffffffffffffff0, 0x00000000000000f0, 0, 8),
		// bfi: f = b; f[pos+i] = a[i] for i < len && pos+i <= msb
		k("bfi.b32 $d, $a, $b, $c, $e", "32:32,32,32,32", 0x1234ff78, 0xff, 0x12345678, 8, 8),
		k("bfi.b32 $d, $a, $b, $c, $e", "32:32,32,32,32", 0x12345678, 0xff, 0x12345678, 8, 0),  // len 0
		k("bfi.b32 $d, $a, $b, $c, $e", "32:32,32,32,32", 0xf2345678, 0xff, 0x12345678, 28, 8), // clipped at msb
		k("bfi.b32 $d, $a, $b, $c, $e", "32:32,32,32,32", 0x12345678, 0xff, 0x12345678, 32, 8), // pos >= width
		k("bfi.b32 $d, $a, $b, $c, $e", "32:32,32,32,32", 0x1234ff78, 0xff, 0x12345678, 0x108, 0x308),
		k("bfi.b64 $d, $a, $b, $c, $e", "64:64,64,32,32", 0xff00000000000000, 0xffff, 0, 56, 16),
		// shifts: amounts greater than the width clamp to the width
		k("shl.b32 $d, $a, $b", "32:32,32", 0x80000000, 1, 31),
		k("shl.b32 $d, $a, $b", "32:32,32", 0, 1, 32),
		k("shl.b32 $d, $a, $b", "32:32,32", 0, 1, 0xffffffff),
		k("shl.b16 $d, $a, $b", "16:16,32", 0, 1, 16),
		k("shl.b16 $d, $a, $b", "16:16,32", 0x8000, 1, 15),
		k("shl.b64 $d, $a, $b", "64:64,32", 0x8000000000000000, 1, 63),
		k("shl.b64 $d, $a, $b", "64:64,32", 0, 1, 64),
		k("shr.u32 $d, $a, $b", "32:32,32", 1, 0x80000000, 31),
		k("shr.u32 $d, $a, $b", "32:32,32", 0, 0x80000000, 32),
		k("shr.s32 $d, $a, $b", "32:32,32", 0xffffffff, 0x80000000, 32),
		k("shr.s32 $d, $a, $b", "32:32,32", 0xffffffff, 0x80000000, 100),
		k("shr.s32 $d, $a, $b", "32:32,32", 0x3fffffff, 0x7fffffff, 1),
		k("shr.b32 $d, $a, $b", "32:32,32", 0, 0x80000000, 40), // untyped: zero fill
		k("shr.s16 $d, $a, $b", "16:16,32", 0xffff, 0x8000, 15),
		k("shr.u16 $d, $a, $b", "16:16,32", 0, 0x8000, 16),
		k("shr.s64 $d, $a, $b", "64:64,32", 0xffffffffffffffff, 0x8000000000000000, 64),
		k("shr.u64 $d, $a, $b", "64:64,32", 1, 0x8000000000000000, 63),
		// shf: n = clamp ? min(c, 32) : c & 31, shifting the 64-bit {b, a}
		k("shf.l.wrap.b32 $d, $a, $b, $c", "32:32,32,32", 3, 0x80000001, 1, 1),
		k("shf.l.wrap.b32 $d, $a, $b, $c", "32:32,32,32", 3, 0x80000001, 1, 33),
		k("shf.l.wrap.b32 $d, $a, $b, $c", "32:32,32,32", 1, 0x80000001, 1, 32),           // n = 0: d = b
		k("shf.l.clamp.b32 $d, $a, $b, $c", "32:32,32,32", 0x80000001, 0x80000001, 1, 33), // n = 32: d = a
		k("shf.r.wrap.b32 $d, $a, $b, $c", "32:32,32,32", 0xc0000000, 0x80000001, 1, 1),
		k("shf.r.wrap.b32 $d, $a, $b, $c", "32:32,32,32", 0x80000001, 0x80000001, 1, 32), // n = 0: d = a
		k("shf.r.clamp.b32 $d, $a, $b, $c", "32:32,32,32", 1, 0x80000001, 1, 40),         // n = 32: d = b
		k("shf.r.wrap.b32 $d, $a, $b, $c", "32:32,32,32", 4, 0, 1, 62),                   // n = 30: bit 32 -> bit 2
		// prmt, generic form: 4-bit selectors; bit 3 replicates the byte's sign
		prmt("", 0x3210, A),
		prmt("", 0x7654, B),
		prmt("", 0x0123, 0x11223344),
		prmt("", 0x8888, 0x00000000), // byte 0 = 0x11: sign 0
		prmt("", 0xfff7, 0xffffff88), // byte 7 = 0x88: sign 1
		prmt("", 0x4d00, 0x55001111),
		// prmt modes use c[1:0]; tables list d.b3 d.b2 d.b1 d.b0 as source byte numbers
		prmt(".f4e", 1, 0x55443322), // 4 3 2 1
		prmt(".f4e", 3, 0x77665544), // 6 5 4 3
		prmt(".f4e", 5, 0x55443322), // only c[1:0]
		prmt(".b4e", 0, 0x66778811), // 5 6 7 0
		prmt(".b4e", 2, 0x88112233), // 7 0 1 2
		prmt(".rc8", 2, 0x33333333),
		prmt(".ecl", 1, 0x44332222),  // 3 2 1 1
		prmt(".ecr", 2, 0x33332211),  // 2 2 1 0
		prmt(".rc16", 1, 0x44334433), // 3 2 3 2
		// lop3: with a=0xf0.., b=0xcc.., c=0xaa.. the result is the LUT itself
		lop3(0x96, 0x96969696, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa),
		lop3(0xe8, 0xe8e8e8e8, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa),
		lop3(0x01, 0x01010101, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa),
		lop3(0xca, 0xedcba987, 0x12345678, 0, 0xffffffff), // a ? b : c = ~a here
		lop3(0xff, 0xffffffff, 0, 0, 0),
		// dp4a/dp2a: c + sum of byte (half) products, extended per type
		k("dp4a.u32.u32 $d, $a, $b, $c", "32:32,32,32", 20, 0x01020304, 0x01010101, 10),
		k("dp4a.s32.s32 $d, $a, $b, $c", "32:32,32,32", 0xfffffff8, 0xffffffff, 0x02020202, 0),
		k("dp4a.s32.u32 $d, $a, $b, $c", "32:32,32,32", 0xffffff01, 0x000000ff, 0x000000ff, 0), // -1 * 255
		k("dp4a.u32.s32 $d, $a, $b, $c", "32:32,32,32", 0xffffff01, 0x000000ff, 0x000000ff, 0), // 255 * -1
		k("dp4a.u32.u32 $d, $a, $b, $c", "32:32,32,32", 0x0003f804, 0xffffffff, 0xffffffff, 0), // 4 * 255^2 = 260100
		k("dp2a.lo.u32.u32 $d, $a, $b, $c", "32:32,32,32", 7, 0x00020003, 0x04030201, 0),
		k("dp2a.hi.u32.u32 $d, $a, $b, $c", "32:32,32,32", 17, 0x00020003, 0x04030201, 0),
		k("dp2a.lo.s32.s32 $d, $a, $b, $c", "32:32,32,32", 0xfffffffa, 0xffff0001, 0x000005ff, 0), // 1*-1 + -1*5
		// szext / bmsk (sm_70+)
		k("szext.wrap.s32 $d, $a, $b", "32:32,32", 0xffffff80, 0x00000080, 8),
		k("szext.wrap.u32 $d, $a, $b", "32:32,32", 0x00000080, 0xffffff80, 8),
		k("szext.wrap.s32 $d, $a, $b", "32:32,32", 0, 0xffffffff, 32), // b & 0x1f = 0
		k("szext.clamp.s32 $d, $a, $b", "32:32,32", 0xffffffff, 0xffffffff, 40),
		k("bmsk.wrap.b32 $d, $a, $b", "32:32,32", 0x0000ff00, 8, 8),
		k("bmsk.wrap.b32 $d, $a, $b", "32:32,32", 0xfff00000, 20, 20), // pos+len >= 32
		k("bmsk.clamp.b32 $d, $a, $b", "32:32,32", 0, 32, 4),
		k("bmsk.clamp.b32 $d, $a, $b", "32:32,32", 0xffff0000, 16, 40),
		k("bmsk.wrap.b32 $d, $a, $b", "32:32,32", 0, 16, 32), // len & 0x1f = 0
		// logic
		bin("and.b32", 32, 0x00f0, 0x0ff0, 0xf0f0),
		bin("or.b64", 64, 0xf0000000000000ff, 0xf000000000000000, 0xff),
		bin("xor.b16", 16, 0x0ff0, 0xff00, 0xf0f0),
		un("not.b32", 32, 0xedcba987, 0x12345678),
		un("cnot.b32", 32, 1, 0),
		un("cnot.b32", 32, 0, 0x100),
		un("cnot.b16", 16, 0, 0x8000),
		un("bfind.shiftamt.s32", 32, 2, 0xc0000000), // ~a = 0x3fffffff: bit 29 -> 31-29
		tern("sad.s64", 64, 0x10, 0xfffffffffffffff8, 8, 0),
		// mov packing/unpacking: element 0 is the low part
		k("mov.b32 $d, {$a, $b}", "32:16,16", 0xbeefdead, 0xdead, 0xbeef),
		k("mov.b64 $d, {$a, $b}", "64:32,32", 0x2222222211111111, 0x11111111, 0x22222222),
		k2("mov.b64 {$d, $q}, $a", "32,32:64", []uint64{0x11111111, 0x22222222}, 0x2222222211111111),
		k2("mov.b32 {$d, $q}, $a", "16,16:32", []uint64{0xdead, 0xbeef}, 0xbeefdead),
	}
}

// ---------------------------------------------------------------------
// Carry chains (CC.CF): add.cc/addc, sub.cc/subc (borrow), mad.cc/madc

func carryCases() []ccase {
	return []ccase{
		// 96-bit add: 0x_ffffffff_ffffffff + 1
		k2("add.cc.u32 $d, $a, $b; addc.cc.u32 $q, $c, $e; addc.u32 $r, 0, 0", "32,32,32:32,32,32,32",
			[]uint64{0, 0, 1}, 0xffffffff, 1, 0xffffffff, 0),
		k2("add.cc.s32 $d, $a, $b; addc.s32 $q, $c, $e", "32,32:32,32,32,32",
			[]uint64{0xfffffffe, 1}, 0x7fffffff, 0x7fffffff, 1, 0), // signed overflow is no carry
		k2("add.cc.u32 $d, $a, $b; addc.u32 $q, $c, $e", "32,32:32,32,32,32",
			[]uint64{0, 0xffffffff}, 0x80000000, 0x80000000, 0xfffffffe, 0),
		// 96-bit subtract: 0 - 1 borrows through every word
		k2("sub.cc.u32 $d, $a, $b; subc.cc.u32 $q, $c, $e; subc.u32 $r, 0, 0", "32,32,32:32,32,32,32",
			[]uint64{0xffffffff, 0xffffffff, 0xffffffff}, 0, 1, 0, 0),
		k2("sub.cc.u32 $d, $a, $b; subc.u32 $q, $c, $e", "32,32:32,32,32,32",
			[]uint64{0xffffffff, 4}, 5, 6, 10, 5), // 10 - (5 + borrow)
		k2("add.cc.u64 $d, $a, $b; addc.u64 $q, $c, $e", "64,64:64,64,64,64",
			[]uint64{0, 1}, 0xffffffffffffffff, 1, 0, 0),
		k2("sub.cc.u64 $d, $a, $b; subc.u64 $q, $c, $e", "64,64:64,64,64,64",
			[]uint64{0xffffffffffffffff, 6}, 0, 1, 7, 0),
		// 64-bit product + 32-bit addend via mad.lo.cc / madc.hi:
		// 0xffffffff^2 + 0xffffffff = 0xffffffff_00000000
		k2("mad.lo.cc.u32 $d, $a, $b, $c; madc.hi.u32 $q, $a, $b, $e", "32,32:32,32,32,32",
			[]uint64{0, 0xffffffff}, 0xffffffff, 0xffffffff, 0xffffffff, 0),
		k2("mad.hi.cc.u32 $d, $a, $b, $c; madc.lo.cc.u32 $q, $a, $b, $e; addc.u32 $r, 0, 0", "32,32,32:32,32,32,32",
			[]uint64{0x00000000, 0x00000001, 1}, 0xffffffff, 0xffffffff, 2, 0xffffffff),
		k2("mad.lo.cc.u64 $d, $a, $b, $c; madc.hi.u64 $q, $a, $b, $e", "64,64:64,64,64,64",
			[]uint64{0, 0xffffffffffffffff}, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0),
	}
}

// ---------------------------------------------------------------------
// f32 arithmetic. Constants:
const (
	f1     = 0x3f800000 // 1.0
	f1p    = 0x3f800001 // 1 + 2^-23
	f2     = 0x40000000
	f3     = 0x40400000
	fHalf  = 0x3f000000
	fM1    = 0xbf800000
	fInf   = 0x7f800000
	fNInf  = 0xff800000
	fQNaN  = 0x7fc12345 // quiet NaN with payload
	fSNaN  = 0x7f800001 // signaling NaN
	fCanon = 0x7fffffff // PTX canonical f32 NaN
	fBig   = 0x7f7fffff
	fMinN  = 0x00800000 // smallest normal 2^-126
	fDen1  = 0x00000001 // 2^-149
	fNDen1 = 0x80000001
	fNZero = 0x80000000
	fE24   = 0x33800000 // 2^-24: half an ulp of 1.0
)

func f32Cases() []ccase {
	b := func(op string, want, a, b uint64) ccase { return bin(op, 32, want, a, b) }
	t := func(op string, want, a, b, c uint64) ccase { return tern(op, 32, want, a, b, c) }
	u := func(op string, want, a uint64) ccase { return un(op, 32, want, a) }
	return []ccase{
		b("add.f32", f3, f1, f2),
		b("add.rn.f32", f1, f1, fE24),          // exact tie 1 + 2^-24 -> even (1.0)
		b("add.rn.f32", 0x3f800002, f1p, fE24), // tie between ..01 and ..02 -> even
		b("add.rz.f32", f1p, f1p, fE24),
		b("add.rm.f32", f1p, f1p, fE24),
		b("add.rp.f32", 0x3f800002, f1p, fE24),
		b("add.rp.f32", f1p, f1, fE24),
		b("add.rm.f32", 0xbf800001, fM1, 0xb3800000), // -(1 + 2^-24) toward -inf
		b("add.rz.f32", fM1, fM1, 0xb3800000),
		b("add.rn.f32", 0, f1, fM1),      // exact zero sum is +0 ...
		b("add.rm.f32", fNZero, f1, fM1), // ... and -0 rounding toward -inf
		b("add.f32", fCanon, fInf, fNInf),
		b("add.f32", fCanon, fQNaN, f1), // NaN results are the canonical NaN
		b("add.f32", fCanon, f1, fSNaN),
		b("add.f32", fInf, fBig, fBig), // overflow: RN -> inf
		b("add.rz.f32", fBig, fBig, fBig),
		b("add.rm.f32", fBig, fBig, fBig),
		b("add.rp.f32", fInf, fBig, fBig),
		b("add.rm.f32", 0xff800000, 0xff7fffff, 0xff7fffff),
		b("add.f32", 0x00000002, fDen1, fDen1), // subnormals kept without .ftz
		b("add.ftz.f32", 0, fDen1, fDen1),      // inputs flushed to +0
		b("add.ftz.f32", fMinN, fMinN, fNDen1), // -2^-149 flushed: result exact 2^-126
		b("add.f32", 0x007fffff, fMinN, fNDen1),
		b("add.ftz.f32", 0, 0x00800001, 0x80800000),      // result 2^-149 flushed to +0
		b("add.ftz.f32", fNZero, 0x80800001, 0x00800000), // -2^-149 flushed to -0
		b("add.ftz.f32", fNZero, fNDen1, fNDen1),         // -0 + -0
		// .sat clamps to [0, 1]; NaN -> +0
		b("add.sat.f32", f1, 0x3f400000, fHalf), // 0.75 + 0.5
		b("add.sat.f32", 0, fM1, fHalf),
		b("add.sat.f32", 0, fQNaN, f1),
		b("add.sat.f32", f1, fInf, f1),
		b("add.rz.sat.f32", 0x3f7fffff, 0x3f7fffff, 0),
		b("add.ftz.sat.f32", 0, fDen1, 0),
		b("sub.f32", 0x40200000, f3, fHalf), // 2.5
		b("sub.f32", 0, f1, f1),
		b("sub.rm.f32", fNZero, f1, f1),
		b("sub.rn.f32", 0x80000000, fNZero, 0), // -0 - +0 = -0
		b("sub.f32", fCanon, fInf, fInf),
		b("sub.f32", fNDen1, 0x80800000, 0x807fffff),         // -2^-126 + (2^-126 - 2^-149) = -2^-149
		b("sub.ftz.f32", 0x80800000, 0x80800000, 0x807fffff), // subtrahend flushed to -0
		b("mul.f32", 0x40100000, 0x3fc00000, 0x3fc00000),     // 1.5^2 = 2.25
		// (1+2^-23)^2 = 1 + 2^-22 + 2^-46
		b("mul.rn.f32", 0x3f800002, f1p, f1p),
		b("mul.rz.f32", 0x3f800002, f1p, f1p),
		b("mul.rm.f32", 0x3f800002, f1p, f1p),
		b("mul.rp.f32", 0x3f800003, f1p, f1p),
		b("mul.f32", fCanon, 0, fInf),
		b("mul.f32", fNZero, fNZero, 0x40a00000), // -0 * 5
		b("mul.f32", 0x00400000, fMinN, fHalf),   // 2^-127 subnormal
		b("mul.ftz.f32", 0, fMinN, fHalf),        // ... flushed
		b("mul.ftz.f32", fNZero, 0x80800000, fHalf),
		b("mul.rn.f32", 0, fDen1, fHalf), // 2^-150: tie between 0 and 2^-149 -> even (0)
		b("mul.rp.f32", fDen1, fDen1, fHalf),
		b("mul.rn.f32", 2, 3, fHalf),                        // 1.5 * 2^-149: tie -> even (2 * 2^-149)
		b("mul.rn.f32", 0x00000002, 0x00000003, 0x3f2aaaab), // 3 * 2^-149 * 0.6666667 ≈ 2.0000001 * 2^-149
		b("mul.sat.f32", f1, f2, f2),
		b("mul.rn.ftz.sat.f32", 0, 0xc0000000, f2),
		// fma: single rounding of a*b+c
		t("fma.rn.f32", 0x34800000, f1p, f1p, fM1), // 2^-22 + 2^-46: tie -> even 2^-22
		t("fma.rz.f32", 0x34800000, f1p, f1p, fM1),
		t("fma.rm.f32", 0x34800000, f1p, f1p, fM1),
		t("fma.rp.f32", 0x34800001, f1p, f1p, fM1),
		t("fma.rn.f32", 0x28800000, f1p, f1p, 0xbf800002), // exactly 2^-46 (mul+add would give 0)
		t("fma.rz.f32", 0x3f800002, f1p, f1p, 0),
		t("fma.rp.f32", 0x3f800003, f1p, f1p, 0),
		t("fma.rn.f32", fCanon, fInf, 0, f1),
		t("fma.rn.f32", fCanon, f1, f1, fQNaN),
		t("fma.rn.f32", 0, f2, f3, 0xc0c00000),      // 6 - 6 = +0
		t("fma.rm.f32", fNZero, f2, f3, 0xc0c00000), // ... -0 toward -inf
		t("fma.rn.f32", 0x00400000, fMinN, fHalf, 0),
		t("fma.rn.ftz.f32", 0, fMinN, fHalf, 0),
		t("fma.rn.ftz.f32", 0x3f800000, fDen1, 0x7f000000, f1), // a flushed: 0 * 2^127 + 1
		t("fma.rn.f32", f1, 0x00400000, 0x4c000000, f1),        // 1 + 2^-102 (subnormal a)
		t("fma.rp.f32", f1p, 0x00400000, 0x4c000000, f1),       // ... the tiny product still rounds up
		t("fma.rn.f32", 0x3f800002, fDen1, 0x7f000000, f1),     // 2^-149 * 2^127 = 2^-22
		t("fma.rn.sat.f32", f1, fHalf, fHalf, 0x3f666666),      // 0.25 + 0.9 -> 1
		t("fma.rn.sat.f32", 0, fM1, f1, 0),
		t("mad.rn.f32", f3, f1, f2, f1),
		// div / rcp / sqrt: IEEE correctly rounded in every mode
		b("div.rn.f32", 0x3eaaaaab, f1, f3), // 1/3 = 1.0101..b x 2^-2, guard bits 1010.. -> up
		b("div.rz.f32", 0x3eaaaaaa, f1, f3),
		b("div.rm.f32", 0x3eaaaaaa, f1, f3),
		b("div.rp.f32", 0x3eaaaaab, f1, f3),
		b("div.rm.f32", 0xbeaaaaab, fM1, f3),
		b("div.rn.f32", fInf, f1, 0),
		b("div.rn.f32", fNInf, f1, fNZero),
		b("div.rn.f32", fCanon, 0, 0),
		b("div.rn.f32", fCanon, fInf, fInf),
		b("div.rn.f32", fNZero, fM1, fInf),
		b("div.rn.f32", 0x00400000, fMinN, f2), // subnormal quotient kept
		b("div.rn.ftz.f32", 0, fMinN, f2),
		{asm: "div.full.f32 $d, $a, $b", sig: "32:32,32", in: []uint64{0x40c00000, f2}, want: []uint64{f3}, tol: 2},
		{asm: "div.approx.f32 $d, $a, $b", sig: "32:32,32", in: []uint64{f1, f3}, want: []uint64{0x3eaaaaab}, tol: 2},
		u("rcp.rn.f32", 0x3eaaaaab, f3),
		u("rcp.rz.f32", 0x3eaaaaaa, f3),
		u("rcp.rn.f32", fNInf, fNZero),
		u("rcp.rn.f32", 0, fInf),
		u("rcp.rn.f32", 0x00400000, 0x7f000000), // 2^-127 subnormal
		u("rcp.rn.ftz.f32", 0, 0x7f000000),
		{asm: "rcp.approx.f32 $d, $a", sig: "32:32", in: []uint64{f3}, want: []uint64{0x3eaaaaab}, tol: 1},
		{asm: "rcp.approx.ftz.f32 $d, $a", sig: "32:32", in: []uint64{0x40a00000}, want: []uint64{0x3e4ccccd}, tol: 1}, // 1/5
		u("rcp.approx.ftz.f32", fInf, fDen1),   // input flushed to +0 -> +inf
		u("rcp.approx.ftz.f32", fNInf, fNDen1), // -0 -> -inf
		u("rcp.approx.ftz.f32", 0, 0x7f000000), // 2^-127 flushed
		u("rcp.approx.f32", fNZero, fNInf),
		u("sqrt.rn.f32", f2, 0x40800000),
		u("sqrt.rn.f32", 0x3fb504f3, f2), // sqrt 2 = 1.0110101000001001111001100|11.. -> down
		u("sqrt.rz.f32", 0x3fb504f3, f2),
		u("sqrt.rp.f32", 0x3fb504f4, f2),
		u("sqrt.rn.f32", fCanon, fM1),
		u("sqrt.rn.f32", fNZero, fNZero), // sqrt(-0) = -0
		u("sqrt.rn.f32", fInf, fInf),
		u("sqrt.rn.f32", 0x20000000, 0x00800000), // sqrt(2^-126) = 2^-63
		u("sqrt.rn.ftz.f32", 0, 0x00000004),      // flushed input
		u("sqrt.rn.f32", 0x1ab504f3, 0x00000004), // sqrt(2^-147) = sqrt2 * 2^-74
		{asm: "sqrt.approx.f32 $d, $a", sig: "32:32", in: []uint64{0x41100000}, want: []uint64{f3}, tol: 1},
		{asm: "rsqrt.approx.f32 $d, $a", sig: "32:32", in: []uint64{0x40800000}, want: []uint64{fHalf}, tol: 2},
		u("rsqrt.approx.f32", fInf, 0),
		u("rsqrt.approx.f32", fCanon, fM1),
		{asm: "ex2.approx.f32 $d, $a", sig: "32:32", in: []uint64{f3}, want: []uint64{0x41000000}, tol: 2},
		u("ex2.approx.ftz.f32", 0, fNInf),
		{asm: "lg2.approx.f32 $d, $a", sig: "32:32", in: []uint64{0x41000000}, want: []uint64{f3}, tol: 2},
		u("lg2.approx.f32", fNInf, 0),
		u("sin.approx.f32", fNZero, fNZero),
		u("cos.approx.f32", f1, 0),
		u("sin.approx.f32", fCanon, fInf),
		u("tanh.approx.f32", 0, 0),
		u("tanh.approx.f32", fM1, fNInf),
		u("ex2.approx.f32", fInf, fInf),
		u("ex2.approx.f32", f1, fNZero),
		// min/max: one NaN input -> the other; both NaN -> canonical NaN;
		// .NaN: any NaN input -> canonical NaN; -0 < +0
		b("min.f32", f1, f1, f2),
		b("min.f32", f2, fQNaN, f2),
		b("min.f32", f2, f2, fSNaN),
		b("min.f32", fCanon, fQNaN, fSNaN),
		b("min.NaN.f32", fCanon, fQNaN, f2),
		b("max.NaN.f32", fCanon, f1, fSNaN),
		b("max.NaN.f32", f2, f1, f2),
		b("max.f32", fNInf, fNInf, fQNaN),
		b("min.f32", fNZero, 0, fNZero),
		b("max.f32", 0, fNZero, 0),
		b("min.f32", fDen1, 0x00000002, fDen1),
		b("min.ftz.f32", 0, 0x00000002, fDen1), // both flush to +0
		b("max.ftz.f32", fNZero, 0x80000002, fNDen1),
		b("max.xorsign.abs.f32", 0xc0400000, 0xc0000000, f3), // max(|-2|,|3|) with sign -^+
		b("min.xorsign.abs.f32", 0xc0000000, 0xc0000000, f3),
		// abs/neg/copysign operate on the sign bit
		u("abs.f32", f1, fM1),
		u("abs.f32", 0, fNZero),
		u("abs.f32", fInf, fNInf),
		u("abs.ftz.f32", 0, fNDen1),
		u("abs.f32", fDen1, fNDen1),
		u("neg.f32", fM1, f1),
		u("neg.f32", fNZero, 0),
		u("neg.ftz.f32", fNZero, fDen1),
		u("neg.f32", fNDen1, fDen1),
		b("copysign.f32", 0xc0000000, fM1, f2),
		b("copysign.f32", fInf, 0, fNInf),
		// testp: zeros count as normal
		k("testp.finite.f32 $d, $a", "p:32", 1, f1),
		k("testp.finite.f32 $d, $a", "p:32", 0, fInf),
		k("testp.finite.f32 $d, $a", "p:32", 0, fQNaN),
		k("testp.infinite.f32 $d, $a", "p:32", 1, fNInf),
		k("testp.infinite.f32 $d, $a", "p:32", 0, fBig),
		k("testp.number.f32 $d, $a", "p:32", 0, fSNaN),
		k("testp.notanumber.f32 $d, $a", "p:32", 1, fSNaN),
		k("testp.notanumber.f32 $d, $a", "p:32", 0, fInf),
		k("testp.normal.f32 $d, $a", "p:32", 1, fMinN),
		k("testp.normal.f32 $d, $a", "p:32", 1, 0), // "positive and negative zero are considered normal"
		k("testp.normal.f32 $d, $a", "p:32", 1, fNZero),
		k("testp.normal.f32 $d, $a", "p:32", 0, 0x007fffff),
		k("testp.normal.f32 $d, $a", "p:32", 0, fInf),
		k("testp.subnormal.f32 $d, $a", "p:32", 1, fNDen1),
		k("testp.subnormal.f32 $d, $a", "p:32", 0, 0),
	}
}

// ---------------------------------------------------------------------
// f64

const (
	d1     = 0x3ff0000000000000
	d1p    = 0x3ff0000000000001 // 1 + 2^-52
	dM1    = 0xbff0000000000000
	d3     = 0x4008000000000000
	dE53   = 0x3ca0000000000000 // 2^-53
	dInf   = 0x7ff0000000000000
	dNZero = 0x8000000000000000
	dNaN   = 0x7ff8000000000000
)

func f64Cases() []ccase {
	b := func(op string, want, a, b uint64) ccase { return bin(op, 64, want, a, b) }
	t := func(op string, want, a, b, c uint64) ccase { return tern(op, 64, want, a, b, c) }
	u := func(op string, want, a uint64) ccase { return un(op, 64, want, a) }
	return []ccase{
		b("add.f64", d3, d1, 0x4000000000000000),
		b("add.rn.f64", d1, d1, dE53), // tie -> even
		b("add.rp.f64", d1p, d1, dE53),
		b("add.rz.f64", d1p, d1p, dE53),
		b("add.rn.f64", 0x3ff0000000000002, d1p, dE53),
		b("add.rm.f64", dNZero, d1, dM1),
		b("add.rn.f64", 0x0000000000000002, 1, 1), // subnormals, no flushing for f64
		b("sub.rn.f64", 0x3cb0000000000000, d1p, d1),
		b("sub.f64", 0, d3, d3),
		// (1+2^-52)^2 = 1 + 2^-51 + 2^-104
		b("mul.rn.f64", 0x3ff0000000000002, d1p, d1p),
		b("mul.rp.f64", 0x3ff0000000000003, d1p, d1p),
		b("mul.rz.f64", 0x3ff0000000000002, d1p, d1p),
		b("mul.rn.f64", 0, 1, 0x3fe0000000000000), // 2^-1075: tie -> 0
		b("mul.rm.f64", 0x8000000000000001, 0x8000000000000001, 0x3fe0000000000000),
		t("fma.rn.f64", 0x3cc0000000000000, d1p, d1p, dM1), // 2^-51 + 2^-104: tie -> even
		t("fma.rp.f64", 0x3cc0000000000001, d1p, d1p, dM1),
		t("fma.rz.f64", 0x3cc0000000000000, d1p, d1p, dM1),
		t("fma.rm.f64", dNZero, d3, d1, 0xc008000000000000),
		t("mad.rn.f64", 0x4010000000000000, d3, d1, d1),
		b("div.rn.f64", 0x3fd5555555555555, d1, d3), // 1/3: next bits 0101.. -> down
		b("div.rz.f64", 0x3fd5555555555555, d1, d3),
		b("div.rp.f64", 0x3fd5555555555556, d1, d3),
		b("div.rm.f64", 0xbfd5555555555556, dM1, d3),
		b("div.rn.f64", 0x3fe5555555555555, 0x4000000000000000, d3),
		b("div.rn.f64", dInf, d1, 0),
		b("div.rn.f64", 0xfff0000000000000, dM1, 0),
		u("rcp.rn.f64", 0x3fd0000000000000, 0x4010000000000000),
		u("rcp.rn.f64", 0x3fd5555555555555, d3),
		u("rcp.rp.f64", 0x3fd5555555555556, d3),
		u("sqrt.rn.f64", 0x3ff6a09e667f3bcd, 0x4000000000000000), // sqrt 2 rounds up in RN
		u("sqrt.rz.f64", 0x3ff6a09e667f3bcc, 0x4000000000000000),
		u("sqrt.rp.f64", 0x3ff6a09e667f3bcd, 0x4000000000000000),
		u("sqrt.rn.f64", 0x4008000000000000, 0x4022000000000000), // sqrt 9
		u("sqrt.rn.f64", dNZero, dNZero),
		b("min.f64", d1, d1, dNaN),
		b("max.f64", d3, dNaN, d3),
		b("min.f64", dNZero, 0, dNZero),
		b("max.f64", 0, dNZero, 0),
		u("abs.f64", d1, dM1),
		u("neg.f64", dNZero, 0),
		u("neg.f64", 0x8000000000000001, 1),
		b("copysign.f64", 0xbff0000000000000, dNZero, d1),
		k("testp.normal.f64 $d, $a", "p:64", 1, dNZero),
		k("testp.subnormal.f64 $d, $a", "p:64", 1, 1),
		k("testp.finite.f64 $d, $a", "p:64", 0, dInf),
		k("testp.notanumber.f64 $d, $a", "p:64", 1, dNaN),
	}
}

// ---------------------------------------------------------------------
// f16 / bf16 and the packed forms (f16: 1.0 = 0x3c00, ulp(1) = 2^-10;
// bf16: 1.0 = 0x3f80, ulp(1) = 2^-7)

func halfCases() []ccase {
	h := func(op string, want, a, b uint64) ccase { return bin(op, 16, want, a, b) }
	h3 := func(op string, want, a, b, c uint64) ccase { return tern(op, 16, want, a, b, c) }
	x := func(op string, want, a, b uint64) ccase { return bin(op, 32, want, a, b) }
	x3 := func(op string, want, a, b, c uint64) ccase { return tern(op, 32, want, a, b, c) }
	return []ccase{
		h("add.f16", 0x4000, 0x3c00, 0x3c00),
		h("add.f16", 0x3c00, 0x3c00, 0x1000),    // 1 + 2^-11: tie -> even
		h("add.rn.f16", 0x3c02, 0x3c01, 0x1000), // tie between 0x3c01 and 0x3c02 -> even
		h("add.f16", 0x7c00, 0x7bff, 0x7bff),    // overflow -> inf
		h("add.f16", 0x0002, 0x0001, 0x0001),    // subnormals kept
		h("add.ftz.f16", 0x0000, 0x0001, 0x0001),
		h("add.sat.f16", 0x3c00, 0x3c00, 0x3c00),
		h("add.sat.f16", 0x0000, 0xbc00, 0x3800),
		h("sub.f16", 0x4100, 0x4200, 0x3800),     // 3 - 0.5
		h("mul.f16", 0x4080, 0x3e00, 0x3e00),     // 1.5^2
		h("mul.f16", 0x3c02, 0x3c01, 0x3c01),     // 1 + 2^-9 + 2^-20 -> 1 + 2^-9
		h("mul.ftz.f16", 0x0000, 0x0400, 0x3800), // 2^-14 * 0.5 = 2^-15 subnormal, flushed
		h("mul.f16", 0x0200, 0x0400, 0x3800),
		h3("fma.rn.f16", 0x1800, 0x3c01, 0x3c01, 0xbc00), // 2^-9 + 2^-20: tie -> even 2^-9
		h3("fma.rn.relu.f16", 0x0000, 0xbc00, 0x3c00, 0),
		h3("fma.rn.relu.f16", 0x4000, 0x3c00, 0x3c00, 0x3c00),
		h3("fma.rn.sat.f16", 0x3c00, 0x3c00, 0x3c00, 0x3c00),
		un("neg.f16", 16, 0xbc00, 0x3c00),
		un("abs.f16", 16, 0x3c00, 0xbc00),
		un("abs.f16", 16, 0x0000, 0x8000),
		un("abs.ftz.f16", 16, 0x0000, 0x8001),
		un("neg.f16x2", 32, 0xbc003c00, 0x3c00bc00),
		un("abs.f16x2", 32, 0x3c003c00, 0xbc00bc00),
		un("neg.bf16", 16, 0xbf80, 0x3f80),
		un("abs.bf16", 16, 0x3f80, 0xbf80),
		un("neg.bf16x2", 32, 0xbf803f80, 0x3f80bf80),
		un("abs.bf16x2", 32, 0x3f803f80, 0xbf80bf80),
		x("add.f16x2", 0x40004200, 0x3c004000, 0x3c003c00),
		x("add.rn.f16x2", 0x3c003c02, 0x3c003c01, 0x00001000), // halves rounded independently
		x("sub.f16x2", 0x00003c00, 0x3c004000, 0x3c003c00),
		x("mul.f16x2", 0x40804000, 0x3e004000, 0x3e003c00),
		x3("fma.rn.f16x2", 0x4200bc00, 0x3c00bc00, 0x40004000, 0x3c003c00), // hi 1*2+1, lo -1*2+1
		h("add.bf16", 0x4000, 0x3f80, 0x3f80),
		h("add.rn.bf16", 0x3f80, 0x3f80, 0x3b80), // 1 + 2^-8: tie -> even
		h("add.rn.bf16", 0x3f82, 0x3f81, 0x3b80),
		h("add.bf16", 0x0002, 0x0001, 0x0001), // bf16 keeps subnormals
		h("sub.bf16", 0x4000, 0x4040, 0x3f80),
		h("mul.bf16", 0x4010, 0x3fc0, 0x3fc0),
		h3("fma.rn.bf16", 0x4040, 0x3f80, 0x4000, 0x3f80),
		h3("fma.rn.bf16", 0x3c80, 0x3f81, 0x3f81, 0xbf80), // 2^-6 + 2^-14: tie -> even 2^-6 (exponent 121)
		x("add.bf16x2", 0x40004040, 0x3f804000, 0x3f803f80),
		x3("fma.rn.bf16x2", 0x40403f80, 0x3f803f80, 0x40003f80, 0x3f800000),
		// min/max: one NaN -> other, .NaN -> canonical NaN (0x7fff)
		h("min.f16", 0x3c00, 0x7e00, 0x3c00),
		h("min.NaN.f16", 0x7fff, 0x7e00, 0x3c00),
		h("max.f16", 0x4000, 0x3c00, 0x4000),
		h("min.f16", 0x8000, 0x0000, 0x8000),
		x("min.f16x2", 0x3c003c00, 0x3c004000, 0x40003c00),
		x("max.f16x2", 0x40004000, 0x3c004000, 0x40003c00),
		h("max.bf16", 0x4000, 0x3f80, 0x4000),
		x("min.bf16x2", 0x3f803f80, 0x7fc03f80, 0x3f804000),
		h("max.NaN.bf16", 0x7fff, 0x7fc0, 0x3f80),
		{asm: "ex2.approx.f16 $d, $a", sig: "16:16", in: []uint64{0x3c00}, want: []uint64{0x4000}, tol: 1},
		{asm: "ex2.approx.f16x2 $d, $a", sig: "32:32", in: []uint64{0x3c004000}, want: []uint64{0x40004400}, tol: 0},
		k("setp.lt.f16 $d, $a, $b", "p:16,16", 1, 0x3c00, 0x4000),
		k("setp.ltu.f16 $d, $a, $b", "p:16,16", 1, 0x7e00, 0x4000),
		k("setp.lt.bf16 $d, $a, $b", "p:16,16", 0, 0x7fc0, 0x4000),
		// packed compare: p from the low halves, q from the high halves
		k2("setp.lt.f16x2 $d|$q, $a, $b", "p,p:32,32", []uint64{0, 1}, 0x3c004200, 0x40004000),
		k2("setp.gt.bf16x2 $d|$q, $a, $b", "p,p:32,32", []uint64{1, 0}, 0x3f804040, 0x40003f80),
	}
}

// ---------------------------------------------------------------------
// comparisons and selection

func cmpCases() []ccase {
	sp := func(op string, w int, want, a, b uint64) ccase {
		return k(op+" $d, $a, $b", fmt.Sprintf("p:%d,%d", w, w), want, a, b)
	}
	return []ccase{
		sp("setp.lt.s32", 32, 1, 0xffffffff, 1),
		sp("setp.lt.u32", 32, 0, 0xffffffff, 1),
		sp("setp.lo.u32", 32, 1, 1, 2),
		sp("setp.hs.u32", 32, 1, 0x80000000, 1),
		sp("setp.ls.u64", 64, 1, 5, 5),
		sp("setp.hi.u16", 16, 1, 0x8000, 0x7fff),
		sp("setp.gt.s16", 16, 0, 0x8000, 0x7fff),
		sp("setp.ge.s64", 64, 0, 0x8000000000000000, 0),
		sp("setp.le.s32", 32, 1, 0x80000000, 0x80000000),
		sp("setp.eq.b32", 32, 1, 0xdeadbeef, 0xdeadbeef),
		sp("setp.ne.b64", 64, 1, 1, 0x100000001),
		sp("setp.ne.b16", 16, 0, 0xabcd, 0xabcd),
		// ordered comparisons are false, unordered true, with a NaN operand
		sp("setp.lt.f32", 32, 1, f1, f2),
		sp("setp.lt.f32", 32, 0, fQNaN, f2),
		sp("setp.ltu.f32", 32, 1, fQNaN, f2),
		sp("setp.ltu.f32", 32, 0, f3, f2),
		sp("setp.eq.f32", 32, 1, 0, fNZero),
		sp("setp.ne.f32", 32, 0, fQNaN, fQNaN),
		sp("setp.neu.f32", 32, 1, fSNaN, f1),
		sp("setp.num.f32", 32, 0, f1, fQNaN),
		sp("setp.num.f32", 32, 1, fInf, fNInf),
		sp("setp.nan.f32", 32, 1, f1, fSNaN),
		sp("setp.gtu.f32", 32, 0, f1, f2),
		sp("setp.equ.f32", 32, 1, fQNaN, fQNaN),
		sp("setp.le.f32", 32, 1, fNInf, fNInf),
		sp("setp.ge.f32", 32, 0, fInf, fQNaN),
		sp("setp.leu.f32", 32, 0, f2, f1),
		sp("setp.gt.f32", 32, 1, fInf, fBig),
		sp("setp.lt.f32", 32, 1, fNDen1, fDen1),
		sp("setp.lt.ftz.f32", 32, 0, fNDen1, fDen1), // both flush to zero: -0 < +0 is false
		sp("setp.geu.f64", 64, 1, dNaN, d1),
		sp("setp.lt.f64", 64, 0, dNaN, d1),
		sp("setp.eq.f64", 64, 1, dNZero, 0),
		sp("setp.nan.f64", 64, 0, d1, dInf),
		k2("setp.lt.s32 $d|$q, $a, $b", "p,p:32,32", []uint64{1, 0}, 0xfffffffe, 0),
		k2("setp.lt.f32 $d|$q, $a, $b", "p,p:32,32", []uint64{0, 1}, fQNaN, 0), // q is !t, so true for NaN
		// p = BoolOp(t, c), q = BoolOp(!t, c)
		k("setp.lt.and.s32 $d, $a, $b, $c", "p:32,32,p", 0, 1, 2, 0),
		k("setp.lt.and.s32 $d, $a, $b, $c", "p:32,32,p", 1, 1, 2, 1),
		k("setp.ge.or.f32 $d, $a, $b, !$c", "p:32,32,p", 1, fQNaN, f1, 0),
		k2("setp.lt.xor.s32 $d|$q, $a, $b, $c", "p,p:32,32,p", []uint64{0, 1}, 1, 2, 1),
		k2("setp.eq.or.u32 $d|$q, $a, $b, $c", "p,p:32,32,p", []uint64{1, 0}, 7, 7, 0),
		// set: 0xffffffff / 1.0f for true
		k("set.lt.u32.f32 $d, $a, $b", "32:32,32", 0xffffffff, f1, f2),
		k("set.lt.u32.f32 $d, $a, $b", "32:32,32", 0, fQNaN, f2),
		k("set.gtu.s32.f32 $d, $a, $b", "32:32,32", 0xffffffff, fQNaN, f2),
		k("set.lt.f32.s32 $d, $a, $b", "32:32,32", f1, 0xffffffff, 0),
		k("set.eq.f32.u32 $d, $a, $b", "32:32,32", 0, 1, 2),
		k("set.ne.u32.s64 $d, $a, $b", "32:64,64", 0xffffffff, 1, 2),
		k("set.lt.and.u32.s32 $d, $a, $b, $c", "32:32,32,p", 0, 1, 2, 0),
		// selp / slct
		k("selp.b32 $d, $a, $b, $c", "32:32,32,p", 0x11111111, 0x11111111, 0x22222222, 1),
		k("selp.b32 $d, $a, $b, $c", "32:32,32,p", 0x22222222, 0x11111111, 0x22222222, 0),
		k("selp.f32 $d, $a, $b, !$c", "32:32,32,p", f2, f1, f2, 1),
		k("selp.b64 $d, $a, $b, $c", "64:64,64,p", 0x123456789abcdef0, 0x123456789abcdef0, 0, 1),
		k("selp.u16 $d, $a, $b, $c", "16:16,16,p", 0xbeef, 0xdead, 0xbeef, 0),
		k("slct.s32.s32 $d, $a, $b, $c", "32:32,32,32", 20, 10, 20, 0xffffffff),
		k("slct.s32.s32 $d, $a, $b, $c", "32:32,32,32", 10, 10, 20, 0),
		k("slct.u32.s32 $d, $a, $b, $c", "32:32,32,32", 10, 10, 20, 0x7fffffff),
		k("slct.b32.f32 $d, $a, $b, $c", "32:32,32,32", 10, 10, 20, fNZero), // -0 >= 0
		k("slct.b32.f32 $d, $a, $b, $c", "32:32,32,32", 20, 10, 20, fQNaN),  // NaN >= 0 is false
		k("slct.s32.f32 $d, $a, $b, $c", "32:32,32,32", 20, 10, 20, fNDen1),
		k("slct.ftz.s32.f32 $d, $a, $b, $c", "32:32,32,32", 10, 10, 20, fNDen1), // flushed to -0
		k("slct.f32.s32 $d, $a, $b, $c", "32:32,32,32", f1, f1, f2, 5),
		k("slct.u64.s32 $d, $a, $b, $c", "64:64,64,32", 0xffffffffffffffff, 0, 0xffffffffffffffff, 0x80000000),
		k("slct.f64.f32 $d, $a, $b, $c", "64:64,64,32", d3, d3, d1, fInf),
	}
}

// ---------------------------------------------------------------------
// cvt

func cvtCases() []ccase {
	c := func(op, sig string, want, a uint64) ccase { return k(op+" $d, $a", sig, want, a) }
	return []ccase{
		// float -> int: integer rounding, NaN -> 0, clamp to the range
		c("cvt.rni.s32.f32", "32:32", 2, 0x40200000),          // 2.5 -> 2 (ties to even)
		c("cvt.rni.s32.f32", "32:32", 4, 0x40600000),          // 3.5 -> 4
		c("cvt.rni.s32.f32", "32:32", 0xfffffffe, 0xc0200000), // -2.5 -> -2
		c("cvt.rzi.s32.f32", "32:32", 0xfffffffe, 0xc02ccccd), // -2.7 -> -2
		c("cvt.rmi.s32.f32", "32:32", 0xfffffffd, 0xc0200000), // -2.5 -> -3
		c("cvt.rpi.s32.f32", "32:32", 3, 0x40066666),          // 2.1 -> 3
		c("cvt.rzi.s32.f32", "32:32", 0, fQNaN),
		c("cvt.rzi.s32.f32", "32:32", 0x7fffffff, 0x4f32d05e), // 3e9 clamps
		c("cvt.rzi.s32.f32", "32:32", 0x80000000, fNInf),
		c("cvt.rzi.s32.f32", "32:32", 0x7fffffff, fInf),
		c("cvt.rzi.u32.f32", "32:32", 0, fM1),
		c("cvt.rzi.u32.f32", "32:32", 0xffffffff, 0x4f9502f9), // 5e9
		c("cvt.rni.u32.f32", "32:32", 0, 0xbecccccd),          // -0.4 -> -0 -> 0
		c("cvt.rzi.s64.f32", "64:32", 0x8000000000000000, fNInf),
		c("cvt.rni.u64.f32", "64:32", 0, fQNaN),
		c("cvt.rni.s16.f32", "16:32", 0x7fff, 0x471c4000), // 40000
		c("cvt.rni.u8.f32", "8:32", 0xff, 0x43960000),     // 300
		c("cvt.rni.s8.f32", "8:32", 0x80, 0xc3480000),     // -200
		c("cvt.rmi.s32.f32", "32:32", 0xffffffff, fNDen1),
		c("cvt.rmi.ftz.s32.f32", "32:32", 0, fNDen1),                          // flushed to -0
		c("cvt.rzi.s32.f64", "32:64", 0x80000000, 0xc1e0000000100000),         // -2147483648.5
		c("cvt.rni.s64.f64", "64:64", 0xfffffffffffffffe, 0xc004000000000000), // -2.5 -> -2
		c("cvt.rni.s64.f64", "64:64", 0x7fffffffffffffff, 0x43e0000000000000), // 2^63 clamps
		c("cvt.rzi.u64.f64", "64:64", 0, 0xbfe0000000000000),
		c("cvt.rzi.u64.f64", "64:64", 0xffffffffffffffff, 0x43f0000000000000),
		c("cvt.rni.s32.f16", "32:16", 2, 0x4100),
		c("cvt.rzi.u16.f16", "16:16", 0, 0xfc00),
		c("cvt.rpi.s32.bf16", "32:16", 3, 0x4020), // 2.5 -> 3
		// int -> int: sign/zero extension, truncation, .sat clamping
		c("cvt.sat.u8.s32", "8:32", 0, 0xfffffffb),
		c("cvt.sat.u8.s32", "8:32", 0xff, 300),
		c("cvt.sat.s8.s32", "8:32", 0x7f, 200),
		c("cvt.sat.s8.s32", "8:32", 0x80, 0xffffff38), // -200
		c("cvt.u8.s32", "8:32", 0x2c, 300),
		c("cvt.sat.u16.s32", "16:32", 0xffff, 70000),
		c("cvt.sat.s16.s32", "16:32", 0x7fff, 0x12345678),
		c("cvt.s16.s32", "16:32", 0x5678, 0x12345678),
		c("cvt.sat.s16.u16", "16:16", 0x7fff, 0x8000),
		c("cvt.sat.s32.u32", "32:32", 0x7fffffff, 0x80000000),
		c("cvt.sat.u32.s32", "32:32", 0, 0x80000000),
		c("cvt.sat.u32.s64", "32:64", 0, 0xffffffffffffffff),
		c("cvt.sat.u32.s64", "32:64", 0xffffffff, 0x100000000),
		c("cvt.sat.u64.s64", "64:64", 0, 0xffffffffffffffff),
		c("cvt.sat.s64.u64", "64:64", 0x7fffffffffffffff, 0xffffffffffffffff),
		c("cvt.s64.s32", "64:32", 0xffffffff80000000, 0x80000000),
		c("cvt.u64.u32", "64:32", 0x80000000, 0x80000000),
		c("cvt.u64.s32", "64:32", 0xffffffffffffffff, 0xffffffff), // signed source sign-extends
		c("cvt.s32.s16", "32:16", 0xffff8000, 0x8000),
		c("cvt.u32.s16", "32:16", 0xffff8000, 0x8000),
		c("cvt.s32.s8", "32:8", 0xffffff80, 0x80),
		c("cvt.u32.u8", "32:8", 0x80, 0x80),
		c("cvt.u32.u64", "32:64", 0x23456789, 0x123456789),
		// int -> float
		c("cvt.rn.f32.s32", "32:32", 0x4f000000, 0x7fffffff), // 2^31-1 -> 2^31
		c("cvt.rz.f32.s32", "32:32", 0x4effffff, 0x7fffffff),
		c("cvt.rn.f32.u32", "32:32", 0x4b800000, 0x01000001), // 2^24+1: tie -> even
		c("cvt.rn.f32.u32", "32:32", 0x4b800002, 0x01000003), // 2^24+3: tie -> even (2^24+4)
		c("cvt.rp.f32.u32", "32:32", 0x4b800001, 0x01000001),
		c("cvt.rm.f32.s32", "32:32", 0xcb800001, 0xfeffffff), // -(2^24+1) -> -(2^24+2)
		c("cvt.rn.f32.s32", "32:32", 0xcf000000, 0x80000000),
		c("cvt.f32.s32", "32:32", 0xc0400000, 0xfffffffd),
		c("cvt.rn.f32.u64", "32:64", 0x5f000001, 0x8000008000000001), // above the tie by 1 -> up
		c("cvt.rn.f32.u64", "32:64", 0x5f000000, 0x8000008000000000), // exact tie -> even
		c("cvt.rn.f32.s16", "32:16", 0xc7000000, 0x8000),             // -32768
		c("cvt.rn.f64.s64", "64:64", 0x43e0000000000000, 0x7fffffffffffffff),
		c("cvt.rz.f64.u64", "64:64", 0x43efffffffffffff, 0xffffffffffffffff),
		c("cvt.rn.f64.u64", "64:64", 0x43f0000000000000, 0xffffffffffffffff),
		c("cvt.rn.f64.s32", "64:32", 0xbff0000000000000, 0xffffffff),
		c("cvt.rn.f16.s32", "16:32", 0x7bff, 65519), // below the 65520 midpoint
		c("cvt.rn.f16.s32", "16:32", 0x7c00, 65520), // midpoint -> even -> inf
		c("cvt.rz.f16.u32", "16:32", 0x7bff, 100000),
		c("cvt.rn.f16.s32", "16:32", 0xc200, 0xfffffffd),
		c("cvt.rn.f16.u16", "16:16", 0x6800, 2049), // tie -> 2048
		c("cvt.rn.f16.u16", "16:16", 0x6802, 2051), // tie -> 2052
		// 2^63 + 2^55 + 1: just above the bf16 midpoint between 2^63 and 2^63+2^56
		c("cvt.rn.bf16.u64", "16:64", 0x5f01, 0x8080000000000001),
		c("cvt.rn.bf16.u64", "16:64", 0x5f00, 0x8080000000000000),
		c("cvt.rz.bf16.s32", "16:32", 0xc040, 0xfffffffd),
		c("cvt.rn.bf16.s64", "16:64", 0x5f00, 0x7fffffffffffffff),
		// float -> float
		c("cvt.f64.f32", "64:32", 0x3ff8000000000000, 0x3fc00000),
		c("cvt.f64.f32", "64:32", 0x36a0000000000000, fDen1), // 2^-149 is normal in f64
		c("cvt.ftz.f64.f32", "64:32", 0, fDen1),
		c("cvt.f64.f32", "64:32", 0xfff0000000000000, fNInf),
		c("cvt.rn.f32.f64", "32:64", 0x3eaaaaab, 0x3fd5555555555555),
		c("cvt.rz.f32.f64", "32:64", 0x3eaaaaaa, 0x3fd5555555555555),
		c("cvt.rn.f32.f64", "32:64", fInf, 0x7e37e43c8800759c), // 1e300
		c("cvt.rz.f32.f64", "32:64", fBig, 0x7e37e43c8800759c),
		c("cvt.rm.f32.f64", "32:64", 0xff800000, 0xfe37e43c8800759c),
		c("cvt.rn.f32.f64", "32:64", 0, 0x3690000000000000),          // 2^-150: tie -> 0
		c("cvt.rn.f32.f64", "32:64", fDen1, 0x3698000000000000),      // 1.5 * 2^-150
		c("cvt.rn.f32.f64", "32:64", 0x00000200, 0x3730000000000000), // 2^-140 subnormal
		c("cvt.rn.ftz.f32.f64", "32:64", 0, 0x3730000000000000),
		c("cvt.rp.f32.f64", "32:64", f1p, 0x3ff0000000000001),
		c("cvt.rm.f32.f64", "32:64", 0xbf800001, 0xbff0000000000001),
		c("cvt.rni.f32.f32", "32:32", f2, 0x40200000),     // 2.5 -> 2
		c("cvt.rmi.f32.f32", "32:32", fM1, 0xbf000000),    // -0.5 -> -1
		c("cvt.rpi.f32.f32", "32:32", fNZero, 0xbf000000), // -0.5 -> -0
		c("cvt.rzi.f32.f32", "32:32", fM1, 0xbfc00000),    // -1.5 -> -1
		c("cvt.rni.f32.f32", "32:32", 0, fHalf),           // 0.5 -> +0
		c("cvt.rzi.f32.f32", "32:32", fInf, fInf),
		c("cvt.rni.f64.f64", "64:64", 0x4000000000000000, 0x4004000000000000),
		c("cvt.rpi.f64.f64", "64:64", 0x4000000000000000, 0x3ff199999999999a),
		c("cvt.sat.f32.f32", "32:32", f1, 0x3fc00000),
		c("cvt.sat.f32.f32", "32:32", 0, fQNaN),
		c("cvt.ftz.f32.f32", "32:32", fNZero, fNDen1),
		c("cvt.rn.f16.f32", "16:32", 0x3c00, f1),
		c("cvt.rn.f16.f32", "16:32", 0x7bff, 0x477fe000), // 65504
		c("cvt.rn.f16.f32", "16:32", 0x7c00, 0x477ff000), // 65520: midpoint -> inf
		c("cvt.rz.f16.f32", "16:32", 0x7bff, 0x477ff000),
		c("cvt.rz.f16.f32", "16:32", 0x7bff, 0x501502f9), // 1e10
		c("cvt.rn.f16.f32", "16:32", 0x3c00, 0x3f801000), // 1 + 2^-11: tie -> even
		c("cvt.rn.f16.f32", "16:32", 0x3c02, 0x3f803000), // 1 + 3*2^-11: tie -> even
		c("cvt.rn.f16.f32", "16:32", 0x0001, 0x33800000), // 2^-24
		c("cvt.rn.f16.f32", "16:32", 0x0000, 0x33000000), // 2^-25: tie -> 0
		c("cvt.rn.f16.f32", "16:32", 0x0001, 0x33400000), // 1.5 * 2^-25
		c("cvt.rz.f16.f32", "16:32", 0x8000, 0xb3400000),
		c("cvt.rn.f16.f32", "16:32", 0xfc00, fNInf),
		c("cvt.rn.relu.f16.f32", "16:32", 0, fM1),
		c("cvt.rn.relu.f16.f32", "16:32", 0x4000, f2),
		c("cvt.rn.f16.f64", "16:64", 0x3c01, 0x3ff0020000001000), // just above 1 + 2^-11
		c("cvt.rn.bf16.f32", "16:32", 0x3f80, f1),
		c("cvt.rn.bf16.f32", "16:32", 0x3f80, 0x3f808000), // tie -> even
		c("cvt.rn.bf16.f32", "16:32", 0x3f82, 0x3f818000), // tie -> even
		c("cvt.rn.bf16.f32", "16:32", 0x3f81, 0x3f808001),
		c("cvt.rz.bf16.f32", "16:32", 0x3f81, 0x3f81ffff),
		c("cvt.rn.bf16.f32", "16:32", 0x7f80, fBig),
		c("cvt.rz.bf16.f32", "16:32", 0x7f7f, fBig),
		c("cvt.rn.relu.bf16.f32", "16:32", 0, 0xc0000000),
		k("cvt.rn.f16x2.f32 $d, $a, $b", "32:32,32", 0x3c004000, f1, f2), // a -> upper half
		k("cvt.rn.bf16x2.f32 $d, $a, $b", "32:32,32", 0xbf803f00, fM1, fHalf),
		k("cvt.rz.f16x2.f32 $d, $a, $b", "32:32,32", 0x7bff3c00, 0x477ff000, f1),
		k("cvt.rn.relu.f16x2.f32 $d, $a, $b", "32:32,32", 0x00004000, fM1, f2),
		// .satfinite: |x| > MAX_NORM (including inf) -> ±MAX_NORM, NaN stays NaN
		c("cvt.rn.satfinite.f16.f32", "16:32", 0x4000, f2), // not a [0, 1] clamp
		c("cvt.rn.satfinite.f16.f32", "16:32", 0x7bff, 0x501502f9),
		c("cvt.rn.satfinite.f16.f32", "16:32", 0xfbff, fNInf),
		c("cvt.rn.satfinite.bf16.f32", "16:32", 0x7f7f, fInf),
		c("cvt.rn.satfinite.bf16.f32", "16:32", 0xbf80, fM1),
		k("cvt.rn.satfinite.f16x2.f32 $d, $a, $b", "32:32,32", 0x7bffc000, fInf, 0xc0000000),
		c("cvt.rna.satfinite.tf32.f32", "32:32", 0x7f7fe000, fInf),
		c("cvt.rni.f16.f16", "16:16", 0x4000, 0x4100),   // 2.5 -> 2
		c("cvt.rmi.f16.f16", "16:16", 0xc000, 0xbe00),   // -1.5 -> -2
		c("cvt.rzi.bf16.bf16", "16:16", 0xbf80, 0xbfc0), // -1.5 -> -1
		// tf32: 10 explicit mantissa bits, low 13 bits of the result zero
		c("cvt.rna.tf32.f32", "32:32", 0x3f802000, 0x3f801000), // tie -> away
		c("cvt.rna.tf32.f32", "32:32", 0x3f800000, 0x3f800fff),
		c("cvt.rna.tf32.f32", "32:32", 0xbf802000, 0xbf801000),
		c("cvt.rna.tf32.f32", "32:32", 0x3f804000, 0x3f803000),
		c("cvt.f32.f16", "32:16", f1, 0x3c00),
		c("cvt.f32.f16", "32:16", 0x33800000, 0x0001),
		c("cvt.f32.f16", "32:16", fNInf, 0xfc00),
		c("cvt.f32.f16", "32:16", fNZero, 0x8000),
		c("cvt.f32.bf16", "32:16", f1, 0x3f80),
		c("cvt.f64.f16", "64:16", 0x40effc0000000000, 0x7bff),
	}
}

// ---------------------------------------------------------------------
// atomics and reductions (single lane per address unless noted)

func atomCases() []ccase {
	// rmw: memory := a; d = atom(...); q = memory afterwards
	rmw := func(sp, op, w string, want []uint64, in ...uint64) ccase {
		reg := "%gm"
		if sp == "shared" {
			reg = "%sm"
		}
		args := "$b"
		sig := w + "," + w + ":" + w + "," + w
		if strings.HasPrefix(op, "cas.") {
			args = "$b, $c"
			sig += "," + w
		}
		asm := fmt.Sprintf("st.%s.b%s [%s], $a; atom.%s.%s $d, [%s], %s; ld.%s.b%s $q, [%s]",
			sp, w, reg, sp, op, reg, args, sp, w, reg)
		return k2(asm, sig, want, in...)
	}
	red := func(sp, op, w string, want uint64, a, b uint64) ccase {
		reg := "%gm"
		if sp == "shared" {
			reg = "%sm"
		}
		asm := fmt.Sprintf("st.%s.b%s [%s], $a; red.%s.%s [%s], $b; ld.%s.b%s $d, [%s]", sp, w, reg, sp, op, reg, sp, w, reg)
		return k(asm, w+":"+w+","+w, want, a, b)
	}
	return []ccase{
		rmw("global", "cas.b32", "32", []uint64{5, 9}, 5, 5, 9),
		rmw("global", "cas.b32", "32", []uint64{5, 5}, 5, 4, 9),
		rmw("shared", "cas.b32", "32", []uint64{0xffffffff, 0x12345678}, 0xffffffff, 0xffffffff, 0x12345678),
		rmw("global", "cas.b64", "64", []uint64{0x100000000, 7}, 0x100000000, 0x100000000, 7),
		rmw("global", "cas.b64", "64", []uint64{0x100000000, 0x100000000}, 0x100000000, 0, 7), // low word equal is not enough
		// inc: (old >= b) ? 0 : old+1; dec: (old == 0 || old > b) ? b : old-1
		rmw("shared", "inc.u32", "32", []uint64{5, 0}, 5, 5),
		rmw("shared", "inc.u32", "32", []uint64{3, 4}, 3, 5),
		rmw("shared", "inc.u32", "32", []uint64{7, 0}, 7, 5),
		rmw("global", "inc.u32", "32", []uint64{0xfffffffe, 0xffffffff}, 0xfffffffe, 0xffffffff),
		rmw("global", "inc.u32", "32", []uint64{0xffffffff, 0}, 0xffffffff, 0xffffffff),
		rmw("shared", "dec.u32", "32", []uint64{0, 5}, 0, 5),
		rmw("shared", "dec.u32", "32", []uint64{7, 5}, 7, 5),
		rmw("global", "dec.u32", "32", []uint64{3, 2}, 3, 5),
		rmw("global", "add.u32", "32", []uint64{0xffffffff, 0}, 0xffffffff, 1),
		rmw("global", "add.u64", "64", []uint64{0xffffffffffffffff, 1}, 0xffffffffffffffff, 2),
		rmw("global", "add.s32", "32", []uint64{0x7fffffff, 0x80000000}, 0x7fffffff, 1),
		rmw("global", "exch.b32", "32", []uint64{0x11111111, 0x22222222}, 0x11111111, 0x22222222),
		rmw("shared", "exch.b64", "64", []uint64{1, 0xffffffffffffffff}, 1, 0xffffffffffffffff),
		rmw("global", "min.s32", "32", []uint64{0xffffffff, 0xffffffff}, 0xffffffff, 1),
		rmw("global", "min.u32", "32", []uint64{0xffffffff, 1}, 0xffffffff, 1),
		rmw("global", "max.s32", "32", []uint64{0xffffffff, 1}, 0xffffffff, 1),
		rmw("global", "max.u32", "32", []uint64{0xffffffff, 0xffffffff}, 0xffffffff, 1),
		rmw("shared", "min.s64", "64", []uint64{1, 0x8000000000000000}, 1, 0x8000000000000000),
		rmw("shared", "max.u64", "64", []uint64{1, 0x8000000000000000}, 1, 0x8000000000000000),
		rmw("global", "and.b32", "32", []uint64{0xff00ff00, 0x0f000f00}, 0xff00ff00, 0x0ff00ff0),
		rmw("global", "or.b32", "32", []uint64{0xff00ff00, 0xfff0fff0}, 0xff00ff00, 0x0ff00ff0),
		rmw("shared", "xor.b32", "32", []uint64{0xff00ff00, 0xf0f0f0f0}, 0xff00ff00, 0x0ff00ff0),
		rmw("global", "and.b64", "64", []uint64{0xffffffff00000000, 0xf000000000000000}, 0xffffffff00000000, 0xf0000000000000ff),
		rmw("global", "add.f32", "32", []uint64{f1, f1}, f1, fE24),               // RN tie -> even
		rmw("global", "add.f32", "32", []uint64{f1, 0x3f800002}, f1, 0x34400000), // 1 + 1.5 ulp -> 2 ulp
		rmw("shared", "add.f32", "32", []uint64{fDen1, 2}, fDen1, fDen1),         // shared: subnormals kept
		rmw("global", "add.f64", "64", []uint64{d1, d1}, d1, dE53),
		rmw("global", "add.noftz.f16", "16", []uint64{0x3c00, 0x3c00}, 0x3c00, 0x1000), // 1 + 2^-11: tie -> even
		rmw("global", "add.noftz.f16", "16", []uint64{0x0001, 0x0002}, 0x0001, 0x0001), // .noftz keeps subnormals
		rmw("global", "add.noftz.f16x2", "32", []uint64{0x3c004000, 0x40004200}, 0x3c004000, 0x3c003c00),
		rmw("global", "add.noftz.bf16", "16", []uint64{0x3f80, 0x4000}, 0x3f80, 0x3f80),
		// atom.add.f32 on global memory flushes subnormal inputs and results
		k("st.global.b32 [%gm], $a; atom.global.add.f32 %t32, [%gm], $b; ld.global.b32 $d, [%gm]", "32:32,32", 0, fDen1, fDen1),
		k("st.global.b32 [%gm], $a; atom.global.add.f32 %t32, [%gm], $b; ld.global.b32 $d, [%gm]", "32:32,32", fMinN, fMinN, fNDen1),
		red("global", "max.s32", "32", 0xfffffffd, 0xfffffffb, 0xfffffffd),
		red("global", "min.u32", "32", 5, 5, 0xfffffffb),
		red("global", "add.u32", "32", 0, 0xfffffffe, 2),
		red("shared", "min.s32", "32", 0x80000000, 0, 0x80000000),
		red("global", "inc.u32", "32", 0, 5, 5),
		red("global", "dec.u32", "32", 9, 0, 9),
		red("global", "or.b64", "64", 0xff000000000000ff, 0xff00000000000000, 0xff),
		red("global", "add.f32", "32", f3, f1, f2),
		red("shared", "add.u64", "64", 0x100000000, 0xffffffff, 1),
		// every lane updates one address (lane order is irrelevant to the final value)
		k("st.global.u32 [%gm0], $a; atom.global.add.u32 %t32, [%gm0], $b; ld.global.u32 $d, [%gm0]", "32:32,32", 196, 100, 3),
		k("st.shared.u32 [%sm0], 0; atom.shared.inc.u32 %t32, [%sm0], $a; ld.shared.u32 $d, [%sm0]", "32:32", 2, 9), // 32 mod 10
		k("st.shared.u32 [%sm0], 0; atom.shared.dec.u32 %t32, [%sm0], $a; ld.shared.u32 $d, [%sm0]", "32:32", 8, 9), // 0,9,8,..: 32 steps -> 8
		k("st.global.u32 [%gm0], 0; red.global.add.u32 [%gm0], $a; ld.global.u32 $d, [%gm0]", "32:32", 0xffffffe0, 0xffffffff),
		{asm: "st.shared.u32 [%sm0], 0; atom.shared.inc.u32 %t32, [%sm0], $a; ld.shared.u32 $d, [%sm0]", sig: "32:32",
			in: []uint64{9}, want: []uint64{6}, active: 0x0000ffff}, // 16 lanes: 16 mod 10
	}
}

// ---------------------------------------------------------------------
// warp-level operations: per-lane inputs, partial masks

func wk(asm, sig string, active uint32, in func(l int) []uint64, want func(l int) []uint64) ccase {
	return ccase{asm: asm, sig: sig, active: active, lanesIn: in, lanesWant: want}
}

func warpCases() []ccase {
	val := func(l int) []uint64 { return []uint64{uint64(l*10 + 7)} }
	v := func(l int) uint64 { return uint64(l*10 + 7) }
	one := func(x uint64) []uint64 { return []uint64{x} }
	pred := func(f func(l int) bool) func(l int) []uint64 {
		return func(l int) []uint64 {
			if f(l) {
				return one(1)
			}
			return one(0)
		}
	}
	return []ccase{
		wk("shfl.sync.bfly.b32 $d, $a, 1, 0x1f, 0xffffffff", "32:32", 0, val, func(l int) []uint64 { return one(v(l ^ 1)) }),
		wk("shfl.sync.bfly.b32 $d, $a, 16, 0x1f, 0xffffffff", "32:32", 0, val, func(l int) []uint64 { return one(v(l ^ 16)) }),
		// up: j = lane - b, valid when j >= maxLane (= 0 for c = 0); invalid lanes keep their value
		wk("shfl.sync.up.b32 $d|$q, $a, 3, 0, 0xffffffff", "32,p:32", 0, val, func(l int) []uint64 {
			if l < 3 {
				return []uint64{v(l), 0}
			}
			return []uint64{v(l - 3), 1}
		}),
		wk("shfl.sync.down.b32 $d|$q, $a, 2, 0x1f, 0xffffffff", "32,p:32", 0, val, func(l int) []uint64 {
			if l > 29 {
				return []uint64{v(l), 0}
			}
			return []uint64{v(l + 2), 1}
		}),
		wk("shfl.sync.idx.b32 $d, $a, 5, 0x1f, 0xffffffff", "32:32", 0, val, func(l int) []uint64 { return one(v(5)) }),
		wk("shfl.sync.idx.b32 $d, $a, 37, 0x1f, 0xffffffff", "32:32", 0, val, func(l int) []uint64 { return one(v(5)) }), // b[4:0]
		// 8-lane segments: c = ((32-8) << 8) | 0x1f -> segmask 0x18
		wk("shfl.sync.idx.b32 $d, $a, 3, 0x181f, 0xffffffff", "32:32", 0, val, func(l int) []uint64 { return one(v(l&^7 | 3)) }),
		wk("shfl.sync.down.b32 $d|$q, $a, 2, 0x181f, 0xffffffff", "32,p:32", 0, val, func(l int) []uint64 {
			if l&7 >= 6 {
				return []uint64{v(l), 0}
			}
			return []uint64{v(l + 2), 1}
		}),
		wk("shfl.sync.up.b32 $d, $a, 1, 0x1800, 0xffffffff", "32:32", 0, val, func(l int) []uint64 {
			if l&7 == 0 {
				return one(v(l))
			}
			return one(v(l - 1))
		}),
		// partial warp: only lanes 0..15 execute (membermask = those lanes)
		wk("shfl.sync.bfly.b32 $d, $a, 1, 0x1f, 0x0000ffff", "32:32", 0x0000ffff, val, func(l int) []uint64 { return one(v(l ^ 1)) }),
		wk("shfl.sync.idx.b32 $d, $a, $b, 0x1f, 0xf0f0f0f0", "32:32,32", 0xf0f0f0f0,
			func(l int) []uint64 { return []uint64{v(l), uint64((l + 8) % 32)} },
			func(l int) []uint64 { return one(v((l + 8) % 32)) }),
		// vote
		wk("vote.sync.ballot.b32 $d, $a, 0xffffffff", "32:p", 0, pred(func(l int) bool { return l%3 == 0 }),
			func(l int) []uint64 { return one(0x49249249) }),
		wk("vote.sync.ballot.b32 $d, !$a, 0xffffffff", "32:p", 0, pred(func(l int) bool { return l%3 == 0 }),
			func(l int) []uint64 { return one(^uint64(0x49249249) & 0xffffffff) }),
		wk("vote.sync.ballot.b32 $d, $a, 0x0f0f0f0f", "32:p", 0x0f0f0f0f, pred(func(l int) bool { return l%2 == 1 }),
			func(l int) []uint64 { return one(0x0a0a0a0a) }),
		wk("vote.sync.all.pred $d, $a, 0xffffffff", "p:p", 0, pred(func(l int) bool { return l != 17 }),
			func(l int) []uint64 { return one(0) }),
		wk("vote.sync.all.pred $d, $a, 0x0000ffff", "p:p", 0x0000ffff, pred(func(l int) bool { return l < 16 }),
			func(l int) []uint64 { return one(1) }),
		wk("vote.sync.any.pred $d, $a, 0xffffffff", "p:p", 0, pred(func(l int) bool { return l == 31 }),
			func(l int) []uint64 { return one(1) }),
		wk("vote.sync.any.pred $d, $a, 0x0000ffff", "p:p", 0x0000ffff, pred(func(l int) bool { return l >= 16 }),
			func(l int) []uint64 { return one(0) }),
		wk("vote.sync.uni.pred $d, $a, 0xffffffff", "p:p", 0, pred(func(l int) bool { return l != 0 }),
			func(l int) []uint64 { return one(0) }),
		wk("vote.sync.uni.pred $d, $a, 0xff00ff00", "p:p", 0xff00ff00, pred(func(l int) bool { return true }),
			func(l int) []uint64 { return one(1) }),
		// match.any: lanes holding the same value; match.all: all or none
		wk("match.any.sync.b32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(l % 4)) },
			func(l int) []uint64 { return one(0x11111111 << (l % 4)) }),
		wk("match.any.sync.b64 $d, $a, 0xffffffff", "32:64", 0, func(l int) []uint64 { return one(uint64(l/16) << 40) },
			func(l int) []uint64 { return one(0xffff << (16 * (l / 16))) }),
		wk("match.all.sync.b32 $d|$q, $a, 0xffffffff", "32,p:32", 0, func(l int) []uint64 { return one(42) },
			func(l int) []uint64 { return []uint64{0xffffffff, 1} }),
		wk("match.all.sync.b32 $d|$q, $a, 0xffffffff", "32,p:32", 0, func(l int) []uint64 { return one(uint64(l / 31)) },
			func(l int) []uint64 { return []uint64{0, 0} }),
		wk("match.all.sync.b32 $d|$q, $a, 0x000000ff", "32,p:32", 0x000000ff, func(l int) []uint64 { return one(uint64(l / 8)) },
			func(l int) []uint64 { return []uint64{0xff, 1} }),
		// redux
		wk("redux.sync.add.u32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(l)) },
			func(l int) []uint64 { return one(496) }),
		wk("redux.sync.add.s32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(0x80000000) },
			func(l int) []uint64 { return one(0) }), // 32 * 2^31 wraps
		wk("redux.sync.min.s32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(uint32(5 - l))) },
			func(l int) []uint64 { return one(0xffffffe6) }), // 5 - 31 = -26
		wk("redux.sync.min.u32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(uint32(5 - l))) },
			func(l int) []uint64 { return one(0) }),
		wk("redux.sync.max.u32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(uint32(5 - l))) },
			func(l int) []uint64 { return one(0xffffffff) }),
		wk("redux.sync.max.s32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(uint32(5 - l))) },
			func(l int) []uint64 { return one(5) }),
		wk("redux.sync.or.b32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(1 << l) },
			func(l int) []uint64 { return one(0xffffffff) }),
		wk("redux.sync.and.b32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(^uint64(1<<l) & 0xffffffff) },
			func(l int) []uint64 { return one(0) }),
		wk("redux.sync.xor.b32 $d, $a, 0xffffffff", "32:32", 0, func(l int) []uint64 { return one(uint64(l)) },
			func(l int) []uint64 { return one(0) }), // xor of 0..31 = 0
		wk("redux.sync.add.u32 $d, $a, 0x000000ff", "32:32", 0x000000ff, func(l int) []uint64 { return one(uint64(l)) },
			func(l int) []uint64 { return one(28) }),
		// activemask / elect
		wk("activemask.b32 $d", "32:", 0x00ff00ff, func(l int) []uint64 { return nil },
			func(l int) []uint64 { return one(0x00ff00ff) }),
		wk("elect.sync $d|$q, 0xffffffff", "32,p:", 0, func(l int) []uint64 { return nil },
			func(l int) []uint64 { return []uint64{0, b2u(l == 0)} }),
		wk("elect.sync $d|$q, 0x000000f0", "32,p:", 0x000000f0, func(l int) []uint64 { return nil },
			func(l int) []uint64 { return []uint64{4, b2u(l == 4)} }),
	}
}
