package model

import "fmt"

// This file is out-of-order issue within a warp (Options.Window > 1, warps
// that implement Reorderable), the issue model of seed 002's D-FLOW:
// an instruction of the warp's window issues as soon as its true operands
// are ready, whatever older instructions still wait. The rules:
//
//   - The head (k = 0) issues under the in-order rules of ready (its
//     operands, a pending write of a register it writes, fences).
//   - A younger entry k > 0 issues only if its class may be reordered
//     (ALU, SFU, conversion, Misc, ordinary loads and stores; no clock or
//     probe stamp), the warp is not blocked (branch, fence, barrier), every
//     register it reads is ready and not written by an older entry still in
//     the window (RAW), every register it writes has no pending write and
//     is neither read nor written by an older entry in the window (so
//     reordering never changes a value, whatever the naming), the memory
//     ordering rule allows it, and its unit is free.
//   - Memory ordering: MemIdeal lets memory instructions pass each other
//     (seed 002's evaluation: no ordering violation is assumed); MemBarrier
//     lets nothing pass an older store or atomic in the window and no
//     memory instruction pass an older one (a barrier after every store);
//     MemColour keeps memory instructions of the same state space (the
//     colour) in order when either is a store, and lets everything else
//     pass (seed 002 §3.4.2).
//
// The functional result cannot change: the warp executes its instructions
// in program order (Reorderable), and the rules above only decide when
// each one is timed.

// MemOrder is the memory-ordering rule of out-of-order issue.
type MemOrder uint8

// Memory-ordering rules.
const (
	MemIdeal MemOrder = iota
	MemBarrier
	MemColour
)

var memOrderNames = [...]string{"ideal", "barrier", "colour"}

func (m MemOrder) String() string {
	if int(m) < len(memOrderNames) {
		return memOrderNames[m]
	}
	return fmt.Sprintf("MemOrder(%d)", int(m))
}

// ParseMemOrder returns the rule named s.
func ParseMemOrder(s string) (MemOrder, error) {
	for i, n := range memOrderNames {
		if n == s {
			return MemOrder(i), nil
		}
	}
	return 0, fmt.Errorf("memory order must be ideal, barrier or colour, got %q", s)
}

// reorderable reports whether in may issue before an older instruction.
func reorderable(in *Inst) bool {
	if in.Clock || in.Stamp != StampNone {
		return false
	}
	switch in.Class {
	case ClassInt, ClassFP32, ClassFP64, ClassSFU, ClassConv, ClassMisc:
		return true
	case ClassLdSt:
		return in.Mem == MemLoad || in.Mem == MemStore
	}
	return false
}

func writesMem(in *Inst) bool {
	return in.Class == ClassLdSt && in.Mem != MemLoad && in.Mem != MemTex
}

// memBlocked reports whether the memory-ordering rule keeps in behind the
// older instruction o.
func (sm *smState) memBlocked(in, o *Inst) bool {
	switch sm.memOrder {
	case MemBarrier:
		return writesMem(o) || (in.Class == ClassLdSt && o.Class == ClassLdSt)
	case MemColour:
		return in.Class == ClassLdSt && o.Class == ClassLdSt && in.Space == o.Space && (writesMem(in) || writesMem(o))
	}
	return false
}

func regIn(r Reg, rs []Reg) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// readyOoO is ready for a Reorderable warp: it picks the oldest window
// entry that can issue now (w.pick) or sets w.notBefore to the earliest
// time any entry could.
func (sm *smState) readyOoO(w *warpState, s int) (bool, StallReason) {
	if w.atBarrier {
		w.notBefore, w.reason = never, StallBarrier
		return false, StallBarrier
	}
	if w.blockedUntil > sm.now {
		w.notBefore = w.blockedUntil
		return false, w.reason
	}
	w.win = w.ooo.Window(w.win[:0], sm.window)
	if len(w.win) == 0 {
		return false, StallNoWarp
	}
	best, bestReason := never, StallScoreboard
	busy := false
	falseDep := false // an entry was ready but for a WAR/WAW with an older one
	// registers read and written by the entries older than k, gathered as
	// k advances (one pass instead of rescanning the older entries)
	olderSrc, olderDst := sm.oooSrc[:0], sm.oooDst[:0]
	defer func() { sm.oooSrc, sm.oooDst = olderSrc, olderDst }()
	for k, in := range w.win {
		if k > 0 && !reorderable(in) {
			break
		}
		if k > 0 {
			o := w.win[k-1]
			olderSrc = append(olderSrc, o.Src...)
			olderDst = append(olderDst, o.Dst...)
		}
		t, reason := sm.now, StallScoreboard
		for _, r := range in.Src {
			if int(r) < len(w.regs) && w.regs[r].ready() > t {
				t = w.regs[r].ready()
				reason = StallScoreboard
				if w.regs[r].mem() {
					reason = StallMemory
				}
			}
		}
		for _, r := range in.Dst {
			if int(r) < len(w.regs) && w.regs[r].ready() > t {
				t = w.regs[r].ready()
				reason = StallFalseDep
			}
		}
		raw, war, mem := false, false, false
		if k > 0 {
			for _, r := range in.Src {
				if regIn(r, olderDst) {
					raw = true
					break
				}
			}
			for _, r := range in.Dst {
				if regIn(r, olderDst) || regIn(r, olderSrc) {
					war = true // WAW or WAR with an older entry
					break
				}
			}
			if sm.memOrder != MemIdeal {
				for _, o := range w.win[:k] {
					if sm.memBlocked(in, o) {
						mem = true
						break
					}
				}
			}
		}
		blocked, falseOnly := raw || war || mem, !raw && !mem
		if k == 0 && in.Class == ClassFence && t <= sm.now {
			t, reason = w.fenceWait(in, t, reason)
		}
		if blocked {
			// waits for an older entry, which wakes the warp when it issues
			if t <= sm.now && falseOnly {
				falseDep = true
			}
			continue
		}
		if t > sm.now {
			if t < best || k == 0 {
				best, bestReason = min(best, t), reason
			}
			continue
		}
		ci := &sm.classes[in.Class]
		if in.Class == ClassLdSt && (sm.blocked || sm.l1Free > sm.now+sm.classes[ClassLdSt].lat) {
			busy = true
			continue
		}
		if sm.freeUnit(ci.unit, s) < 0 {
			busy = true
			continue
		}
		w.pick = k
		return true, 0
	}
	if busy {
		// the SM's idle skipping looks at the head's unit only: ask again
		// next cycle (the entry that waits may be a younger one)
		w.notBefore, w.reason = min(best, sm.now+1), StallPipeline
		return false, StallPipeline
	}
	if falseDep {
		bestReason = StallFalseDep
	}
	w.notBefore, w.reason = best, bestReason
	return false, bestReason
}
