package replay

import (
	"fmt"
	"strings"
)

// Memory spin detection: warps that poll memory nobody will ever write
// (`while (*flag == 0);`, `while (atomicAdd(&x, 0) == 0);`, a volatile
// shared flag) fault as runaway within a few probes, instead of running into
// the instruction budget.
//
// A probe (spin.go) may now also see loads of any space and atomics that
// changed no byte of memory (execAtom reports whether a lane's new value
// differed from the old one in any byte it writes). A probe that reads
// memory and also writes it ends. When such a probe comes back to its
// anchor with exactly the copied state, the warp has run a cycle: from
// cyc[0] to cyc[1] (times on the CTA clock) its state went from S back to S
// reading only memory and writing none. That alone proves nothing — the
// memory may have changed in between, or may change later — so the warp
// faults only when the whole set of warps that could ever write that
// memory is provably stuck (spinProve):
//
//   - L is the earliest cyc[0] of the looping warps considered;
//   - every live warp considered is looping (a probe with a cycle, that
//     wrote nothing since it opened, and opened before L), or, in
//     functional mode, waits at a barrier; and no warp considered exited
//     or arrived at a barrier at or after L (the CTA's mark).
//
// Then nothing wrote memory from L on: every warp considered either did
// not run (a barrier), had exited, or ran write-free probe instructions.
// So each looping warp read the same memory during its cycle as the next
// time round, and returned to the same state: it repeats its cycle, and by
// induction over all of them together none of them ever writes, exits or
// arrives at a barrier again, so the waiting warps stay blocked and the
// memory stays as it is. None of the loops exits.
//
// Which warps are considered depends on who can write the memory the loops
// read. The clock orders events (probe opens, cycle ends, exits, barrier
// arrivals) of all the warps considered, on one goroutine.
//
//   - Functional mode (Run): the CTA's warps. Run executes a CTA to the end
//     with no other CTA writing what it reads (a wave's CTAs write their own
//     overlays, merged after the wave; sequential CTAs run one after
//     another), so a warp waiting for another CTA waits forever in Run
//     — the fault says so and names the timing model, which interleaves
//     resident CTAs.
//   - Timing mode, loops reading only shared and local memory: the CTA's
//     warps (no other CTA can write them). Barrier waits do not count as
//     blocked there (the model holds warps at barriers itself).
//   - Timing mode, a loop reading global or generic memory, CTAs writing
//     the device directly (no ConcurrentIssue): every warp of every CTA of
//     the grid; the clock is the kernel's (all SMs issue on one goroutine),
//     every CTA must have been created (a later CTA could write) and
//     started, and finished CTAs count by their last exit.
//   - Timing mode, global reads, CTAs writing overlays: the CTA's warps,
//     when every CTA of the grid had been created at each cycle's start
//     (after that the model creates no CTA, so no overlay is merged and
//     device memory stays as it is; the CTA sees only its own writes on it).
//
// The cost on the interpreter's path is one clock tick per warp exit and
// barrier arrival and a flag per atom; everything else happens while a
// probe is open.

// ctaSpin is a CTA's part of memory spin detection.
type ctaSpin struct {
	seq    uint64  // the CTA's own clock
	clock  *uint64 // the clock in use: &seq, or the kernel's (timing, no overlays)
	mark   uint64  // clock at the last exit or barrier arrival of a warp
	timing bool    // created by the timing model
}

// kernelSpin is a Kernel's part of memory spin detection in timing mode.
type kernelSpin struct {
	seq     uint64 // the clock of CTAs writing the device directly
	created int    // CTAs created so far (NewCTA, serial phases only)
	ctas    []*CTA // the CTAs created, when they write the device directly
}

// spinTick advances the CTA's clock and returns it.
func (c *CTA) spinTick() uint64 {
	p := c.spin.clock
	if p == nil {
		p = &c.spin.seq
	}
	*p++
	return *p
}

// spinMark records an exit or a barrier arrival of one of the CTA's warps.
func (c *CTA) spinMark() { c.spin.mark = c.spinTick() }

// spinNewCTA registers a CTA the timing model created.
func (k *Kernel) spinNewCTA(c *CTA, i int) {
	if i == 0 {
		k.spinK = kernelSpin{}
	}
	k.spinK.created = max(k.spinK.created, i+1)
	c.spin.timing = true
	if !k.ovMode {
		c.spin.clock = &k.spinK.seq
		k.spinK.ctas = append(k.spinK.ctas, c)
	}
}

// spinAllCreated reports whether the timing model has created every CTA.
func (k *Kernel) spinAllCreated() bool { return k.spinK.created >= k.nctas }

// spinLooping reports whether w is looping: its open probe wrote nothing
// and completed a cycle.
func (w *warp) spinLooping() bool {
	p := w.spin
	return p != nil && p.cycOK && !p.writes
}

// spinProof collects what spinProve found.
type spinProof struct {
	low      uint64 // L: the earliest cycle start
	global   bool   // a looping warp reads global or generic memory
	loopers  []string
	others   []string // looping warps of other CTAs (grid scope), the first spinNameOthers
	blocked  []string
	exited   int
	finished int // other CTAs finished (grid scope)
	ctas     int // CTAs considered
}

