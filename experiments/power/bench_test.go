package power

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"

	"github.com/ptxtrace/ptxtrace/model"
)

// BenchmarkUnitBusy is the recorder's hot path: one sp issue with a
// divergent mask (16 lane checks on gtx480), issued every other cycle.
func BenchmarkUnitBusy(b *testing.B) {
	spec, _ := model.Preset("gtx480")
	r := NewRecorder(&spec)
	o := r.Observe(0)
	masks := [...]uint32{0xffffffff, 0x0000ffff, 0x55555555, 0x1}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t := model.Time(2 * i)
		o.UnitBusy(model.UnitEvent{Unit: model.UnitSP, Index: i & 1, From: t, To: t + 1, Active: masks[i&3]})
	}
}

// BenchmarkVecadd compares the vecadd sample (100,000 threads) on gtx480
// without observers and with the Recorder: the recording overhead.
func BenchmarkVecadd(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "plain"
		if rec {
			name = "recorder"
		}
		b.Run(name, func(b *testing.B) {
			in := sampleInput(b, "vecadd")
			in.Workers = 1
			for b.Loop() {
				if rec {
					if _, err := Run(context.Background(), in, DefaultConfig()); err != nil {
						b.Fatal(err)
					}
					continue
				}
				prep, err := in.Spec.Prepare(in.Prog, launch.PrepareOptions{BaseDir: in.BaseDir, Registry: launch.SampleRegistry(), NumSMs: in.Model.NumSMs})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := prep.Run(context.Background(), launch.ExecOptions{Model: &in.Model, ModelOpt: model.Options{Workers: 1}}); err != nil {
					b.Fatal(err)
				}
				prep.Check(launch.SampleRegistry(), in.BaseDir)
			}
		})
	}
}
