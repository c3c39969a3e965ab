package analysis

import "testing"

func TestHistogram(t *testing.T) {
	var h histogram
	for v := uint64(1); v <= 100000; v++ {
		h.add(v)
	}
	for _, q := range []float64{0.5, 0.95} {
		got, want := h.quantile(q), q*100000
		if d := (got - want) / want; d > 0.01 || d < -0.01 {
			t.Errorf("q%v = %v, want ≈%v", q, got, want)
		}
	}
	for v := uint64(0); v < 1<<20; v = v*3 + 1 {
		lo, hi := bucketRange(bucketOf(v))
		if v < lo || v > hi {
			t.Fatalf("%d not in bucket [%d,%d]", v, lo, hi)
		}
	}
	// Below 128 every value is its own bucket: quantiles are exact.
	var s histogram
	for _, v := range []uint64{5, 1, 9, 3} {
		s.add(v)
	}
	if m, p := s.quantile(0.5), s.quantile(0.95); m != 3 || p != 9 {
		t.Errorf("small: median %v p95 %v, want 3 and 9", m, p)
	}
	var empty histogram
	if empty.quantile(0.5) != 0 {
		t.Error("empty quantile != 0")
	}
}
