package frames

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedFrames finds ../shared/frames beside the repository root (CI) or
// /work/shared/frames; it skips the test when neither exists.
func sharedFrames(t testing.TB) string {
	t.Helper()
	for _, d := range []string{filepath.Join("..", "..", "shared", "frames"), "/work/shared/frames"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	t.Skip("shared frame traces absent (../shared/frames relative to the repository root)")
	return ""
}

type tally struct {
	begins   map[string]int // by name
	appBegin map[string]int // by name, tgid != SurfaceFlinger's
	counters map[string]int
	gpuFreq  int
	sfTGID   int32
	all      []Event
}

func countTrace(t *testing.T, path string) (*tally, Format) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ty := &tally{begins: map[string]int{}, appBegin: map[string]int{}, counters: map[string]int{}}
	format, err := Read(f, func(e Event) error {
		ty.all = append(ty.all, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ty.sfTGID = surfaceFlingerTGID(ty.all)
	for _, e := range ty.all {
		switch e.Kind {
		case Begin:
			n := e.Name
			if i := strings.IndexByte(n, ' '); i >= 0 {
				n = n[:i]
			}
			ty.begins[n]++
			if e.TGID != ty.sfTGID {
				ty.appBegin[n]++
			}
		case Counter:
			ty.counters[e.Name]++
		case GPUFreq:
			ty.gpuFreq++
		}
	}
	return ty, format
}

func TestReadSystraceHTMLCounts(t *testing.T) {
	d := sharedFrames(t)
	ty, format := countTrace(t, filepath.Join(d, "catapult-project_catapult__android_systrace.html"))
	if format != FormatHTML {
		t.Errorf("format %v, want html", format)
	}
	// README: 183 app-side queueBuffer, 183 app eglSwapBuffers, 190 VSYNC samples; no GPU events.
	if got := ty.appBegin["queueBuffer"]; got != 183 {
		t.Errorf("app queueBuffer = %d, want 183", got)
	}
	if got := ty.appBegin["eglSwapBuffers"]; got != 183 {
		t.Errorf("app eglSwapBuffers = %d, want 183", got)
	}
	if got := ty.counters["VSYNC"]; got != 190 {
		t.Errorf("VSYNC samples = %d, want 190", got)
	}
	if ty.gpuFreq != 0 {
		t.Errorf("gpu_frequency events = %d, want 0", ty.gpuFreq)
	}
}

func TestReadPerfettoCounts(t *testing.T) {
	d := sharedFrames(t)
	ty, format := countTrace(t, filepath.Join(d, "Gracker_Perfetto-Skills__api32_startup_warm.perfetto-trace"))
	if format != FormatPerfetto {
		t.Errorf("format %v, want perfetto", format)
	}
	// README: 30 Choreographer#doFrame, 16 queueBuffer, VSYNC-sf/VSYNC-app
	// counters, 128 gpu_frequency events, "GPU completion" counter.
	if got := ty.begins["Choreographer#doFrame"]; got != 30 {
		t.Errorf("Choreographer#doFrame = %d, want 30", got)
	}
	if got := ty.begins["queueBuffer"]; got != 16 {
		t.Errorf("queueBuffer = %d, want 16", got)
	}
	if ty.gpuFreq != 128 {
		t.Errorf("gpu_frequency = %d, want 128", ty.gpuFreq)
	}
	for _, c := range []string{"VSYNC-sf", "VSYNC-app", "GPU completion"} {
		if ty.counters[c] == 0 {
			t.Errorf("no %q counter samples", c)
		}
	}
	t.Logf("counters: VSYNC-sf %d VSYNC-app %d GPU completion %d; SF tgid %d", ty.counters["VSYNC-sf"], ty.counters["VSYNC-app"], ty.counters["GPU completion"], ty.sfTGID)
}

func TestTraceMarkers(t *testing.T) {
	d := sharedFrames(t)
	h, err := ReadFile(filepath.Join(d, "catapult-project_catapult__android_systrace.html"), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// grep: 366 B|…|queueBuffer (183 SurfaceFlinger + 181 launcher + 2
	// systemui), 192 eglSwapBuffers (9 + 181 + 2).
	if h.Markers["queueBuffer"] != 366 || h.Markers["eglSwapBuffers"] != 192 || h.CompletionSource != "eglSwapBuffers" {
		t.Errorf("html markers %v, source %s", h.Markers, h.CompletionSource)
	}
	if len(h.Layers) != 2 || h.Layers[0].Count+h.Layers[1].Count != 183 || h.SurfaceFlinger != 124 {
		t.Errorf("html layers %+v, SurfaceFlinger %d", h.Layers, h.SurfaceFlinger)
	}
	p, err := ReadFile(filepath.Join(d, "Gracker_Perfetto-Skills__api32_startup_warm.perfetto-trace"), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Markers["Choreographer#doFrame"] != 30 || p.Markers["queueBuffer"] != 16 || p.GPUFreqEvents != 128 {
		t.Errorf("perfetto markers %v, gpu_frequency %d", p.Markers, p.GPUFreqEvents)
	}
	if !p.BusyProxy {
		t.Error("GPU busy from a proxy not flagged")
	}
}
