package instrument

import (
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Run-time pairing of cp.async pipelines (probe mode group_seq).
//
// A cp.async whose covering wait does not follow it in straight-line code
// (asyncWait finds none: a multi-stage pipeline issues stage k+S−1 in
// iteration k and waits for it with cp.async.wait_group S−2 iterations
// later) is still a site when its kernel qualifies (pipelineOK). Its begin
// timer read goes immediately before the copy and its begin record right
// after it, carrying in the record's sink word (docs/buffer.md) the
// thread's group sequence number: %__pt_q0, the number of
// cp.async.commit_group it executed so far (zeroed in the prologue,
// incremented after every commit_group of the kernel). Every
// cp.async.wait_group N of the kernel gets an end read and an end record
// right after it carrying k = max(commits − N, 0): by the PTX ISA, after
// wait_group N every group but the N most recent committed is complete, so
// the copy of group g is complete at the first wait with k > g. A
// cp.async.wait_all is a commit_group followed by wait_group 0 (PTX ISA):
// it counts as a commit, and its record carries the new count. The decoder pairs them (package
// trace): one region per copy, from its issue to the first covering wait's
// exit. The begin is per copy (not per group) so that the begin read sits
// next to the copy whatever the code between a group's copies and its
// commit (predicated blocks, labels), and so that every copy's issue is
// timed. Records are written by the warp's lowest active lane: pairing is
// per warp, exact when a warp's lanes commit and wait together (as
// compiled pipelines do; the model counts groups per warp too).
//
// A kernel qualifies when it calls nothing (a callee's commit_group would
// not be counted) and none of its commit_group/wait_group/wait_all is
// guarded (a wait that does not execute must not record): otherwise its
// pipelined copies are not probed, as before.

// asyncGroupSeq is the site kind of a run-time paired cp.async.
const asyncGroupSeq = 3

// pipeWait is one cp.async wait of a kernel with run-time paired sites:
// its end probe.
type pipeWait struct {
	in     *ptx.Instruction // the end probe goes after it
	keep   int64            // N of wait_group N; -1 for wait_all
	phase  bool             // an mbarrier wait loop (tma.go): in is its branch
	wait   *ptx.Instruction // phase: the loop's try_wait/test_wait
	id     uint32
	line   int
	text   string
	loc    ptx.Loc
	hasLoc bool
}

// pipelineOK reports whether k's cp.async pipelines can be paired at run
// time (see above): a kernel with no call and no guarded commit or wait.
func (k *kernel) pipelineOK(stmts []ptx.Stmt) bool {
	return k.pairable(stmts, func(in *ptx.Instruction, fx ptx.Facts) bool {
		switch fx.Name {
		case "cp.async.commit_group", "cp.async.wait_all":
			return in.Guard == ""
		case "cp.async.wait_group":
			_, ok := immArg(in)
			return in.Guard == "" && ok
		}
		return true
	})
}

// pairable reports whether k's body can take probes paired at run time
// (cp.async groups, mbarrier phases): k is a kernel, not a .func, it calls
// nothing, and accept holds for every instruction.
func (k *kernel) pairable(stmts []ptx.Stmt, accept func(*ptx.Instruction, ptx.Facts) bool) bool {
	if k.isFunc {
		return false
	}
	for _, st := range stmts {
		in, ok := st.(*ptx.Instruction)
		if !ok || in.Op == nil {
			continue
		}
		fx := ptx.FactsOf(in)
		if fx.Call || !accept(in, fx) {
			return false
		}
	}
	return true
}

// collectWaits lists the cp.async waits of k's body (after the run-time
// paired sites are known).
func (k *kernel) collectWaits(stmts []ptx.Stmt, at map[*ptx.Instruction]instLoc) {
	for _, st := range stmts {
		in, ok := st.(*ptx.Instruction)
		if !ok || in.Op == nil {
			continue
		}
		var keep int64
		switch ptx.FactsOf(in).Name {
		case "cp.async.wait_group":
			keep, _ = immArg(in)
		case "cp.async.wait_all":
			keep = -1
		default:
			continue
		}
		il := at[in]
		wl, wh := il.where()
		k.pipeWaits = append(k.pipeWaits, &pipeWait{in: in, keep: keep, line: il.line, text: k.m.text(in), loc: wl, hasLoc: wh})
	}
}

// pipeRegs are the registers of run-time pairing (declared only in a
// kernel with such sites): %__pt_q0 the commit count, %__pt_q1 a record's
// tag, %__pt_qd0 a record's first word (id | tag<<32) with a 64-bit timer.
func (k *kernel) pipeDecls() []ptx.Stmt {
	return []ptx.Stmt{
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.B32, TypeName: ".b32", Names: []ptx.Declarator{{Name: "%__pt_q", Range: 2}}},
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.B64, TypeName: ".b64", Names: []ptx.Declarator{{Name: "%__pt_qd", Range: 1}}},
	}
}

