package manifest

import (
	"math/rand/v2"
	"testing"
)

// TestDenseMap: random puts and gets (dense runs from 0, keys far
// beyond, negative keys, keys put sparse before the slice reaches them)
// answer as a map does, and the slice stays proportional to the
// entries held.
func TestDenseMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var d denseMap[int32]
	want := map[int64]int32{}
	key := func() int64 {
		switch rng.IntN(6) {
		case 0:
			return -1 - rng.Int64N(1000)
		case 1:
			return rng.Int64N(1 << 40)
		case 2:
			return denseMin + rng.Int64N(8*denseMin) // sparse at first, dense later
		default:
			return rng.Int64N(int64(len(want)) + 64)
		}
	}
	for i := range 300000 {
		k := key()
		if rng.IntN(2) == 0 {
			v := int32(i)
			d.put(k, v)
			want[k] = v
		}
		got, ok := d.get(k)
		if w, wok := want[k]; ok != wok || got != w {
			t.Fatalf("step %d: get(%d) = %d, %v; want %d, %v", i, k, got, ok, w, wok)
		}
	}
	for k, w := range want {
		if got, ok := d.get(k); !ok || got != w {
			t.Fatalf("get(%d) = %d, %v; want %d", k, got, ok, w)
		}
	}
	if d.n != len(want) {
		t.Errorf("n = %d, want %d", d.n, len(want))
	}
	if len(d.vals) > max(2*denseMin, 8*(len(want)+1)) {
		t.Errorf("slice of %d for %d entries", len(d.vals), len(want))
	}
}

// BenchmarkChecker checks 20,000 kernels of 4 load regions (8 probes)
// each, as a stream writer's Checker does: probes per second.
func BenchmarkChecker(b *testing.B) {
	ks := make([]Kernel, 20000)
	id, region := uint32(0), 0
	for i := range ks {
		k := &ks[i]
		k.Name = "k" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + string(rune('a'+i/17576%26))
		k.Staging.Where = StagingDynamic
		for range 4 {
			for _, kind := range []string{KindBegin, KindEnd} {
				k.Probes = append(k.Probes, Probe{ID: id, Kernel: k.Name, Kind: kind, Region: region, RegionKind: RegionLoad, Mode: ModeDummy})
				id++
			}
			region++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c := NewChecker()
		for i := range ks {
			c.Kernel(&ks[i])
		}
		if len(c.errs) > 0 {
			b.Fatal(c.errs[0])
		}
	}
	b.ReportMetric(float64(b.N)*float64(id)/b.Elapsed().Seconds(), "probes/s")
}
