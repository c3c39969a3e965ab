package instrument

import (
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Asynchronous copies (cp.async, cp.async.bulk, cp.async.bulk.tensor)
// complete after they issue; the program observes completion where it
// waits for them. An async site is timed from its issue to that wait: the
// begin timer read goes immediately before the copy, the end timer read
// (and the region's two records) immediately after the wait —
//
//   - cp.async (non-bulk): the cp.async.wait_group N / cp.async.wait_all
//     that covers the copy's group: at least N+1 cp.async.commit_group
//     (wait_all: any number) between the copy and the wait (probe mode
//     wait_group);
//   - cp.async.bulk{.tensor} global→shared with .mbarrier::complete_tx:
//     the exit of the try_wait/test_wait loop that follows it
//     ("L: mbarrier.try_wait… P, …; @!P bra L;", the end read after the
//     branch) when it waits on the copy's mbarrier — the same address
//     operand, not rewritten between, or addresses of equal value by
//     symVal (mov/cvta/add of symbols and immediates in one stretch of
//     code) — (probe mode mbarrier); a loop on another barrier, or one not
//     known to be the same, ends the search: no site.
//
// The copy's path must fall through to the wait (no branch, call, return
// or exit between them) and no other copy of the same kind may come
// between. Labels may (a copy issued by one thread in an if-block whose
// end joins the others before the wait, as nvcc compiles "if (tid == 0)
// { expect_tx; TMA }"): the site is then joined — the begin probe also
// sets a per-thread flag (%__pt_p7, false from the kernel's prologue on),
// and only the threads that have it record the region and clear it, so a
// thread that reaches the wait without the copy records nothing (joined
// sites only in kernels, not in .func bodies). Of several copies
// issued before one wait, the last is the site (its region then also
// spans the earlier copies' completion when they complete later; the wait
// observes the group, not one copy). A copy whose wait is not found so is
// not probed (a multi-stage pipeline whose wait_group N > 0 sits in a later
// loop iteration) is paired at run time instead when its kernel allows
// (probe mode group_seq, pipeline.go). In naive mode the end read follows
// the copy itself (and pipelined copies are not probed).
//
// The begin timestamp is kept in a register of its own (%__pt_rd3, or
// %__pt_r24 with the 32-bit clock), since load sites between the copy and
// the wait use the load probes' registers.

// async site kinds (site.async)
const (
	asyncNone = iota
	asyncGroup
	asyncMbarrier
	// asyncGroupSeq (pipeline.go) = 3, asyncPhaseSeq (tma.go) = 4
)

// asyncKind classifies a copy instruction an async site can be built on.
func asyncKind(in *ptx.Instruction, fx ptx.Facts) int {
	if in.Op == nil || fx.Mem != ptx.MemAsyncCopy || fx.SrcSpace != ptx.SpaceGlobal {
		return asyncNone
	}
	switch fx.Name {
	case "cp.async":
		return asyncGroup
	case "cp.async.bulk", "cp.async.bulk.tensor":
		for _, m := range in.Op.Mods {
			if m == ".mbarrier::complete_tx::bytes" {
				return asyncMbarrier
			}
		}
	}
	return asyncNone
}

// flatStmts lists the labels and instructions of b in textual order,
// nested blocks included.
func flatStmts(b *ptx.Block, dst []ptx.Stmt) []ptx.Stmt {
	if dst == nil {
		dst = make([]ptx.Stmt, 0, countFlat(b))
	}
	return flatStmtsTo(b, dst)
}

// countFlat counts the statements flatStmts lists.
func countFlat(b *ptx.Block) int {
	n := 0
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			n += countFlat(s)
		case *ptx.Label, *ptx.Instruction:
			n++
		}
	}
	return n
}

func flatStmtsTo(b *ptx.Block, dst []ptx.Stmt) []ptx.Stmt {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			dst = flatStmtsTo(s, dst)
		case *ptx.Label, *ptx.Instruction:
			dst = append(dst, s)
		}
	}
	return dst
}

