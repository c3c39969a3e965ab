package trace_test

import (
	"bytes"
	"io"
	"testing"

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
}
