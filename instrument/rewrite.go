package instrument

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Register plan. All added registers use the reserved prefix and are
// declared in one block of .reg declarations at the top of the kernel; the
// kernel's own registers are never written.
//
//	%__pt_r0        unused (the records' sink word is the immediate 0)
//	%__pt_r1        record slot returned by the count atomic
//	%__pt_r2        active mask;  %__pt_r3, %__pt_r4: scratch
//	%__pt_r5/6      begin timestamp low/high;  %__pt_r7/8: end timestamp
//	%__pt_r9..r21   prologue and flush scratch
//	%__pt_r22       records that go to %__pt_a0: the shared records per warp when staged, else the capacity
//	%__pt_rd1/2     64-bit begin/end timestamps
//	%__pt_a0        generic address of the warp's count word (shared slot or global segment)
//	%__pt_a1        the warp's global segment (prologue and exit; a staged warp keeps it at offset 16 of its slot)
//	%__pt_a2, a3    address scratch
//	%__pt_a4        a grouped site's end record (groupedSite)
//	%__pt_r23       the first record of a group of dummy-probed sites (groupedSite)
//	%__pt_p0        dummy predicate (false at run time)
//	%__pt_p1        this warp's records are staged in shared memory
//	%__pt_p2        leader lane;  %__pt_p3: slot in bounds;  %__pt_p4: slot staged;  %__pt_p5: scratch
//	%__pt_p6        a grouped site's end record in bounds
//	%__pt_p7        a joined async site's copy was issued by this thread (async.go); declared
//	                only in a kernel with joined sites
//	%__pt_q0, q1    run-time paired cp.async (pipeline.go): commit count, record tag;
//	%__pt_qd0       the tagged record's first word; declared only in such a kernel
//	%__pt_rd3       an async site's begin timestamp (%__pt_r24 with the 32-bit clock): held
//	                from the copy to its wait, across load probes (async.go); declared
//	                only in a body with async sites
const (
	nR32  = 24
	nR64  = 3
	nAddr = 5
	nPred = 7
)

func r(i int) ptx.Operand       { return ptx.Reg(regName(&rNames, "%__pt_r", i)) }
func rd(i int) ptx.Operand      { return ptx.Reg(regName(&rdNames, "%__pt_rd", i)) }
func a(i int) ptx.Operand       { return ptx.Reg(regName(&aNames, "%__pt_a", i)) }
func p(i int) string            { return regName(&pNames, "%__pt_p", i) }
func pr(i int) ptx.Operand      { return ptx.Reg(p(i)) }
func sreg(n string) ptx.Operand { return ptx.Reg(n) }
func imm(v int64) ptx.Operand   { return ptx.Imm(v) }

// The probe registers' names, spelled once (every site names several).
// Read-only.
var (
	rNames  = regNames("%__pt_r")
	rdNames = regNames("%__pt_rd")
	aNames  = regNames("%__pt_a")
	pNames  = regNames("%__pt_p")
)

func regNames(prefix string) (names [32]string) {
	for i := range names {
		names[i] = prefix + strconv.Itoa(i)
	}
	return names
}

// regName is prefix followed by i, from names when it holds it.
func regName(names *[32]string, prefix string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return prefix + strconv.Itoa(i)
}

// code accumulates generated statements.
type code []ptx.Stmt

// op appends an instruction to c, its opcode decoded once per module
// (m.opcode): generated code repeats a few opcodes at every site.
func (k *kernel) op(c *code, opcode string, args ...ptx.Operand) *ptx.Instruction {
	in := &ptx.Instruction{Op: k.m.opcode(opcode), Args: args}
	*c = append(*c, in)
	return in
}

// opcode returns the module's decoded opcode spelled text. Opcodes are
// read-only once decoded and shared by the instructions that use them.
func (m *module) opcode(text string) *ptx.Opcode {
	if op, ok := m.opcodes[text]; ok {
		return op
	}
	if m.opcodes == nil {
		m.opcodes = map[string]*ptx.Opcode{}
	}
	op := ptx.DecodeOpcode(text)
	m.opcodes[text] = op
	return op
}

// when guards the instruction just added.
func (c *code) when(pred int, neg bool) {
	in := (*c)[len(*c)-1].(*ptx.Instruction)
	in.Guard, in.GuardNeg = p(pred), neg
}

func (c *code) label(name string) { *c = append(*c, &ptx.Label{Name: name}) }

func (c *code) comment(s string) { *c = append(*c, &ptx.Comment{Text: "// " + s}) }

// Address helpers: the address registers are .b64 with 64-bit addressing
// and .b32 otherwise.
func (k *kernel) at() string {
	if k.m.addr64 {
		return "u64"
	}
	return "u32"
}

// madAddr emits dst = idx*scale + base in address width.
func (k *kernel) madAddr(c *code, dst, idx ptx.Operand, scale int64, base ptx.Operand) {
	if k.m.addr64 {
		k.op(c, "mad.wide.u32", dst, idx, imm(scale), base)
	} else {
		k.op(c, "mad.lo.u32", dst, idx, imm(scale), base)
	}
}

