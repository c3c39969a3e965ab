package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerifySASS(t *testing.T) {
	if _, err := exec.LookPath("ptxas"); err != nil {
		t.Skip("ptxas not installed")
	}
	if _, err := exec.LookPath("nvdisasm"); err != nil {
		t.Skip("nvdisasm not installed")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "k.ptx")
	if r := runCLI(t, "", "instrument", "--mode", "fence", "-o", out, filepath.Join("testdata", "vecadd.ptx")); r.code != 0 {
		t.Fatalf("instrument: %s", r.stderr)
	}
	r := runCLI(t, "", "verify", "--sass", out)
	if r.code != 0 || !strings.Contains(r.stdout, "0 out of order") {
		t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Move the first end clock read above its fence: verify must fail.
	lines := strings.Split(readString(t, out), "\n")
	for i := 0; i+1 < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if (l == "membar.cta;" || l == "fence.acq_rel.cta;") && strings.Contains(lines[i+1], "%__pt_rd2") {
			lines[i], lines[i+1] = lines[i+1], lines[i]
			break
		}
	}
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "verify", "--sass", out)
	if r.code != exitError || !strings.Contains(r.stdout, "FAIL") {
		t.Errorf("verify of a misordered file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "verify", out); r.code != exitUsage {
		t.Errorf("verify without --sass: exit %d", r.code)
	}
}
