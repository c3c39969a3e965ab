package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
)

func TestInstrumentWritesPTXAndManifest(t *testing.T) {
	in := filepath.Join("testdata", "vecadd.ptx")
	for _, mode := range []string{"naive", "fence", "dummy", "auto"} {
		t.Run(mode, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "k.inst.ptx")
			r := runCLI(t, "", "instrument", "--mode", mode, "--no-ptxas", "-o", out, in)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			f, err := os.Open(filepath.Join(filepath.Dir(out), "k.inst.probes.json"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := manifest.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if m.Mode != mode || len(m.Kernels) == 0 || len(m.Kernels[0].Probes) == 0 {
				t.Errorf("manifest: mode %s, %d kernels", m.Mode, len(m.Kernels))
			}
			if !strings.Contains(readString(t, out), "__pt_buf") {
				t.Error("output has no trace buffer parameter")
			}
		})
	}
}

func TestInstrumentErrors(t *testing.T) {
	in := filepath.Join("testdata", "vecadd.ptx")
	dir := t.TempDir()
	out := filepath.Join(dir, "o.ptx")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no output", []string{"instrument", in}, exitUsage, "-o OUT.ptx is required"},
		{"no file", []string{"instrument", "-o", out}, exitUsage, "want exactly one FILE.ptx"},
		{"unknown kernel", []string{"instrument", "--no-ptxas", "--kernel", "nope", "-o", out, in}, exitError, in + ":1:1: no kernel named \"nope\""},
		{"no sites", []string{"instrument", "--no-ptxas", "--space", "shared", "-o", out, in}, exitError, in + ":1:1: no sites"},
		{"bad lines", []string{"instrument", "--lines", "9-3", "-o", out, in}, exitUsage, "bad line range"},
		{"bad region", []string{"instrument", "--region", "x", "-o", out, in}, exitUsage, "bad region"},
		{"bad mode", []string{"instrument", "--no-ptxas", "--mode", "fast", "-o", out, in}, exitError, "unknown mode"},
		{"missing input", []string{"instrument", "-o", out, filepath.Join(dir, "absent.ptx")}, exitError, "absent.ptx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d containing %q", r.code, r.stderr, tt.code, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output written despite the error")
			}
		})
	}
}