func addrOff(reg ptx.Operand, off int64) ptx.Operand { return ptx.Addr(reg.Name, off) }

func (k *kernel) activeMask(c *code, dst ptx.Operand) {
	m := k.m
	if m.ptxAtLeast(6, 2) && m.sm >= 30 {
		k.op(c, "activemask.b32", dst)
	} else {
		k.op(c, "vote.ballot.b32", dst, imm(1))
	}
}

// leader sets %__pt_p2 in the lowest active lane of the warp.
func (k *kernel) leader(c *code) {
	k.activeMask(c, r(2))
	k.op(c, "mov.u32", r(3), sreg("%lanemask_lt"))
	k.op(c, "and.b32", r(3), r(3), r(2))
	k.op(c, "setp.eq.u32", pr(2), r(3), imm(0))
}

// clockReg is the 32-bit register of timestamp slot n.
func clockReg(n int) ptx.Operand {
	if n == 3 {
		return r(24)
	}
	return r(3 + 2*n)
}

// readTimer reads the timer into timestamp slot n (1 = begin, 2 = end,
// 3 = an async site's begin).
func (k *kernel) readTimer(c *code, n int) {
	switch k.m.opts.Timer {
	case manifest.TimerClock:
		k.op(c, "mov.u32", clockReg(n), sreg("%clock"))
	case manifest.TimerGlobaltimer:
		k.op(c, "mov.u64", rd(n), sreg("%globaltimer"))
	default:
		k.op(c, "mov.u64", rd(n), sreg("%clock64"))
	}
}

// record writes one or two records (ids with timestamp slots 1.. in
// order): the leader lane reserves the slots with one atomic on the warp's
// count and writes the records that fit; the count always goes up.
func (k *kernel) record(c *code, ids []uint32, slots []int) {
	k.reserve(c, r(1), len(ids))
	k.storeRecords(c, ids, slots)
}

// reserve makes the warp's leader lane take n record slots with one atomic
// on the warp's count (dst = the first; -1 in the other lanes).
func (k *kernel) reserve(c *code, dst ptx.Operand, n int) {
	k.reserveSetup(c, dst)
	k.reserveAtomic(c, dst, n)
}

// recordAddr sets predicate pred to "record base+j fits the capacity" and
// addr to the base its store uses with the returned offset; ok is false
// when record base+j can never fit (j >= capacity: nothing to store).
func (k *kernel) recordAddr(c *code, base ptx.Operand, j int, addr ptx.Operand, pred int) (off int64, ok bool) {
	capacity := int64(k.m.opts.Capacity)
	if int64(j) >= capacity {
		return 0, false
	}
	// Non-leader lanes have base = -1: never in bounds.
	k.op(c, "setp.lt.u32", pr(pred), base, imm(capacity-int64(j)))
	if !k.staged {
		k.madAddr(c, addr, base, manifest.RecordBytes, a(0))
		return int64(manifest.SegmentHeaderBytes + j*manifest.RecordBytes), true
	}
	// Record base+j goes to the shared slot when base+j < r22 (the staged
	// records), else straight to its place in the global segment (a1):
	// the flush at exit copies the staged ones. No memory access: this
	// arithmetic may run while the probed access is in flight.
	idx := base
	if j != 0 {
		k.op(c, "add.u32", r(3), base, imm(int64(j)))
		idx = r(3)
	}
	k.op(c, "setp.lt.u32", pr(4), idx, r(22))
	k.op(c, "selp.b"+k.at()[1:], addr, a(0), a(1), pr(4))
	k.madAddr(c, addr, idx, manifest.RecordBytes, addr)
	return manifest.SegmentHeaderBytes, true
}

// storeAt stores record (id, timestamp slot) at addr+off under pred.
func (k *kernel) storeAt(c *code, addr ptx.Operand, off int64, pred int, id uint32, slot int) {
	// A record is {id u32, 0 u32, timestamp u64} (docs/buffer.md): with a
	// 64-bit timer, two little-endian u64 words, so the timestamp register
	// is stored as it is.
	if k.m.opts.Timer == manifest.TimerClock {
		k.op(c, "st.v4.u32", addrOff(addr, off), ptx.Vec(imm(int64(id)), imm(0), clockReg(slot), imm(0)))
	} else {
		k.op(c, "st.v2.u64", addrOff(addr, off), ptx.Vec(imm(int64(id)), rd(slot)))
	}
	c.when(pred, false)
}

