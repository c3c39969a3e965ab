package clog2

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Options tunes the exporter.
type Options struct {
	// BlockSize is the CLOG2 block size in bytes; 0 means 65536 (MPE's
	// default). It must be a multiple of 8 between 256 and 64 MiB.
	BlockSize int
	// TempDir is where WriteEvent spools encoded blocks ("" = os.TempDir).
	TempDir string
}

// Exporter writes a trace as a CLOG2 file (see the package doc for the
// mapping). It implements exporters.Exporter. It keeps every region in a
// compact form until End, because CLOG2 wants records of all timelines in
// one time order.
type Exporter struct {
	w   io.Writer
	opt Options
	h   *trace.Header

	kindOf   map[int]uint16 // region id → kind index
	kinds    []kindInfo
	stateIdx map[uint32]uint32 // kind<<16 | level → state index
	states   []stateKey

	recs recStore
	minT uint64 // earliest begin so far
	maxT uint64 // latest end so far

	curWarp  uint32
	haveWarp bool
	slots    []slot // per nesting level of the current warp: last end

	began, ended bool
	spool        *spoolState // time-ordered events (WriteEvent)
}

type kindInfo struct {
	label  string
	family int // palette family
}

type stateKey struct {
	kind  uint16
	level uint32
}

type slot struct {
	end uint64
}

// rec is one region kept until End (48 bytes).
type rec struct {
	start, end uint64
	cycles     uint64
	cta        [3]uint32
	rank       uint32 // CTA linear index
	thread     uint32 // warp in CTA
	sm         uint32
	probe      uint32 // begin probe id
	state      uint32
}

// recChunk is how many regions one chunk of a recStore holds.
const recChunk = 1 << 14

// recStore keeps regions in fixed-size chunks, so growing it never copies.
type recStore struct {
	chunks [][]rec
	n      int
}

func (s *recStore) add(r rec) {
	if s.n%recChunk == 0 {
		s.chunks = append(s.chunks, make([]rec, 0, recChunk))
	}
	c := &s.chunks[len(s.chunks)-1]
	*c = append(*c, r)
	s.n++
}

func (s *recStore) at(i int) *rec { return &s.chunks[i/recChunk][i%recChunk] }

// New returns an exporter that writes to w.
func New(w io.Writer, opt Options) *Exporter {
	return &Exporter{w: w, opt: opt}
}

// Begin implements exporters.Exporter.
func (e *Exporter) Begin(h *trace.Header) error {
	if e.began {
		return errors.New("clog2: Begin called twice")
	}
	bs := e.opt.BlockSize
	if bs == 0 {
		bs = DefaultBlockSize
	}
	if bs < minBlockSize || bs > maxBlockSize || bs%8 != 0 {
		return fmt.Errorf("clog2: block size %d: want a multiple of 8 in [%d, %d]", bs, minBlockSize, maxBlockSize)
	}
	e.opt.BlockSize = bs
	e.began = true
	e.h = h
	e.stateIdx = map[uint32]uint32{}
	e.kinds, e.kindOf = stateKinds(h, e.kinds)
	return nil
}

// stateKinds appends to kinds one state kind per distinct label of h's
// regions (kindLabel), in region order, and maps each region id to its
// kind.
func stateKinds(h *trace.Header, kinds []kindInfo) ([]kindInfo, map[int]uint16) {
	kindOf := make(map[int]uint16, len(h.Regions))
	labels := map[string]uint16{}
	for i := range h.Regions {
		ri := &h.Regions[i]
		label, fam := kindLabel(ri)
		k, ok := labels[label]
		if !ok {
			k = uint16(len(kinds))
			labels[label] = k
			kinds = append(kinds, kindInfo{label: label, family: fam})
		}
		kindOf[ri.ID] = k
	}
	return kinds, kindOf
}

// kindLabel names the state family of a region and picks its palette.
func kindLabel(ri *trace.RegionInfo) (string, int) {
	if ri.Memory() {
		sp := ri.Space
		if sp == "" {
			sp = "memory"
		}
		return sp + " load", spaceFamily(sp)
	}
	if ri.Kind == "user" || ri.Kind == "" {
		return "user region", famUser
	}
	return ri.Kind + " region", famOther
}

// WriteWarp implements exporters.WarpWriter: nesting levels restart per warp.
func (e *Exporter) WriteWarp(w *trace.Warp, _ []trace.Issue) error {
	e.curWarp = w.Segment
	e.haveWarp = true
	e.slots = e.slots[:0]
	return nil
}

