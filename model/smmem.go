package model

import (
	"math/bits"
	"slices"
)

// Transaction handling modes of a blocked-or-running memory instruction.
const (
	modeCached = iota // load through a cache (L1, texture, constant)
	modeBypass        // load straight from L2 (ld.cg)
	modeStore
	modeAtomic
)

// texBase is where texture memory lives in the model's address space (its
// own region, so it never aliases global data in L2).
const texBase = uint64(1) << 60

// issueMem starts warp memory instruction in of w with effect eff.
func (sm *smState) issueMem(w *warpState, in *Inst, eff *Effect) {
	now := sm.now
	active := eff.Active
	space := eff.Space // where a generic access resolved to
	if space == SpaceNone {
		space = in.Space
	}
	probe := int32(-1)
	if in.Probe >= 0 {
		probe = int32(len(sm.probes))
		sm.probes = append(sm.probes, ProbeAccess{Probe: in.Probe, CTA: w.cta.id, Warp: w.w.ID(), SM: sm.id,
			PC: in.PC, Space: space, Active: active, Issue: now, Complete: now})
		if w.hasStamp {
			sm.probes[probe].Begin = w.stampAt
			w.hasStamp = false
		}
		w.lastProbe = probe + 1
	}
	load := in.Mem == MemLoad || in.Mem == MemAtomic || in.Mem == MemTex || in.Mem == MemSurfLoad
	if active == 0 || in.Mem == MemNone {
		// predicated off: nothing is accessed and no register written
		return
	}
	size := in.Size
	if size <= 0 {
		size = 4
	}
	start := now + sm.classes[ClassLdSt].lat
	if sm.l1Free > start {
		start = sm.l1Free
	}
	b := &sm.bk
	b.tx = b.tx[:0]
	var c *cache
	target := tgtL1
	mode := modeCached
	minOcc := Time(0)
	switch space {
	case SpaceShared:
		deg := Time(sm.bankDegree(eff.Addr, active, size))
		cpw := Time(sm.spec.Shared.CyclesPerWay)
		sm.l1Free = start + deg*cpw
		sm.shared.Insts++
		sm.shared.Cycles += uint64(deg * cpw)
		done := start + Time(sm.spec.Shared.Latency) + (deg-1)*cpw
		if sm.memObs != nil {
			sm.memObs.Mem(MemEvent{Level: LevelShared, Outcome: Hit, SM: sm.id, Write: !load,
				Issue: start, Complete: done, Ways: int(deg)})
		}
		sm.complete(w, in, load, done, probe)
		return
	case SpaceConst, SpaceParam:
		c, target = sm.cnst, tgtConst
		sm.mem.ConstInsts++
		if t, ok := broadcast(c, b.tx, eff.Addr, active, size); ok {
			// one word for every lane (uniqueWords' first case)
			minOcc, b.tx = 1, t
		} else {
			minOcc = Time(sm.uniqueWords(eff.Addr, active))
			b.tx = sm.coalesce(c, b.tx, eff.Addr, active, size)
		}
	case SpaceTex:
		c, target = sm.tex, tgtTex
		sm.mem.TexInsts++
		b.tx = sm.coalesceTex(c, b.tx, eff)
	default: // global, local, surface
		c = sm.l1
		b.tx = sm.coalesce(c, b.tx, eff.Addr, active, size)
		n := uint64(len(b.tx))
		switch in.Mem {
		case MemLoad, MemSurfLoad:
			sm.mem.LoadInsts++
			sm.mem.LoadTxns += n
			if space == SpaceGlobal && !sm.spec.L1D.CachesGlobal {
				mode = modeBypass
			}
		case MemStore, MemSurfStore:
			sm.mem.StoreInsts++
			sm.mem.StoreTxns += n
			mode = modeStore
		case MemAtomic, MemReduce:
			sm.mem.AtomicInsts++
			sm.mem.AtomicTxns += n
			mode = modeAtomic
		}
	}
	// a memory operation with responses to wait for
	var id int32
	if k := len(sm.opfree); k > 0 {
		id = sm.opfree[k-1]
		sm.opfree = sm.opfree[:k-1]
	} else {
		id = int32(len(sm.ops))
		sm.ops = append(sm.ops, memOp{})
	}
	sm.ops[id] = memOp{w: w, in: in, pending: 1, readyAt: start, probe: probe, load: load}
	w.outstanding++
	if in.Async {
		w.asyncOut++
		sm.ops[id].group = w.asyncIssued()
	}
	if load {
		for _, r := range in.Dst {
			w.regs[r] = regAt(never, true)
		}
	}
	b.op, b.mode, b.c, b.target, b.k, b.space = id, mode, c, target, 0, space
	b.t0, b.k0 = start, 0
	b.minEnd = start + minOcc
	sm.drainBlocked()
}