// dummy emits the consumer of a load's destination registers: one store,
// predicated on %__pt_p0 (false at run time), of the load's first
// destination register into the warp's own scratch word. All destination
// registers of one load are written when the load completes (one scoreboard
// entry per instruction, in hardware and in the model), so waiting for the
// first waits for the whole access; consuming each register in turn would
// only add a dependent chain to the measured time. The consumer satisfies
// the seed's conditions: it uses the loaded value (C1), it writes into the
// trace buffer, which is program output (C2), and it never executes when
// the host passes dummy = 0 (C3). Being a memory operation, the store is
// also kept before the following clock read by ptxas, which a register-only
// consumer is not (ptxas 11.8 turns a predicated xor into a SEL scheduled
// after the clock read on sm_70+).
func (k *kernel) dummy(c *code, elems []ptx.Operand) {
	if len(elems) == 0 {
		return
	}
	e := elems[0]
	t, _ := k.regs.Declared(e.Name)
	op := "st.volatile.b32"
	switch t.Size() {
	case 8:
		op = "st.volatile.b64"
	case 2:
		op = "st.volatile.b16"
	case 1:
		op = "st.volatile.b8"
	}
	k.op(c, op, addrOff(a(0), 8), e)
	c.when(0, false)
}

// prologue computes the warp's addresses and initializes its shared slot.
func (k *kernel) prologue(c *code) {
	m := k.m
	c.comment(fmt.Sprintf("ptxtrace: prologue (staging %s, %d records per warp)", k.staging.Where, m.opts.Capacity))
	if k.useDummy {
		k.op(c, "ld.param.u32", r(9), ptx.Addr(ParamDummy, 0))
		k.op(c, "setp.ne.u32", pr(0), r(9), imm(0))
	}
	k.segment(c) // a1 = global segment; r16 = warp in CTA; r17 = threads per CTA
	if !k.staged {
		k.op(c, "mov.b"+k.at()[1:], a(0), a(1))
		k.op(c, "mov.u32", r(22), imm(int64(m.opts.Capacity))) // for called functions
		return
	}
	// Shared staging: the host passes the staging area's offset in
	// dynamic shared memory and the records per warp (0 = global). The
	// warp stages only if the whole area fits the launch's dynamic shared
	// memory (a host that passes too little gets global staging, never an
	// access out of bounds).
	k.op(c, "ld.param.u32", r(22), ptx.Addr(ParamStageRecs, 0))
	k.op(c, "min.u32", r(22), r(22), imm(int64(m.opts.Capacity)))
	k.op(c, "ld.param.u32", r(20), ptx.Addr(ParamStageOff, 0))
	k.op(c, "mad.lo.u32", r(21), r(22), imm(manifest.RecordBytes), imm(manifest.SegmentHeaderBytes)) // slot bytes
	k.op(c, "setp.ne.u32", pr(1), r(22), imm(0))
	if m.ptxAtLeast(4, 1) {
		k.op(c, "mad.lo.u32", r(19), r(18), r(21), r(20)) // end of the staging area
		k.op(c, "mov.u32", r(9), sreg("%dynamic_smem_size"))
		k.op(c, "setp.le.and.u32", pr(1), r(19), r(9), pr(1))
	}
	k.op(c, "mad.lo.u32", r(20), r(16), r(21), r(20)) // this warp's slot
	k.op(c, "cvta.shared."+k.at(), a(2), ptx.Reg(StageVar))
	if m.addr64 {
		k.op(c, "cvt.u64.u32", a(3), r(20))
		k.op(c, "add.u64", a(2), a(2), a(3))
	} else {
		k.op(c, "add.u32", a(2), a(2), r(20))
	}
	k.op(c, "selp.b"+k.at()[1:], a(0), a(2), a(1), pr(1))
	k.op(c, "selp.b32", r(22), r(22), imm(int64(m.opts.Capacity)), pr(1))
	// lanes in this warp = min(32, threads - 32*warp)
	k.op(c, "shl.b32", r(20), r(16), imm(5))
	k.op(c, "sub.u32", r(20), r(17), r(20))
	k.op(c, "min.u32", r(20), r(20), imm(32))
	// count = 0, alive = lanes: every lane of the warp writes the same values
	k.op(c, "st.v2.u32", addrOff(a(0), 0), ptx.Vec(imm(0), r(20)))
	c.when(1, false)
	k.op(c, "st."+k.at(), addrOff(a(0), 16), a(1)) // where spilled records go
	c.when(1, false)
	if m.sm >= 70 && m.ptxAtLeast(6, 0) {
		// Independent thread scheduling: make the initialization visible
		// to every lane of the warp before any of them records.
		k.op(c, "shl.b32", r(21), imm(1), r(20))
		k.op(c, "sub.u32", r(21), r(21), imm(1))
		k.op(c, "bar.warp.sync", r(21))
	}
}

