package trace_test

import (
	"bytes"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// BenchmarkDecode streams a 100k-region buffer through the Decoder.
func BenchmarkDecode(b *testing.B) {
	s := tt.Synth{Warps: 200, WarpsPerCTA: 4, Iters: 100, Loads: 4, NumSMs: 15, Timer: 0}
	var buf bytes.Buffer
	s.WriteTo(&buf)
	m := s.Manifest()
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		d, err := trace.NewDecoder(bytes.NewReader(buf.Bytes()), int64(buf.Len()), m, "", trace.Options{Meta: trace.RunMeta{ClockHz: 1.4e9}})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(s.Regions())*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(s.Regions())*float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
}

// cpuTime is the process's user+system CPU time: events per CPU-second do
// not depend on how loaded the machine is.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