// drainBlocked processes the current memory instruction's remaining
// transactions, one tag lookup each, until done or a resource is missing.
func (sm *smState) drainBlocked() {
	b := &sm.bk
	if sm.blocked {
		// resume after a stall
		b.t0, b.k0 = sm.now, b.k
		if sm.l1Free > b.t0 {
			b.t0 = sm.l1Free
		}
	}
	pc := 1
	if b.c != nil {
		switch b.c {
		case sm.tex:
			pc = sm.spec.Tex.PerCycle
		case sm.cnst:
			pc = sm.spec.Const.PerCycle
		default:
			pc = sm.spec.L1D.PerCycle
		}
	}
	for b.k < len(b.tx) {
		t := b.t0 + Time((b.k-b.k0)/pc)
		if !sm.doTxn(&b.tx[b.k], t) {
			sm.blocked = true
			sm.l1Free = t
			return
		}
		sm.l1Free = t + 1
		b.k++
	}
	if sm.l1Free < b.minEnd {
		sm.l1Free = b.minEnd
	}
	sm.blocked, sm.blockedIcnt = false, false
	op := &sm.ops[b.op]
	if op.readyAt < sm.l1Free {
		// the data of the last lookup is not back before the lookup
		op.readyAt = sm.l1Free
	}
	b.tx = b.tx[:0]
	sm.opDone(b.op, 1)
}

// doTxn performs one transaction at lookup time t; false means a resource
// (MSHR, line, miss-queue slot) was missing and nothing was changed.
func (sm *smState) doTxn(x *txn, t Time) bool {
	b := &sm.bk
	op := &sm.ops[b.op]
	switch b.mode {
	case modeBypass:
		if !sm.send(t, reqRead, x, tgtOp<<tgtShift|int(b.op)) {
			return false
		}
		op.pending++
		return true
	case modeStore, modeAtomic:
		if !sm.queueFree(t) {
			return false
		}
		c := sm.l1
		if i := c.find(x.addr>>c.lineShift + 1); i >= 0 && c.lines[i].pending == 0 {
			if b.space == SpaceLocal && b.mode == modeStore {
				c.lines[i].valid |= x.mask // write-through, line kept up to date
			} else {
				c.drop(i) // write-evict
			}
		}
		kind := reqWrite
		if b.mode == modeAtomic {
			kind = reqAtomic
		}
		sm.send(t, kind, x, tgtOp<<tgtShift|int(b.op))
		op.pending++
		return true
	}
	c := b.c
	tag := x.addr>>c.lineShift + 1
	lat := sm.cacheLatency(c)
	i := c.find(tag)
	if i >= 0 {
		l := &c.lines[i]
		if l.valid&x.mask == x.mask {
			c.stats.Accesses++
			c.stats.Hits++
			c.touch(i)
			if r := t + lat; r > op.readyAt {
				op.readyAt = r
			}
			if sm.memObs != nil {
				sm.observe(c, x.addr, Hit, t, t+lat)
			}
			return true
		}
		if l.mshr >= 0 && (l.valid|l.pending)&x.mask == x.mask {
			c.stats.Accesses++
			c.stats.Merged++
			c.touch(i)
			e := &c.mshrs[l.mshr]
			e.waiters = append(e.waiters, b.op)
			op.pending++
			if sm.memObs != nil {
				sm.observe(c, x.addr, Merged, t, 0)
			}
			return true
		}
	}
	// miss
	if (i < 0 || c.lines[i].mshr < 0) && len(c.free) == 0 {
		c.stats.ReservationFails++
		sm.blockedIcnt = false
		sm.retryAt = never // until a fill frees an MSHR
		return false
	}
	if !sm.queueFree(t) {
		return false
	}
	if i < 0 {
		i = c.victim(tag)
		if i < 0 {
			c.stats.ReservationFails++
			sm.blockedIcnt = false
			sm.retryAt = never
			return false
		}
		c.install(i, tag)
	}
	l := &c.lines[i]
	m := l.mshr
	if m < 0 {
		m = c.allocMSHR(i, tag)
		c.mshrs[m].since = t
	}
	if sm.memObs != nil {
		sm.observe(c, x.addr, Miss, t, 0)
	}
	missing := x.mask &^ (l.valid | l.pending)
	l.pending |= missing
	c.touch(i)
	c.stats.Accesses++
	c.stats.Misses++
	e := &c.mshrs[m]
	e.outstanding++
	e.waiters = append(e.waiters, b.op)
	op.pending++
	req := *x
	req.units = sm.unitsOf(c, x.addr, missing)
	sm.send(t, reqRead, &req, b.target<<tgtShift|int(m))
	return true
}