// segment computes the warp's global segment address into a1, and leaves
// the warp in CTA in r16 and the threads per CTA in r17.
func (k *kernel) segment(c *code) {
	k.op(c, "mov.u32", r(9), sreg("%tid.x"))
	k.op(c, "mov.u32", r(10), sreg("%tid.y"))
	k.op(c, "mov.u32", r(11), sreg("%tid.z"))
	k.op(c, "mov.u32", r(12), sreg("%ntid.x"))
	k.op(c, "mov.u32", r(13), sreg("%ntid.y"))
	k.op(c, "mov.u32", r(14), sreg("%ntid.z"))
	k.op(c, "mad.lo.u32", r(15), r(13), r(11), r(10))
	k.op(c, "mad.lo.u32", r(15), r(15), r(12), r(9))
	k.op(c, "shr.u32", r(16), r(15), imm(5))
	k.op(c, "mul.lo.u32", r(17), r(12), r(13))
	k.op(c, "mul.lo.u32", r(17), r(17), r(14))
	k.op(c, "add.u32", r(18), r(17), imm(31))
	k.op(c, "shr.u32", r(18), r(18), imm(5))
	k.op(c, "mov.u32", r(9), sreg("%ctaid.x"))
	k.op(c, "mov.u32", r(10), sreg("%ctaid.y"))
	k.op(c, "mov.u32", r(11), sreg("%ctaid.z"))
	k.op(c, "mov.u32", r(12), sreg("%nctaid.x"))
	k.op(c, "mov.u32", r(13), sreg("%nctaid.y"))
	k.op(c, "mad.lo.u32", r(19), r(13), r(11), r(10))
	k.op(c, "mad.lo.u32", r(19), r(19), r(12), r(9))
	k.op(c, "mad.lo.u32", r(19), r(19), r(18), r(16))
	k.op(c, "ld.param."+k.at(), a(1), ptx.Addr(ParamBuf, 0))
	k.madAddr(c, a(1), r(19), int64(k.slotBytes), a(1))
	k.op(c, "add."+k.at(), a(1), a(1), imm(manifest.HeaderBytes))
}

// flush is the kernel's single exit: every ret/exit branches here. The
// lanes arriving together write the segment header (global staging), or
// (shared staging) leave the warp, and the last lanes of the warp to leave
// copy the warp's count and records to its global segment.
func (k *kernel) flush(c *code) {
	m := k.m
	c.label("$__pt_exit")
	c.comment("ptxtrace: flush at exit")
	k.segment(c)
	k.leader(c)
	k.op(c, "mov.u32", r(21), imm(1)) // flags: written
	if k.staged {
		k.op(c, "bra", ptx.Reg("$__pt_header"))
		c.when(1, true)
		k.op(c, "popc.b32", r(4), r(2))
		// A group holding all the warp's lanes is the only one: it needs
		// neither the departure count nor the fences (which would also
		// wait for the program's own outstanding stores); a warp barrier
		// orders the lanes' shared-memory records on sm_70+.
		k.op(c, "shl.b32", r(5), r(16), imm(5))
		k.op(c, "sub.u32", r(5), r(17), r(5))
		k.op(c, "min.u32", r(5), r(5), imm(32))
		k.op(c, "setp.eq.u32", pr(5), r(4), r(5))
		k.op(c, "bra", ptx.Reg("$__pt_whole"))
		c.when(5, false)
		k.op(c, m.fence) // release: this group's records before its departure
		k.op(c, "neg.s32", r(5), r(4))
		k.op(c, "mov.u32", r(6), imm(0))
		k.op(c, "atom.add.u32", r(6), addrOff(a(0), 4), r(5))
		c.when(2, false)
		shfl := ""
		switch {
		case m.sm >= 30 && m.ptxAtLeast(6, 0):
			shfl = "shfl.sync.idx.b32"
		case m.sm >= 30 && m.sm < 70:
			shfl = "shfl.idx.b32"
		}
		if shfl == "" {
			// No shuffle (sm_2x): the leader of the last group copies alone.
			k.op(c, "setp.eq.and.u32", pr(5), r(6), r(4), pr(2))
			k.op(c, "mov.u32", r(9), imm(0))
			k.op(c, "mov.u32", r(4), imm(1))
		} else {
			// Every lane of the last group copies: lane of rank q copies
			// records q, q+n, q+2n, … (n lanes in the group), coalesced.
			k.op(c, "popc.b32", r(9), r(3)) // rank in the group
			k.op(c, "brev.b32", r(3), r(2))
			k.op(c, "bfind.shiftamt.u32", r(3), r(3)) // the leader's lane
			if shfl == "shfl.sync.idx.b32" {
				k.op(c, shfl, r(6), r(6), r(3), imm(31), r(2))
			} else {
				k.op(c, shfl, r(6), r(6), r(3), imm(31))
			}
			k.op(c, "setp.eq.u32", pr(5), r(6), r(4))
		}
		k.op(c, "bra", ptx.Reg("$__pt_done"))
		c.when(5, true)
		k.op(c, m.fence) // acquire: the other groups' records
		k.op(c, "bra", ptx.Reg("$__pt_last"))
		c.label("$__pt_whole")
		if m.sm >= 70 && m.ptxAtLeast(6, 0) {
			k.op(c, "bar.warp.sync", r(2))
		}
		if shfl == "" {
			k.op(c, "mov.u32", r(9), imm(0))
			k.op(c, "mov.u32", r(4), imm(1))
			k.op(c, "bra", ptx.Reg("$__pt_done"))
			c.when(2, true)
		} else {
			k.op(c, "popc.b32", r(9), r(3))
		}
		c.label("$__pt_last")
		k.op(c, "ld.u32", r(7), addrOff(a(0), 0))
		k.op(c, "st.u32", addrOff(a(1), 0), r(7))
		c.when(2, false)
		k.op(c, "min.u32", r(8), r(7), r(22))
		c.label("$__pt_copy")
		k.op(c, "setp.ge.u32", pr(3), r(9), r(8))
		k.op(c, "bra", ptx.Reg("$__pt_copied"))
		c.when(3, false)
		k.madAddr(c, a(2), r(9), manifest.RecordBytes, a(0))
		k.madAddr(c, a(3), r(9), manifest.RecordBytes, a(1))
		k.op(c, "ld.v4.u32", ptx.Vec(r(10), r(11), r(12), r(13)), addrOff(a(2), manifest.SegmentHeaderBytes))
		k.op(c, "st.v4.u32", addrOff(a(3), manifest.SegmentHeaderBytes), ptx.Vec(r(10), r(11), r(12), r(13)))
		k.op(c, "add.u32", r(9), r(9), r(4))
		k.op(c, "bra", ptx.Reg("$__pt_copy"))
		c.label("$__pt_copied")
		k.op(c, "bra", ptx.Reg("$__pt_done"))
		c.when(2, true)
		k.op(c, "mov.u32", r(21), imm(3)) // flags: written, staged
		k.op(c, "bra", ptx.Reg("$__pt_write"))
	}
	c.label("$__pt_header")
	k.op(c, "bra", ptx.Reg("$__pt_done"))
	c.when(2, true)
	c.label("$__pt_write")
	k.op(c, "mov.u32", r(9), sreg("%ctaid.x"))
	k.op(c, "mov.u32", r(10), sreg("%ctaid.y"))
	k.op(c, "mov.u32", r(11), sreg("%ctaid.z"))
	k.op(c, "mov.u32", r(12), sreg("%smid"))
	k.op(c, "mov.u32", r(13), sreg("%warpid"))
	k.op(c, "st.u32", addrOff(a(1), 4), r(9))
	k.op(c, "st.v2.u32", addrOff(a(1), 8), ptx.Vec(r(10), r(11)))
	k.op(c, "st.v4.u32", addrOff(a(1), 16), ptx.Vec(r(16), r(12), r(13), r(21)))
	c.label("$__pt_done")
	k.op(c, "ret")
}

