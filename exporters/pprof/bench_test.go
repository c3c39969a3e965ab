package pprof

import (
	"context"
	"io"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// events/s counts a begin and an end per region.
func BenchmarkExport(b *testing.B) {
	tr := tracetest.Fixture(64, 8, 100, trace.TimerClock64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := exporters.Run(context.Background(), tr.Source(), New(io.Discard, Options{BySM: true})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
