package replay

import "reflect"

// Entry-frame registers a warp must take from the kernel's template.
//
// A warp's entry frame starts as a copy of the kernel's register template
// (entryTemplate: zero, except the immediates', symbols' and frame
// addresses' registers), then its special registers are filled. Most
// registers of a kernel are written before they are read, so their starting
// value is never seen; entryCopy finds them and pushFrame copies only the
// others, leaving the rest as the recycled register storage had them.
//
// The analysis is per thread and exact: a register is skipped only when,
// on every path of a thread through the entry function, every read of it
// follows a write of it by that thread (a must-define data flow over the
// function's instructions). It applies only when that reasoning covers
// every way a register can be observed, so it gives up (the whole template
// is copied) unless
//   - every instruction is one of a few lane-local operations whose reads
//     are exactly its guard and sources and whose unguarded execution
//     writes each destination's whole 64-bit slot in every active lane
//     (no warp-collective reads another lane's registers, no call or
//     texture reads the frame some other way), and
//   - every branch goes forward (an acyclic function: each instruction runs
//     at most once per thread, and the spin detector, which compares whole
//     register files, can never find a repeated state: spin.go).
//
// A guarded instruction writes only the lanes whose guard holds, so it
// defines nothing here; it reads its guard and sources. The exception is
// a uniform load whose address register is a template constant
// (fUniConst): execLdUniform reads that address from the template, and
// before its fallback to execLd copies the template's register into the
// frame, so the load alone does not make the register needed.

// entryCopyMaxBits bounds the analysis (instructions × registers).
const entryCopyMaxBits = 1 << 22

// entryCopy returns the runs of f's entry-frame registers that a warp must
// take from the template, as [lo, hi) offsets into the frame's register
// array (whole registers: multiples of 32), ascending, and the special
// registers of f.inits that some instruction reads (the others, such as
// those only mov'd by execMovSpecial, need not be filled); ok is false
// when the analysis does not apply (copy and fill everything).
func entryCopy(f *fnCode) (runs [][2]int32, fill []regInit, ok bool) {
	if f == nil || f.builtin != builtinNone || len(f.code) == 0 || f.nregs <= 0 {
		return nil, nil, false
	}
	nr, n := f.nregs, len(f.code)
	words := (nr + 63) / 64
	if n*words*64 > entryCopyMaxBits {
		return nil, nil, false
	}
	kinds := entryKinds()
	uniLd := reflect.ValueOf(execLdUniform).Pointer()
	reg := func(off int32) (int, bool) {
		if off < 0 || off%32 != 0 || int(off)/32 >= nr {
			return 0, false
		}
		return int(off) / 32, true
	}
	// in[pc]: the registers every path to pc has written (valid when
	// reached[pc]); the function is acyclic, so pc order is a topological
	// order and one pass settles every set
	in := make([]uint64, n*words)
	reached := make([]bool, n)
	reached[0] = true
	need := make([]bool, nr)
	read := make([]bool, nr) // by some reached instruction
	// at entry the special registers are set (filled per warp, all 32
	// lanes: fillSpecial; the dynamic ones also before each instruction
	// that reads them: copied too, as before); the template's values
	// (immediates, addresses) are not: like any register, one is copied
	// when an instruction reads it before writing it (none writes them)
	for _, ri := range f.inits {
		r, ok := reg(ri.reg)
		if !ok {
			return nil, nil, false
		}
		if ri.kind == initSpecial {
			in[r/64] |= 1 << (r % 64)
		}
	}
	for _, ri := range f.dyn {
		r, ok := reg(ri.reg)
		if !ok {
			return nil, nil, false
		}
		in[r/64] |= 1 << (r % 64)
		need[r] = true
	}
	out := make([]uint64, words)
	for pc := range f.code {
		if !reached[pc] {
			continue // never executed
		}
		ins := &f.code[pc]
		ld := reflect.ValueOf(ins.exec).Pointer()
		k, known := kinds[ld]
		if !known || ins.nd > uint8(len(ins.d)) || ins.ns > uint8(len(ins.s)) || ins.ns < k.ns ||
			k.k == ekStore && int(ins.ns) < 1+max(int(ins.vec), 1) {
			return nil, nil, false // (a source it reads would not be among s[:ns])
		}
		cur := in[pc*words : (pc+1)*words]
		use := func(off int32) bool {
			r, ok := reg(off)
			if ok && cur[r/64]>>(r%64)&1 == 0 {
				need[r] = true
			}
			if ok {
				read[r] = true
			}
			return ok
		}
		if ins.guard >= 0 && !use(ins.guard) {
			return nil, nil, false
		}
		for i, s := range ins.s[:ins.ns] {
			if i == 0 && ins.flags&fUniConst != 0 && ld == uniLd {
				// execLdUniform reads it from the template (and
				// copies it to the frame before any other use)
				if _, ok := reg(s); !ok {
					return nil, nil, false
				}
				continue
			}
			if !use(s) {
				return nil, nil, false
			}
		}
		copy(out, cur)
		var succ [2]int // -1: none; n: the function's end
		succ[0], succ[1] = pc+1, -1
		switch k.k {
		case ekArith, ekLoad:
			if k.k == ekLoad && (ins.vec > 1 || ins.nd != 1) {
				return nil, nil, false
			}
			for _, d := range ins.d[:min(ins.nd, k.nd)] {
				r, ok := reg(d)
				if !ok {
					return nil, nil, false
				}
				if ins.guard < 0 {
					out[r/64] |= 1 << (r % 64)
				}
			}
		case ekStore:
			for _, d := range ins.d[:ins.nd] {
				if !use(d) {
					return nil, nil, false
				}
			}
		case ekBranch:
			if ins.target <= int32(pc) || int(ins.target) > n {
				return nil, nil, false // backward (a loop) or out of range
			}
			succ[0] = int(ins.target)
			if ins.guard >= 0 {
				succ[1] = pc + 1
			}
		case ekEnd:
			succ[0] = -1
			if ins.guard >= 0 {
				succ[0] = pc + 1
			}
		}
		for _, s := range succ {
			if s < 0 || s >= n {
				continue
			}
			t := in[s*words : (s+1)*words]
			if reached[s] {
				for i := range t {
					t[i] &= out[i]
				}
			} else {
				copy(t, out)
				reached[s] = true
			}
		}
	}
	for _, ri := range f.inits {
		if r, ok := reg(ri.reg); ok && ri.kind == initSpecial && read[r] {
			fill = append(fill, ri)
		}
	}
	return regRuns(need), fill, true
}

