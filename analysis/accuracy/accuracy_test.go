package accuracy

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/samples/heldout"
)

// sampleNames are the ten project samples. The test uses reduced copies of
// their launch specs (testdata/samples/NAME.yaml: smaller inputs, the same
// kernels and reference checks).
var sampleNames = []string{"vecadd", "matmul", "reduce", "nn", "pathfinder", "hotspot", "gaussian", "lud", "bfs", "volrender"}

func sampleCases(t testing.TB) []Case {
	t.Helper()
	var cs []Case
	reg := heldout.Registry()
	for _, n := range sampleNames {
		b, err := os.ReadFile(filepath.Join("testdata", "samples", n+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		spec, err := launch.ParseSpec(b)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		c := Case{Name: n, PTX: map[string][]byte{}, Spec: spec, Registry: reg}
		for _, arch := range []string{"sm_52", "sm_80"} {
			if c.PTX[arch], err = os.ReadFile(filepath.Join("..", "..", "samples", n, n+"."+arch+".ptx")); err != nil {
				t.Fatal(err)
			}
		}
		cs = append(cs, c)
	}
	return cs
}

func heldoutCases(t testing.TB) []Case {
	t.Helper()
	var cs []Case
	reg := heldout.Registry()
	for _, k := range heldout.List() {
		b, err := fs.ReadFile(heldout.FS(), k.Spec)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := launch.ParseSpec(b)
		if err != nil {
			t.Fatalf("%s: %v", k.Spec, err)
		}
		c := Case{Name: k.Name, PTX: map[string][]byte{}, Spec: spec, Registry: reg}
		for _, arch := range []string{"sm_52", "sm_80"} {
			p, ok := k.PTXFor(arch)
			if !ok {
				t.Fatalf("%s: no %s PTX", k.Name, arch)
			}
			if c.PTX[arch], err = fs.ReadFile(heldout.FS(), p); err != nil {
				t.Fatal(err)
			}
		}
		cs = append(cs, c)
	}
	// the debug and line-info builds, on the presets of their architecture
	for _, v := range []struct{ kernel, variant, arch string }{{"histogram", "sm_52-G", "sm_52"}, {"stencil2d", "sm_80-lineinfo", "sm_80"}} {
		for _, c := range cs {
			if c.Name != v.kernel {
				continue
			}
			k := heldout.Kernel{Name: v.kernel}
			for _, kk := range heldout.List() {
				if kk.Name == v.kernel {
					k = kk
				}
			}
			p, ok := k.PTXFor(v.variant)
			if !ok {
				t.Fatalf("%s: no %s PTX", v.kernel, v.variant)
			}
			src, err := fs.ReadFile(heldout.FS(), p)
			if err != nil {
				t.Fatal(err)
			}
			vc := c
			vc.Name = v.kernel + " (" + v.variant + ")"
			vc.PTX = map[string][]byte{v.arch: src}
			for _, pr := range DefaultPresets() {
				if Arch(pr) == v.arch {
					vc.Presets = append(vc.Presets, pr)
				}
			}
			cs = append(cs, vc)
			break
		}
	}
	return cs
}

// The full measurements are shared by TestAccuracy and TestAccuracyStrict.
// Instrumentation is the default (staging auto); the launch either sizes
// shared staging for the preset ("shared": what `ptxtrace run` does when
// the records fit) or is given no GPU to size it for, so the same code
// falls back to global staging at run time ("fallback": what a kernel gets
// when the records do not fit).
type measurement struct {
	once sync.Once
	rows []Row
	err  error
}

var measurements = map[string]*measurement{"shared": {}, "fallback": {}}

func measureAll(t *testing.T, staging string) []Row {
	t.Helper()
	m := measurements[staging]
	m.once.Do(func() {
		cases := append(heldoutCases(t), sampleCases(t)...)
		m.rows, m.err = Measure(context.Background(), cases, Options{NoStagingGPU: staging == "fallback"})
	})
	if m.err != nil {
		t.Fatal(m.err)
	}
	return m.rows
}

// TestAccuracy measures the held-out kernels and the samples on the four
// presets in the four modes and logs the table. It fails when a
// configuration errs (instrumentation, replay, decoding, a reference check
// of the original, or an instrumented output that is not byte-identical),
// or when a mode has no measured regions; configurations the model cannot
// run are listed with their cause. The accuracy acceptance itself is
// TestAccuracyStrict.
func TestAccuracy(t *testing.T) {
	rows := measureAll(t, "shared")
	if want := (len(heldout.List())+len(sampleNames))*len(DefaultPresets())*len(DefaultModes()) + 4*len(DefaultModes()); len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	t.Logf("accuracy table:\n%s", Table(rows))
	for _, m := range DefaultModes() {
		t.Logf("%s by kernel and preset (naive: underestimate; others: mean |measured − true − cost| / mean true):\n%s", m, Matrix(rows, m))
	}
	for _, s := range Summarize(rows) {
		t.Logf("%s: %d of %d configurations meet the acceptance (%.1f%%; with the issue wait counted as error: %d over all regions, %d per space); failing:\n  %s",
			s.Mode, s.OK, s.Rows, 100*s.Fraction(), s.OKOverall, s.OKStrict, strings.Join(s.Failing, "\n  "))
	}
	held := map[string]bool{"histogram (sm_52-G)": true, "stencil2d (sm_80-lineinfo)": true}
	for _, k := range heldout.List() {
		held[k.Name] = true
	}
	for _, set := range []bool{true, false} {
		var sub []Row
		for _, r := range rows {
			if held[r.Kernel] == set {
				sub = append(sub, r)
			}
		}
		for _, s := range Summarize(sub) {
			t.Logf("held-out %v: %s: %d of %d OK (issue wait counted: %d over all regions, %d per space)", set, s.Mode, s.OK, s.Rows, s.OKOverall, s.OKStrict)
		}
	}
	for i := range rows {
		r := &rows[i]
		if r.Note != "" {
			t.Logf("note: %s/%s/%s: %s", r.Kernel, r.Preset, r.Mode, r.Note)
		}
		if r.Mode == "auto" && !r.OK() && r.NotRun == "" && r.Err == nil {
			t.Logf("auto %s/%s, worst loads:\n%s", r.Kernel, r.Preset, Worst(r, 3))
		}
		switch {
		case r.Err != nil:
			t.Errorf("%s/%s/%s: %v", r.Kernel, r.Preset, r.Mode, r.Err)
		case r.NotRun != "":
			t.Logf("not run: %s/%s/%s: %s", r.Kernel, r.Preset, r.Mode, r.NotRun)
		case r.Regions == 0:
			t.Errorf("%s/%s/%s: no load region measured (%d unmatched)", r.Kernel, r.Preset, r.Mode, r.Unmatched)
		case r.Unmatched > 0:
			t.Errorf("%s/%s/%s: %d load regions without ground truth", r.Kernel, r.Preset, r.Mode, r.Unmatched)
		}
	}
}

// TestAccuracyStrict is issue 10's acceptance: over the held-out kernels
// and the samples, auto is within MaxRelErr of the true latency plus the
// probe's post cost once the separately reported issue wait is taken out
// (Row.OK) in ≥ 95 % of the kernel × preset configurations, and naive
// underestimates by ≥ MinNaiveUnder in ≥ 95 % of them, both with records
// staged in shared memory and with the run-time fallback to global
// staging (docs/accuracy.md). The staged measurement is TestAccuracy's
// (one run of 45–200 s on the shared 2-core machine, depending on load).
func TestAccuracyStrict(t *testing.T) {
	for _, staging := range []string{"fallback", "shared"} {
		for _, s := range Summarize(measureAll(t, staging)) {
			if s.Mode != "auto" && s.Mode != "naive" {
				continue
			}
			msg := fmt.Sprintf("%s staging: %s meets the acceptance in %d of %d configurations (%.1f%%)", staging, s.Mode, s.OK, s.Rows, 100*s.Fraction())
			if s.Fraction() < 0.95 {
				t.Errorf("%s, want ≥ 95%%:\n  %s", msg, strings.Join(s.Failing, "\n  "))
				continue
			}
			t.Log(msg)
		}
	}
}

// TestRowOK checks the acceptance rule and its causes on hand-made rows.
func TestRowOK(t *testing.T) {
	sp := func(rel float64) []SpaceStat {
		return []SpaceStat{{Space: "global", Probe: "fence", Stat: Stat{Regions: 1, RelErr: rel}}}
	}
	for _, c := range []struct {
		r    Row
		ok   bool
		want string
	}{
		{Row{Mode: "naive", Stat: Stat{Regions: 3, Under: 0.8}}, true, ""},
		{Row{Mode: "naive", Stat: Stat{Regions: 3, Under: 0.79}}, false, "naive underestimates by only 79.0%"},
		{Row{Mode: "auto", Stat: Stat{Regions: 3, RelErr: 0.05, NetErr: 0.05}, Spaces: sp(0.05)}, true, ""},
		{Row{Mode: "auto", Stat: Stat{Regions: 3, RelErr: 0.30, NetErr: 0.04}, Spaces: sp(0.30)}, true, ""},
		{Row{Mode: "fence", Stat: Stat{Regions: 3, RelErr: 0.051, NetErr: 0.051}}, false, "error without issue wait 5.1%"},
		{Row{Mode: "auto"}, false, "no load region was measured"},
		{Row{Mode: "auto", NotRun: "too big", Stat: Stat{Regions: 3}}, false, "not run: too big"},
		{Row{Mode: "auto", Err: fmt.Errorf("boom"), Stat: Stat{Regions: 3}}, false, "error: boom"},
	} {
		if got := c.r.OK(); got != c.ok {
			t.Errorf("%+v: OK = %v, want %v", c.r, got, c.ok)
		}
		if got := c.r.Cause(); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%+v: cause %q, want prefix %q", c.r, got, c.want)
		}
	}
}

// TestStat checks the error measures on hand-computed regions: true
// latencies 100 and 300, measured 115 and 300, cost 11: |d| = 4 and 11,
// MAE/true = 15/400; underestimate (400−415)/400.
func TestStat(t *testing.T) {
	s := newSums()
	s.add(100, 115, 11, 10, 4)
	s.add(300, 300, 11, 10, 0)
	st := s.stat()
	if st.Regions != 2 || st.TrueMean != 200 || st.MeasMean != 207.5 || st.CostMean != 11 {
		t.Errorf("%+v", st)
	}
	if st.RelErr != 15.0/400 || st.Under != -15.0/400 || st.MinDiff != -11 || st.MaxDiff != 4 {
		t.Errorf("%+v", st)
	}
	// without the issue wait (4 and 0) and with the post cost 10:
	// 115−4−100−10 = 1, 300−0−300−10 = −10: |1| + |−10| = 11; post
	// (1 − 10)/2; mean wait 2.
	if st.NetErr != 11.0/400 || st.PostMean != -4.5 || st.IssueWait != 2 {
		t.Errorf("%+v", st)
	}
}

// BenchmarkMeasureHeldout measures the held-out kernels on gtx480 in auto
// mode (go test -bench MeasureHeldout -benchtime 1x).
func BenchmarkMeasureHeldout(b *testing.B) {
	cases := heldoutCases(b)
	for i := 0; i < b.N; i++ {
		if _, err := Measure(context.Background(), cases, Options{Presets: []string{"gtx480"}, Modes: []string{"auto"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRowOKStrict checks the stricter per-space rule (issue wait counted as
// error) on hand-made rows.
func TestRowOKStrict(t *testing.T) {
	sp := []SpaceStat{{Space: "global", Probe: "fence", Stat: Stat{Regions: 1, RelErr: 0.06}}}
	r := Row{Mode: "auto", Stat: Stat{Regions: 3, RelErr: 0.04, NetErr: 0.01}, Spaces: sp}
	if !r.OK() || r.OKStrict() || !r.OKOverall() {
		t.Errorf("OK %v, OKStrict %v, OKOverall %v; want true, false, true", r.OK(), r.OKStrict(), r.OKOverall())
	}
	if got := r.CauseStrict(); !strings.HasPrefix(got, "global/fence 6.0%") {
		t.Errorf("strict cause %q", got)
	}
}