// asyncWait returns the instruction after which the end probe of the copy
// at stmts[i] goes, or nil when its wait is not found: the copy's path must
// fall through to it with no branch, call, return or exit between; joined
// says a label lies between (other paths may reach the wait without
// executing the copy).
func asyncWait(stmts []ptx.Stmt, i, kind int) (wait *ptx.Instruction, joined bool) {
	commits := 0
	for j := i + 1; j < len(stmts); j++ {
		if l, ok := stmts[j].(*ptx.Label); ok {
			if kind == asyncMbarrier {
				if br := waitLoop(stmts, j, l.Name); br != nil {
					if !sameBarrier(stmts, i, j+1) {
						return nil, false // it waits on another mbarrier
					}
					return br, joined
				}
			}
			joined = true
			continue
		}
		in := stmts[j].(*ptx.Instruction)
		if in.Op == nil {
			return nil, false
		}
		fx := ptx.FactsOf(in)
		if asyncKind(in, fx) == kind {
			return nil, false // a later copy is the site
		}
		if fx.Branch || fx.Call || fx.Return || fx.Exit || fx.EndsBlock {
			return nil, false
		}
		switch fx.Name {
		case "cp.async.commit_group":
			commits++
		case "cp.async.wait_all":
			if kind == asyncGroup {
				return in, joined
			}
		case "cp.async.wait_group":
			if kind != asyncGroup {
				continue
			}
			n, ok := immArg(in)
			if !ok || int64(commits) < n+1 {
				return nil, false // the copy's group may still be pending after it
			}
			return in, joined
		case "mbarrier.try_wait", "mbarrier.test_wait":
			if kind == asyncMbarrier {
				return nil, false // a wait outside a loop
			}
		}
	}
	return nil, false
}

// waitLoop matches "L: mbarrier.{try,test}_wait… P, …; @!P bra L;" at
// stmts[j] (the label L) and returns the branch.
func waitLoop(stmts []ptx.Stmt, j int, label string) *ptx.Instruction {
	if j+2 >= len(stmts) {
		return nil
	}
	w, ok1 := stmts[j+1].(*ptx.Instruction)
	br, ok2 := stmts[j+2].(*ptx.Instruction)
	if !ok1 || !ok2 || w.Op == nil || br.Op == nil || len(w.Args) < 1 || len(br.Args) != 1 {
		return nil
	}
	name := ptx.FactsOf(w).Name
	if name != "mbarrier.try_wait" && name != "mbarrier.test_wait" || w.Guard != "" {
		return nil
	}
	if ptx.FactsOf(br).Name != "bra" || !br.GuardNeg || br.Guard != w.Args[0].Name || br.Args[0].Name != label {
		return nil
	}
	return br
}

// sameBarrier reports whether the wait at stmts[w] is on the mbarrier the
// copy at stmts[c] signals: the same address operand whose base register
// no instruction between them writes, or two address operands whose values
// symVal computes equal.
func sameBarrier(stmts []ptx.Stmt, c, w int) bool {
	cp, wt := stmts[c].(*ptx.Instruction), stmts[w].(*ptx.Instruction)
	if len(cp.Args) == 0 || len(wt.Args) < 3 {
		return false
	}
	mb, wa := cp.Args[len(cp.Args)-1], wt.Args[1]
	if mb.Kind != ptx.OpAddr || wa.Kind != ptx.OpAddr || mb.Offset != wa.Offset {
		return false
	}
	if mb.Name == wa.Name {
		written := false
		for j := c + 1; j < w; j++ {
			if in, ok := stmts[j].(*ptx.Instruction); ok && len(in.Args) > 0 && in.Args[0].Kind == ptx.OpReg && in.Args[0].Name == mb.Name {
				written = true
			}
		}
		if !written {
			return true
		}
	}
	a, b := symVal(stmts, c, mb.Name, 4), symVal(stmts, w-1, wa.Name, 4) // w-1: the loop label
	return a != "" && a == b
}

