package clog2

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/ptxtrace/ptxtrace/trace"
)

// spoolState is the exporter's state while it receives time-ordered
// events (exporters.TimeOrdered): events go, already in blocks, to a
// temporary file; End writes the preamble and definitions and copies them.
type spoolState struct {
	f         *os.File
	bw        *bufio.Writer
	w         *Writer
	m         *mergeState
	base      uint64
	ranks     map[uint32]bool
	maxRank   uint32
	maxThread uint32
	spt       float64
	cargo     [CargoSize]byte
	xp        *xferPlan // transfers (transfers.go), or nil
	ids       int32     // state id offset: xferStates with transfers
	last      float64   // the last time written
}

// WriteEvent implements exporters.TimeOrdered: Run calls it, instead of
// WriteRegions, with every region begin and end in time order when its
// source is a *trace.Decoder (trace.MergeByTime, bounded memory). Events
// are encoded at once into blocks in a temporary file (as large as the
// output); memory stays bounded by the warps with open regions.
func (e *Exporter) WriteEvent(ev *trace.Event) error {
	if !e.began || e.ended {
		return errors.New("clog2: WriteEvent outside Begin/End")
	}
	if e.recs.n > 0 {
		return errors.New("clog2: WriteEvent after WriteRegions")
	}
	sp := e.spool
	if sp == nil {
		f, err := os.CreateTemp(e.opt.TempDir, "ptxtrace-clog2-*.blocks")
		if err != nil {
			return fmt.Errorf("clog2: spool: %w", err)
		}
		sp = &spoolState{f: f, m: newMergeState(e.h), base: ev.Time, ranks: map[uint32]bool{}, spt: secondsPerTick(e.h)}
		sp.bw = bufio.NewWriterSize(f, 1<<20)
		sp.w = newSpool(sp.bw, e.opt.BlockSize)
		e.spool = sp
		if sp.xp, err = planTransfers(e.h, sp.base, sp.spt); err != nil {
			return err
		}
		if sp.xp != nil {
			sp.ids = xferStates
			sp.xp.write(sp.w, true, &sp.last)
		}
	}
	st, rank, thread, err := sp.m.step(ev)
	if err != nil {
		return err
	}
	if !sp.ranks[rank] {
		sp.ranks[rank] = true
	}
	sp.maxRank, sp.maxThread = max(sp.maxRank, rank), max(sp.maxThread, thread)
	if ev.Time < sp.base {
		return fmt.Errorf("clog2: events out of time order (%d after %d)", ev.Time, sp.base)
	}
	t := float64(ev.Time-sp.base) * sp.spt
	if sp.xp != nil {
		t = max(t+sp.xp.off, sp.last)
		sp.last = t
	}
	et := UserEventIDStart + 2*(sp.ids+int32(st))
	if ev.Begin {
		sp.w.Bare(t, 0, int32(rank), int32(thread), et)
		return sp.w.err
	}
	r := &ev.Region
	var probe uint32
	if r.Info != nil {
		probe = r.Info.BeginProbe
	}
	putCargo(&sp.cargo, r.CTA, r.WarpInCTA, r.SM, probe, r.Cycles)
	sp.w.Cargo(t, 0, int32(rank), int32(thread), et+1, &sp.cargo)
	return sp.w.err
}

