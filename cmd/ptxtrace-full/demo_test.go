package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
)

func TestDemoCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	dir := filepath.Join(t.TempDir(), "out")
	r := runCLI(t, "", "demo", "--image", "16", "--volume", "16", "-o", dir)
	if r.code != 0 {
		t.Fatalf("demo: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"Fig. 5", "1×128", "128×1", "naive", "auto", "probe error", "report.html"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "demo [") {
		t.Errorf("no progress on stderr: %q", r.stderr)
	}
	var want []string
	for _, run := range []string{"naive-1x128", "auto-1x128"} {
		want = append(want, run+".bundle")
		for _, f := range demoFormats {
			want = append(want, run+exportFormats()[f].Ext)
		}
	}
	want = append(want, "naive-128x1.bundle", "auto-128x1.bundle", "fig5_share.svg", "probe_error.svg",
		"fig10_warps_1x128.svg", "fig11_warp_128x1.svg", "report.html")
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", name)
		}
		if strings.HasSuffix(name, ".svg") {
			if err := htmlreport.CheckSVG(b); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, name := range want[:3] {
		if !bytes.Contains(html, []byte(`href="`+name+`"`)) {
			t.Errorf("report.html does not link %s", name)
		}
	}
	// Deterministic: a second run writes identical files.
	dir2 := filepath.Join(t.TempDir(), "out2")
	if r := runCLI(t, "", "demo", "--image", "16", "--volume", "16", "-o", dir2); r.code != 0 {
		t.Fatalf("second demo: exit %d", r.code)
	}
	for _, name := range want {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(dir2, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	if r := runCLI(t, "", "demo", "extra"); r.code != exitUsage {
		t.Errorf("demo extra: exit %d, want %d", r.code, exitUsage)
	}
}
