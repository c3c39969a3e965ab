package ptx

import (
	"strings"
	"testing"
)

// factsDecode decodes an opcode spelling the way the parser does.
func factsDecode(text string) *Opcode { return DecodeOpcode(text) }

// factsString renders the interesting part of f compactly:
// "name class [mem space[<-src]] flags...".
func factsString(f Facts) string {
	if !f.Known {
		return "?"
	}
	parts := []string{f.Name, f.Class.String()}
	if f.Mem != MemNone {
		sp := f.Space.String()
		if f.SrcSpace != SpaceNone {
			sp += "<-" + f.SrcSpace.String()
		}
		parts = append(parts, f.Mem.String(), sp)
	}
	for _, fl := range []struct {
		on   bool
		name string
	}{
		{f.Reads, "R"}, {f.Writes, "W"}, {f.ReadOnly, "ro"}, {f.ReadWrite, "rw"},
		{f.Async, "async"}, {f.SideEffects, "side"}, {f.Barrier, "bar"}, {f.Fence, "fence"},
		{f.Wait, "wait"}, {f.Branch, "br"}, {f.Call, "call"}, {f.Return, "ret"},
		{f.Exit, "exit"}, {f.EndsBlock, "ends"}, {f.Sync, "sync"},
	} {
		if fl.on {
			parts = append(parts, fl.name)
		}
	}
	return strings.Join(parts, " ")
}