// WriteRegions implements exporters.Exporter.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	if !e.began || e.ended {
		return errors.New("clog2: WriteRegions outside Begin/End")
	}
	if e.spool != nil {
		return errors.New("clog2: WriteRegions after WriteEvent")
	}
	wpc := e.h.WarpsPerCTA
	for i := range rs {
		r := &rs[i]
		if !e.haveWarp || r.Warp != e.curWarp {
			e.curWarp, e.haveWarp = r.Warp, true
			e.slots = e.slots[:0]
		}
		if r.End < r.Start {
			return fmt.Errorf("clog2: region %d of warp %d ends (%d) before it starts (%d)", r.ID, r.Warp, r.End, r.Start)
		}
		// Lowest level whose previous instance has ended: instances of one
		// state on one line never overlap, so MPE's FIFO pairing of start and
		// final events is exact.
		lvl := -1
		for l := range e.slots {
			if e.slots[l].end <= r.Start {
				lvl = l
				break
			}
		}
		if lvl < 0 {
			lvl = len(e.slots)
			e.slots = append(e.slots, slot{})
		}
		e.slots[lvl].end = r.End
		kind, ok := e.kindOf[r.ID]
		if !ok {
			return fmt.Errorf("clog2: region id %d is not in the header", r.ID)
		}
		sk := uint32(kind)<<16 | uint32(min(lvl, 0xffff))
		st, ok := e.stateIdx[sk]
		if !ok {
			st = uint32(len(e.states))
			e.stateIdx[sk] = st
			e.states = append(e.states, stateKey{kind: kind, level: uint32(lvl)})
		}
		var probe uint32
		if r.Info != nil {
			probe = r.Info.BeginProbe
		}
		rank := r.Warp
		if wpc > 0 {
			rank = r.Warp / wpc
		}
		if e.recs.n == 0 {
			e.minT, e.maxT = r.Start, r.End
		}
		e.minT = min(e.minT, r.Start)
		e.maxT = max(e.maxT, r.End)
		e.recs.add(rec{
			start: r.Start, end: r.End, cycles: r.Cycles,
			cta: r.CTA, rank: rank, thread: r.WarpInCTA, sm: r.SM,
			probe: probe, state: st,
		})
	}
	return nil
}

// StateFormat is the format string of every state's cargo, carried by the
// final event (MPE's converter takes a state's info from its final event's
// cargo when it has one): the CTA, the warp in the CTA, the SM, the begin
// probe id and the region's duration in timer units (cycles, or ns for
// %globaltimer).
const StateFormat = "cta=(%d,%d,%d) w=%d sm=%d p=%d cyc=%l"

// End implements exporters.Exporter: it sorts all events by time and
// writes the file.
func (e *Exporter) End() error {
	if !e.began || e.ended {
		return errors.New("clog2: End without Begin, or twice")
	}
	e.ended = true

	if e.spool != nil {
		return e.endSpool()
	}
	// States in a stable order: by kind label, then level.
	order, newIdx := sortStates(e.kinds, e.states)

	// Time base: the earliest begin; scale: seconds per timer unit.
	base := e.minT
	var maxRank, maxThread uint32
	rankUsed := map[uint32]bool{}
	for _, c := range e.recs.chunks {
		for i := range c {
			r := &c[i]
			maxRank = max(maxRank, r.rank)
			maxThread = max(maxThread, r.thread)
			rankUsed[r.rank] = true
		}
	}
	if e.recs.n == 0 {
		rankUsed[0] = true
	}
	if maxRank >= math.MaxInt32 || uint64(maxRank+1)*uint64(maxThread+1) > math.MaxInt32 {
		return fmt.Errorf("clog2: %d CTAs × %d warps do not fit CLOG2's 32-bit line ids", maxRank+1, maxThread+1)
	}
	spt := secondsPerTick(e.h)
	order2 := sortEvents(&e.recs, base, e.maxT)
	xp, err := planTransfers(e.h, base, spt)
	if err != nil {
		return err
	}
	ids, nStates, nRanks := int32(0), len(e.states), maxRank+1 // state id offset, STATEDEFs, ranks
	if xp != nil {
		ids, nStates, nRanks = xferStates, nStates+xferStates, max(nRanks, xp.rank+1)
	}

	ranks := make([]uint32, 0, len(rankUsed))
	for r := range rankUsed {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)

	// Plan the blocks to know where the communicator table goes.
	sz := NewSizer(e.opt.BlockSize)
	if xp != nil {
		xp.sizeDefs(sz)
	}
	sz.AddN(RecStateDef, len(e.states))
	sz.AddN(RecCommEvt, len(ranks))
	if xp != nil {
		xp.sizeEvents(sz, true)
	}
	for k := 0; k < order2.len(); k++ {
		if _, i := order2.at(k); i&1 == 0 {
			sz.Add(RecBareEvt)
		} else {
			sz.Add(RecCargoEvt)
		}
	}
	if xp != nil {
		xp.sizeEvents(sz, false)
	}
	pre := NewPreamble(int32(e.opt.BlockSize), int32(nRanks), int32(maxThread+1), int32(nStates), 0)
	pre.CommTableFptr = sz.CommTableOffset()

	bw := bufio.NewWriterSize(e.w, 1<<20)
	w, err := NewWriter(bw, pre)
	if err != nil {
		return err
	}
	world := worldUUID(e.h)
	last, off := 0.0, 0.0
	if xp != nil {
		if err := xp.defs(w, world); err != nil {
			return err
		}
		off = xp.off
	}
	if err := writeDefsIDs(w, e.kinds, e.states, order, func(n int, _ uint32) int32 { return ids + int32(n) }, ranks, world); err != nil {
		return err
	}
	if xp != nil {
		xp.write(w, true, &last)
	}
	var cargo [CargoSize]byte
	for k := 0; k < order2.len(); k++ {
		tt, i := order2.at(k)
		r := e.recs.at(int(i >> 1))
		t := max(float64(tt-base)*spt+off, last)
		last = t
		et := UserEventIDStart + 2*(ids+newIdx[r.state])
		if i&1 == 0 {
			w.Bare(t, 0, int32(r.rank), int32(r.thread), et)
		} else {
			putCargo(&cargo, r.cta, r.thread, r.sm, r.probe, r.cycles)
			w.Cargo(t, 0, int32(r.rank), int32(r.thread), et+1, &cargo)
		}
	}
	if xp != nil {
		xp.write(w, false, &last)
	}
	if err := w.Close([]CommID{{UUID: world, LocalID: 0, Kind: CommKindIntra}}); err != nil {
		return err
	}
	e.recs = recStore{}
	return bw.Flush()
}

