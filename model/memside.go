package model

import "math/bits"

// This file is the memory side: the crossbar ports of the L2 slices, the
// slices themselves and the DRAM channels. It runs serially at epoch
// boundaries as a discrete-event simulation ordered by (time, seq), and
// only ever processes events earlier than its horizon (doc.go explains
// why that is exact).

type reqKind uint8

const (
	reqRead reqKind = iota
	reqWrite
	reqAtomic
)

// Response targets, in the top bits of a request tag.
const (
	tgtL1 = iota
	tgtTex
	tgtConst
	tgtOp
	tgtShift = 24
	tgtMask  = 1<<tgtShift - 1
)

// memReq is one packet an SM sends towards L2.
type memReq struct {
	t     Time // fully injected at the SM's port
	sm    int32
	kind  reqKind
	lanes int32  // atomics: lanes that operate
	tag   int32  // returned in the response
	addr  uint64 // requester's line address
	units uint32 // 32-byte units of the line the request covers
}

// memResp is one response packet arriving at an SM at t; its payload is
// the request's tag (uint32).
type memResp = timed

const unitBytes = 32

type evKind uint8

const (
	evSliceIn evKind = iota
	evLookup
	evChanTick
	evDramDone
)

// event is one memory-side event at t; its payload packs the kind (bits
// 32-39) and the request, op or channel id (bits 0-31).
type event = timed

type l2slice struct {
	c                         *cache
	inFree, outFree, atomFree Time
	waitq                     []int32 // requests waiting for an MSHR or an evictable line
}

type dramOp struct {
	slice  int32
	mshr   int32 // -1 for writes
	write  bool
	bank   int32
	row    uint64
	bytes  int32
	arrive Time
	addr   uint64 // the L2 line (observers)
}

type bank struct {
	open    bool
	row     uint64
	readyAt Time // next column command
	actAt   Time // last activate
}

type channel struct {
	q        []int32 // dram ops in arrival order (at most QueueSize)
	overflow []int32 // waiting for a queue slot
	banks    []bank
	busFree  uint64 // fixed point: core cycles << fpShift
	ticking  bool
}

const fpShift = 8

type memSide struct {
	spec  *Spec
	obs   Observer // nil: none attached
	ev    *calQueue
	seq   uint64
	now   Time
	sl    []l2slice
	ch    []channel
	smIn  []Time // SM ejection ports
	reqs  []memReq
	rfree []int32
	ops   []dramOp
	ofree []int32
	out   [][]memResp // per SM, produced since the last collection

	// derived timing, core cycles
	rcd, rp, cl, ras, ccd Time
	burstFP               uint64 // per byte, fixed point
	icnt, l2lat           Time
	flit, header          int

	dram DRAMStats
	icst IcntStats
}

func newMemSide(s *Spec) *memSide {
	m := &memSide{spec: s, ev: newCalQueue(), out: make([][]memResp, s.NumSMs), smIn: make([]Time, s.NumSMs)}
	for i := 0; i < s.L2.Slices; i++ {
		m.sl = append(m.sl, l2slice{c: newCache(s.L2.Sets, s.L2.Ways, s.L2.LineBytes, s.L2.SectorBytes, s.L2.MSHRs)})
	}
	for i := 0; i < s.DRAM.Channels; i++ {
		m.ch = append(m.ch, channel{banks: make([]bank, s.DRAM.Banks)})
	}
	ratio := s.CoreMHz / s.DRAM.ClockMHz
	conv := func(n int) Time { return Time(ceilf(float64(n) * ratio)) }
	m.rcd, m.rp, m.cl, m.ras, m.ccd = conv(s.DRAM.TRCD), conv(s.DRAM.TRP), conv(s.DRAM.TCL), conv(s.DRAM.TRAS), conv(s.DRAM.TCCD)
	// core cycles per byte = ratio / BytesPerClock
	m.burstFP = uint64(ceilf(ratio / float64(s.DRAM.BytesPerClock) * (1 << fpShift)))
	m.icnt = Time(s.Icnt.Latency)
	m.l2lat = Time(s.L2.Latency)
	m.flit = s.Icnt.FlitBytes
	m.header = s.Icnt.HeaderBytes
	return m
}

func ceilf(x float64) float64 {
	i := float64(int64(x))
	if i < x {
		return i + 1
	}
	return i
}

func (m *memSide) flits(bytes int) Time {
	n := (bytes + m.flit - 1) / m.flit
	if n < 1 {
		n = 1
	}
	return Time(n)
}

