package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTransferCommand(t *testing.T) {
	r := runCLI(t, "", "transfer", "--csv", "--min", "8", "--max", "1KB")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// header + 2 directions × 13 series × 8 sizes (8 B … 1 KB)
	if n := strings.Count(r.stdout, "\n"); n != 1+2*13*8 {
		t.Errorf("%d CSV lines, want %d", n, 1+2*13*8)
	}
	svg := filepath.Join(t.TempDir(), "t.svg")
	r = runCLI(t, "", "transfer", "--model", "h100", "--recommend", "--svg", svg)
	if r.code != exitOK || !strings.Contains(r.stdout, "recommendation per size band") {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") {
		t.Errorf("svg: %v", err)
	}
	r = runCLI(t, "", "transfer")
	if r.code != exitOK || !strings.Contains(r.stdout, "d2h single at 256B") {
		t.Errorf("default table: exit %d, %s", r.code, r.stderr)
	}
}

// TestTransferGPURefused: --gpu exits 1 saying no GPU backend exists.
func TestTransferGPURefused(t *testing.T) {
	r := runCLI(t, "", "transfer", "--gpu")
	if r.code != exitError || !strings.Contains(r.stderr, "no GPU backend is available") || r.stdout != "" {
		t.Errorf("--gpu: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestTransferCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"transfer", "--model", "gtx999"},
		{"transfer", "--min", "0"},
		{"transfer", "--min", "1MB", "--max", "1KB"},
		{"transfer", "--csv", "--recommend"},
		{"transfer", "extra"},
	} {
		if r := runCLI(t, "", args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stderr)
		}
	}
}