func q(i int) ptx.Operand { return ptx.Reg("%__pt_q" + string(rune('0'+i))) }

var qd0 = ptx.Reg("%__pt_qd0")

// recordTagged writes one record (id, timestamp slot) whose sink word is
// the value of register tag (wide: a 64-bit scratch register): the leader
// lane reserves the slot and stores.
func (k *kernel) recordTagged(c *code, id uint32, slot int, tag, wide ptx.Operand) {
	k.reserve(c, r(1), 1)
	off, ok := k.recordAddr(c, r(1), 0, a(2), 3)
	if !ok {
		return
	}
	if k.m.opts.Timer == manifest.TimerClock {
		k.op(c, "st.v4.u32", addrOff(a(2), off), ptx.Vec(imm(int64(id)), tag, clockReg(slot), imm(0)))
	} else {
		k.op(c, "cvt.u64.u32", wide, tag)
		k.op(c, "shl.b64", wide, wide, imm(32))
		k.op(c, "or.b64", wide, wide, imm(int64(id)))
		k.op(c, "st.v2.u64", addrOff(a(2), off), ptx.Vec(wide, rd(slot)))
	}
	c.when(3, false)
}

// pipeCode adds the run-time pairing code of k: the begin record after
// each run-time paired copy (w.post; the begin read is w.pre), the commit
// count after each commit_group, and the end read and record after each
// wait.
func (k *kernel) pipeCode(sites map[*ptx.Instruction]wrap, after map[*ptx.Instruction]code) {
	if len(k.pipeWaits) == 0 {
		return
	}
	k.phaseCode(sites, after)
	m := k.m
	for _, s := range k.sites {
		if s.async != asyncGroupSeq {
			continue
		}
		var w wrap
		k.readTimer(&w.pre, 1)
		k.recordTagged(&w.post, s.beginID, 1, q(0), qd0)
		sites[s.in] = w
	}
	for _, st := range flatStmts(k.fn.Body, nil) {
		in, ok := st.(*ptx.Instruction)
		if ok && in.Op != nil && ptx.FactsOf(in).Name == "cp.async.commit_group" {
			var c code
			k.op(&c, "add.u32", q(0), q(0), imm(1))
			after[in] = append(after[in], m.intern(c)...)
		}
	}
	for _, pw := range k.pipeWaits {
		if pw.phase {
			continue // phaseCode
		}
		var c code
		k.readTimer(&c, 2)
		if pw.keep < 0 {
			// wait_all = commit_group + wait_group 0 (PTX ISA)
			k.op(&c, "add.u32", q(0), q(0), imm(1))
			k.op(&c, "mov.u32", q(1), q(0))
		} else {
			k.op(&c, "sub.s32", q(1), q(0), imm(pw.keep))
			k.op(&c, "max.s32", q(1), q(1), imm(0))
		}
		k.recordTagged(&c, pw.id, 2, q(1), qd0)
		after[pw.in] = append(after[pw.in], m.intern(c)...)
	}
}

// pipeProbes appends the end probes of k's waits: each may close any of
// the kernel's run-time paired regions of its kind (group_seq: cp.async,
// phase_seq: TMA and bulk copies).
func (k *kernel) pipeProbes(dst []manifest.Probe) []manifest.Probe {
	closes := map[bool][]int{}
	for _, s := range k.sites {
		if seqSite(s.async) {
			ph := s.async == asyncPhaseSeq
			closes[ph] = append(closes[ph], s.region)
		}
	}
	for _, pw := range k.pipeWaits {
		cl := closes[pw.phase]
		if len(cl) == 0 {
			continue
		}
		p := manifest.Probe{ID: pw.id, Kernel: k.fn.Name, Kind: manifest.KindEnd, Region: cl[0], Closes: cl,
			RegionKind: manifest.RegionLoad, Mode: phaseMode(pw.phase), Space: "global", Line: pw.line, Text: pw.text,
			OutLine: k.outLine[pw.anchor()]}
		k.locOf(&p, pw.loc, pw.hasLoc)
		dst = append(dst, p)
	}
	return dst
}

// anchor is the instruction a wait's probe describes (its text and output
// line): the wait itself, not the branch of a wait loop.
func (pw *pipeWait) anchor() *ptx.Instruction {
	if pw.wait != nil {
		return pw.wait
	}
	return pw.in
}
