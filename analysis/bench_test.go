package analysis

import (
	"bytes"
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// BenchmarkAnalyze streams a synthetic trace of 512 warps × 50 iterations
// × (1 user + 4 load regions) = 128,000 regions through AnalyzeContext.
func BenchmarkAnalyze(b *testing.B) {
	s := tracetest.Synth{Warps: 512, WarpsPerCTA: 4, Iters: 50, Loads: 4, NumSMs: 8, Timer: 1}
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		b.Fatal(err)
	}
	tr, err := trace.Decode(raw.Bytes(), s.Manifest(), "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := AnalyzeContext(context.Background(), tr.Source(), Options{Top: 10})
		if err != nil {
			b.Fatal(err)
		}
		if int64(len(res.Warps)) != int64(s.Warps) {
			b.Fatalf("%d warps", len(res.Warps))
		}
	}
	b.ReportMetric(float64(s.Regions())*float64(b.N)/b.Elapsed().Seconds(), "regions/s")
}
