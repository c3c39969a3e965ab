package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/frames"
)

// synthAtrace is 12 frames of 16 ms: VSYNC edges and one app layer with
// one eglSwapBuffers per frame, two in frame 6.
func synthAtrace() string {
	var b strings.Builder
	for k := 0; k <= 12; k++ {
		t := 0.016 * float64(k)
		fmt.Fprintf(&b, "  surfaceflinger-50 [000] %.6f: tracing_mark_write: C|50|VSYNC|%d\n", 10+t, k&1)
		if k == 12 {
			break
		}
		n := 1
		if k == 6 {
			n = 2
		}
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "  RenderThread-101 [001] %.6f: tracing_mark_write: B|100|eglSwapBuffers\n", 10+t+0.001+0.003*float64(j))
			fmt.Fprintf(&b, "  RenderThread-101 [001] %.6f: tracing_mark_write: E|100\n", 10+t+0.002+0.003*float64(j))
		}
	}
	return b.String()
}

func TestFramesCommandSynthetic(t *testing.T) {
	in := writeTemp(t, "synth.trace", synthAtrace(), 0o644)
	dir := t.TempDir()
	r := runCLI(t, "", "frames", "--csv", filepath.Join(dir, "csv"), "--svg", filepath.Join(dir, "svg"),
		"--json", filepath.Join(dir, "r.json"), "--perfetto", filepath.Join(dir, "o.pftrace"), in)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"synth.trace", "VSYNC counter \"VSYNC\" (13 samples)", "mean-3-ceil", "THRESHOLD ms"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, f := range []string{"csv/ranking.csv", "csv/frames.csv", "svg/ranking.svg", "svg/thresholds.svg", "r.json", "o.pftrace"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The overlay reads back as a Perfetto trace with one frame slice per
	// frame holding draws (12).
	f, err := os.Open(filepath.Join(dir, "o.pftrace"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	if err := frames.ReadPerfetto(f, func(e frames.Event) error {
		if e.Kind == frames.Begin && strings.HasPrefix(e.Name, "actual ") {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 12 {
		t.Errorf("overlay frame slices = %d, want 12", n)
	}
}

func TestFramesCommandErrors(t *testing.T) {
	bad := writeTemp(t, "bad.trace", "  a-1 [000] 1.0: tracing_mark_write: C|1|VSYNC|x\n", 0o644)
	if r := runCLI(t, "", "frames", bad); r.code != 1 || !strings.Contains(r.stderr, "line 1") {
		t.Errorf("malformed: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "", "frames"); r.code != 2 {
		t.Errorf("no args: exit %d", r.code)
	}
	if r := runCLI(t, "", "frames", "--estimator", "median-3", bad); r.code != 2 {
		t.Errorf("bad estimator: exit %d", r.code)
	}
}

func TestFramesCommandSharedTraces(t *testing.T) {
	var d string
	for _, c := range []string{filepath.Join("..", "..", "..", "shared", "frames"), "/work/shared/frames"} {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			d = c
			break
		}
	}
	if d == "" {
		t.Skip("shared frame traces absent (../shared/frames relative to the repository root)")
	}
	r := runCLI(t, "", "frames", filepath.Join(d, "catapult-project_catapult__android_systrace.html"),
		filepath.Join(d, "Gracker_Perfetto-Skills__api32_startup_warm.perfetto-trace"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "fluctuation sweep: 434 settings") { // Σ_{n=3}^{30} (n−1)
		t.Errorf("stdout:\n%s", r.stdout)
	}
	// The Perfetto overlay keeps the original packets (30 doFrame slices)
	// and adds one slice per analysed frame (14).
	out := filepath.Join(t.TempDir(), "overlay.pftrace")
	r = runCLI(t, "", "frames", "--perfetto", out, filepath.Join(d, "Gracker_Perfetto-Skills__api32_startup_warm.perfetto-trace"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doFrame, overlay := 0, 0
	if err := frames.ReadPerfetto(f, func(e frames.Event) error {
		switch {
		case e.Kind == frames.Begin && strings.HasPrefix(e.Name, "Choreographer#doFrame"):
			doFrame++
		case e.Kind == frames.Begin && strings.HasPrefix(e.Name, "actual "):
			overlay++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if doFrame != 30 || overlay != 14 {
		t.Errorf("overlay trace: %d doFrame, %d frame slices; want 30, 14", doFrame, overlay)
	}
}
