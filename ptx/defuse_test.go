package ptx

import (
	"strings"
	"testing"
)

// duDecls declares the registers the def/use tests use.
const duDecls = ".reg .f32 %f<10>;\n.reg .b16 %rs<4>;\n{ .reg .pred P; }\n.reg .s32 rsi<5>;\n.shared .b8 smem[64];\n"

func TestDefsUses(t *testing.T) {
	tests := []struct {
		inst       string
		defs, uses string // space-separated, with a RegSet of the kernel
		nilDefs    string // with a nil RegSet, when different ("-" for none)
		nilUses    string
	}{
		{inst: "add.s32 %r1, %r2, %r3;", defs: "%r1", uses: "%r2 %r3"},
		{inst: "@%p1 add.s32 %r1, %r2, 1;", defs: "%r1", uses: "%p1 %r2"},
		{inst: "@!%p1 bra L;", defs: "", uses: "%p1"},
		{inst: "setp.lt.s32 %p1|%p2, %r1, %r2;", defs: "%p1 %p2", uses: "%r1 %r2"},
		{inst: "setp.eq.and.s32 %p1, %r1, 0, !%p2;", defs: "%p1", uses: "%r1 %p2"},
		{inst: "ld.global.v4.f32 {%f1, _, %f3, %f4}, [%rd1+16];", defs: "%f1 %f3 %f4", uses: "%rd1"},
		{inst: "st.global.v2.f32 [%rd1], {%f1, %f2};", defs: "", uses: "%rd1 %f1 %f2"},
		{inst: "ld.param.u64 %rd1, [p];", defs: "%rd1", uses: ""},
		{inst: "ld.shared.u32 %r1, [smem+8];", defs: "%r1", uses: ""},
		{inst: "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;", defs: "%r1", uses: "%rd1 %r2 %r3"},
		{inst: "red.global.add.u32 [%rd1], %r1;", defs: "", uses: "%rd1 %r1"},
		{inst: "call.uni (retval0), vprintf, (param0, param1);", defs: "", uses: ""},
		{inst: "call (%r1), foo, (%r2, %r3);", defs: "%r1", uses: "%r2 %r3"},
		{inst: "call %rd1, (%r2), proto;", defs: "", uses: "%rd1 %r2"},
		{inst: "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f5, %f6}];", defs: "%f1 %f2 %f3 %f4", uses: "%f5 %f6"},
		{inst: "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];", defs: "%f1 %f2 %f3 %f4", uses: "%rd1 %r1"},
		{inst: "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [tex0, {%f5, %f6}];", defs: "%f1 %f2 %f3 %f4 %p1", uses: "%f5 %f6"},
		{inst: "ld.shared.u32 %r1, [smem+%r2];", defs: "%r1", uses: "%r2"},
		{inst: "suld.b.2d.v2.b32.trap {%r1, %r2}, [surf0, {%r3, %r4}];", defs: "%r1 %r2", uses: "%r3 %r4"},
		{inst: "sust.b.2d.v2.b32.trap [surf0, {%r1, %r2}], {%r3, %r4};", defs: "", uses: "%r1 %r2 %r3 %r4"},
		{inst: "txq.width.b32 %r1, [tex0];", defs: "%r1", uses: ""},
		{inst: "mov.u32 %r1, %tid.x;", defs: "%r1", uses: "%tid.x"},
		{inst: "mov.u32 %r1, %clock;", defs: "%r1", uses: "%clock"},
		{inst: "mov.b64 {%r1, %r2}, %rd1;", defs: "%r1 %r2", uses: "%rd1"},
		{inst: "mov.b64 %rd1, {%r1, %r2};", defs: "%rd1", uses: "%r1 %r2"},
		{inst: "mov.u64 %rd1, smem;", defs: "%rd1", uses: ""},
		{inst: "mov.u64 %rd1, smem+4;", defs: "%rd1", uses: ""},
		{inst: "shfl.sync.idx.b32 %r1|%p1, %r2, %r3, %r4, %r5;", defs: "%r1 %p1", uses: "%r2 %r3 %r4 %r5"},
		{inst: "vote.sync.ballot.b32 %r1, %p1, -1;", defs: "%r1", uses: "%p1"},
		{inst: "wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e5m2 {%f1, %f2}, %rd1, %rd2, 0, 1, 1;",
			defs: "%f1 %f2", uses: "%f1 %f2 %rd1 %rd2"},
		{inst: "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r1, %r2};",
			defs: "%r1 %r2", uses: "%r3 %r4 %r5 %r1 %r2"},
		{inst: "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2}, [%rd1], %r3;", defs: "%r1 %r2", uses: "%rd1 %r3"},
		{inst: "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%r1], {%f1, %f2}, %r2;", defs: "", uses: "%r1 %f1 %f2 %r2"},
		{inst: "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5+0];", defs: "%r1 %r2 %r3 %r4", uses: "%r5"},
		{inst: "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};", defs: "", uses: "%r1 %r2 %r3"},
		{inst: "@%p2 cp.async.cg.shared.global [%r1+0], [%rd1+0], 16, %r2;", defs: "", uses: "%p2 %r1 %rd1 %r2"},
		{inst: "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd5, {%r2, %r3}], [%r4];",
			defs: "", uses: "%r1 %rd5 %r2 %r3 %r4"},
		{inst: "cp.async.wait_group 0;", defs: "", uses: ""},
		{inst: "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], %r2;", defs: "", uses: "%r1 %r2"},
		{inst: "mbarrier.arrive.shared.b64 %rd1, [%r1];", defs: "%rd1", uses: "%r1"},
		{inst: "mbarrier.init.shared.b64 [%r1], %r2;", defs: "", uses: "%r1 %r2"},
		{inst: "mbarrier.try_wait.parity.shared.b64 P, [%r1], %r2;", defs: "P", uses: "%r1 %r2", nilDefs: "-"},
		{inst: "bar.sync 0;", defs: "", uses: ""},
		{inst: "bar.red.popc.u32 %r1, 0, %p1;", defs: "%r1", uses: "%p1"},
		{inst: "bar.warp.sync -1;", defs: "", uses: ""},
		{inst: "membar.gl;", defs: "", uses: ""},
		{inst: "ret;", defs: "", uses: ""},
		{inst: "@%p1 exit;", defs: "", uses: "%p1"},
		{inst: "brx.idx %r1, ts;", defs: "", uses: "%r1"},
		{inst: "add.s32 rsi1, rsi2, rsi3;", defs: "rsi1", uses: "rsi2 rsi3", nilDefs: "-", nilUses: "-"},
		{inst: "@!P bra L;", defs: "", uses: "P", nilUses: "-"},
		{inst: "vadd.s32.u32.s32 %r1, %r2.b0, %r3.h1, %r4;", defs: "%r1", uses: "%r2 %r3 %r4"},
		{inst: "cvt.u32.u16 %r1, %rs1;", defs: "%r1", uses: "%rs1"},
		{inst: "prefetch.global.L2 [%rd1];", defs: "", uses: "%rd1"},
		{inst: "nanosleep.u32 %r1;", defs: "", uses: "%r1"},
		{inst: "elect.sync %r1|%p1, -1;", defs: "%r1 %p1", uses: ""},
	}
	for _, tt := range tests {
		f := cfgParse(t, "du", cfgKernel(duDecls+tt.inst))
		fn := f.Functions()[0]
		g := BuildCFG(fn)
		in := g.Insts[len(g.Insts)-1]
		rs := FunctionRegs(fn)
		check := func(what string, got []string, want string) {
			t.Helper()
			if want == "-" {
				want = ""
			}
			if strings.Join(got, " ") != want {
				t.Errorf("%s %s = %q, want %q", tt.inst, what, strings.Join(got, " "), want)
			}
		}
		check("defs", AppendDefs(nil, in, rs), tt.defs)
		check("uses", AppendUses(nil, in, rs), tt.uses)
		nd, nu := tt.defs, tt.uses
		if tt.nilDefs != "" {
			nd = tt.nilDefs
		}
		if tt.nilUses != "" {
			nu = tt.nilUses
		}
		check("Defs", Defs(in), nd)
		check("Uses", Uses(in), nu)
	}
}

