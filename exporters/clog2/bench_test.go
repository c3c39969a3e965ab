package clog2

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// BenchmarkExport measures the exporter end to end (buffer, sort, encode);
// events/s counts begin and end events (two per region).
func BenchmarkExport(b *testing.B) {
	tr := tracetest.Fixture(64, 8, 100, trace.TimerClock64)
	ev := 2 * len(tr.Regions)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := exporters.Run(context.Background(), tr.Source(), New(io.Discard, Options{})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ev)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCheck measures the validating reader.
func BenchmarkCheck(b *testing.B) {
	tr := tracetest.Fixture(64, 8, 100, trace.TimerClock64)
	data := export(b, tr, Options{})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Check(bytesReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// BenchmarkDecoded compares the buffering path (regions from memory) with
// the time-ordered path (Run over a *trace.Decoder: trace.MergeByTime,
// WriteEvent, spooled blocks) on the same raw buffer; the decoded variant
// includes decoding and merging.
func BenchmarkDecoded(b *testing.B) {
	s := tracetest.Synth{Warps: 2048, WarpsPerCTA: 8, Iters: 50, Loads: 3, NumSMs: 16, Timer: 1}
	d := synthDecoder(b, s)
	tr, err := trace.Collect(d)
	if err != nil {
		b.Fatal(err)
	}
	ev := 2 * s.Regions()
	b.Run("buffered", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := exporters.Run(context.Background(), tr.Source(), New(io.Discard, Options{})); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(ev)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("time-ordered", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := exporters.Run(context.Background(), d, New(io.Discard, Options{TempDir: b.TempDir()})); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(ev)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