func (m *memSide) push(t Time, k evKind, id int32) {
	m.seq++
	m.ev.push(event{t: t, seq: m.seq, v: uint64(k)<<32 | uint64(uint32(id))})
}

// submit takes a request from an SM (in deterministic order).
func (m *memSide) submit(r *memReq) {
	var id int32
	if n := len(m.rfree); n > 0 {
		id = m.rfree[n-1]
		m.rfree = m.rfree[:n-1]
		m.reqs[id] = *r
	} else {
		id = int32(len(m.reqs))
		m.reqs = append(m.reqs, *r)
	}
	m.icst.Requests++
	m.push(r.t+m.icnt, evSliceIn, id)
}

func (m *memSide) reqBytes(r *memReq) int {
	if r.kind == reqRead {
		return m.header
	}
	return m.header + bits.OnesCount32(r.units)*unitBytes
}

func (m *memSide) sliceOf(addr uint64) int {
	return int(addr / uint64(m.spec.L2.InterleaveBytes) % uint64(len(m.sl)))
}

// idle reports whether no event is pending.
func (m *memSide) idle() bool { return m.ev.len() == 0 }

// nextTime is the time of the earliest pending event (ok false if none).
func (m *memSide) nextTime() (Time, bool) {
	e, ok := m.ev.peek()
	return e.t, ok
}

// advance processes every event earlier than horizon.
func (m *memSide) advance(horizon Time) {
	for {
		e, ok := m.ev.popBefore(horizon)
		if !ok {
			break
		}
		m.now = e.t
		id := int32(uint32(e.v))
		switch evKind(e.v >> 32) {
		case evSliceIn:
			r := &m.reqs[id]
			sl := &m.sl[m.sliceOf(r.addr)]
			at := m.now
			if sl.inFree > at {
				at = sl.inFree
			}
			fl := m.flits(m.reqBytes(r))
			sl.inFree = at + fl
			m.icst.Flits += uint64(fl)
			if at == m.now {
				m.lookup(id)
			} else {
				m.push(at, evLookup, id)
			}
		case evLookup:
			m.lookup(id)
		case evChanTick:
			m.tick(int(id))
		case evDramDone:
			m.dramDone(id)
		}
	}
}

// lookup performs request id at its slice now.
func (m *memSide) lookup(id int32) {
	r := &m.reqs[id]
	si := m.sliceOf(r.addr)
	sl := &m.sl[si]
	c := sl.c
	tag := r.addr>>c.lineShift + 1
	mask := m.sectorsOf(c, r.addr, r.units)
	i := c.find(tag)
	if r.kind == reqWrite {
		if i < 0 {
			i = c.victim(tag)
			if i < 0 {
				c.stats.ReservationFails++
				sl.waitq = append(sl.waitq, id)
				return
			}
			m.evict(si, i, tag)
		}
		c.stats.Accesses++
		l := &c.lines[i]
		l.valid |= mask
		l.dirty |= mask
		c.touch(i)
		if m.obs != nil {
			m.observe(r, Write, m.now)
		}
		m.respond(sl, id, m.now)
		return
	}
	c.stats.Accesses++
	if i >= 0 {
		l := &c.lines[i]
		if l.valid&mask == mask {
			c.stats.Hits++
			c.touch(i)
			if m.obs != nil {
				m.observe(r, Hit, m.now)
			}
			m.done(sl, id, m.now)
			return
		}
		if l.mshr >= 0 && (l.valid|l.pending)&mask == mask {
			c.stats.Merged++
			e := &c.mshrs[l.mshr]
			e.waiters = append(e.waiters, id)
			if m.obs != nil {
				m.observe(r, Merged, 0)
			}
			return
		}
	}
	// miss: needs an MSHR (and a line when absent)
	if (i < 0 || c.lines[i].mshr < 0) && len(c.free) == 0 {
		c.stats.Accesses--
		c.stats.ReservationFails++
		sl.waitq = append(sl.waitq, id)
		return
	}
	if i < 0 {
		i = c.victim(tag)
		if i < 0 {
			c.stats.Accesses--
			c.stats.ReservationFails++
			sl.waitq = append(sl.waitq, id)
			return
		}
		m.evict(si, i, tag)
	}
	c.stats.Misses++
	l := &c.lines[i]
	mi := l.mshr
	if mi < 0 {
		mi = c.allocMSHR(i, tag)
		c.mshrs[mi].since = m.now
	}
	if m.obs != nil {
		m.observe(r, Miss, 0)
	}
	missing := mask &^ (l.valid | l.pending)
	l.pending |= missing
	e := &c.mshrs[mi]
	e.waiters = append(e.waiters, id)
	e.outstanding++
	c.touch(i)
	addr := (tag - 1) << c.lineShift
	m.dramAccess(si, mi, false, addr, bits.OnesCount32(missing)<<c.sectorShift)
}