func (sm *smState) cacheLatency(c *cache) Time {
	switch c {
	case sm.tex:
		return Time(sm.spec.Tex.Latency)
	case sm.cnst:
		return Time(sm.spec.Const.Latency)
	}
	return Time(sm.spec.L1D.Latency)
}

// unitsOf converts sectors of cache c into 32-byte units of the line.
func (sm *smState) unitsOf(c *cache, addr uint64, sectors uint32) uint32 {
	per := uint(c.sectorShift) - 5 // log2(units per sector)
	var u uint32
	for s := sectors; s != 0; s &= s - 1 {
		k := uint(bits.TrailingZeros32(s))
		u |= (uint32(1)<<(1<<per) - 1) << (k << per)
	}
	return u
}

// queueFree reports whether the miss queue has room for a packet entering
// at t; when not, the memory pipeline blocks until its head departs.
func (sm *smState) queueFree(t Time) bool {
	q := sm.missq
	n := 0
	for n < len(q) && q[n] <= t {
		n++
	}
	if n > 0 {
		sm.missq = append(q[:0], q[n:]...)
	}
	if len(sm.missq) >= sm.spec.Icnt.MissQueue {
		sm.blockedIcnt = true
		sm.retryAt = sm.missq[0]
		return false
	}
	return true
}

// send injects a packet at t (the caller checked queueFree).
func (sm *smState) send(t Time, kind reqKind, x *txn, tag int) bool {
	if !sm.queueFree(t) {
		return false
	}
	bytes := sm.spec.Icnt.HeaderBytes
	if kind != reqRead {
		bytes += bits.OnesCount32(x.units) * unitBytes
	}
	fl := Time((bytes + sm.spec.Icnt.FlitBytes - 1) / sm.spec.Icnt.FlitBytes)
	dep := t
	if sm.portFree > dep {
		dep = sm.portFree
		sm.missq = append(sm.missq, dep)
		sm.icntQueue += uint64(dep - t)
	}
	sm.portFree = dep + fl
	sm.outbox = append(sm.outbox, memReq{t: dep + fl, sm: int32(sm.id), kind: kind, lanes: x.lanes, tag: int32(tag), addr: x.addr, units: x.units})
	return true
}

