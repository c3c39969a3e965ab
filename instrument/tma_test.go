package instrument

import (
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// TestPhaseSites instruments the wgmmagemm sample (two TMA stages; the
// copies of k-tiles 0 and 1 in the prologue, of k-tile kt+2 in iteration
// kt, all issued by thread 0 under a guard; one wait loop on full[kt%2]):
// none of its six copies has a wait loop on the same barrier after it in
// straight-line code, so each is a phase_seq site whose begin record the
// copy's guard skips, and the one wait loop is an end probe closing all
// six regions; the manifest is version 1.3. A kernel with an mbarrier wait
// outside a loop does not qualify (TestAsyncSites: no phase_seq).
func TestPhaseSites(t *testing.T) {
	src, err := os.ReadFile("../samples/modern/wgmmagemm/wgmmagemm.sm_90a.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"auto", "fence", "naive"} {
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, "wgmmagemm.ptx", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Instrument(fset, f, Options{Mode: mode, Spaces: []string{"global"}})
		if mode == "naive" {
			// naive mode does not pair at run time: the kernel has no
			// other global load
			if err == nil || !strings.Contains(err.Error(), "no sites") {
				t.Errorf("naive: %v, want no sites", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		k := res.Manifest.Kernel("wgmmagemm")
		var begins, ends []manifest.Probe
		for _, p := range k.Probes {
			if p.Mode != manifest.ModePhaseSeq {
				continue
			}
			if p.Kind == manifest.KindBegin {
				begins = append(begins, p)
			} else {
				ends = append(ends, p)
			}
		}
		if len(begins) != 6 || len(ends) != 1 || len(ends[0].Closes) != 6 {
			t.Fatalf("%s: %d phase_seq begins, %d ends, want 6 and 1 closing 6: %+v", mode, len(begins), len(ends), k.Probes)
		}
		if res.Manifest.Version != manifest.VersionPhaseSeq {
			t.Errorf("%s: version %s, want %s", mode, res.Manifest.Version, manifest.VersionPhaseSeq)
		}
		if !strings.Contains(ends[0].Text, "mbarrier.try_wait.parity") {
			t.Errorf("%s: end probe at %q, want the wait loop", mode, ends[0].Text)
		}
		out := string(res.PTX)
		// each guarded copy's begin record is skipped by the lanes that
		// did not copy; the wait loop's exit computes barrier | parity
		for _, want := range []string{"@!%p1 bra $__pt_phase", "@!%p2 bra $__pt_phase", "@!%p5 bra $__pt_phase",
			"@!%p3 bra $L__wait;\n\tmov.u64 %__pt_rd2, %clock64;\n\tmov.u32 %__pt_m0, %r25;\n\tand.b32 %__pt_m1, %r23, 1;\n\tor.b32 %__pt_m0, %__pt_m0, %__pt_m1;"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q", mode, want)
			}
		}
		if _, err := ptx.ParseFile(token.NewFileSet(), "out.ptx", res.PTX, 0); err != nil {
			t.Errorf("%s: output does not parse: %v", mode, err)
		}
		if err := res.Manifest.Validate(); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
}
