package ptx

import (
	"bytes"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ptxasArch returns the -arch value ptxas needs for f, or "" when ptxas
// cannot compile for f's target (ptxas 11.8 knows sm_35 … sm_90a).
func ptxasArch(f *File) string {
	d := f.Directive(".target")
	if d == nil {
		return ""
	}
	sm, suffix := d.SM()
	if sm < 35 {
		return ""
	}
	return "sm_" + strconv.Itoa(sm) + suffix
}

// runPtxas compiles the PTX text src for arch and returns ptxas's output on
// failure.
func runPtxas(t testing.TB, src []byte, arch string, extra ...string) (ok bool, out string) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ptx")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-arch=" + arch}, extra...)
	cmd := exec.Command("ptxas", append(args, in, "-o", filepath.Join(dir, "out.cubin"))...)
	b, err := cmd.CombinedOutput()
	return err == nil, string(b)
}

// TestCanonicalAcceptedByPtxas checks that for every corpus file ptxas
// accepts, the Canonical printing is accepted too.
func TestCanonicalAcceptedByPtxas(t *testing.T) {
	if _, err := exec.LookPath("ptxas"); err != nil {
		t.Skip("ptxas not installed (apt-get install nvidia-cuda-toolkit); skipping ptxas acceptance")
	}
	accepted, skipped := 0, 0
	for _, name := range corpusFiles(t) {
		f, src := parseFileT(t, name)
		arch := ptxasArch(f)
		if arch == "" {
			skipped++
			continue
		}
		var extra []string
		if ok, _ := runPtxas(t, src, arch); !ok {
			// Modules that call external functions (libdevice left
			// unlinked) assemble with -c (compile only).
			extra = []string{"-c"}
		}
		if ok, out := runPtxas(t, src, arch, extra...); !ok {
			t.Logf("%s: ptxas rejects the original for %s (%s); not checked", filepath.Base(name), arch, firstLines(strings.TrimSpace(out), 1))
			skipped++
			continue
		}
		var buf bytes.Buffer
		if err := (&Config{Mode: Canonical}).Fprint(&buf, f); err != nil {
			t.Fatal(err)
		}
		if ok, out := runPtxas(t, buf.Bytes(), arch, extra...); !ok {
			t.Errorf("%s: ptxas rejects the canonical printing for %s:\n%s", filepath.Base(name), arch, firstLines(out, 5))
			continue
		}
		accepted++
	}
	t.Logf("ptxas accepted the canonical printing of %d files; %d files not checked (target below sm_35 or rejected as written)", accepted, skipped)
	if accepted == 0 {
		t.Error("no file was checked with ptxas")
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

var _ = token.NoPos