func TestDefsUsesNoAlloc(t *testing.T) {
	f := cfgParse(t, "du", cfgKernel("ld.global.v4.f32 {%r1, %r2, %r3, %r4}, [%rd1+16];\n@%p1 st.global.u32 [%rd2], %r1;"))
	fn := f.Functions()[0]
	rs := FunctionRegs(fn)
	insts := BuildCFG(fn).Insts
	buf := make([]string, 0, 16)
	n := testing.AllocsPerRun(100, func() {
		for _, in := range insts {
			buf = AppendDefs(buf[:0], in, rs)
			buf = AppendUses(buf[:0], in, rs)
		}
	})
	if n != 0 {
		t.Errorf("AppendDefs/AppendUses allocate %v times", n)
	}
}

func TestRegSet(t *testing.T) {
	f := cfgParse(t, "rs", ".version 7.0\n.target sm_80\n.func (.reg .b32 %ret) f(.reg .b64 %arg, .param .b32 p)\n{\n"+
		".reg .b32 %r<10>;\n.reg .b32 %r1<3>;\n.reg .pred %p;\n{ .reg .f32 inner<2>; }\nret;\n}\n")
	rs := FunctionRegs(f.Functions()[0])
	for _, c := range []struct {
		name string
		ok   bool
		t    Type
	}{
		{"%r0", true, B32}, {"%r9", true, B32}, {"%r10", true, B32}, {"%r12", true, B32},
		{"%r13", false, 0}, {"%r01", false, 0}, {"%r", false, 0}, {"%p", true, Pred},
		{"%p0", false, 0}, {"inner1", true, F32}, {"inner2", false, 0},
		{"%ret", true, B32}, {"%arg", true, B64}, {"p", false, 0}, {"", false, 0},
	} {
		typ, ok := rs.Declared(c.name)
		if ok != c.ok || typ != c.t {
			t.Errorf("Declared(%q) = %v, %v; want %v, %v", c.name, typ, ok, c.t, c.ok)
		}
	}
	var nilSet *RegSet
	if _, ok := nilSet.Declared("%r1"); ok {
		t.Errorf("nil RegSet declares %%r1")
	}
	for _, c := range []struct {
		name, reg string
		ok        bool
	}{
		{"%r1.b0", "%r1", true}, {"%tid.x", "%tid.x", true}, {"%undeclared", "", false},
		{"_", "", false}, {"inner0", "inner0", true},
	} {
		r, ok := rs.Reg(c.name)
		if r != c.reg || ok != c.ok {
			t.Errorf("Reg(%q) = %q, %v", c.name, r, ok)
		}
	}
}