var factsTests = []struct{ op, want string }{
	// Loads.
	{"ld.global.u32", "ld memory load .global R"},
	{"ld.global.nc.v4.f32", "ld memory load .global R ro"},
	{"ld.u32", "ld memory load generic R"},
	{"ld.param.u64", "ld memory load .param R ro"},
	{"ld.param::entry.u64", "ld memory load .param R ro"},
	{"ld.const.f32", "ld memory load .const R ro"},
	{"ld.shared.v2.f32", "ld memory load .shared R"},
	{"ld.shared::cta.b32", "ld memory load .shared R"},
	{"ld.shared::cluster.b32", "ld memory load .shared::cluster R"},
	{"ld.local.u8", "ld memory load .local R"},
	{"ld.volatile.shared.u32", "ld memory load .shared R"},
	{"ld.acquire.gpu.global.b32", "ld memory load .global R"},
	{"ld.global.L1::no_allocate.L2::256B.v4.u32", "ld memory load .global R"},
	{"ld.global.nc.L1::no_allocate.b16", "ld memory load .global R ro"},
	{"ldu.global.f32", "ldu memory load .global R ro"},
	{"ldu.u32", "ldu memory load .global R ro"},
	// Stores, atomics, reductions.
	{"st.global.f32", "st memory store .global W side"},
	{"st.u32", "st memory store generic W side"},
	{"st.shared.v4.b32", "st memory store .shared W side"},
	{"st.param.b64", "st memory store .param W side"},
	{"st.volatile.shared.u32", "st memory store .shared W side"},
	{"st.local.u32", "st memory store .local W side"},
	{"st.async.shared::cluster.mbarrier::complete_tx::bytes.b32", "st.async memory store .shared::cluster W async side"},
	{"st.bulk.weak.shared::cta", "st.bulk memory store .shared W side"},
	{"atom.global.add.u32", "atom memory atomic .global R W rw side"},
	{"atom.add.f32", "atom memory atomic generic R W rw side"},
	{"atom.shared.cas.b32", "atom memory atomic .shared R W rw side"},
	{"atom.global.exch.b32", "atom memory atomic .global R W rw side"},
	{"red.global.add.f32", "red memory reduction .global R W rw side"},
	{"red.shared.add.u32", "red memory reduction .shared R W rw side"},
	{"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32", "red.async memory reduction .shared::cluster R W rw async side"},
	{"multimem.ld_reduce.relaxed.sys.global.add.u32", "multimem.ld_reduce memory load .global R"},
	{"multimem.st.relaxed.sys.global.f32", "multimem.st memory store .global W side"},
	// Textures and surfaces.
	{"tex.2d.v4.f32.f32", "tex texture texture .tex R ro"},
	{"tex.3d.v4.u32.f32", "tex texture texture .tex R ro"},
	{"tex.level.2d.v4.f32.f32", "tex texture texture .tex R ro"},
	{"tld4.r.2d.v4.f32.f32", "tld4 texture texture .tex R ro"},
	{"txq.width.b32", "txq texture query .tex R ro"},
	{"suld.b.2d.v4.b32.trap", "suld texture surface-load .global R"},
	{"sust.b.1d.b32.clamp", "sust texture surface-store .global W side"},
	{"sured.b.add.2d.trap.u32", "sured texture surface-reduction .global R W rw side"},
	{"suq.width.b32", "suq texture query .global R ro"},
	// Prefetch and asynchronous copies.
	{"prefetch.global.L2", "prefetch memory prefetch .global"},
	{"prefetch.global.L2::evict_last", "prefetch memory prefetch .global"},
	{"prefetchu.L1", "prefetchu memory prefetch generic"},
	{"cp.async.ca.shared.global", "cp.async memory async-copy .shared<-.global R W async side"},
	{"cp.async.cg.shared.global.L2::128B", "cp.async memory async-copy .shared<-.global R W async side"},
	{"cp.async.commit_group", "cp.async.commit_group sync side"},
	{"cp.async.wait_group", "cp.async.wait_group sync side wait"},
	{"cp.async.wait_all", "cp.async.wait_all sync side wait"},
	{"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes", "cp.async.bulk.tensor memory async-copy .shared::cluster<-.global R W async side"},
	{"cp.async.bulk.global.shared::cta.bulk_group", "cp.async.bulk memory async-copy .global<-.shared R W async side"},
	{"cp.async.bulk.commit_group", "cp.async.bulk.commit_group sync side"},
	{"cp.async.bulk.wait_group.read", "cp.async.bulk.wait_group sync side wait"},
	{"cp.async.bulk.prefetch.L2.global", "cp.async.bulk.prefetch memory prefetch .global async"},
	{"cp.async.bulk.prefetch.tensor.2d.L2.global", "cp.async.bulk.prefetch.tensor memory prefetch .global async"},
	{"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32", "cp.reduce.async.bulk memory async-copy .global<-.shared R W async side"},
	{"cp.async.mbarrier.arrive.noinc.shared.b64", "cp.async.mbarrier.arrive sync mbarrier .shared R W rw async side"},
	// Matrix loads/stores and tensor cores.
	{"ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix memory load .shared R sync"},
	{"ldmatrix.sync.aligned.m8n8.x4.trans.b16", "ldmatrix memory load .shared R sync"},
	{"stmatrix.sync.aligned.m8n8.x4.shared.b16", "stmatrix memory store .shared W side sync"},
	{"wmma.load.a.sync.aligned.row.m16n16k16.global.f16", "wmma.load memory load .global R sync"},
	{"wmma.load.b.sync.aligned.row.m8n8k4.f64", "wmma.load memory load generic R sync"},
	{"wmma.store.d.sync.aligned.row.m16n16k16.shared.f32", "wmma.store memory store .shared W side sync"},
	{"wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32", "wmma.mma tensor sync"},
	{"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "mma tensor sync"},
	{"mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", "mma.sp tensor sync"},
	{"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "wgmma.mma_async tensor async side sync"},
	{"wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16", "wgmma.mma_async.sp tensor async side sync"},
	{"wgmma.fence.sync.aligned", "wgmma.fence sync side fence sync"},
	{"wgmma.commit_group.sync.aligned", "wgmma.commit_group sync side sync"},
	{"wgmma.wait_group.sync.aligned", "wgmma.wait_group sync side wait sync"},
	{"tcgen05.mma.cta.kind::f16", "tcgen05.mma tensor async side"},
	{"tcgen05.ld.sync.aligned.16x64b.x2.b32", "tcgen05.ld memory load generic R async sync"},
	// mbarrier.
	{"mbarrier.init.shared.b64", "mbarrier.init sync mbarrier .shared W side"},
	{"mbarrier.arrive.expect_tx.shared::cta.b64", "mbarrier.arrive sync mbarrier .shared R W rw side"},
	{"mbarrier.arrive.b64", "mbarrier.arrive sync mbarrier .shared R W rw side"},
	{"mbarrier.try_wait.parity.shared.b64", "mbarrier.try_wait sync mbarrier .shared R side wait"},
	{"mbarrier.test_wait.b64", "mbarrier.test_wait sync mbarrier .shared R"},
	{"mbarrier.pending_count.b64", "mbarrier.pending_count sync"},
	// Address conversion.
	{"cvta.to.global.u64", "cvta int"},
	{"cvta.local.u32", "cvta int"},
	{"isspacep.shared", "isspacep int"},
	{"mapa.shared::cluster.u32", "mapa int"},
	// Barriers and fences.
	{"membar.cta", "membar sync side fence"},
	{"membar.gl", "membar sync side fence"},
	{"fence.proxy.async.shared::cta", "fence sync side fence"},
	{"fence.mbarrier_init.release.cluster", "fence sync side fence"},
	{"fence.sc.gpu", "fence sync side fence"},
	{"bar.sync", "bar sync side bar"},
	{"bar.arrive", "bar sync side bar"},
	{"bar.red.popc.u32", "bar sync side bar"},
	{"barrier.sync.aligned", "barrier sync side bar"},
	{"barrier.cluster.arrive", "barrier.cluster sync side bar"},
	{"bar.warp.sync", "bar.warp.sync sync side bar sync"},
	{"griddepcontrol.wait", "griddepcontrol sync side"},
	// Control flow.
	{"bra", "bra control br ends"},
	{"bra.uni", "bra control br ends"},
	{"brx.idx", "brx.idx control br ends"},
	{"brx.idx.uni", "brx.idx control br ends"},
	{"call", "call control side call"},
	{"call.uni", "call control side call"},
	{"ret", "ret control ret ends"},
	{"ret.uni", "ret control ret ends"},
	{"exit", "exit control side exit ends"},
	{"trap", "trap control side exit ends"},
	{"brkpt", "brkpt control side"},
	// Arithmetic classes.
	{"add.s32", "add int"},
	{"add.f32", "add fp32"},
	{"add.rn.f64", "add fp64"},
	{"add.f16x2", "add fp16"},
	{"add.cc.u32", "add int"},
	{"addc.u32", "addc int"},
	{"fma.rn.bf16", "fma fp16"},
	{"fma.rn.ftz.f32", "fma fp32"},
	{"fma.rn.f64", "fma fp64"},
	{"mad.lo.s32", "mad int"},
	{"mad.rn.f32", "mad fp32"},
	{"mul.wide.u32", "mul int"},
	{"mul24.lo.s32", "mul24 int"},
	{"setp.lt.f32", "setp fp32"},
	{"setp.eq.s32", "setp int"},
	{"set.gt.u32.f64", "set fp64"},
	{"div.rn.f32", "div fp32"},
	{"div.full.f32", "div fp32"},
	{"div.s32", "div int"},
	{"rem.u32", "rem int"},
	{"min.f32", "min fp32"},
	{"max.s32", "max int"},
	{"abs.f64", "abs fp64"},
	{"neg.f32", "neg fp32"},
	{"testp.finite.f32", "testp fp32"},
	{"copysign.f64", "copysign fp64"},
	{"rcp.approx.ftz.f64", "rcp sfu"},
	{"rcp.rn.f32", "rcp fp32"},
	{"sqrt.approx.f32", "sqrt sfu"},
	{"sqrt.rn.f64", "sqrt fp64"},
	{"rsqrt.approx.f32", "rsqrt sfu"},
	{"sin.approx.ftz.f32", "sin sfu"},
	{"cos.approx.f32", "cos sfu"},
	{"ex2.approx.f16x2", "ex2 sfu"},
	{"lg2.approx.f32", "lg2 sfu"},
	{"tanh.approx.f32", "tanh sfu"},
	{"cvt.rn.f32.s32", "cvt convert"},
	{"cvt.pack.sat.u8.s32.b32", "cvt.pack convert"},
	{"mov.u32", "mov move"},
	{"mov.b64", "mov move"},
	{"movmatrix.sync.aligned.m8n8.trans.b16", "movmatrix move sync"},
	{"selp.b32", "selp int"},
	{"slct.s32.f32", "slct int"},
	{"lop3.b32", "lop3 int"},
	{"shf.l.wrap.b32", "shf int"},
	{"shl.b64", "shl int"},
	{"prmt.b32", "prmt int"},
	{"popc.b64", "popc int"},
	{"clz.b32", "clz int"},
	{"bfe.u32", "bfe int"},
	{"bfind.u32", "bfind int"},
	{"brev.b32", "brev int"},
	{"dp4a.u32.u32", "dp4a int"},
	{"and.pred", "and int"},
	{"not.b32", "not int"},
	// Warp collectives.
	{"shfl.sync.bfly.b32", "shfl warp sync"},
	{"shfl.idx.b32", "shfl warp sync"},
	{"vote.sync.ballot.b32", "vote warp sync"},
	{"vote.any.pred", "vote warp sync"},
	{"match.any.sync.b32", "match warp sync"},
	{"redux.sync.add.u32", "redux warp sync"},
	{"elect.sync", "elect warp sync"},
	{"activemask.b32", "activemask warp"},
	// Video and miscellaneous.
	{"vadd4.u32.u32.u32.sat", "vadd4 video"},
	{"vset2.u32.u32.eq", "vset2 video"},
	{"nanosleep.u32", "nanosleep misc side"},
	{"pmevent", "pmevent misc side"},
	{"setmaxnreg.inc.sync.aligned.u32", "setmaxnreg misc side sync"},
	{"stacksave.u64", "stacksave misc"},
	{"alloca.u64", "alloca misc side"},
	// Unknown.
	{"foo.bar", "?"},
	{"wmma", "?"},
	{"wmma.foo", "?"},
	{"cp.foo", "?"},
	{"", "?"},
}

func TestOpcodeFacts(t *testing.T) {
	for _, tt := range factsTests {
		op := factsDecode(tt.op)
		got := factsString(OpcodeFacts(op))
		if got != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.op, got, tt.want)
		}
		// The same opcode built by a pass, without Text, has the same facts.
		built := *op
		built.Text = ""
		if got2 := factsString(OpcodeFacts(&built)); got2 != got {
			t.Errorf("%s without Text: %s, with: %s", tt.op, got2, got)
		}
		if known := IsKnownOpcode(tt.op); known != (tt.want != "?") {
			t.Errorf("IsKnownOpcode(%q) = %v", tt.op, known)
		}
		checkFactsInvariants(t, tt.op, OpcodeFacts(op))
	}
	if n := len(factsTests); n < 60 {
		t.Errorf("only %d opcode strings tested", n)
	}
}

