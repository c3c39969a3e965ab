package trace_test

import (
	"bytes"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// groupSeqManifest is tt.Manifest with regions 1 and 2 turned into
// run-time paired cp.async copies (mode group_seq) whose end probes are
// two waits (ids 201, 202), each closing either region; region 0 stays a
// fenced user region.
func groupSeqManifest(rpw int) *manifest.Manifest {
	m := tt.Manifest(3, "clock64", rpw)
	m.Version = manifest.VersionGroupSeq
	k := &m.Kernels[0]
	var probes []manifest.Probe
	for _, p := range k.Probes {
		if p.Region == 0 {
			probes = append(probes, p)
			continue
		}
		if p.Kind == manifest.KindBegin {
			p.Mode = manifest.ModeGroupSeq
			probes = append(probes, p)
		}
	}
	for _, id := range []uint32{201, 202} {
		probes = append(probes, manifest.Probe{ID: id, Kernel: tt.Kernel, Kind: manifest.KindEnd, Region: 1, Closes: []int{1, 2},
			RegionKind: manifest.RegionLoad, Mode: manifest.ModeGroupSeq, Space: "global", Line: 50, OutLine: 60})
	}
	k.Probes = probes
	return m
}

func tagged(p, tag uint32, t uint64) tt.Record { return tt.Record{Probe: p, Sink: tag, Time: t} }

// TestDecodeGroupSeq: by the PTX ISA a wait with count k (commits − N)
// completes the groups below k, so each begin of group g closes at the
// first later end with k > g, several begins at one end, in begin order;
// an end with nothing to close is no issue; a begin never covered is.
func TestDecodeGroupSeq(t *testing.T) {
	b1, b2 := tt.BeginID(1), tt.BeginID(2)
	recs := []tt.Record{
		rec(tt.BeginID(0), 1), // user region around everything
		tagged(b1, 0, 10),     // group 0
		tagged(b2, 0, 11),     // group 0
		tagged(b1, 1, 20),     // group 1 (after a commit)
		tagged(202, 0, 30),    // wait_group 2 with 2 commits: k = 0, nothing
		tagged(b2, 2, 35),     // group 2
		tagged(201, 1, 40),    // k = 1: closes the two group-0 copies
		tagged(201, 3, 50),    // k = 3: closes groups 1 and 2
		tagged(b1, 3, 60),     // group 3: never waited for
		rec(tt.EndID(0), 70),
	}
	m := groupSeqManifest(16)
	raw := tt.Buffer(hdr(16, 1, 1, 1), map[uint32]tt.Seg{0: {Records: recs}})
	tr, err := trace.Decode(raw, m, tt.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	wants := []seqRegion{
		{0, 0, 9, 69, 0, 0, 0},
		{1, 1, 6, 30, 0, 0, 1},
		{2, 2, 6, 29, 0, 0, 1},
		{1, 3, 7, 30, 1, 1, 3},
		{2, 5, 7, 15, 1, 2, 3},
	}
	checkSeqRegions(t, tr.Regions, wants)
	if len(tr.Issues) != 1 || tr.Issues[0].Kind != trace.IssueUnmatchedBegin || tr.Issues[0].Record != 8 {
		t.Errorf("issues %v, want one unmatched begin at record 8", tr.Issues)
	}
	if err := tr.CheckValid(); err != nil {
		t.Error(err)
	}
	// MergeByTime pairs the same way: one end event per closed instance.
	d, err := trace.NewDecoder(bytes.NewReader(raw), int64(len(raw)), m, tt.Kernel, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ends []trace.Region
	if err := trace.MergeByTime(d, func(ev *trace.Event) error {
		if !ev.Begin {
			ends = append(ends, ev.Region)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ends) != len(wants) {
		t.Fatalf("merge: %d end events, want %d", len(ends), len(wants))
	}
	byBegin := map[uint32]trace.Region{}
	for _, r := range ends {
		byBegin[r.BeginRec] = r
	}
	for _, w := range wants {
		r, ok := byBegin[w.begin]
		if !ok || r.EndRec != w.end || r.Cycles != w.cycles || r.Group != w.group || r.Cover != w.cover {
			t.Errorf("merge: begin record %d: %+v, want %+v", w.begin, r, w)
		}
	}
}

// TestGroupSeqManifest: an end probe that closes several regions counts
// as an end of each; closes on another mode is refused.
func TestGroupSeqManifest(t *testing.T) {
	m := groupSeqManifest(16)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	m.Kernels[0].Probes[len(m.Kernels[0].Probes)-1].Mode = manifest.ModeFence
	if err := m.Validate(); err == nil {
		t.Error("closes on a fence probe accepted")
	}
}

// FuzzDecodeGroupSeq: any buffer decodes under a manifest with run-time
// paired probes into a valid trace, or fails with an error; the streaming
// decoder and MergeByTime (one begin and one end event per region) agree.
func FuzzDecodeGroupSeq(f *testing.F) {
	m := groupSeqManifest(8)
	m.Timer, m.Buffer.TimerCode = "clock", 0
	b1, b2 := tt.BeginID(1), tt.BeginID(2)
	f.Add(tt.Buffer(hdr(8, 2, 0, 2), map[uint32]tt.Seg{
		0: {Records: []tt.Record{tagged(b1, 0, 10), tagged(b2, 0, 11), tagged(b1, 1, 20), tagged(202, 0, 30), tagged(201, 2, 40)}},
		1: {WarpInCTA: 1, Records: []tt.Record{tagged(b2, 5, 0xFFFFFFF0), tagged(201, 9, 4), tagged(b1, 9, 5)}},
	}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkSeqFuzz(t, raw, m, func(r trace.Region) bool { return r.Group >= r.Cover }, "closed by a wait that does not cover its group")
	})
}

// seqRegion is a region a run-time paired decode must produce: its probe
// id, begin and end records, cycles, instance, group tag and cover.
type seqRegion struct {
	id                     int
	begin, end             uint32 // records
	cycles                 uint64
	instance, group, cover uint32
}

// checkSeqFuzz is the body of the run-time paired decode fuzz targets:
// raw decodes into a valid trace or fails; no probed region is one that
// bad (a region closed by the wrong wait, why) accepts; the streaming
// decoder and MergeByTime give one begin and one end event per region.
func checkSeqFuzz(t *testing.T, raw []byte, m *manifest.Manifest, bad func(trace.Region) bool, why string) {
	t.Helper()
	tr, err := trace.Decode(raw, m, "")
	if err != nil {
		return
	}
	if err := tr.CheckValid(); err != nil {
		t.Fatalf("decoded trace invalid: %v", err)
	}
	for _, r := range tr.Regions {
		if r.ID != 0 && bad(r) {
			t.Fatalf("region %+v %s", r, why)
		}
	}
	d, err := trace.NewDecoder(bytes.NewReader(raw), int64(len(raw)), m, "", trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ne := 0
	if err := trace.MergeByTime(d, func(*trace.Event) error { ne++; return nil }); err != nil {
		t.Fatal(err)
	}
	if ne != 2*len(tr.Regions) {
		t.Fatalf("merge gave %d events for %d regions", ne, len(tr.Regions))
	}
}

// checkSeqRegions compares the decoded regions with wants, in order.
func checkSeqRegions(t *testing.T, regions []trace.Region, wants []seqRegion) {
	t.Helper()
	if len(regions) != len(wants) {
		t.Fatalf("%d regions, want %d: %+v", len(regions), len(wants), regions)
	}
	for i, w := range wants {
		r := regions[i]
		if r.ID != w.id || r.BeginRec != w.begin || r.EndRec != w.end || r.Cycles != w.cycles || r.Instance != w.instance || r.Group != w.group || r.Cover != w.cover {
			t.Errorf("region %d: id %d records %d–%d cycles %d instance %d group %#x cover %#x, want %+v",
				i, r.ID, r.BeginRec, r.EndRec, r.Cycles, r.Instance, r.Group, r.Cover, w)
		}
	}
}
