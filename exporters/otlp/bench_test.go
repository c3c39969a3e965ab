package otlp

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// discard is a span exporter that drops spans (the benchmark measures span
// building, not the network).
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkRegionSpans: every region becomes a span (cap lifted); events/s
// counts a begin and an end per region.
func BenchmarkRegionSpans(b *testing.B) {
	tr := tracetest.Fixture(16, 4, 100, trace.TimerClock64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := New(context.Background(), discard{}, Options{Granularity: Region, MaxSpans: 1 << 20})
		if err := exporters.Run(context.Background(), tr.Source(), e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWarpSpans: the default CLI granularity; regions are only
// aggregated.
func BenchmarkWarpSpans(b *testing.B) {
	tr := tracetest.Fixture(64, 8, 100, trace.TimerClock64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := New(context.Background(), discard{}, Options{Granularity: Warp})
		if err := exporters.Run(context.Background(), tr.Source(), e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
