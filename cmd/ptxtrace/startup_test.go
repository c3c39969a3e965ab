package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// startupCorpusDirs are where BenchmarkStartupFmt looks for the shared PTX
// corpus (main checkout, then a worktree under /work/wt); PTXTRACE_CORPUS
// overrides them.
var startupCorpusDirs = []string{"../../../shared/corpus/ptx", "../../../../shared/corpus/ptx"}

// BenchmarkStartupFmt builds the ptxtrace binary once (with the Makefile's
// build tags) and runs `ptxtrace fmt` as a child process on an empty file and
// on the largest corpus file. It reports the child's CPU time (user+system)
// per run as cpu-ms/op: that, not ns/op (wall time, inflated on a loaded
// machine), is the start-up figure of docs/startup.md. It passes or fails on
// nothing but the command's exit status.
func BenchmarkStartupFmt(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the binary; skipped in -short mode")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "ptxtrace")
	build := exec.Command("go", "build", "-tags", "urfave_cli_no_docs grpcnotrace", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	empty := filepath.Join(dir, "empty.ptx")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("Empty", func(b *testing.B) { benchFmtCPU(b, bin, empty) })
	b.Run("Large", func(b *testing.B) {
		large := largestCorpusFile(b)
		if large == "" {
			b.Skip("no PTX corpus found (PTXTRACE_CORPUS or ../shared/corpus/ptx)")
		}
		b.Logf("large file: %s", large)
		benchFmtCPU(b, bin, large)
	})
}

// benchFmtCPU runs `bin fmt file` b.N times and reports the median and mean
// child CPU time.
func benchFmtCPU(b *testing.B, bin, file string) {
	cpu := make([]time.Duration, 0, b.N)
	for b.Loop() {
		c := exec.Command(bin, "fmt", file)
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%s fmt %s: %v\n%.500s", bin, file, err, out)
		}
		cpu = append(cpu, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
	}
	var sum time.Duration
	for _, d := range cpu {
		sum += d
	}
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(cpu[len(cpu)/2]), "cpu-ms-median")
	b.ReportMetric(ms(sum)/float64(len(cpu)), "cpu-ms/op")
}

// largestCorpusFile returns the largest .ptx file of the corpus, or "".
func largestCorpusFile(b *testing.B) string {
	dirs := startupCorpusDirs
	if d := os.Getenv("PTXTRACE_CORPUS"); d != "" {
		dirs = []string{d}
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		best, bestSize := "", int64(-1)
		for _, e := range ents {
			if filepath.Ext(e.Name()) != ".ptx" {
				continue
			}
			if info, err := e.Info(); err == nil && info.Size() > bestSize {
				best, bestSize = filepath.Join(d, e.Name()), info.Size()
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}
