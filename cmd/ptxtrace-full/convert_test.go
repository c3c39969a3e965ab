package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// countParquetRows opens a Parquet file and returns its row count.
func countParquetRows(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f.NumRows()
}

func TestConvertKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and converts ~5M regions; skipped with -short")
	}
	dir := t.TempDir()
	bin := buildCLI(t, dir)
	s := tt.Synth{Warps: 256, WarpsPerCTA: 4, Iters: 50, Loads: 4, NumSMs: 8, Timer: 1}
	var inputs []string
	for i := range 16 {
		p := filepath.Join(dir, "in", fmt.Sprintf("run%02d.bundle", i))
		writeBundle(t, p, s, trace.RunMeta{})
		inputs = append(inputs, p)
	}
	// A corrupt input: a valid bundle with one raw byte flipped.
	bad := filepath.Join(dir, "in", "corrupt.bundle")
	data, _ := os.ReadFile(inputs[0])
	data[len(data)/2] ^= 0xff
	os.WriteFile(bad, data, 0o644)
	inputs = append(inputs[:8], append([]string{bad}, inputs[8:]...)...)
	out := filepath.Join(dir, "ds")
	outputOf := func(in string) string {
		id := strings.TrimSuffix(filepath.Base(in), ".bundle") + "-" + pathHash8(t, in)
		return filepath.Join(out, "kernel="+tt.Kernel, "run="+id, "part-0.parquet")
	}

	cmd := exec.Command(bin, append([]string{"convert", "--to", "parquet", "--out", out, "-j", "1"}, inputs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		n := 0
		for _, in := range inputs {
			if _, err := os.Stat(outputOf(in)); err == nil {
				n++
			}
		}
		if n >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	killed := 0
	for _, in := range inputs {
		if _, err := os.Stat(outputOf(in)); err == nil {
			killed++
			countParquetRows(t, outputOf(in)) // every output present is complete
		}
	}
	t.Logf("%d of %d outputs existed at the kill", killed, len(inputs)-1)
	if killed == len(inputs)-1 {
		t.Log("convert finished before the kill; the resume check is weaker")
	}

	cmd = exec.Command(bin, append([]string{"convert", "--to", "parquet", "--out", out, "-j", "2"}, inputs...)...)
	stderr.Reset()
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("rerun: %v, want exit status 1 (corrupt input)\n%s", err, stderr.String())
	}
	msg := stderr.String()
	if !strings.Contains(msg, bad+": ") || !strings.Contains(msg, "checksum mismatch") {
		t.Errorf("corrupt input not reported with its name:\n%s", msg)
	}
	if !strings.Contains(msg, fmt.Sprintf("%d already done, 1 failed", killed)) {
		t.Errorf("summary does not count %d skipped outputs:\n%s", killed, msg)
	}
	for _, in := range inputs {
		if in == bad {
			if _, err := os.Stat(outputOf(in)); err == nil {
				t.Error("corrupt input has an output")
			}
			continue
		}
		if n := countParquetRows(t, outputOf(in)); n != s.Regions() {
			t.Errorf("%s: %d rows, want %d", outputOf(in), n, s.Regions())
		}
	}
}

func TestConvertInProcess(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a", "run.bundle")
	writeBundle(t, a, smallSynth, trace.RunMeta{RunID: "r/1"})
	b := filepath.Join(dir, "b.bundle")
	writeBundle(t, b, smallSynth, trace.RunMeta{})
	missing := filepath.Join(dir, "missing.bundle")
	out := filepath.Join(dir, "ds")
	r := runCLI(t, "", "convert", "--to", "csv", "--out", out, filepath.Join(dir, "a"), b, missing)
	if r.code != 1 || !strings.Contains(r.stderr, missing+": ") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, p := range []string{
		filepath.Join(out, "kernel="+tt.Kernel, "run=r%2F1", "part-0.csv"),
		filepath.Join(out, "kernel="+tt.Kernel, "run=b-"+pathHash8(t, b), "part-0.csv"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	r = runCLI(t, "", "convert", "--out", out, b, "--to")
	if r.code != 2 || !strings.Contains(r.stderr, "flag needs an argument: --to") {
		t.Fatalf("flag after runs: exit %d, %q", r.code, r.stderr)
	}
}

// pathHash8 is the first 8 hex digits of the SHA-256 of p's absolute path
// (docs/cli.md, convert: the run id of an input without one).
func pathHash8(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(abs))
	return fmt.Sprintf("%x", sum[:4])
}