func TestFactsOfInstruction(t *testing.T) {
	in := &Instruction{Guard: "%p1", Op: factsDecode("ld.global.nc.f32")}
	if f := FactsOf(in); !f.ReadOnly || f.Space != SpaceGlobal {
		t.Errorf("FactsOf(@%%p1 ld.global.nc.f32) = %s", factsString(f))
	}
}

func TestIsKnownOpcode(t *testing.T) {
	for _, s := range []string{"ld", "cp.async.bulk.tensor", "bar.warp.sync", "wgmma.mma_async", "tex"} {
		if !IsKnownOpcode(s) {
			t.Errorf("IsKnownOpcode(%q) = false", s)
		}
	}
	for _, s := range []string{"cp", "wmma", "mbarrier", "ldx", "lds.u32", "Ld"} {
		if IsKnownOpcode(s) {
			t.Errorf("IsKnownOpcode(%q) = true", s)
		}
	}
}

// checkFactsInvariants checks the invariants documented on Facts.
func checkFactsInvariants(t *testing.T, what string, f Facts) {
	t.Helper()
	if (f.Space == SpaceNone) != (f.Mem == MemNone) {
		t.Errorf("%s: Space %v with Mem %v", what, f.Space, f.Mem)
	}
	if f.Mem == MemNone && (f.Reads || f.Writes) {
		t.Errorf("%s: reads/writes without memory kind", what)
	}
	if f.ReadOnly && (!f.Reads || f.Writes) {
		t.Errorf("%s: ReadOnly but Reads=%v Writes=%v", what, f.Reads, f.Writes)
	}
	if f.ReadWrite && !(f.Reads && f.Writes) || f.ReadWrite && f.Mem == MemAsyncCopy {
		t.Errorf("%s: ReadWrite inconsistent", what)
	}
	if f.EndsBlock && !(f.Branch || f.Return || f.Exit) {
		t.Errorf("%s: EndsBlock without branch/return/exit", what)
	}
	if f.Known && f.Class == ClassUnknown {
		t.Errorf("%s: known with unknown class", what)
	}
}