// coalesce groups the active lanes' accesses of size bytes into line
// transactions of cache c's geometry, in first-lane order.
//
// Lanes that continue the last lane's bytes inside the same line (a
// contiguous warp access) are gathered into a run whose sectors and units
// are ORed into the txn once, when the run ends: the OR of the masks of
// adjacent byte ranges is the mask of their union.
func (sm *smState) coalesce(c *cache, tx []txn, addrs []uint64, active uint32, size int) []txn {
	lb := uint64(1) << c.lineShift
	if len(tx) == 0 && size > 0 && uint64(size) <= lb {
		if t, ok := broadcast(c, tx, addrs, active, size); ok {
			return t
		}
		if size&(size-1) == 0 && len(addrs) >= 32 {
			if t, ok := coalesceSeq(c, tx, addrs, active, uint64(size)); ok {
				return t
			}
		}
	}
	prevA, prevK := uint64(0), -1 // the last lane's address when it fit one line, and its txn
	// the open run of tx[prevK]: bytes runLo..runHi, already counted in
	// lanes, not yet in mask and units (runOpen)
	runLo, runHi, runOpen := uint64(0), uint64(0), false
	flush := func() {
		if runOpen {
			t := &tx[prevK]
			t.mask |= c.sectorMask(runLo, int(runHi-runLo+1))
			u0, u1 := uint((runLo-t.addr)/unitBytes), uint((runHi-t.addr)/unitBytes)
			t.units |= (uint32(2)<<u1 - 1) &^ (uint32(1)<<u0 - 1)
			runOpen = false
		}
	}
	for m := active; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if lane >= len(addrs) {
			break
		}
		a := addrs[lane]
		end := a + uint64(size) - 1
		if a&(lb-1)+uint64(size) <= lb && end >= a {
			// within one line: one txn
			if prevK >= 0 && a == prevA {
				tx[prevK].lanes++ // same bytes as the last lane
				continue
			}
			la := a &^ (lb - 1)
			if prevK >= 0 && tx[prevK].addr == la {
				if runOpen && a == runHi+1 {
					runHi = end
				} else {
					flush()
					runLo, runHi, runOpen = a, end, true
				}
				tx[prevK].lanes++
			} else {
				flush()
				tx = addTxn(tx, c, la, a, end)
				for k := len(tx) - 1; k >= 0; k-- {
					if tx[k].addr == la {
						prevK = k
						break
					}
				}
				// this lane's bytes are in the txn; a run from them
				// adds them again, which changes nothing
				runLo, runHi, runOpen = a, end, true
			}
			prevA = a
			continue
		}
		flush()
		prevK = -1
		for la := a &^ (lb - 1); la <= end; la += lb {
			lo, hi := a, end
			if lo < la {
				lo = la
			}
			if hi > la+lb-1 {
				hi = la + lb - 1
			}
			tx = addTxn(tx, c, la, lo, hi)
			if la+lb < la { // wrapped
				break
			}
		}
	}
	flush()
	return tx
}

// coalesceSeq is coalesce for the common case of a warp reading or
// writing consecutive elements: the k-th active lane accesses the size
// bytes (a power of two no larger than a line) at a0 + k*size, a0 aligned
// to size, so no lane crosses a line. Then each line the bytes span gets
// one txn, in address order, with the sectors and units of the bytes in
// it and one lane per element there: what the lane-by-lane loop of
// coalesce builds. It reports false (tx untouched) for any other access.
// addrs has at least 32 lanes (the caller checks).
func coalesceSeq(c *cache, tx []txn, addrs []uint64, active uint32, size uint64) ([]txn, bool) {
	if active == 0 {
		return tx, false
	}
	a0 := addrs[bits.TrailingZeros32(active)]
	if a0&(size-1) != 0 {
		return tx, false
	}
	want := a0
	if as := (*[32]uint64)(addrs); active == ^uint32(0) {
		// every lane: a0 + l*size at lane l, no mask walk
		for _, a := range as {
			if a != want {
				return tx, false
			}
			want += size
		}
	} else {
		for m := active; m != 0; m &= m - 1 {
			if as[bits.TrailingZeros32(m)&31] != want {
				return tx, false
			}
			want += size
		}
	}
	end := want - 1
	if end < a0 { // wrapped
		return tx, false
	}
	lb := uint64(1) << c.lineShift
	for la := a0 &^ (lb - 1); ; la += lb {
		lo, hi := max(a0, la), min(end, la+lb-1)
		u0, u1 := uint((lo-la)/unitBytes), uint((hi-la)/unitBytes)
		tx = append(tx, txn{addr: la, mask: c.sectorMask(lo, int(hi-lo+1)),
			units: (uint32(2)<<u1 - 1) &^ (uint32(1)<<u0 - 1), lanes: int32((hi - lo + 1) / size)})
		if hi == end {
			return tx, true
		}
	}
}

