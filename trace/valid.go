package trace

import (
	"errors"
	"fmt"
	"slices"
)

// CheckValid checks the invariants of an in-memory trace (see the package
// documentation) and returns every violation found, joined.
func (t *Trace) CheckValid() error {
	var errs []error
	bad := func(format string, args ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf("trace: "+format, args...))
		}
	}
	h := &t.Header
	for i := 1; i < len(h.Probes); i++ {
		if h.Probes[i-1].ID >= h.Probes[i].ID {
			bad("probes not sorted by id at %d", i)
		}
	}
	for i := 1; i < len(h.Regions); i++ {
		if h.Regions[i-1].ID >= h.Regions[i].ID {
			bad("regions not sorted by id at %d", i)
		}
	}
	warpIdx := make(map[uint32]int, len(t.Warps))
	for i, w := range t.Warps {
		if i > 0 && t.Warps[i-1].Segment >= w.Segment {
			bad("warps not in segment order at %d", i)
		}
		if w.Segment >= h.Segments {
			bad("warp segment %d out of range (%d segments)", w.Segment, h.Segments)
		}
		if w.Stored != min(w.Count, h.RecordsPerWarp) || w.Lost != w.Count-w.Stored {
			bad("warp segment %d: inconsistent counts %d/%d/%d", w.Segment, w.Count, w.Stored, w.Lost)
		}
		warpIdx[w.Segment] = i
	}
	// Check regions warp by warp.
	i := 0
	for i < len(t.Regions) {
		j := i
		for j < len(t.Regions) && t.Regions[j].Warp == t.Regions[i].Warp {
			j++
		}
		wi, ok := warpIdx[t.Regions[i].Warp]
		if !ok {
			bad("region %d: warp segment %d is not in Warps", i, t.Regions[i].Warp)
		} else if err := checkWarp(h, &WarpRegions{Warp: t.Warps[wi], Regions: t.Regions[i:j]}); err != nil {
			bad("%v", err)
		}
		if j < len(t.Regions) && t.Regions[j].Warp < t.Regions[i].Warp {
			bad("regions not grouped by warp in segment order at %d", j)
		}
		i = j
	}
	for k, is := range t.Issues {
		if _, ok := warpIdx[is.Warp]; !ok {
			bad("issue %d: warp segment %d is not in Warps", k, is.Warp)
		}
	}
	for k, c := range t.Counters {
		if c.Name == "" || c.SM < -1 {
			bad("counter %d: bad name %q or SM %d", k, c.Name, c.SM)
		}
	}
	return errors.Join(errs...)
}

// checkWarp checks one warp's regions.
func checkWarp(h *Header, wr *WarpRegions) error {
	w := &wr.Warp
	for i := range wr.Regions {
		r := &wr.Regions[i]
		where := fmt.Sprintf("warp segment %d region %d", w.Segment, i)
		switch {
		case r.Warp != w.Segment || r.SM != w.SM || r.CTA != w.CTA || r.WarpInCTA != w.WarpInCTA:
			return fmt.Errorf("trace: %s: warp identity does not match its warp", where)
		case r.Info == nil || r.Info.ID != r.ID || h.Region(r.ID) == nil:
			return fmt.Errorf("trace: %s: region id %d unknown or Info inconsistent", where, r.ID)
		case r.End < r.Start || r.Cycles != r.End-r.Start:
			return fmt.Errorf("trace: %s: start %d end %d cycles %d inconsistent", where, r.Start, r.End, r.Cycles)
		case r.BeginRec >= r.EndRec || r.EndRec >= w.Stored:
			return fmt.Errorf("trace: %s: records %d..%d out of order or beyond the %d stored", where, r.BeginRec, r.EndRec, w.Stored)
		case i > 0 && wr.Regions[i-1].BeginRec >= r.BeginRec:
			return fmt.Errorf("trace: %s: regions not in begin-record order", where)
		case h.HasNs() && r.DurNs != h.Ns(r.Cycles):
			return fmt.Errorf("trace: %s: ns duration %g does not match %d cycles", where, r.DurNs, r.Cycles)
		case r.HasTruth && r.TruthComplete < r.TruthIssue:
			return fmt.Errorf("trace: %s: ground truth completes (%d) before it issues (%d)", where, r.TruthComplete, r.TruthIssue)
		}
		if p := h.Probe(r.EndProbe); p == nil || p.Begin || p.Region != r.ID && !slices.Contains(p.Closes, r.ID) {
			return fmt.Errorf("trace: %s: end probe %d is not an end probe of region %d", where, r.EndProbe, r.ID)
		}
	}
	return nil
}