// addParams adds k's parameters (trace buffer, dummy, staging; a
// .func's context) to its header at once, and its .maxnreg.
func (k *kernel) addParams() {
	m := k.m
	bufType := ptx.U64
	if !m.addr64 {
		bufType = ptx.U32
	}
	// The added parameters, spliced into the header at once (AddParam);
	// the .maxnreg goes after the header, which commutes with them.
	params := make([]*ptx.VarDecl, 0, 4) // at most (a .func's four)
	add := func(t ptx.Type, name string) int {
		// One allocation for the declaration and its name.
		pd := &struct {
			v ptx.VarDecl
			d [1]ptx.Declarator
		}{v: ptx.VarDecl{Type: t, TypeName: t.String()}, d: [1]ptx.Declarator{{Name: name, Range: -1}}}
		pd.v.Names = pd.d[:]
		params = append(params, &pd.v)
		return len(k.fn.Params) + len(params) - 1
	}
	if k.isFunc {
		add(bufType, ParamFuncA0)
		add(ptx.U32, ParamFuncLim)
		add(ptx.U32, ParamFuncDummy)
	} else {
		k.paramBuf = add(bufType, ParamBuf)
	}
	if k.useDummy && !k.isFunc {
		k.paramDummy = add(ptx.U32, ParamDummy)
	}
	if k.maxnreg > 0 && !k.isFunc {
		k.fn.AddPerf(&ptx.Directive{Name: ".maxnreg", Args: []ptx.Token{ptx.Tok(ptx.INT, strconv.Itoa(k.maxnreg))}})
	}
	if k.staged && !k.isFunc {
		k.paramStage = add(ptx.U32, ParamStageOff)
		add(ptx.U32, ParamStageRecs)
	}
	k.fn.AddParam(params...)
}

