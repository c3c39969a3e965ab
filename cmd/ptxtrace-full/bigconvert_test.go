package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// TestBigConvertMemory converts a 20M-region run (20k warps × 1000 regions,
// a 640 MB raw buffer) to CSV and Parquet in a subprocess and reports its
// peak resident memory (ru_maxrss). Run it with PTXTRACE_BIG=1; it needs
// ~2 GB of disk in the temporary directory.
func TestBigConvertMemory(t *testing.T) {
	if os.Getenv("PTXTRACE_BIG") == "" {
		t.Skip("set PTXTRACE_BIG=1 to convert a 20M-region trace and measure peak memory")
	}
	dir := t.TempDir()
	bin := buildCLI(t, dir)
	s := tt.Synth{Warps: 20000, WarpsPerCTA: 4, Iters: 200, Loads: 4, NumSMs: 80, Timer: 1}
	in := filepath.Join(dir, "big.bundle")
	pr, pw := io.Pipe()
	go func() { _, err := s.WriteTo(pw); pw.CloseWithError(err) }()
	start := time.Now()
	err := trace.WriteBundleFile(in, &trace.BundleInput{RawFrom: pr, RawSize: s.Size(), Manifest: s.Manifest(), Meta: trace.RunMeta{ClockHz: 1.4e9}})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(in)
	t.Logf("bundle: %d regions, %.0f MB, written in %v", s.Regions(), float64(fi.Size())/1e6, time.Since(start).Round(time.Millisecond))
	for _, format := range []string{"parquet", "csv"} {
		cmd := exec.Command(bin, "convert", "-j", "1", "--to", format, "--out", filepath.Join(dir, "ds-"+format), in)
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		matches, _ := filepath.Glob(filepath.Join(dir, "ds-"+format, "*", "*", "part-0.*"))
		var outSize int64
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil {
				outSize += fi.Size()
			}
		}
		t.Logf("%s: wall %v, cpu %v, %.2fM regions/s per CPU-second, peak RSS %d MB, output %.0f MB",
			format, el.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(s.Regions())/cpu.Seconds()/1e6, ru.Maxrss/1024, float64(outSize)/1e6)
	}
}
