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

// TestInstrumentManifestFailureLeavesNoPTX: when the manifest cannot be
// written (its path is a directory), instrument fails and neither a new
// PTX nor a mix of old and new files is left — with a previous output in
// place, it stays byte for byte; without one, none appears. Both the
// streaming path (the default) and the whole-module path (--kernel) are
// covered.
func TestInstrumentManifestFailureLeavesNoPTX(t *testing.T) {
	in := filepath.Join("testdata", "vecadd.ptx")
	for _, extra := range [][]string{nil, {"--kernel", "vecadd"}} {
		for _, previous := range []bool{false, true} {
			dir := t.TempDir()
			out := filepath.Join(dir, "k.ptx")
			if err := os.Mkdir(filepath.Join(dir, "k.probes.json"), 0o755); err != nil {
				t.Fatal(err)
			}
			if previous {
				if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"instrument", "--no-ptxas"}, extra...)
			r := runCLI(t, "", append(args, "-o", out, in)...)
			if r.code != exitError {
				t.Fatalf("%v previous=%v: exit %d, want %d: %s", extra, previous, r.code, exitError, r.stderr)
			}
			if !strings.Contains(r.stderr, "k.probes.json") {
				t.Errorf("%v: the error does not name the manifest: %s", extra, r.stderr)
			}
			b, err := os.ReadFile(out)
			switch {
			case previous && string(b) != "old\n":
				t.Errorf("%v: previous output changed to %d bytes (err %v)", extra, len(b), err)
			case !previous && !os.IsNotExist(err):
				t.Errorf("%v: output written without its manifest (err %v)", extra, err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1+btoi(previous) {
				t.Errorf("%v previous=%v: leftovers in the output directory: %v", extra, previous, ents)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