// rewrite inserts the probes, the prologue and the exit block.
func (k *kernel) rewrite() {
	m := k.m
	k.addParams()

	before := map[*ptx.Instruction]code{}
	after := map[*ptx.Instruction]code{}
	// User regions: the end probe (with its fence) and the begin probe.
	for _, u := range k.regions {
		var b code
		k.readTimer(&b, 1)
		k.record(&b, []uint32{u.beginID}, []int{1})
		before[u.beginAt] = append(before[u.beginAt], m.intern(b)...)
		var e code
		if u.mode == manifest.ModeFence {
			k.op(&e, m.fence)
		}
		k.readTimer(&e, 2)
		k.record(&e, []uint32{u.endID}, []int{2})
		e = m.intern(e)
		if u.endBefore {
			// Ends go before begins at the same instruction.
			before[u.endAt] = append(e, before[u.endAt]...)
		} else {
			after[u.endAt] = append(after[u.endAt], e...)
		}
	}
	sites := k.siteCode(after)
	for _, s := range k.sites { // in site order: the first of equal instructions is the one kept
		if w, ok := sites[s.in]; ok && w.lazy.s == nil {
			sites[s.in] = wrap{pre: m.intern(w.pre), post: m.intern(w.post)}
		}
	}

	// The statements the code adds (a laid-out site is two), at most:
	// they size the body's new list (a nested block's grows).
	added := 0
	for _, c := range before {
		added += len(c)
	}
	for _, c := range after {
		added += len(c)
	}
	for _, w := range sites {
		if w.lazy.s != nil {
			added += 2
		} else {
			added += len(w.pre) + len(w.post)
		}
	}
	var fix func(b *ptx.Block, depth int)
	fix = func(b *ptx.Block, depth int) {
		n := len(b.Stmts)
		if depth == 1 {
			n += added
		}
		out := make([]ptx.Stmt, 0, n)
		for _, st := range b.Stmts {
			in, ok := st.(*ptx.Instruction)
			if !ok {
				if blk, ok := st.(*ptx.Block); ok {
					fix(blk, depth+1)
				}
				out = append(out, st)
				continue
			}
			out = append(out, before[in]...)
			w := sites[in]
			if w.lazy.s != nil {
				w = k.layOut(w.lazy, depth)
			}
			out = append(out, w.pre...)
			if isCall(in) && m.traced != nil {
				out = append(out, m.intern(k.passContext(in))...)
			}
			if !k.isFunc && mayExit(in) && (ptx.FactsOf(in).Return || in.Op != nil && in.Op.Name == "exit") {
				// Every exit goes through the flush block.
				br := ptx.NewInstruction("bra", ptx.Reg("$__pt_exit"))
				br.Guard, br.GuardNeg = in.Guard, in.GuardNeg
				// Keep the source position on the replacement so the
				// output-line map and region anchors still find it.
				*in = ptx.Instruction{Guard: br.Guard, GuardNeg: br.GuardNeg, Op: br.Op, Args: br.Args}
			}
			out = append(out, in)
			out = append(out, w.post...)
			out = append(out, after[in]...)
		}
		b.Stmts = out
	}
	fix(k.fn.Body, 1)

	extra, joined, pipe := 0, 0, 0 // the async begin timestamp registers, the joined-site flag, run-time pairing
	for _, pw := range k.pipeWaits {
		if pw.phase {
			pipe |= 2
		} else {
			pipe |= 1
		}
	}
	for _, s := range k.sites {
		if s.async != asyncNone && !seqSite(s.async) {
			extra = 1
		}
		if s.joined {
			joined = 1
		}
	}
	pro, tail := m.sharedCode(k, extra, joined, pipe)
	if m.fast {
		pro, tail = m.laidShared(codeKey{k.isFunc, k.useDummy, k.staged, extra, joined, pipe}, pro, tail)
	}
	// Declarations first: the prologue goes after the kernel's own leading
	// declarations, so that every register it could shadow is declared.
	body := k.fn.Body.Stmts
	i := 0
	for i < len(body) && isDeclOrComment(body[i]) {
		i++
	}
	nb := make([]ptx.Stmt, 0, len(body)+len(pro)+len(tail))
	nb = append(nb, body[:i]...)
	nb = append(nb, pro...)
	nb = append(nb, body[i:]...)
	nb = append(nb, tail...)
	k.fn.Body.Stmts = nb
}

// mayExit reports whether in may be a ret or an exit, before asking its
// facts (only "ret…" has the Return fact): most instructions are not.
func mayExit(in *ptx.Instruction) bool {
	return in.Op == nil || in.Op.Text == "" || in.Op.Name == "exit" || strings.HasPrefix(in.Op.Text, "ret")
}

// codeKey selects the prologue and exit block of a rewritten function:
// they depend on the module's options and on these properties only.
type codeKey struct {
	isFunc, useDummy, staged bool
	extra, joined            int // async sites' registers (siteCode)
	pipe                     int // run-time paired cp.async (bit 0, pipeline.go), TMA (bit 1, tma.go)
}

// sharedCode returns the register declarations with the prologue, and the
// exit block, of k. Functions with the same key share the same statements
// (read-only once built): a module of many kernels holds one copy.
func (m *module) sharedCode(k *kernel, extra, joined, pipe int) (pro, tail code) {
	key := codeKey{k.isFunc, k.useDummy, k.staged, extra, joined, pipe}
	if c, ok := m.shared[key]; ok {
		return c[0], c[1]
	}
	addrType := ptx.B64
	if !m.addr64 {
		addrType = ptx.B32
	}
	pro = append(pro,
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.B32, TypeName: ".b32", Names: []ptx.Declarator{{Name: "%__pt_r", Range: nR32 + extra}}},
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.B64, TypeName: ".b64", Names: []ptx.Declarator{{Name: "%__pt_rd", Range: nR64 + extra}}},
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: addrType, TypeName: addrType.String(), Names: []ptx.Declarator{{Name: "%__pt_a", Range: nAddr}}},
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.Pred, TypeName: ".pred", Names: []ptx.Declarator{{Name: "%__pt_p", Range: nPred + joined}}},
	)
	if pipe&1 != 0 {
		pro = append(pro, k.pipeDecls()...)
	}
	if pipe&2 != 0 {
		pro = append(pro, phaseDecls()...)
	}
	if k.isFunc {
		k.funcPrologue(&pro)
	} else {
		k.prologue(&pro)
		if joined > 0 {
			k.op(&pro, "mov.pred", pr(7), imm(0)) // no joined async site begun
		}
		if pipe&1 != 0 {
			k.op(&pro, "mov.u32", q(0), imm(0)) // no cp.async group committed
		}
		k.flush(&tail)
	}
	if m.shared == nil {
		m.shared = map[codeKey][2]code{}
	}
	pro, tail = m.intern(pro), m.intern(tail)
	m.shared[key] = [2]code{pro, tail}
	return pro, tail
}