func TestIsSpecialReg(t *testing.T) {
	yes := []string{"%tid", "%tid.x", "%ntid.y", "%ctaid.z", "%nctaid.x", "%laneid", "%warpid",
		"%nwarpid", "%smid", "%nsmid", "%gridid", "%clock", "%clock64", "%clock_hi", "%globaltimer",
		"%globaltimer_lo", "%lanemask_lt", "%pm0", "%pm7_64", "%envreg0", "%envreg31",
		"%dynamic_smem_size", "%total_smem_size", "%cluster_ctaid.x", "%cluster_ctarank",
		"%is_explicit_cluster", "%reserved_smem_offset_1"}
	no := []string{"%r1", "tid", "%tid.q", "%laneid.x", "%pm8", "%envreg32", "%envreg01", "%clock32",
		"%", "", "%tidx"}
	for _, s := range yes {
		if !IsSpecialReg(s) {
			t.Errorf("IsSpecialReg(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsSpecialReg(s) {
			t.Errorf("IsSpecialReg(%q) = true", s)
		}
	}
}

// TestDefUseCorpus checks, over the whole corpus, that every register an
// instruction defines or uses is declared or special, and that the
// nil-RegSet shortcut agrees with declarations for '%' names.
func TestDefUseCorpus(t *testing.T) {
	var buf []string
	for _, name := range cfgCorpus(t) {
		f := cfgParseFile(t, name)
		for _, fn := range f.Functions() {
			rs := FunctionRegs(fn)
			for _, in := range BuildCFG(fn).Insts {
				buf = AppendDefs(buf[:0], in, rs)
				for _, r := range buf {
					if _, ok := rs.Declared(r); !ok {
						t.Errorf("%s: %s: defines undeclared %s", name, in.Op.Text, r)
					}
				}
				buf = AppendUses(buf[:0], in, rs)
				for _, r := range buf {
					if _, ok := rs.Declared(r); !ok && !IsSpecialReg(r) {
						t.Errorf("%s: %s: uses undeclared %s", name, in.Op.Text, r)
					}
				}
				// Every instruction except a few with no register
				// destination defines something when it is a plain
				// computation with a register operand 0.
				fc := FactsOf(in)
				if fc.Class == ClassInt || fc.Class == ClassFP32 || fc.Class == ClassMove {
					if len(in.Args) > 0 && in.Args[0].Kind == OpReg && len(AppendDefs(nil, in, rs)) == 0 {
						if _, ok := rs.Declared(in.Args[0].Name); ok {
							t.Errorf("%s: %s defines nothing", name, in.Op.Text)
						}
					}
				}
			}
		}
	}
}