// broadcast is coalesce for every active lane accessing the same size
// bytes inside one line (ld.param, a uniform constant): one txn, one lane
// count per lane. It reports false (tx untouched) for any other access,
// and when tx is not empty.
func broadcast(c *cache, tx []txn, addrs []uint64, active uint32, size int) ([]txn, bool) {
	lb := uint64(1) << c.lineShift
	if len(tx) != 0 || size <= 0 || uint64(size) > lb {
		return tx, false
	}
	a, ok := sameAddr(addrs, active)
	if !ok || a&(lb-1)+uint64(size) > lb {
		return tx, false
	}
	la, end := a&^(lb-1), a+uint64(size)-1
	u0, u1 := uint((a-la)/unitBytes), uint((end-la)/unitBytes)
	return append(tx, txn{addr: la, mask: c.sectorMask(a, size),
		units: (uint32(2)<<u1 - 1) &^ (uint32(1)<<u0 - 1), lanes: int32(bits.OnesCount32(active))}), true
}

func addTxn(tx []txn, c *cache, la, lo, hi uint64) []txn {
	mask := c.sectorMask(lo, int(hi-lo+1))
	u0, u1 := uint((lo-la)/unitBytes), uint((hi-la)/unitBytes)
	units := (uint32(2)<<u1 - 1) &^ (uint32(1)<<u0 - 1)
	for k := len(tx) - 1; k >= 0; k-- {
		if tx[k].addr == la {
			tx[k].mask |= mask
			tx[k].units |= units
			tx[k].lanes++
			return tx
		}
	}
	return append(tx, txn{addr: la, mask: mask, units: units, lanes: 1})
}

// coalesceTex maps each lane's texels to addresses in the block-linear
// layout and groups them into texture-cache lines.
func (sm *smState) coalesceTex(c *cache, tx []txn, eff *Effect) []txn {
	lb := uint64(1) << c.lineShift
	ti := eff.TexFmt
	tb := ti.TexelBytes
	if tb <= 0 {
		tb = 4
	}
	tX := sm.spec.Tex.TileX
	tY, tZ := 1, 1
	if ti.Height > 1 {
		tY = sm.spec.Tex.TileY
	}
	if ti.Depth > 1 {
		tZ = sm.spec.Tex.TileZ
	}
	w, h, d := max(ti.Width, 1), max(ti.Height, 1), max(ti.Depth, 1)
	tilesX, tilesY, tilesZ := (w+tX-1)/tX, (h+tY-1)/tY, (d+tZ-1)/tZ
	tileBytes := uint64(tX * tY * tZ * tb)
	for m := eff.Active; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if lane >= len(eff.Texels) {
			break
		}
		for _, tx0 := range eff.Texels[lane] {
			x, y, z := clampi(int(tx0.X), w), clampi(int(tx0.Y), h), clampi(int(tx0.Z), d)
			tile := ((int(tx0.Layer)*tilesZ+z/tZ)*tilesY+y/tY)*tilesX + x/tX
			within := ((z%tZ)*tY+y%tY)*tX + x%tX
			a := texBase + uint64(tx0.Tex)<<40 + uint64(tile)*tileBytes + uint64(within*tb)
			la := a &^ (lb - 1)
			tx = addTxn(tx, c, la, a, a+uint64(tb)-1)
		}
	}
	return tx
}