// intern replaces each generated instruction of c by the module's first
// instruction with the same text, and gives new ones the module's opcode
// of their spelling: generated code repeats the same few instructions at
// every site, and a large module would otherwise hold one copy per site.
// Generated statements are read-only once inserted.
func (m *module) intern(c code) code {
	if m.insts == nil {
		m.insts = map[string]*ptx.Instruction{}
	}
	if m.opcodes == nil {
		m.opcodes = map[string]*ptx.Opcode{}
	}
	var key []byte
	for i, st := range c {
		in, ok := st.(*ptx.Instruction)
		if !ok || in.Op == nil {
			continue
		}
		key = appendInstKey(key[:0], in)
		if x, ok := m.insts[string(key)]; ok {
			c[i] = x
			continue
		}
		if op, ok := m.opcodes[in.Op.Text]; ok {
			in.Op = op
		} else {
			m.opcodes[in.Op.Text] = in.Op
		}
		in.Freeze()
		m.insts[string(key)] = in
	}
	return c
}

// appendInstKey appends a key that identifies in's guard, opcode and
// operands.
func appendInstKey(b []byte, in *ptx.Instruction) []byte {
	if in.GuardNeg {
		b = append(b, '!')
	}
	b = append(b, in.Guard...)
	b = append(b, 0)
	b = append(b, in.Op.Text...)
	for i := range in.Args {
		b = appendOperandKey(b, &in.Args[i])
	}
	return b
}

func appendOperandKey(b []byte, o *ptx.Operand) []byte {
	b = append(b, 0, byte(o.Kind))
	b = append(b, o.Name...)
	b = append(b, 0)
	b = append(b, o.Name2...)
	b = append(b, 0)
	b = strconv.AppendInt(b, o.Offset, 10)
	for _, t := range o.Expr {
		b = append(b, 1)
		b = append(b, t.Text...)
	}
	b = append(b, '(')
	for i := range o.Elems {
		b = appendOperandKey(b, &o.Elems[i])
	}
	return append(b, ')')
}

// wrap is the probe code around one site: before and after its access,
// or (lazy) a load site whose code fix lays out from a template
// (fastpath.go).
type wrap struct {
	pre, post code
	lazy      lazySite
}

// siteCode builds the probe code of every site; an async site's end code
// goes into after, at its wait.
func (k *kernel) siteCode(after map[*ptx.Instruction]code) map[*ptx.Instruction]wrap {
	m := k.m
	sites := make(map[*ptx.Instruction]wrap, len(k.sites))
	groups := k.siteGroups()
	for _, s := range k.sites {
		var w wrap
		if seqSite(s.async) {
			continue // pipeCode
		}
		if s.async != asyncNone {
			// begin before the copy, end and records after its wait
			k.readTimer(&w.pre, 3)
			var e code
			k.readTimer(&e, 2)
			skip := fmt.Sprintf("$__pt_async%d", s.beginID)
			if s.joined {
				k.op(&w.pre, "mov.pred", pr(7), imm(1))
				k.op(&e, "bra", sreg(skip))
				e.when(7, true)
			}
			k.record(&e, []uint32{s.beginID, s.endID}, []int{3, 2})
			if s.joined {
				k.op(&e, "mov.pred", pr(7), imm(0))
				e.label(skip)
			}
			if s.waitAt == s.in {
				w.post = e
			} else {
				after[s.waitAt] = append(after[s.waitAt], m.intern(e)...)
			}
			sites[s.in] = w
			continue
		}
		g, grouped := groups[s.in]
		if m.fast {
			// Laid out at its depth by fix (fastpath.go).
			sites[s.in] = wrap{lazy: lazySite{s: s, g: g, grouped: grouped}}
			continue
		}
		sites[s.in] = k.loadCode(s, g, grouped)
	}
	k.pipeCode(sites, after)
	return sites
}

