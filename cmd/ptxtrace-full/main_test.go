package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// result is what one in-process run of the CLI produced.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs ptxtrace in-process with args (without the program name) and
// stdin as standard input.
func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	code := run(context.Background(), append([]string{"ptxtrace"}, args...), strings.NewReader(stdin), &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// writeTemp writes a file named name with contents src into a new temporary
// directory and returns its path.
func writeTemp(t *testing.T, name, src string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), perm); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestApp(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout *regexp.Regexp // nil: not checked
		wantStderr *regexp.Regexp // nil: must be empty
	}{
		{"version", []string{"--version"}, 0, regexp.MustCompile(`^ptxtrace version \S+`), nil},
		{"help", []string{"--help"}, 0, regexp.MustCompile(`(?s)fmt.*inspect.*demo`), nil},
		{"help command", []string{"help", "fmt"}, 0, regexp.MustCompile(`--canonical`), nil},
		{"command help", []string{"fmt", "--help"}, 0, regexp.MustCompile(`--all-errors`), nil},
		{"no command", nil, 2, nil, regexp.MustCompile(`(?m)^ptxtrace: no command given$`)},
		{"unknown command", []string{"frobnicate"}, 2, nil, regexp.MustCompile(`(?m)^ptxtrace: unknown command "frobnicate"`)},
		{"help unknown topic", []string{"help", "frobnicate"}, 2, nil, regexp.MustCompile(`(?m)^ptxtrace: No help topic for 'frobnicate'`)},
		{"unknown global flag", []string{"--frobnicate"}, 2, nil, regexp.MustCompile(`(?m)^ptxtrace: flag provided but not defined: -frobnicate`)},
		{"unknown command flag", []string{"fmt", "--frobnicate", "x.ptx"}, 2, nil, regexp.MustCompile(`(?m)^ptxtrace: flag provided but not defined: -frobnicate \(see 'ptxtrace fmt --help'\)$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			if r.code != tt.wantCode {
				t.Errorf("exit code = %d, want %d\nstderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			if tt.wantStdout != nil && !tt.wantStdout.MatchString(r.stdout) {
				t.Errorf("stdout does not match %s:\n%s", tt.wantStdout, r.stdout)
			}
			if tt.wantStderr == nil && r.stderr != "" {
				t.Errorf("unexpected stderr:\n%s", r.stderr)
			}
			if tt.wantStderr != nil && !tt.wantStderr.MatchString(r.stderr) {
				t.Errorf("stderr does not match %s:\n%s", tt.wantStderr, r.stderr)
			}
		})
	}
}

func TestRunIndependentApps(t *testing.T) {
	// No global state: two apps with different streams do not see each
	// other's output.
	a := runCLI(t, "", "--version")
	b := runCLI(t, "", "--version")
	if a.stdout != b.stdout || a.stdout == "" {
		t.Errorf("outputs differ or are empty: %q vs %q", a.stdout, b.stdout)
	}
}

// buildCLI builds this command into dir and returns the binary's path,
// for the tests that run it as a process (signals, kills).
func buildCLI(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "ptxtrace-full")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
