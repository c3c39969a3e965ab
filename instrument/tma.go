package instrument

import (
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Run-time pairing of TMA and bulk copies with mbarrier phases (probe mode
// phase_seq, manifest 1.3).
//
// A cp.async.bulk{.tensor} global→shared with .mbarrier::complete_tx whose
// wait loop does not follow it in straight-line code (asyncWait finds none:
// a multi-stage TMA pipeline fills stage s and waits on its barrier
// iterations later) is a site when its kernel qualifies (phaseOK). Its
// begin timer read goes immediately before the copy; after it, the lanes
// that executed the copy (its guard, if any, skips the others) write the
// begin record whose sink word (docs/buffer.md) is the shared address of
// the copy's mbarrier. Every wait loop of the kernel
// ("L: mbarrier.{try,test}_wait.parity… P, [bar], parity; @!P bra L;")
// gets an end read and an end record after the branch — the loop's exit,
// where the thread has observed the phase of that parity complete — whose
// sink is the barrier's shared address with the parity in bit 0 (mbarrier
// objects are 8-byte aligned, so the bit is free).
//
// By the PTX ISA a copy's complete_tx counts toward the barrier phase
// current when the transaction completes; a correct program issues it in
// the phase it arms (expect_tx) and waits for that phase with its parity:
// a wait with the other parity tests the preceding phase and returns at
// once, so the first wait on the barrier with the phase's parity executed
// after the copy is the one that observes the copy's phase complete. The
// decoder (package trace) pairs per warp: it takes the copy's phase parity
// as the one after the last phase the warp observed complete on that
// barrier (0 before any: init starts phase 0) and closes the copy at the
// warp's first later wait on the barrier with that parity. That is exact
// when the warp that issues a barrier's copies waits on every phase of it
// before arming the next (the single-warpgroup mainloop: wgmmagemm); a
// warp that issues copies but never waits on their barrier (a
// warp-specialised producer) leaves them unmatched, never mispaired, and a
// wait that sees again the parity the warp last observed while copies of
// the other parity are open on the barrier (the warp skipped a phase) is
// reported and closes nothing.
//
// A kernel qualifies when it calls nothing and every mbarrier
// test_wait/try_wait of it is such an unguarded .parity loop on a shared
// (or generic) address: a wait whose exit is not recorded could observe a
// copy's phase unseen and let a later wait close it.

// asyncPhaseSeq is the site kind of a run-time paired TMA or bulk copy.
const asyncPhaseSeq = 4

// seqSite reports whether a site kind is paired at run time (its end
// probes are the waits').
func seqSite(kind int) bool { return kind == asyncGroupSeq || kind == asyncPhaseSeq }

// phaseOK reports whether k's TMA pipelines can be paired at run time.
func (k *kernel) phaseOK(stmts []ptx.Stmt) bool {
	if k.isFunc {
		return false
	}
	loops := map[*ptx.Instruction]bool{}
	for j, st := range stmts {
		if l, ok := st.(*ptx.Label); ok {
			if br := waitLoop(stmts, j, l.Name); br != nil {
				w := stmts[j+1].(*ptx.Instruction)
				if phaseWaitOK(w) {
					loops[w] = true
				}
			}
		}
	}
	return k.pairable(stmts, func(in *ptx.Instruction, fx ptx.Facts) bool {
		return (fx.Name != "mbarrier.try_wait" && fx.Name != "mbarrier.test_wait") || loops[in]
	})
}

// phaseWaitOK reports whether the wait w of a wait loop can be recorded:
// .parity, on a shared or generic address (register or symbol), with a
// register or immediate parity.
func phaseWaitOK(w *ptx.Instruction) bool {
	parity := false
	for _, m := range w.Op.Mods {
		if m == ".parity" {
			parity = true
		}
	}
	if !parity || len(w.Args) != 3 || w.Args[1].Kind != ptx.OpAddr {
		return false
	}
	switch w.Op.Space {
	case ptx.SpaceShared, ptx.SpaceNone, ptx.SpaceGeneric:
	default:
		return false
	}
	return w.Args[2].Kind == ptx.OpReg || w.Args[2].Kind == ptx.OpImm
}

// collectPhaseWaits lists the wait loops of k's body (after the run-time
// paired TMA sites are known).
func (k *kernel) collectPhaseWaits(stmts []ptx.Stmt, at map[*ptx.Instruction]instLoc) {
	for j, st := range stmts {
		l, ok := st.(*ptx.Label)
		if !ok {
			continue
		}
		br := waitLoop(stmts, j, l.Name)
		if br == nil {
			continue
		}
		w := stmts[j+1].(*ptx.Instruction)
		il := at[w]
		wl, wh := il.where()
		k.pipeWaits = append(k.pipeWaits, &pipeWait{in: br, wait: w, phase: true, line: il.line, text: k.m.text(w), loc: wl, hasLoc: wh})
	}
}

// regBits is the declared width in bits of register name in k (0 when
// not found).
func (k *kernel) regBits(name string) int {
	var find func(b *ptx.Block) int
	find = func(b *ptx.Block) int {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ptx.Block:
				if n := find(s); n != 0 {
					return n
				}
			case *ptx.VarDecl:
				if s.Space != ptx.SpaceReg {
					continue
				}
				for _, d := range s.Names {
					if d.Name == name && d.Range < 0 {
						return 8 * s.Type.Size()
					}
					if d.Range > 0 && strings.HasPrefix(name, d.Name) {
						if n, err := strconv.Atoi(name[len(d.Name):]); err == nil && n >= 0 && n < d.Range {
							return 8 * s.Type.Size()
						}
					}
				}
			}
		}
		return 0
	}
	return find(k.fn.Body)
}