// symVal is a canonical text of the value register (or symbol) name holds
// at stmts[at], from its nearest preceding definition in the same
// straight-line stretch (no label between) by an unguarded mov, cvta or
// add of symbols, immediates and such registers; "" when unknown.
func symVal(stmts []ptx.Stmt, at int, name string, depth int) string {
	if !strings.HasPrefix(name, "%") {
		return name // a symbol
	}
	if depth == 0 {
		return ""
	}
	for j := at - 1; j >= 0; j-- {
		in, ok := stmts[j].(*ptx.Instruction)
		if !ok {
			return "" // a label: other definitions may reach
		}
		if in.Op == nil || len(in.Args) == 0 || in.Args[0].Kind != ptx.OpReg || in.Args[0].Name != name {
			continue
		}
		if in.Guard != "" {
			return ""
		}
		val := func(o ptx.Operand) string {
			switch o.Kind {
			case ptx.OpImm:
				return o.Name
			case ptx.OpReg:
				return symVal(stmts, j, o.Name, depth-1)
			}
			return ""
		}
		switch {
		case (in.Op.Name == "mov" || in.Op.Name == "cvta") && len(in.Args) == 2:
			return val(in.Args[1])
		case in.Op.Name == "add" && len(in.Args) == 3:
			x, y := val(in.Args[1]), val(in.Args[2])
			if x == "" || y == "" {
				return ""
			}
			if y < x {
				x, y = y, x
			}
			return "(" + x + "+" + y + ")"
		}
		return ""
	}
	return ""
}

func immArg(in *ptx.Instruction) (int64, bool) {
	if len(in.Args) != 1 || in.Args[0].Kind != ptx.OpImm {
		return 0, false
	}
	v, err := strconv.ParseInt(in.Args[0].Name, 0, 64)
	return v, err == nil
}

// asyncMode is the manifest mode of an async site probed in mode (naive,
// or one that waits).
func asyncMode(kind int, mode string) string {
	if mode == manifest.ModeNaive {
		return manifest.ModeNaive
	}
	if kind == asyncGroup {
		return manifest.ModeWaitGroup
	}
	return manifest.ModeMbarrier
}

// collectAsync adds the async sites of k's body (collect's selection
// rules: spaces — the copy's source, global —, lines, source range).
func (k *kernel) collectAsync(selected func(in *ptx.Instruction, sp string) (site, bool)) {
	stmts := flatStmts(k.fn.Body, nil)
	pipeline := k.m.opts.Mode != manifest.ModeNaive && k.pipelineOK(stmts)
	phaseState := 0 // 0 unknown, 1 no, 2 yes: computed at the first TMA copy
	phases := func() bool {
		if phaseState == 0 {
			phaseState = 1
			if k.m.opts.Mode != manifest.ModeNaive && k.phaseOK(stmts) && k.phaseWaitsOK(stmts) && k.needPhase(stmts) {
				phaseState = 2
			}
		}
		return phaseState == 2
	}
	for i, st := range stmts {
		in, ok := st.(*ptx.Instruction)
		if !ok {
			continue
		}
		kind := asyncKind(in, k.m.factsOf(in))
		if kind == asyncNone {
			continue
		}
		s, ok := selected(in, "global")
		if !ok {
			continue
		}
		wait, joined := asyncWait(stmts, i, kind)
		if kind == asyncMbarrier && phases() && k.phaseSiteOK(in) {
			// a TMA copy without a straight-line wait loop needs phase
			// pairing, so every wait loop gets a phase end: every TMA
			// copy is then paired at run time (tma.go), so that no loop
			// exit carries two end probes
			wait = nil
		}
		if wait == nil && kind == asyncGroup && pipeline {
			// no wait in straight-line code: paired at run time (pipeline.go)
			s.async, s.mode = asyncGroupSeq, manifest.ModeGroupSeq
			k.sites = append(k.sites, &s)
			continue
		}
		if wait == nil && kind == asyncMbarrier && phases() && k.phaseSiteOK(in) {
			// no wait loop in straight-line code: paired at run time (tma.go)
			s.async, s.mode = asyncPhaseSeq, manifest.ModePhaseSeq
			k.sites = append(k.sites, &s)
			continue
		}
		if wait == nil || joined && k.isFunc {
			continue
		}
		s.async, s.waitAt, s.joined = kind, wait, joined
		s.mode = asyncMode(kind, k.m.opts.Mode)
		if s.mode == manifest.ModeNaive {
			s.waitAt, s.joined = in, false
		}
		k.sites = append(k.sites, &s)
	}
}