// endSpool writes the file from the spooled events: preamble, STATEDEFs
// (ids in order of first appearance), COMMEVTs, an early ENDBLOCK, the
// spooled blocks and the table.
func (e *Exporter) endSpool() error {
	sp := e.spool
	defer sp.close()
	if sp.m.open != 0 {
		return fmt.Errorf("clog2: %d regions still open after the last event", sp.m.open)
	}
	if sp.xp != nil {
		sp.xp.write(sp.w, false, &sp.last)
	}
	if err := sp.w.finish(); err != nil {
		return err
	}
	if err := sp.bw.Flush(); err != nil {
		return err
	}
	if sp.maxRank >= math.MaxInt32 || uint64(sp.maxRank+1)*uint64(sp.maxThread+1) > math.MaxInt32 {
		return fmt.Errorf("clog2: %d CTAs × %d warps do not fit CLOG2's 32-bit line ids", sp.maxRank+1, sp.maxThread+1)
	}
	ranks := make([]uint32, 0, len(sp.ranks))
	for r := range sp.ranks {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	m := sp.m
	order, _ := sortStates(m.kinds, m.states)
	head := NewSizer(e.opt.BlockSize)
	nStates, nRanks := len(m.states), sp.maxRank+1
	if sp.xp != nil {
		sp.xp.sizeDefs(head)
		nStates, nRanks = nStates+xferStates, max(nRanks, sp.xp.rank+1)
	}
	head.AddN(RecStateDef, len(m.states))
	head.AddN(RecCommEvt, len(ranks))
	head.EndBlock()
	pre := NewPreamble(int32(e.opt.BlockSize), int32(nRanks), int32(sp.maxThread+1), int32(nStates), 0)
	pre.CommTableFptr = PreambleSize + (head.blocks+sp.w.blocks)*int64(e.opt.BlockSize)
	bw := bufio.NewWriterSize(e.w, 1<<20)
	w, err := NewWriter(bw, pre)
	if err != nil {
		return err
	}
	// The spooled events use ids by first appearance: STATEDEF n of the
	// sorted order describes state order[n] with that state's ids.
	if sp.xp != nil {
		if err := sp.xp.defs(w, worldUUID(e.h)); err != nil {
			return err
		}
	}
	if err := writeDefsIDs(w, m.kinds, m.states, order, func(n int, old uint32) int32 { return sp.ids + int32(old) }, ranks, worldUUID(e.h)); err != nil {
		return err
	}
	w.EndBlock()
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := w.appendBlocks(bufio.NewReaderSize(sp.f, 1<<20), sp.w.blocks); err != nil {
		return err
	}
	if err := w.Close([]CommID{{UUID: worldUUID(e.h), LocalID: 0, Kind: CommKindIntra}}); err != nil {
		return err
	}
	return bw.Flush()
}

func (sp *spoolState) close() {
	if sp.f != nil {
		name := sp.f.Name()
		sp.f.Close()
		os.Remove(name)
		sp.f = nil
	}
}

// Abort implements exporters.Aborter: it removes the spool file.
func (e *Exporter) Abort(error) {
	if e.spool != nil {
		e.spool.close()
	}
}

// mergeState assigns nesting levels and states to merged events.
type mergeState struct {
	h        *trace.Header
	kinds    []kindInfo
	kindOf   map[int]uint16
	stateIdx map[uint32]uint32
	states   []stateKey
	warps    map[uint32]*mergeWarp
	free     []*mergeWarp
	open     int
}

// mergeWarp is one warp with open regions: which levels are held and the
// level of each open region (by its begin record; few are open at once).
type mergeWarp struct {
	busy []bool
	open []openLevel
}

type openLevel struct{ rec, level uint32 }

func newMergeState(h *trace.Header) *mergeState {
	m := &mergeState{h: h, stateIdx: map[uint32]uint32{}, warps: map[uint32]*mergeWarp{}}
	m.kinds, m.kindOf = stateKinds(h, m.kinds)
	return m
}

// step returns the state index, rank and thread of an event, updating the
// warp's levels.
func (m *mergeState) step(ev *trace.Event) (uint32, uint32, uint32, error) {
	r := &ev.Region
	rank := r.Warp
	if m.h.WarpsPerCTA > 0 {
		rank = r.Warp / m.h.WarpsPerCTA
	}
	kind, ok := m.kindOf[r.ID]
	if !ok {
		return 0, 0, 0, fmt.Errorf("clog2: region id %d is not in the header", r.ID)
	}
	w := m.warps[r.Warp]
	var lvl uint32
	if ev.Begin {
		if w == nil {
			if n := len(m.free); n > 0 {
				w, m.free = m.free[n-1], m.free[:n-1]
			} else {
				w = &mergeWarp{}
			}
			m.warps[r.Warp] = w
		}
		l := slices.Index(w.busy, false)
		if l < 0 {
			l = len(w.busy)
			w.busy = append(w.busy, false)
		}
		w.busy[l] = true
		lvl = uint32(l)
		w.open = append(w.open, openLevel{rec: r.BeginRec, level: lvl})
		m.open++
	} else {
		i := -1
		if w != nil {
			i = slices.IndexFunc(w.open, func(o openLevel) bool { return o.rec == r.BeginRec })
		}
		if i < 0 {
			return 0, 0, 0, fmt.Errorf("clog2: end of region %d in warp %d without its begin", r.ID, r.Warp)
		}
		lvl = w.open[i].level
		w.open = slices.Delete(w.open, i, i+1)
		w.busy[lvl] = false
		m.open--
		if len(w.open) == 0 {
			delete(m.warps, r.Warp)
			w.busy = w.busy[:0]
			m.free = append(m.free, w)
		}
	}
	sk := uint32(kind)<<16 | min(lvl, 0xffff)
	st, ok := m.stateIdx[sk]
	if !ok {
		st = uint32(len(m.states))
		m.stateIdx[sk] = st
		m.states = append(m.states, stateKey{kind: kind, level: lvl})
	}
	return st, rank, r.WarpInCTA, nil
}

// sortStates sorts the states by label and level: order[n] is the state
// written n-th, newIdx[old] its position.
func sortStates(kinds []kindInfo, states []stateKey) ([]uint32, []int32) {
	order := make([]uint32, len(states))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		sa, sb := states[a], states[b]
		if c := cmp.Compare(kinds[sa.kind].label, kinds[sb.kind].label); c != 0 {
			return c
		}
		return cmp.Compare(sa.level, sb.level)
	})
	newIdx := make([]int32, len(states))
	for n, old := range order {
		newIdx[old] = int32(n)
	}
	return order, newIdx
}

// writeDefs writes the STATEDEFs (in order, state n getting id n) and one
// WORLD_CREATE COMMEVT per rank.
func writeDefs(w *Writer, kinds []kindInfo, states []stateKey, order []uint32, ranks []uint32, world UUID) error {
	return writeDefsIDs(w, kinds, states, order, func(n int, _ uint32) int32 { return int32(n) }, ranks, world)
}

// writeDefsIDs is writeDefs with the id of the n-th written state (old
// index) given by id.
func writeDefsIDs(w *Writer, kinds []kindInfo, states []stateKey, order []uint32, id func(n int, old uint32) int32, ranks []uint32, world UUID) error {
	for n, old := range order {
		k := states[old]
		ki := kinds[k.kind]
		name := ki.label
		if k.level > 0 {
			name = fmt.Sprintf("%s L%d", ki.label, k.level)
		}
		i := id(n, old)
		if err := w.Write(&Record{
			Type: RecStateDef, StateID: KnownStateIDCount + i,
			StartEType: UserEventIDStart + 2*i, FinalEType: UserEventIDStart + 2*i + 1,
			Color: stateColor(ki.family, k.level), Name: name, Format: StateFormat,
		}); err != nil {
			return err
		}
	}
	for _, r := range ranks {
		if err := w.Write(&Record{
			Type: RecCommEvt, IComm: 0, Rank: int32(r), Thread: 0,
			EType: CommWorldCreate, CommIComm: 0, CommRank: int32(r), WRank: int32(r), GComm: world,
		}); err != nil {
			return err
		}
	}
	return nil
}
