package perfetto

import (
	"context"
	"io"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// events/s counts a begin and an end per region.
func bench(b *testing.B, mk func() exporters.Exporter) {
	tr := tracetest.Fixture(64, 8, 100, trace.TimerClock64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := exporters.Run(context.Background(), tr.Source(), mk()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkProto(b *testing.B) {
	bench(b, func() exporters.Exporter { return New(io.Discard, Options{}) })
}

func BenchmarkProtoNoArgs(b *testing.B) {
	bench(b, func() exporters.Exporter { return New(io.Discard, Options{NoArgs: true}) })
}

func BenchmarkJSON(b *testing.B) {
	bench(b, func() exporters.Exporter { return NewJSON(io.Discard, Options{}) })
}