// regRuns returns the registers r with need[r] as runs of [lo, hi) register
// offsets, ascending.
func regRuns(need []bool) (runs [][2]int32) {
	for r, n := range need {
		if !n {
			continue
		}
		lo, hi := int32(r*32), int32(r*32+32)
		if k := len(runs) - 1; k >= 0 && runs[k][1] == lo {
			runs[k][1] = hi
		} else {
			runs = append(runs, [2]int32{lo, hi})
		}
	}
	return runs
}

// entryKind classifies an instruction for entryCopy.
type entryKind uint8

const (
	ekArith  entryKind = iota // reads guard and sources, writes destinations
	ekLoad                    // the same, one destination, no vector
	ekStore                   // reads guard, sources and destinations
	ekBranch                  // bra: reads its guard
	ekEnd                     // ret, exit: reads its guard
)

// entryExec is what entryCopy knows of an execution function: its kind,
// how many sources it reads at least (in.s[0] … in.s[ns-1]; a store also
// reads its vector's values, in.s[1] … in.s[vec]) and how many of its
// destinations it writes at most (in.d[0] … in.d[nd-1], when present).
type entryExec struct {
	k  entryKind
	ns uint8
	nd uint8
}

// entryKinds maps the execution functions entryCopy understands. Each was
// checked to read only in.guard, in.s[:in.ns] (and, for stores,
// in.d[:in.nd]) and to write each in.d[:in.nd] whole (a 64-bit value, not a
// read-modify-write) in every lane of m.
func entryKinds() map[uintptr]entryExec {
	m := make(map[uintptr]entryExec, 24)
	for _, e := range []struct {
		fn execFn
		k  entryExec
	}{
		{execAdd, entryExec{ekArith, 2, 1}}, {execSub, entryExec{ekArith, 2, 1}},
		{execMulLo, entryExec{ekArith, 2, 1}}, {execMadLo, entryExec{ekArith, 3, 1}},
		{execMov, entryExec{ekArith, 1, 1}}, {execInt, entryExec{ekArith, 1, 1}},
		{execMovSpecial, entryExec{ekArith, 0, 1}},
		{execCvta, entryExec{ekArith, 1, 1}}, {execSetp, entryExec{ekArith, 2, 2}},
		{execFAdd32, entryExec{ekArith, 2, 1}}, {execFSub32, entryExec{ekArith, 2, 1}},
		{execFMul32, entryExec{ekArith, 2, 1}}, {execFFma32, entryExec{ekArith, 3, 1}},
		{execLd, entryExec{ekLoad, 1, 1}}, {execLdUniform, entryExec{ekLoad, 1, 1}},
		{execSt, entryExec{ekStore, 2, 0}},
		{execBra, entryExec{ekBranch, 0, 0}},
		{execRet, entryExec{ekEnd, 0, 0}}, {execExit, entryExec{ekEnd, 0, 0}},
	} {
		m[reflect.ValueOf(e.fn).Pointer()] = e.k
	}
	return m
}
