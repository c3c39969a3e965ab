package power

import (
	"testing"

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
