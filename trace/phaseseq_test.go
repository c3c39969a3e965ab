package trace_test

import (
	"bytes"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// phaseSeqManifest is groupSeqManifest with mode phase_seq (run-time
// paired TMA copies, manifest 1.3): regions 1 and 2 are copies, 201 and
// 202 wait loops that may close either.
func phaseSeqManifest(rpw int) *manifest.Manifest {
	m := groupSeqManifest(rpw)
	m.Version = manifest.VersionPhaseSeq
	for i := range m.Kernels[0].Probes {
		p := &m.Kernels[0].Probes[i]
		if p.Mode == manifest.ModeGroupSeq {
			p.Mode = manifest.ModePhaseSeq
		}
	}
	return m
}

// TestDecodePhaseSeq: barriers at shared 0x100 (A) and 0x108 (B), both in
// phase 0 after init. A copy expects the parity of the phase after the last
// one its warp observed on its barrier (0 before any) and closes at the
// warp's first later wait on that barrier with that parity (bit 0 of the
// end's tag); waits with the other parity (the preceding phase) or on
// another barrier close nothing. The two-stage pipeline of wgmmagemm:
//
//	copies of k-tile 0 on A, k-tile 1 on B (phase 0 each, expect 0);
//	wait A parity 0: closes k-tile 0's two copies; refill A (expect 1);
//	wait B parity 0: closes k-tile 1; wait B parity 0 again (the phase
//	already observed, no copy open on B: nothing); wait A parity 1: closes
//	k-tile 2; a copy on B (expects 1) never waited for: unmatched.
func TestDecodePhaseSeq(t *testing.T) {
	const A, B = 0x100, 0x108
	b1, b2 := tt.BeginID(1), tt.BeginID(2)
	recs := []tt.Record{
		tagged(b1, A, 10),    // 0: k-tile 0, tile a
		tagged(b2, A, 12),    // 1: k-tile 0, tile b
		tagged(b1, B, 14),    // 2: k-tile 1 on B
		tagged(201, A|0, 40), // 3: wait A parity 0 → closes records 0, 1
		tagged(b1, A, 50),    // 4: k-tile 2 on A (phase 1: expects 1)
		tagged(202, B|0, 60), // 5: wait B parity 0 → closes record 2
		tagged(202, B|0, 65), // 6: B parity 0 again: nothing
		tagged(201, A|1, 90), // 7: wait A parity 1 → closes record 4
		tagged(b2, B, 95),    // 8: on B, expects 1: never waited for
	}
	m := phaseSeqManifest(16)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	raw := tt.Buffer(hdr(16, 1, 1, 1), map[uint32]tt.Seg{0: {Records: recs}})
	tr, err := trace.Decode(raw, m, tt.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	wants := []seqRegion{
		{1, 0, 3, 30, 0, A, A},
		{2, 1, 3, 28, 0, A, A},
		{1, 2, 5, 46, 1, B, B},
		{1, 4, 7, 40, 2, A | 1, A | 1},
	}
	checkSeqRegions(t, tr.Regions, wants)
	if len(tr.Issues) != 1 || tr.Issues[0].Kind != trace.IssueUnmatchedBegin || tr.Issues[0].Record != 8 {
		t.Errorf("issues %v, want one unmatched begin at record 8", tr.Issues)
	}
	if err := tr.CheckValid(); err != nil {
		t.Error(err)
	}
	d, err := trace.NewDecoder(bytes.NewReader(raw), int64(len(raw)), m, tt.Kernel, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := trace.MergeByTime(d, func(ev *trace.Event) error {
		if !ev.Begin {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != len(wants) {
		t.Errorf("merge: %d end events, want %d", n, len(wants))
	}
}

// TestDecodePhaseSeqSkipped: a warp that issues a copy after observing
// phase 0 of barrier A (so it expects parity 1) and then waits with parity
// 0 (it skipped phase 1: the copy's phase is unknown) leaves the copy
// unmatched for good, even when a later wait has parity 1.
func TestDecodePhaseSeqSkipped(t *testing.T) {
	const A = 0x100
	b1 := tt.BeginID(1)
	recs := []tt.Record{
		tagged(201, A|0, 5),  // observed phase 0
		tagged(b1, A, 10),    // expects 1
		tagged(201, A|0, 20), // parity 0 again with a copy expecting 1 open
		tagged(201, A|1, 30), // would have closed it
	}
	raw := tt.Buffer(hdr(16, 1, 1, 1), map[uint32]tt.Seg{0: {Records: recs}})
	tr, err := trace.Decode(raw, phaseSeqManifest(16), tt.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Regions) != 0 || len(tr.Issues) != 1 || tr.Issues[0].Kind != trace.IssueUnmatchedBegin || tr.Issues[0].Record != 1 {
		t.Errorf("regions %+v issues %v, want none and one unmatched begin at record 1", tr.Regions, tr.Issues)
	}
}

// TestPhaseSeqManifest: closes is accepted on phase_seq end probes; a
// reader that does not know the mode (manifest 1.2) refuses it, which the
// validator's mode list models.
func TestPhaseSeqManifest(t *testing.T) {
	m := phaseSeqManifest(16)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	m.Kernels[0].Probes[0].Mode = "phase_seq_v2"
	if err := m.Validate(); err == nil {
		t.Error("an unknown mode accepted")
	}
}

// FuzzDecodePhaseSeq: any buffer decodes under a manifest with phase_seq
// probes into a valid trace, or fails with an error; every region is closed
// by an end on its barrier with its expected parity, and the streaming
// decoder and MergeByTime agree.
func FuzzDecodePhaseSeq(f *testing.F) {
	m := phaseSeqManifest(8)
	m.Timer, m.Buffer.TimerCode = "clock", 0
	b1, b2 := tt.BeginID(1), tt.BeginID(2)
	f.Add(tt.Buffer(hdr(8, 2, 0, 2), map[uint32]tt.Seg{
		0: {Records: []tt.Record{tagged(b1, 0x100, 10), tagged(b2, 0x108, 11), tagged(201, 0x100, 20), tagged(b1, 0x100, 25), tagged(202, 0x109, 30), tagged(201, 0x101, 40)}},
		1: {WarpInCTA: 1, Records: []tt.Record{tagged(b2, 0x100, 0xFFFFFFF0), tagged(201, 0x100, 4), tagged(201, 0x100, 5)}},
	}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkSeqFuzz(t, raw, m, func(r trace.Region) bool { return r.Group != r.Cover }, "closed by a wait on another barrier or parity")
	})
}
