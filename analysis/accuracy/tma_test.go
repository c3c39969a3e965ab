package accuracy

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// wgmmaCase is the wgmmagemm sample (hand-written sm_90a PTX: TMA + mbarrier
// + wgmma), which only h100-class presets run.
func wgmmaCase(t testing.TB) Case {
	t.Helper()
	return modernCases(t, "sm_90a", "wgmmagemm")[0]
}

// measureTMA runs wgmmagemm on h100 in mode auto, global accesses only.
func measureTMA(t *testing.T, tamper func([]byte, *manifest.Manifest)) []Row {
	t.Helper()
	rows, err := Measure(context.Background(), []Case{wgmmaCase(t)}, Options{
		Presets: []string{"h100"}, Modes: []string{"auto"}, Arch: func(string) string { return "sm_90a" },
		tamper: tamper,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// phaseStat returns the phase_seq statistics of row r, or nil.
func phaseStat(r Row) *SpaceStat {
	for i := range r.Spaces {
		if r.Spaces[i].Probe == manifest.ModePhaseSeq {
			return &r.Spaces[i]
		}
	}
	return nil
}

// TestTMAProbes is issue 23's probe accuracy for TMA pipelines (the
// wgmmagemm sample on h100): every TMA copy is paired at run time with the
// first wait loop on its mbarrier that observed its phase complete (probe
// mode phase_seq). Checked:
//   - every copy issued is measured: 3×2 CTAs × 5 k-tiles × 2 copies (A and
//     B tile), issued by thread 0 = 60 regions, all with ground truth;
//   - the measured time is within MaxRelErr of the model's observed
//     completion (the cycle the closing wait issued − the copy's issue;
//     ground truth from replay's barrier events and the model's issue
//     cycles, not from the records) plus the probe's post cost, issue wait
//     taken out; where the wait stalled for the copy, within MaxRelErr of
//     the copy's latency plus that cost.
func TestTMAProbes(t *testing.T) {
	rows := measureTMA(t, nil)
	for _, r := range rows {
		if r.Err != nil || r.NotRun != "" || r.Unmatched > 0 || r.Lost > 0 {
			t.Fatalf("%s/%s: err %v, not run %q, %d unmatched, %d lost", r.Kernel, r.Preset, r.Err, r.NotRun, r.Unmatched, r.Lost)
		}
		s := phaseStat(r)
		if s == nil {
			t.Fatalf("%s/%s: no phase_seq region (spaces %s)", r.Kernel, r.Preset, spaceList(r.Spaces))
		}
		t.Logf("%-10s %-5s regions %3d observed %7.1f measured %7.1f cost %4.1f issue wait %5.2f error %5.2f%% strict %5.2f%% | latency %7.1f hidden %5.1f%% slack %6.1f latency error %5.2f%% | cycles %d/%d (+%.1f%%)",
			r.Kernel, r.Preset, s.Regions, s.TrueMean, s.MeasMean, s.CostMean, s.IssueWait, 100*s.NetErr, 100*s.RelErr,
			s.LatMean, 100*s.Hidden, s.Slack, 100*s.LatErr, r.Cycles, r.OrigCycles, 100*float64(r.Cycles-r.OrigCycles)/float64(r.OrigCycles))
		if want := 3 * 2 * 5 * 2; s.Regions != want {
			t.Errorf("%d phase_seq regions, want %d", s.Regions, want)
		}
		if s.NetErr > MaxRelErr {
			t.Errorf("error %.2f%% against the observed completion beyond %.0f%%", 100*s.NetErr, 100*MaxRelErr)
		}
		if !math.IsNaN(s.LatErr) && s.LatErr > MaxRelErr {
			t.Errorf("error %.2f%% against the copy latency (stalled waits) beyond %.0f%%", 100*s.LatErr, 100*MaxRelErr)
		}
	}
}

// TestTMAProbesWrongPairing checks that TestTMAProbes' checks can fail: the
// parity bit of every phase_seq end record is flipped, so the decoder
// pairs each copy with a wait of another phase (or none); the rows must
// then show unmatched copies or an error beyond MaxRelErr.
func TestTMAProbesWrongPairing(t *testing.T) {
	flip := func(raw []byte, man *manifest.Manifest) {
		ends := map[uint32]bool{}
		for _, k := range man.Kernels {
			for _, p := range k.Probes {
				if p.Mode == manifest.ModePhaseSeq && p.Kind == manifest.KindEnd {
					ends[p.ID] = true
				}
			}
		}
		le := binary.LittleEndian
		segBytes, segs := int(le.Uint32(raw[16:])), int(le.Uint32(raw[28:]))
		per := int(le.Uint32(raw[20:]))
		for s := 0; s < segs; s++ {
			seg := raw[manifest.HeaderBytes+s*segBytes:]
			n := min(int(le.Uint32(seg)), per)
			for i := 0; i < n; i++ {
				rec := seg[manifest.SegmentHeaderBytes+i*manifest.RecordBytes:]
				if ends[le.Uint32(rec)] {
					le.PutUint32(rec[4:], le.Uint32(rec[4:])^1)
				}
			}
		}
	}
	for _, r := range measureTMA(t, flip) {
		s := phaseStat(r)
		switch {
		case r.Err != nil:
			t.Fatalf("%v", r.Err)
		case r.Unmatched > 0:
			t.Logf("wrong pairing: %d regions without truth", r.Unmatched)
		case s == nil || s.Regions < 60:
			t.Logf("wrong pairing: %v phase_seq regions of 60", s)
		case s.NetErr > MaxRelErr:
			t.Logf("wrong pairing: error %.2f%%", 100*s.NetErr)
		default:
			t.Errorf("a wrong pairing passes the checks: %d regions, error %.2f%%", s.Regions, 100*s.NetErr)
		}
	}
}