// putCargo fills the final event's cargo (format StateFormat).
func putCargo(c *[CargoSize]byte, cta [3]uint32, warp, sm, probe uint32, cycles uint64) {
	binary.BigEndian.PutUint32(c[0:], cta[0])
	binary.BigEndian.PutUint32(c[4:], cta[1])
	binary.BigEndian.PutUint32(c[8:], cta[2])
	binary.BigEndian.PutUint32(c[12:], warp)
	binary.BigEndian.PutUint32(c[16:], sm)
	binary.BigEndian.PutUint32(c[20:], probe)
	binary.BigEndian.PutUint64(c[24:], cycles)
}

// secondsPerTick is the length of one timer unit: 1 ns for %globaltimer,
// one cycle at the run's clock rate, or 1 ns per cycle when the rate is
// unknown.
func secondsPerTick(h *trace.Header) float64 {
	if h.Timer != trace.TimerGlobaltimer && h.Meta.ClockHz > 0 {
		return 1 / h.Meta.ClockHz
	}
	return 1e-9
}

// worldUUID derives the world communicator's id from the instrumentation
// id, so that the same trace gives the same bytes.
func worldUUID(h *trace.Header) UUID {
	return NewUUID(int32(binary.BigEndian.Uint32(h.InstrumentationID[:4])), 0, "ptxtrace")
}

// Palette families.
const (
	famGlobal = iota
	famShared
	famLocal
	famConst
	famTex
	famParam
	famUser
	famOther
)

func spaceFamily(space string) int {
	switch space {
	case "global":
		return famGlobal
	case "shared":
		return famShared
	case "local":
		return famLocal
	case "const":
		return famConst
	case "tex", "texture", "surf":
		return famTex
	case "param":
		return famParam
	}
	return famOther
}

// stateColor picks an X11 color name (all in Jumpshot's color table) by
// family and nesting level.
func stateColor(family int, level uint32) string {
	var p [4]string
	switch family {
	case famGlobal:
		p = [4]string{"red", "firebrick", "IndianRed", "tomato"}
	case famShared:
		p = [4]string{"ForestGreen", "LimeGreen", "SeaGreen", "PaleGreen"}
	case famLocal:
		p = [4]string{"orange", "DarkOrange", "coral", "SandyBrown"}
	case famConst:
		p = [4]string{"gold", "goldenrod", "khaki", "DarkKhaki"}
	case famTex:
		p = [4]string{"RoyalBlue", "SkyBlue", "SteelBlue", "DodgerBlue"}
	case famParam:
		p = [4]string{"orchid", "plum", "MediumPurple", "purple"}
	case famUser:
		p = [4]string{"SlateGray", "LightSlateGray", "gray", "DimGray"}
	default:
		p = [4]string{"cyan", "turquoise", "CadetBlue", "aquamarine"}
	}
	return p[level%4]
}
