package tracetest

import (
	"github.com/ptxtrace/ptxtrace/trace"
)

// Fixture builds a deterministic in-memory trace for exporter tests: ctas CTAs of wpc warps, each warp
// running iters loop iterations; an iteration is a user region 0 around a
// global load (1), a texture load (2) and a shared load (3); every third
// iteration also has a load (4) that overlaps the end of the user region
// without nesting in it, so nesting levels matter.
func Fixture(ctas, wpc, iters int, timer trace.Timer) *trace.Trace {
	t := &trace.Trace{}
	h := &t.Header
	h.Kernel = "kern"
	h.LayoutVersion = 1
	h.Timer = timer
	h.WarpsPerCTA = uint32(wpc)
	h.Segments = uint32(ctas * wpc)
	h.InstrumentationID = [8]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4}
	h.Meta = trace.RunMeta{Source: "model", ClockHz: 1.5e9, NumSMs: 4, Grid: [3]uint32{uint32(ctas), 1, 1}, Block: [3]uint32{uint32(32 * wpc), 1, 1}, StartUnixNs: 1_700_000_000_000_000_000}
	spaces := []string{"", "global", "tex", "shared", "global"}
	for r, sp := range spaces {
		kind := "load"
		if r == 0 {
			kind = "user"
		}
		b, e := uint32(100+2*r), uint32(101+2*r)
		h.Probes = append(h.Probes,
			trace.ProbeInfo{ID: b, Begin: true, Region: r, Mode: "fence", Line: 10 + r, LocFile: "kern.cu", LocLine: 40 + r},
			trace.ProbeInfo{ID: e, Region: r, Mode: "fence", Line: 11 + r, LocFile: "kern.cu", LocLine: 40 + r})
		h.Regions = append(h.Regions, trace.RegionInfo{ID: r, Kind: kind, Mode: "fence", Space: sp, BeginProbe: b, EndProbes: []uint32{e}, Line: 10 + r, LocFile: "kern.cu", LocLine: 40 + r})
	}
	x := uint32(12345)
	rnd := func(n uint32) uint64 { x = x*1664525 + 1013904223; return uint64(x>>16) % uint64(n) }
	for c := 0; c < ctas; c++ {
		for w := 0; w < wpc; w++ {
			seg := uint32(c*wpc + w)
			wp := trace.Warp{Segment: seg, CTA: [3]uint32{uint32(c), 0, 0}, WarpInCTA: uint32(w), SM: uint32(c % 4), HWWarp: uint32(w), Flags: 1}
			ts := uint64(1000 + 50*c + 7*w)
			var rec uint32
			var inst [5]uint32
			add := func(id int, start, end uint64, depth uint32) {
				r := trace.Region{Warp: seg, CTA: wp.CTA, WarpInCTA: wp.WarpInCTA, SM: wp.SM, ID: id,
					EndProbe: uint32(101 + 2*id), Instance: inst[id], Depth: depth, BeginRec: rec, EndRec: rec + 1,
					Start: start, End: end, Cycles: end - start}
				if h.HasNs() {
					r.StartNs, r.EndNs, r.DurNs = h.Ns(start), h.Ns(end), h.Ns(end-start)
				}
				if id != 0 {
					r.HasTruth, r.TruthIssue, r.TruthComplete = true, start+1, end-1
				}
				inst[id]++
				rec += 2
				t.Regions = append(t.Regions, r)
			}
			for it := 0; it < iters; it++ {
				ub := ts
				// Loads inside the user region; begins are in time order.
				type iv struct {
					id         int
					start, end uint64
				}
				var ivs []iv
				ts += 2
				for l := 1; l <= 3; l++ {
					s := ts
					e := s + 20 + rnd(300)
					ivs = append(ivs, iv{l, s, e})
					ts = e + 1 + rnd(3)
				}
				ue := ts + 3
				add(0, ub, ue, 0)
				for _, v := range ivs {
					add(v.id, v.start, v.end, 1)
				}
				if it%3 == 2 {
					// Overlaps the user region's end: begins inside, ends after.
					s := ue - 1
					add(4, s, s+10+rnd(50), 1)
					ts = s + 1
				}
				ts = ue + 1 + rnd(5)
			}
			t.Warps = append(t.Warps, wp)
		}
	}
	for i := range t.Regions {
		t.Regions[i].Info = h.Region(t.Regions[i].ID)
	}
	t.Counters = []trace.Counter{{Name: "l1.hits", SM: -1, Value: 1234}, {Name: "dram.bytes", SM: 0, Value: 4096}}
	return t
}