// scan adds the warps of CTA c; false when one of them can still make
// progress for sure (not looping, not blocked).
func (pr *spinProof) scan(c *CTA, first bool) bool {
	if c.released {
		pr.finished++
		return true
	}
	if c.warps == nil {
		return false // not started
	}
	for _, x := range c.warps {
		switch {
		case x.done:
			if first {
				pr.exited++
			}
		case x.spinLooping():
			pr.low = min(pr.low, x.spin.cyc[0])
			pr.global = pr.global || x.spin.global
		case x.waitBar >= 0 && !c.spin.timing:
		default:
			return false
		}
	}
	return true
}

// check verifies the ordering conditions for CTA c against pr.low.
func (pr *spinProof) check(c *CTA, name bool) bool {
	if c.spin.mark >= pr.low {
		return false
	}
	if c.released {
		return true
	}
	for _, x := range c.warps {
		switch {
		case x.done:
		case x.spinLooping():
			if x.spin.open >= pr.low {
				return false
			}
			if name {
				at := &x.frames[0].f.code[x.spin.pc]
				pr.loopers = append(pr.loopers, fmt.Sprintf("warp %d at line %d", x.id, at.m.Line))
			} else if len(pr.others) < spinNameOthers {
				at := &x.frames[0].f.code[x.spin.pc]
				pr.others = append(pr.others, fmt.Sprintf("CTA (%d,%d,%d) warp %d at line %d", c.id[0], c.id[1], c.id[2], x.id, at.m.Line))
			}
		default: // blocked at a barrier (functional mode)
			if name {
				pr.blocked = append(pr.blocked, fmt.Sprint(x.id))
			}
		}
	}
	return true
}

// spinProve runs when w's probe, which read memory, completed a cycle: it
// faults w when every warp that could still write memory w's loop reads is
// provably stuck (see the comment at the top of this file).
func (w *warp) spinProve(at *inst, p *spinProbe) {
	c, k := w.c, w.k
	pr := spinProof{low: ^uint64(0), ctas: 1}
	if !pr.scan(c, true) {
		w.spinBackoff(p)
		return
	}
	grid := false
	if c.spin.timing && pr.global {
		if k.ovMode {
			for _, x := range c.warps {
				if x.spinLooping() && x.spin.global && !x.spin.cycAll {
					w.spinBackoff(p)
					return
				}
			}
		} else {
			grid = true
			if len(k.spinK.ctas) < k.nctas {
				w.spinBackoff(p)
				return
			}
			for _, o := range k.spinK.ctas {
				if o != c && !pr.scan(o, false) {
					w.spinBackoff(p)
					return
				}
			}
		}
	}
	if !pr.check(c, true) {
		w.spinBackoff(p)
		return
	}
	if grid {
		for _, o := range k.spinK.ctas {
			if o != c && !pr.check(o, false) {
				w.spinBackoff(p)
				return
			}
		}
		pr.ctas = len(k.spinK.ctas)
	}
	w.faultf(at, -1, FaultRunaway, "%s", pr.message(w, p, grid))
}

// spinBackoff makes w skip its anchor for a while after a failed proof:
// 256 instructions, doubling up to spinBackoffMax.
func (w *warp) spinBackoff(p *spinProbe) {
	p.backoff = min(max(2*p.backoff, 256), spinBackoffMax)
	p.skip, p.fresh = w.icount+p.backoff, true
}

const (
	spinBackoffMax = 1 << 14
	spinNameOthers = 8
)

// message words the fault of a proven memory spin.
func (pr *spinProof) message(w *warp, p *spinProbe, grid bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "warp is spinning: it polls memory that nothing can change any more: its state (registers, predicates, active lanes, pc %d) repeats with only loads and atomics that change no memory in between", p.pc)
	const most = 8
	list := func(s []string) string {
		if len(s) > most {
			return strings.Join(s[:most], ", ") + fmt.Sprintf(" and %d more", len(s)-most)
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, ", and every warp of this CTA that has not exited is stuck too (looping without writing memory: %s", list(pr.loopers))
	if len(pr.blocked) > 0 {
		fmt.Fprintf(&b, "; waiting at a barrier no one else will reach: warps %s", list(pr.blocked))
	}
	if pr.exited > 0 {
		fmt.Fprintf(&b, "; %d exited", pr.exited)
	}
	b.WriteString(")")
	switch {
	case grid && pr.ctas == 1:
		b.WriteString("; the grid has no other CTA")
	case grid:
		fmt.Fprintf(&b, "; so is every warp of the other %d CTAs of the grid (%d of them finished", pr.ctas-1, pr.finished)
		if len(pr.others) > 0 {
			b.WriteString("; looping: " + strings.Join(pr.others, ", "))
			if len(pr.others) == spinNameOthers {
				b.WriteString(", …")
			}
		}
		b.WriteString(")")
	case w.c.spin.timing && pr.global:
		b.WriteString("; every CTA of the grid has been created, and the other CTAs' writes reach device memory only after this CTA finishes")
	case !w.c.spin.timing && pr.global && w.k.nctas > 1:
		b.WriteString("; functional execution shows a CTA no write of a CTA that had not finished when it started (wait for another CTA under the timing model instead)")
	}
	return b.String()
}
