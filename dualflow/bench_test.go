package dualflow

import (
	"context"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// The model's speed with D-FLOW (window 8, Light encoding, warp wrapper)
// against BASE (allocated registers, in order) on the same sample and GPU:
// compare ns/op of the two (docs/dualflow.md).
func benchRun(b *testing.B, name string, dflow bool) {
	src := samplePTX(b, name)
	ms := Table1()
	text := src
	opt := model.Options{Workers: 1}
	if dflow {
		file, err := Parse(name, src)
		if err != nil {
			b.Fatal(err)
		}
		light, progs, encs, err := ConvertFile(file, 0, Light)
		if err != nil {
			b.Fatal(err)
		}
		text = []byte(light)
		opt.Window = 8
		var werr error
		opt.Wrap = wrapper(progs, encs, &Counts{}, &werr)
		defer func() {
			if werr != nil {
				b.Fatal(werr)
			}
		}()
	} else {
		file, err := Parse(name, src)
		if err != nil {
			b.Fatal(err)
		}
		alloc, _, err := AllocateFile(file, nil)
		if err != nil {
			b.Fatal(err)
		}
		text = []byte(alloc)
	}
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := RunSample(context.Background(), name, text, &ms, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

func BenchmarkBaseGaussian(b *testing.B)    { benchRun(b, "gaussian", false) }
func BenchmarkDFlowGaussian(b *testing.B)   { benchRun(b, "gaussian", true) }
func BenchmarkBasePathfinder(b *testing.B)  { benchRun(b, "pathfinder", false) }
func BenchmarkDFlowPathfinder(b *testing.B) { benchRun(b, "pathfinder", true) }

func BenchmarkBaseLud(b *testing.B)  { benchRun(b, "lud", false) }
func BenchmarkDFlowLud(b *testing.B) { benchRun(b, "lud", true) }
func BenchmarkBaseNN(b *testing.B)   { benchRun(b, "nn", false) }
func BenchmarkDFlowNN(b *testing.B)  { benchRun(b, "nn", true) }