// loadCode is the probe code of a load site (not an async copy), in
// group position g when grouped.
func (k *kernel) loadCode(s *site, g groupPos, grouped bool) wrap {
	m := k.m
	var w wrap
	early := !grouped && s.mode != manifest.ModeNaive
	if early {
		k.reserveSetup(&w.pre, r(1)) // records.go: before the begin read
	}
	k.readTimer(&w.pre, 1)
	if grouped {
		k.groupedSite(&w.pre, &w.post, s, g)
		return w
	}
	switch s.mode {
	case manifest.ModeFence:
		k.op(&w.post, m.fence)
	case manifest.ModeDummy:
		k.dummy(&w.post, s.elems)
	}
	k.readTimer(&w.post, 2)
	ids, slots := []uint32{s.beginID, s.endID}, []int{1, 2}
	if early {
		k.reserveAtomic(&w.post, r(1), len(ids))
		k.storeRecords(&w.post, ids, slots)
	} else {
		k.record(&w.post, ids, slots)
	}
	return w
}

func isDeclOrComment(s ptx.Stmt) bool {
	switch s.(type) {
	case *ptx.VarDecl, *ptx.Comment:
		return true
	}
	return false
}

// groupPos is a dummy-probed site's place in its group: the sites of one
// straight-line stretch of code, which the same lanes execute together.
type groupPos struct {
	index, size int
}

// siteGroups groups the dummy-probed sites (a consumer, no fence) that
// follow each other with no label, branch, call, return, exit, barrier,
// warp-synchronous instruction or user region boundary between them: the lanes that run the first
// run them all, together, so one atomic reserves the records of the whole
// group (2 per site) in the first site's probe.
func (k *kernel) siteGroups() map[*ptx.Instruction]groupPos {
	fast := map[*ptx.Instruction]bool{}
	regionAt := map[*ptx.Instruction]bool{} // user region boundaries
	out := map[*ptx.Instruction]groupPos{}
	for _, u := range k.regions {
		regionAt[u.beginAt], regionAt[u.endAt] = true, true
	}
	for _, s := range k.sites {
		// Fence probes and shared loads (which complete in about the time
		// the probe's own atomic and record stores hold the shared-memory
		// pipeline) keep all their probe work after the end read. Their
		// records take later slots than a surrounding group's, which is
		// harmless: a load region's two records are adjacent whatever
		// their place, so pairing and nesting are unchanged.
		if s.mode == manifest.ModeDummy && len(s.elems) > 0 && s.space != "shared" {
			fast[s.in] = true
		}
	}
	var cur []*ptx.Instruction
	end := func() {
		for i, in := range cur {
			out[in] = groupPos{index: i, size: len(cur)}
		}
		cur = cur[:0]
	}
	var walk func(b *ptx.Block)
	walk = func(b *ptx.Block) {
		for _, st := range b.Stmts {
			switch st := st.(type) {
			case *ptx.Label:
				end()
			case *ptx.Block:
				end()
				walk(st)
				end()
			case *ptx.Instruction:
				if regionAt[st] {
					// A user region's record in between would take a
					// later slot than the group's loads executed after it:
					// the buffer's order would no longer nest the loads
					// inside it.
					end()
				}
				if fast[st] {
					cur = append(cur, st)
				}
				if breaksGroup(st, k.m.factsOf(st)) || regionAt[st] {
					end()
				}
			}
		}
	}
	walk(k.fn.Body)
	end()
	return out
}

// breaksGroup: after this instruction the lanes that execute the next one
// may differ (control flow, a thread that stops) or regroup (barriers,
// warp-synchronous collectives, which reconverge diverged lanes on sm_70+).
func breaksGroup(in *ptx.Instruction, fx ptx.Facts) bool {
	if in.Op == nil {
		return true
	}
	return !fx.Known || fx.Branch || fx.Call || fx.Return || fx.Exit || fx.EndsBlock ||
		fx.Barrier || fx.Sync || fx.Wait || in.Op.Name == "activemask"
}

// groupedSite emits the probe of a grouped dummy site: the first site of a
// group reserves the group's records (2 per site) before its begin read,
// into r23, and addresses its own records after the end read; a later
// site addresses its records before its begin read (r23 is ready by then:
// the first site's stores waited for it). So the timed interval holds only
// the begin read, the access, the consumer and the end read, and the
// atomic the first site issues before its begin read is the only
// instruction of the probe in flight during it (nothing in the interval
// waits for it); after completion a later site has only its end read and
// two stores to execute before the program goes on.
func (k *kernel) groupedSite(pre, post *code, s *site, g groupPos) {
	var head code
	var offs [2]int64
	var ok [2]bool
	addrs := [2]ptx.Operand{a(2), a(4)}
	preds := [2]int{3, 6}
	address := func(c *code) {
		for i := range offs {
			offs[i], ok[i] = k.recordAddr(c, r(23), 2*g.index+i, addrs[i], preds[i])
		}
	}
	if g.index == 0 {
		k.reserve(&head, r(23), 2*g.size)
	} else {
		address(&head)
	}
	*pre = append(head, *pre...)
	k.dummy(post, s.elems)
	k.readTimer(post, 2)
	if g.index == 0 {
		address(post)
	}
	ids := [2]uint32{s.beginID, s.endID}
	for i := range offs {
		if ok[i] {
			k.storeAt(post, addrs[i], offs[i], preds[i], ids[i], 1+i)
		}
	}
}