// sectorsOf converts a request's 32-byte units into sectors of cache c.
func (m *memSide) sectorsOf(c *cache, addr uint64, units uint32) uint32 {
	off := addr & (uint64(1)<<c.lineShift - 1)
	var mask uint32
	for u := units; u != 0; u &= u - 1 {
		b := uint64(bits.TrailingZeros32(u))*unitBytes + off
		mask |= 1 << (b >> c.sectorShift)
	}
	return mask & c.fullMask
}

// evict installs tag in line i of slice si, writing a dirty victim back.
func (m *memSide) evict(si, i int, tag uint64) {
	c := m.sl[si].c
	dirty, old := c.install(i, tag)
	if dirty != 0 {
		m.dramAccess(si, -1, true, (old-1)<<c.lineShift, bits.OnesCount32(dirty)<<c.sectorShift)
	}
}

// done finishes a read or atomic whose data is at the slice at time t.
func (m *memSide) done(sl *l2slice, id int32, t Time) {
	r := &m.reqs[id]
	if r.kind == reqAtomic {
		if sl.atomFree > t {
			t = sl.atomFree
		}
		t += Time(int(r.lanes) * m.spec.L2.AtomicCycles)
		sl.atomFree = t
		c := sl.c
		if i := c.find(r.addr>>c.lineShift + 1); i >= 0 {
			c.lines[i].dirty |= m.sectorsOf(c, r.addr, r.units)
		}
	}
	m.respond(sl, id, t)
}

// respond sends the response of request id, ready at the slice at t.
func (m *memSide) respond(sl *l2slice, id int32, t Time) {
	r := &m.reqs[id]
	bytes := m.header
	if r.kind != reqWrite {
		bytes += bits.OnesCount32(r.units) * unitBytes
	}
	fl := m.flits(bytes)
	dep := t + m.l2lat
	if sl.outFree > dep {
		dep = sl.outFree
	}
	sl.outFree = dep + fl
	arr := dep + m.icnt
	if m.smIn[r.sm] > arr {
		arr = m.smIn[r.sm]
	}
	m.smIn[r.sm] = arr + fl
	m.icst.Responses++
	m.icst.Flits += uint64(fl)
	m.seq++
	m.out[r.sm] = append(m.out[r.sm], memResp{t: arr, seq: m.seq, v: uint64(uint32(r.tag))})
	m.rfree = append(m.rfree, id)
}

func (m *memSide) dramAccess(si int, mshr int32, write bool, addr uint64, bytes int) {
	d := &m.spec.DRAM
	il := uint64(m.spec.L2.InterleaveBytes)
	chunk := addr / il
	ci := si % len(m.ch)
	local := chunk/uint64(len(m.ch))*il + addr%il
	rowSpan := uint64(d.RowBytes)
	op := dramOp{slice: int32(si), mshr: mshr, write: write,
		bank: int32(local / rowSpan % uint64(d.Banks)), row: local / (rowSpan * uint64(d.Banks)),
		bytes: int32(bytes), arrive: m.now, addr: addr}
	var id int32
	if n := len(m.ofree); n > 0 {
		id = m.ofree[n-1]
		m.ofree = m.ofree[:n-1]
		m.ops[id] = op
	} else {
		id = int32(len(m.ops))
		m.ops = append(m.ops, op)
	}
	ch := &m.ch[ci]
	if len(ch.q) < d.QueueSize {
		ch.q = append(ch.q, id)
	} else {
		ch.overflow = append(ch.overflow, id)
	}
	if !ch.ticking {
		ch.ticking = true
		m.push(m.now, evChanTick, int32(ci))
	}
}

