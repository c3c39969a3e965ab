package parquet_test

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func BenchmarkExportZeroDur(b *testing.B) {
	s := tt.Synth{Warps: 200, WarpsPerCTA: 4, Iters: 100, Loads: 4, NumSMs: 15, Timer: 1}
	tr := decode(b, s, trace.RunMeta{ClockHz: 1.4e9})
	for i := range tr.Regions {
		if i%2 == 0 {
			tr.Regions[i].DurNs = 0
		}
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	size := 0
	for i := 0; i < b.N; i++ {
		var cw countWriter
		if err := exporters.Run(context.Background(), tr.Source(), parquet.New(&cw, parquet.Options{})); err != nil {
			b.Fatal(err)
		}
		size = int(cw)
	}
	b.ReportMetric(float64(len(tr.Regions))*float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
	b.ReportMetric(float64(size)/float64(len(tr.Regions)), "bytes/event")
}
