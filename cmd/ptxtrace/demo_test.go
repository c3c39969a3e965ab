package main

import (
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

func TestDemo(t *testing.T) {
	tests := []struct {
		name      string
		outDir    bool
		wantFiles []string
	}{
		{"no output directory", false, nil},
		{"output directory", true, []string{demoName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"demo"}
			dir := filepath.Join(t.TempDir(), "out", "nested")
			if tt.outDir {
				args = append(args, "-o", dir)
			}
			r := runCLI(t, "", args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("demo: exit %d, stderr:\n%s", r.code, r.stderr)
			}
			for _, want := range []string{
				"parse → instrument → replay → export",
				"1 kernel, 22 instructions",
				"kernel vecadd: 4 parameters, 22 instructions",
				"instrument  not built yet",
				"replay      not built yet",
				"export      not built yet",
			} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, r.stdout)
				}
			}
			for _, name := range tt.wantFiles {
				src, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ptx.ParseFile(token.NewFileSet(), name, src, ptx.AllErrors); err != nil {
					t.Errorf("%s does not parse: %v", name, err)
				}
			}
		})
	}
}

func TestDemoUsage(t *testing.T) {
	for _, args := range [][]string{{"demo", "extra"}, {"demo", "-o", "-"}, {"demo", "-o"}} {
		if r := runCLI(t, "", args...); r.code != 2 {
			t.Errorf("%v: exit code = %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}

func TestDemoOutputNotADirectory(t *testing.T) {
	file := writeTemp(t, "f", "x", 0o644)
	r := runCLI(t, "", "demo", "-o", file)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "ptxtrace: ") {
		t.Errorf("exit %d, stderr %q; want 1 and a ptxtrace: message", r.code, r.stderr)
	}
}

// TestDemoKernelAssembles checks the embedded kernel, and its canonical
// reprint, with NVIDIA's assembler.
func TestDemoKernelAssembles(t *testing.T) {
	ptxas, err := exec.LookPath("ptxas")
	if err != nil {
		t.Skip("ptxas not found; install the CUDA toolkit (see .ci/run) to run this test")
	}
	dir := t.TempDir()
	if r := runCLI(t, "", "demo", "-o", dir); r.code != 0 {
		t.Fatalf("demo: %s", r.stderr)
	}
	for _, in := range []string{filepath.Join("testdata", "vecadd.ptx"), filepath.Join(dir, demoName)} {
		cmd := exec.Command(ptxas, "-arch=sm_70", "-o", filepath.Join(dir, "out.cubin"), in)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("ptxas %s: %v\n%s", in, err, out)
		}
	}
}