var md0 = ptx.Reg("%__pt_md0")

// m32 is a 32-bit register of phase pairing.
func m32(i int) ptx.Operand { return ptx.Reg("%__pt_m" + strconv.Itoa(i)) }

// phaseDecls are the registers of phase pairing: %__pt_m0 a record's tag,
// %__pt_m1 scratch, %__pt_md0 a generic address.
func phaseDecls() []ptx.Stmt {
	return []ptx.Stmt{
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.B32, TypeName: ".b32", Names: []ptx.Declarator{{Name: "%__pt_m", Range: 2}}},
		&ptx.VarDecl{Space: ptx.SpaceReg, Type: ptx.B64, TypeName: ".b64", Names: []ptx.Declarator{{Name: "%__pt_md", Range: 1}}},
	}
}

// barAddr computes into %__pt_m0 the 32-bit shared address of the mbarrier
// operand op (generic: converted to shared); false when it cannot.
func (k *kernel) barAddr(c *code, op ptx.Operand, generic bool) bool {
	if op.Kind != ptx.OpAddr || op.Name == "" {
		return false
	}
	base := sreg(op.Name)
	switch {
	case !strings.HasPrefix(op.Name, "%"): // a symbol
		if generic {
			return false
		}
		k.op(c, "mov.u32", m32(0), base)
	case generic:
		if k.regBits(op.Name) != 64 {
			return false
		}
		k.op(c, "cvta.to.shared.u64", md0, base)
		k.op(c, "cvt.u32.u64", m32(0), md0)
	default:
		switch k.regBits(op.Name) {
		case 32:
			k.op(c, "mov.u32", m32(0), base)
		case 64:
			k.op(c, "cvt.u32.u64", m32(0), base)
		default:
			return false
		}
	}
	if op.Offset != 0 {
		k.op(c, "add.u32", m32(0), m32(0), imm(op.Offset))
	}
	return true
}

// phaseCode adds the phase pairing code of k: the begin record after each
// run-time paired TMA copy (by the lanes that executed it), the end read
// and record after each wait loop.
func (k *kernel) phaseCode(sites map[*ptx.Instruction]wrap, after map[*ptx.Instruction]code) {
	m := k.m
	for _, s := range k.sites {
		if s.async != asyncPhaseSeq {
			continue
		}
		var w wrap
		k.readTimer(&w.pre, 1)
		skip := "$__pt_phase" + strconv.Itoa(int(s.beginID))
		if s.in.Guard != "" {
			br := k.op(&w.post, "bra", sreg(skip))
			br.Guard, br.GuardNeg = s.in.Guard, !s.in.GuardNeg
		}
		k.barAddr(&w.post, s.in.Args[len(s.in.Args)-1], false)
		k.recordTagged(&w.post, s.beginID, 1, m32(0), md0)
		if s.in.Guard != "" {
			w.post.label(skip)
		}
		sites[s.in] = w
	}
	for _, pw := range k.pipeWaits {
		if !pw.phase {
			continue
		}
		var c code
		k.readTimer(&c, 2)
		k.barAddr(&c, pw.wait.Args[1], pw.wait.Op.Space != ptx.SpaceShared)
		k.op(&c, "and.b32", m32(1), pw.wait.Args[2], imm(1))
		k.op(&c, "or.b32", m32(0), m32(0), m32(1))
		k.recordTagged(&c, pw.id, 2, m32(0), md0)
		after[pw.in] = append(after[pw.in], m.intern(c)...)
	}
}

// phaseSiteOK reports whether the TMA copy in can be paired at run time:
// its mbarrier address is computable (barAddr).
func (k *kernel) phaseSiteOK(in *ptx.Instruction) bool {
	var c code
	return len(in.Args) > 0 && k.barAddr(&c, in.Args[len(in.Args)-1], false)
}

// phaseWaitsOK reports whether every wait loop's barrier address is
// computable.
func (k *kernel) phaseWaitsOK(stmts []ptx.Stmt) bool {
	for j, st := range stmts {
		if l, ok := st.(*ptx.Label); ok && waitLoop(stmts, j, l.Name) != nil {
			w := stmts[j+1].(*ptx.Instruction)
			var c code
			if !k.barAddr(&c, w.Args[1], w.Op.Space != ptx.SpaceShared) {
				return false
			}
		}
	}
	return true
}

// phaseMode is the manifest mode of the waits' end probes.
func phaseMode(phase bool) string {
	if phase {
		return manifest.ModePhaseSeq
	}
	return manifest.ModeGroupSeq
}

// needPhase reports whether some TMA or bulk copy of stmts has no wait
// loop on its barrier after it in straight-line code (asyncWait): only
// then are k's copies paired at run time.
func (k *kernel) needPhase(stmts []ptx.Stmt) bool {
	for i, st := range stmts {
		in, ok := st.(*ptx.Instruction)
		if !ok || asyncKind(in, ptx.FactsOf(in)) != asyncMbarrier {
			continue
		}
		if w, joined := asyncWait(stmts, i, asyncMbarrier); w == nil || joined && k.isFunc {
			return true
		}
	}
	return false
}
