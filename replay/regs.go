package replay

import (
	"math/bits"
	"strings"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// EstimateRegs estimates the 32-bit registers per thread ptxas would
// allocate for the kernel: the largest number of declared registers live
// at once in the entry function (64-bit registers count twice, predicates
// not at all — they have their own register file), plus the largest such
// estimate of any callee, plus 2 (ptxas keeps a few registers for
// addresses and the stack). It is an estimate from liveness over the
// lowered code, not a register allocation.
func (c *Code) EstimateRegs() int { return c.EstimateRegsExcept("") }

// EstimateRegsExcept is EstimateRegs counting no register whose name
// starts with prefix (e.g. "%__pt_", the registers instrumentation
// added: the estimate of the original kernel's registers, which an
// instrumented kernel bounded by .maxnreg keeps, spilling the rest).
// An empty prefix counts every register.
func (c *Code) EstimateRegsExcept(prefix string) int {
	best := 0
	for _, f := range c.order {
		if f != c.entry {
			best = max(best, f.maxLive(prefix))
		}
	}
	return c.entry.maxLive(prefix) + best + 2
}

// MaxNReg is the .maxnreg bound of the entry function (the most registers
// per thread ptxas may allocate), 0 when it has none.
func (c *Code) MaxNReg() int { return c.maxnreg }

// maxLive computes the weighted maximum of simultaneously live declared
// registers of one function (backward dataflow over its instructions),
// registers named with prefix (when not empty) weighing nothing.
func (f *fnCode) maxLive(prefix string) int {
	n := f.ndecl
	if n == 0 || len(f.code) == 0 {
		return 0
	}
	words := (n + 63) / 64
	weight := make([]int, n)
	for i := 0; i < n && i < len(f.dtypes); i++ {
		switch t := f.dtypes[i]; {
		case t == ptx.Pred:
		case t.Size() > 4:
			weight[i] = (t.Size() + 3) / 4
		default:
			weight[i] = 1
		}
		if prefix != "" && i < len(f.regNames) && strings.HasPrefix(f.regNames[i], prefix) {
			weight[i] = 0
		}
	}
	reg := func(off int32) int {
		if off < 0 || int(off) >= n*32 {
			return -1
		}
		return int(off / 32)
	}
	nc := len(f.code)
	use := make([][]int, nc)
	def := make([][]int, nc)
	succ := make([][]int, nc)
	for i := range f.code {
		in := &f.code[i]
		for k := 0; k < int(in.ns); k++ {
			if r := reg(in.s[k]); r >= 0 {
				use[i] = append(use[i], r)
			}
		}
		if r := reg(in.guard); r >= 0 {
			use[i] = append(use[i], r)
		}
		for _, a := range in.args {
			if r := reg(a.reg); r >= 0 {
				use[i] = append(use[i], r)
			}
		}
		if in.guard < 0 { // a guarded write may keep the old value
			for k := 0; k < int(in.nd); k++ {
				if r := reg(in.d[k]); r >= 0 {
					def[i] = append(def[i], r)
				}
			}
			for _, a := range in.rets {
				if r := reg(a.reg); r >= 0 {
					def[i] = append(def[i], r)
				}
			}
		}
		op := in.text
		if strings.HasPrefix(op, "@") {
			if sp := strings.IndexByte(op, ' '); sp >= 0 {
				op = op[sp+1:]
			}
		}
		fall := true
		switch {
		case len(in.targets) > 0:
			for _, t := range in.targets {
				succ[i] = append(succ[i], int(t))
			}
			fall = in.guard >= 0
		case in.target >= 0 && in.callee == nil:
			succ[i] = append(succ[i], int(in.target))
			fall = in.guard >= 0
		case strings.HasPrefix(op, "ret") || strings.HasPrefix(op, "exit") || strings.HasPrefix(op, "trap"):
			fall = in.guard >= 0
		}
		if fall && i+1 < nc {
			succ[i] = append(succ[i], i+1)
		}
	}
	live := make([]uint64, nc*words) // live-in per instruction
	tmp := make([]uint64, words)
	for changed := true; changed; {
		changed = false
		for i := nc - 1; i >= 0; i-- {
			clear(tmp)
			for _, s := range succ[i] {
				if s >= 0 && s < nc {
					for w := 0; w < words; w++ {
						tmp[w] |= live[s*words+w]
					}
				}
			}
			for _, r := range def[i] {
				tmp[r/64] &^= 1 << (r % 64)
			}
			for _, r := range use[i] {
				tmp[r/64] |= 1 << (r % 64)
			}
			cur := live[i*words : (i+1)*words]
			for w := 0; w < words; w++ {
				if cur[w] != tmp[w] {
					copy(cur, tmp)
					changed = true
					break
				}
			}
		}
	}
	best := 0
	for i := 0; i < nc; i++ {
		sum := 0
		for w := 0; w < words; w++ {
			for m := live[i*words+w]; m != 0; m &= m - 1 {
				sum += weight[w*64+bits.TrailingZeros64(m)]
			}
		}
		// a definition's registers are allocated while the sources are read
		dsum := 0
		for _, r := range def[i] {
			dsum += weight[r]
		}
		best = max(best, sum+dsum)
	}
	return best
}