// tick lets channel ci schedule one request (FR-FCFS: the oldest row hit
// among requests whose bank is ready, else the oldest such request).
func (m *memSide) tick(ci int) {
	ch := &m.ch[ci]
	now := m.now
	if len(ch.q) == 0 {
		ch.ticking = false
		return
	}
	best := -1
	frfcfs := m.spec.DRAM.Scheduler == "frfcfs"
	wake := Time(1<<63 - 1)
	for k, id := range ch.q {
		op := &m.ops[id]
		b := &ch.banks[op.bank]
		if b.readyAt > now {
			if b.readyAt < wake {
				wake = b.readyAt
			}
			if !frfcfs {
				break
			}
			continue
		}
		if b.open && b.row == op.row {
			best = k
			break
		}
		if best < 0 {
			best = k
			if !frfcfs {
				break
			}
		}
	}
	if best < 0 {
		m.push(wake, evChanTick, int32(ci))
		return
	}
	id := ch.q[best]
	copy(ch.q[best:], ch.q[best+1:])
	ch.q = ch.q[:len(ch.q)-1]
	if len(ch.overflow) > 0 {
		ch.q = append(ch.q, ch.overflow[0])
		ch.overflow = ch.overflow[1:]
	}
	op := &m.ops[id]
	b := &ch.banks[op.bank]
	m.dram.QueueWait += uint64(now - op.arrive)
	rowHit := b.open && b.row == op.row
	var col Time
	switch {
	case b.open && b.row == op.row:
		col = now
		m.dram.RowHits++
	case !b.open:
		col = now + m.rcd
		b.actAt = now
		m.dram.RowMisses++
	default:
		pre := now
		if b.actAt+m.ras > pre {
			pre = b.actAt + m.ras
		}
		b.actAt = pre + m.rp
		col = b.actAt + m.rcd
		m.dram.RowMisses++
	}
	b.open, b.row = true, op.row
	b.readyAt = col + m.ccd
	start := uint64(col+m.cl) << fpShift
	if ch.busFree > start {
		start = ch.busFree
	}
	ch.busFree = start + uint64(op.bytes)*m.burstFP
	end := Time((ch.busFree + 1<<fpShift - 1) >> fpShift)
	if m.obs != nil {
		m.observeDRAM(op, rowHit, end)
	}
	if op.write {
		m.dram.Writes++
		m.dram.BytesWritten += uint64(op.bytes)
		m.ofree = append(m.ofree, id)
	} else {
		m.dram.Reads++
		m.dram.BytesRead += uint64(op.bytes)
		m.push(end+Time(m.spec.DRAM.Latency), evDramDone, id)
	}
	if len(ch.q) > 0 {
		m.push(now+1, evChanTick, int32(ci))
	} else {
		ch.ticking = false
	}
}

// dramDone fills the L2 line of a completed read and answers its waiters.
func (m *memSide) dramDone(id int32) {
	op := m.ops[id]
	m.ofree = append(m.ofree, id)
	sl := &m.sl[op.slice]
	c := sl.c
	e := &c.mshrs[op.mshr]
	e.outstanding--
	if e.outstanding > 0 {
		return
	}
	l := &c.lines[e.entry]
	l.valid |= l.pending
	if m.obs != nil {
		m.obs.Mem(MemEvent{Level: LevelL2, Outcome: Fill, SM: -1, Addr: (e.tag - 1) << c.lineShift, Issue: e.since, Complete: m.now})
	}
	for _, w := range e.waiters {
		m.done(sl, w, m.now)
	}
	c.releaseMSHR(op.mshr)
	// retry requests that waited for an MSHR or a line, in order
	if len(sl.waitq) > 0 {
		q := sl.waitq
		sl.waitq = nil
		for _, w := range q {
			m.lookup(w)
		}
	}
}

// l2Stats sums the slices' statistics.
func (m *memSide) l2Stats() CacheStats {
	var s CacheStats
	for i := range m.sl {
		s.add(m.sl[i].c.stats)
	}
	return s
}

// observe reports L2 lookup of request r with the given outcome.
func (m *memSide) observe(r *memReq, o MemOutcome, complete Time) {
	ls := m.sl[0].c.lineShift
	m.obs.Mem(MemEvent{Level: LevelL2, Outcome: o, SM: int(r.sm), Write: r.kind != reqRead,
		Addr: r.addr >> ls << ls, Issue: m.now, Complete: complete})
}

// observeDRAM reports a DRAM transfer whose last data cycle is end.
func (m *memSide) observeDRAM(op *dramOp, rowHit bool, end Time) {
	o := Miss
	if rowHit {
		o = Hit
	}
	if !op.write {
		end += Time(m.spec.DRAM.Latency)
	}
	m.obs.Mem(MemEvent{Level: LevelDRAM, Outcome: o, SM: -1, Write: op.write, Addr: op.addr, Issue: op.arrive, Complete: end})
}
