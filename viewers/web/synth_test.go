package web

import (
	"io"

	"github.com/ptxtrace/ptxtrace/trace"
)

// synth is a deterministic synthetic trace: Warps warps over SMs SMs,
// WarpsPerCTA warps per CTA, each warp one user region around PerWarp load
// regions (global and shared, alternately), durations from an LCG.
type synth struct {
	Warps, WarpsPerCTA, SMs, PerWarp int
	hdr                              trace.Header
	next                             int
	buf                              trace.WarpRegions
	seed                             uint64
}

func newSynth(warps, perCTA, sms, perWarp int) *synth {
	s := &synth{Warps: warps, WarpsPerCTA: perCTA, SMs: sms, PerWarp: perWarp, seed: 12345}
	s.hdr = trace.Header{Kernel: "synthk", Timer: trace.TimerClock64, Meta: trace.RunMeta{ClockHz: 1e9},
		Regions: []trace.RegionInfo{
			{ID: 0, Kind: "user", Line: 10, Text: "// user region"},
			{ID: 1, Kind: "load", Mode: "naive", Space: "global", Line: 20, Text: "ld.global.f32 %f1, [%rd1];", LocFile: "k.cu", LocLine: 7, LocCol: 3},
			{ID: 2, Kind: "load", Mode: "naive", Space: "shared", Line: 30, Text: "ld.shared.f32 %f2, [%r3];", LocFile: "k.cu", LocLine: 9, LocCol: 5},
		}}
	return s
}

func (s *synth) Header() *trace.Header { return &s.hdr }

func (s *synth) rand(n uint64) uint64 {
	s.seed = s.seed*6364136223846793005 + 1442695040888963407
	return (s.seed >> 33) % n
}

func (s *synth) Next() (*trace.WarpRegions, error) {
	if s.next >= s.Warps {
		return nil, io.EOF
	}
	w := s.next
	s.next++
	cta := uint32(w / s.WarpsPerCTA)
	s.buf.Warp = trace.Warp{Segment: uint32(w), CTA: [3]uint32{cta, 0, 0}, WarpInCTA: uint32(w % s.WarpsPerCTA), SM: cta % uint32(s.SMs)}
	s.buf.Regions = s.buf.Regions[:0]
	t := uint64(1000 + s.rand(500))
	s.buf.Regions = append(s.buf.Regions, trace.Region{ID: 0, Info: &s.hdr.Regions[0], Start: t})
	for i := 0; i < s.PerWarp; i++ {
		t += 1 + s.rand(40)
		d := 5 + s.rand(400)
		id := 1 + i%2
		r := trace.Region{ID: id, Info: &s.hdr.Regions[id], Start: t, End: t + d, Cycles: d}
		if i%3 == 0 {
			r.HasTruth, r.TruthIssue, r.TruthComplete = true, t+2, t+d-3
		}
		s.buf.Regions = append(s.buf.Regions, r)
		t += d
	}
	u := &s.buf.Regions[0]
	u.End, u.Cycles = t+10, t+10-u.Start
	return &s.buf, nil
}

// flat is a plain copy of every region of a synth trace: (warp, sm, cta,
// warp in cta, start, end, memory) in segment order.
type flatRegion struct {
	seg, sm, cta, warp uint32
	start, end         int64
	mem                bool
}

func flatten(s *synth) []flatRegion {
	var out []flatRegion
	for {
		wr, err := s.Next()
		if err == io.EOF {
			return out
		}
		for _, r := range wr.Regions {
			out = append(out, flatRegion{wr.Warp.Segment, wr.Warp.SM, wr.Warp.CTA[0], wr.Warp.WarpInCTA, int64(r.Start), int64(r.End), r.Info.Kind == "load"})
		}
	}
}