func TestFactsNoAlloc(t *testing.T) {
	ops := []*Opcode{
		factsDecode("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"),
		factsDecode("ld.global.nc.v4.f32"),
		factsDecode("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32"),
		{Name: "ld", Mods: []string{".global", ".u32"}, Types: []Type{U32}},
		nil,
	}
	for _, op := range ops {
		n := testing.AllocsPerRun(100, func() { _ = OpcodeFacts(op) })
		if n != 0 {
			t.Errorf("OpcodeFacts(%+v) allocates %v times", op, n)
		}
	}
}

// TestFactsCorpus checks that every opcode in the corpus is known and that
// the documented invariants hold for all of them.
func TestFactsCorpus(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range cfgCorpus(t) {
		f := cfgParseFile(t, name)
		for _, fn := range f.Functions() {
			for _, in := range BuildCFG(fn).Insts {
				if seen[in.Op.Text] {
					continue
				}
				seen[in.Op.Text] = true
				fc := FactsOf(in)
				if !fc.Known {
					t.Errorf("%s: unknown opcode %q", name, in.Op.Text)
				}
				checkFactsInvariants(t, in.Op.Text, fc)
			}
		}
	}
	t.Logf("%d distinct opcode spellings", len(seen))
}

// BenchmarkFactsOf computes the facts of every corpus instruction and
// reports the cost per instruction.
func BenchmarkFactsOf(b *testing.B) {
	var insts []*Instruction
	for _, name := range cfgCorpus(b) {
		f := cfgParseFile(b, name)
		for _, fn := range f.Functions() {
			insts = append(insts, BuildCFG(fn).Insts...)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sink int
	for b.Loop() {
		for _, in := range insts {
			if FactsOf(in).Mem != MemNone {
				sink++
			}
		}
	}
	_ = sink
	total := float64(len(insts)) * float64(b.N)
	b.ReportMetric(b.Elapsed().Seconds()*1e9/total, "ns/inst")
	b.ReportMetric(total/b.Elapsed().Seconds(), "insts/s")
}