func clampi(v, n int) int {
	if v < 0 {
		return 0
	}
	if v >= n {
		return n - 1
	}
	return v
}

// bankDegree is the worst number of distinct bank-width words any one
// shared-memory bank must deliver for the access (1 = conflict-free; lanes
// reading the same word are served by one broadcast).
func (sm *smState) bankDegree(addrs []uint64, active uint32, size int) int {
	bb := uint64(sm.spec.Shared.BankBytes)
	ws := sm.words[:0]
	for m := active; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if lane >= len(addrs) {
			break
		}
		a := addrs[lane]
		for wd := a / bb; wd <= (a+uint64(size)-1)/bb; wd++ {
			ws = append(ws, wd)
		}
	}
	sm.words = ws
	if len(ws) == 0 {
		return 1
	}
	slices.Sort(ws)
	banks := uint64(sm.spec.Shared.Banks)
	var cnt [64]int
	deg := 1
	prev := ws[0] + 1
	for _, wd := range ws {
		if wd == prev {
			continue
		}
		prev = wd
		k := wd % banks % 64
		cnt[k]++
		if cnt[k] > deg {
			deg = cnt[k]
		}
	}
	return deg
}

// uniqueWords counts the distinct 4-byte words the active lanes address
// (constant-cache accesses serialise over them).
func (sm *smState) uniqueWords(addrs []uint64, active uint32) int {
	if uniform(addrs, active, 4) {
		return 1
	}
	ws := sm.words[:0]
	for m := active; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if lane >= len(addrs) {
			break
		}
		ws = append(ws, addrs[lane]/4)
	}
	sm.words = ws
	slices.Sort(ws)
	n := 0
	for i, wd := range ws {
		if i == 0 || wd != ws[i-1] {
			n++
		}
	}
	return n
}

// observe reports an access to line addr of SM cache c.
func (sm *smState) observe(c *cache, addr uint64, o MemOutcome, issue, complete Time) {
	lv := LevelL1
	switch c {
	case sm.tex:
		lv = LevelTex
	case sm.cnst:
		lv = LevelConst
	}
	sm.memObs.Mem(MemEvent{Level: lv, Outcome: o, SM: sm.id, Addr: addr, Issue: issue, Complete: complete})
}

// uniform reports whether every active lane's address is in the same
// unit-byte word (at least one lane active).
func uniform(addrs []uint64, active uint32, unit uint64) bool {
	if active == 0 {
		return false
	}
	w0 := uint64(0)
	for m, first := active, true; m != 0; m &= m - 1 {
		lane := bits.TrailingZeros32(m)
		if lane >= len(addrs) {
			return false
		}
		if w := addrs[lane] / unit; first {
			w0, first = w, false
		} else if w != w0 {
			return false
		}
	}
	return true
}

// sameAddr reports whether every active lane (at least one) has the same
// address, and which; it answers false when addrs has fewer than 32 lanes.
func sameAddr(addrs []uint64, active uint32) (uint64, bool) {
	if active == 0 || len(addrs) < 32 {
		return 0, false
	}
	as := (*[32]uint64)(addrs)
	a0 := as[bits.TrailingZeros32(active)&31]
	if active == ^uint32(0) {
		for i := 0; i < 32; i += 8 {
			// eight lanes a test: a mismatch is rare where it matters
			d := (as[i] ^ a0) | (as[i+1] ^ a0) | (as[i+2] ^ a0) | (as[i+3] ^ a0) |
				(as[i+4] ^ a0) | (as[i+5] ^ a0) | (as[i+6] ^ a0) | (as[i+7] ^ a0)
			if d != 0 {
				return 0, false
			}
		}
		return a0, true
	}
	for m := active; m != 0; m &= m - 1 {
		if as[bits.TrailingZeros32(m)&31] != a0 {
			return 0, false
		}
	}
	return a0, true
}
