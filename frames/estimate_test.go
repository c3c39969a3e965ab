package frames

import (
	"math"
	"testing"
)

func TestEstimatorsTable1(t *testing.T) {
	es := Estimators()
	if len(es) != 42 {
		t.Fatalf("%d estimators, want 42", len(es))
	}
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Name()] {
			t.Errorf("duplicate %s", e.Name())
		}
		seen[e.Name()] = true
		back, err := ParseEstimator(e.Name())
		if err != nil || back != e {
			t.Errorf("ParseEstimator(%q) = %v, %v", e.Name(), back, err)
		}
	}
}

// Sequence A = 1 1 2 1 1 3; frames 1…5 are scored. Expected values
// derived by hand in the comments.
func TestEvaluateHandDerived(t *testing.T) {
	a := []int{1, 1, 2, 1, 1, 3}
	cases := []struct {
		name         string
		hits, risks  int
		hit, risk, v float64
	}{
		// last: est 1,1,2,1,1 vs 1,2,1,1,3 → hits k1,k4; risks k2,k5.
		{"last", 2, 2, 40, 40, 24},
		// equal-2: stays 1 (never two equal non-1 values) → hits k1,k3,k4.
		{"equal-2", 3, 2, 60, 40, 36},
		// mean-3-ceil: 1, 1, ⌈4/3⌉=2, 2, 2 → hit k1 only; risks k2,k5.
		{"mean-3-ceil", 1, 2, 20, 40, 12},
		// mean-3-floor: 1, 1, 1, 1, 1 → hits k1,k3,k4.
		{"mean-3-floor", 3, 2, 60, 40, 36},
		// mean-2-round: 1, 1, round(1.5)=2, round(1.5)=2, 1 → hit k1.
		{"mean-2-round", 1, 2, 20, 40, 12},
		// wma-2 (weights 1, 2): 1, 1, 5/3, 4/3, 1.
		{"wma-2-floor", 3, 2, 60, 40, 36}, // 1,1,1,1,1
		{"wma-2-ceil", 1, 2, 20, 40, 12},  // 1,1,2,2,1
		{"wma-2-round", 2, 2, 40, 40, 24}, // 1,1,2,1,1
	}
	for _, c := range cases {
		e, err := ParseEstimator(c.name)
		if err != nil {
			t.Fatal(err)
		}
		s := Evaluate(e, a)
		if s.Frames != 5 || s.Hits != c.hits || s.Risks != c.risks {
			t.Errorf("%s: %+v, want 5 frames %d hits %d risks", c.name, s, c.hits, c.risks)
		}
		if !near(s.Hit(), c.hit) || !near(s.Risk(), c.risk) || !near(s.Value(), c.v) {
			t.Errorf("%s: hit %v risk %v score %v, want %v %v %v", c.name, s.Hit(), s.Risk(), s.Value(), c.hit, c.risk, c.v)
		}
	}
}

func TestRoundingHalfUp(t *testing.T) {
	e, _ := ParseEstimator("mean-2-round")
	// History 2, 3 → 2.5 → 3; actual 3 is a hit.
	if s := Evaluate(e, []int{2, 3, 3}); s.Hits != 1 || s.Frames != 2 {
		// k1: est 2 (hist [2]) vs 3 → miss; k2: est round(2.5)=3 vs 3 → hit.
		t.Errorf("%+v", s)
	}
}

func TestRankIndex(t *testing.T) {
	a := []int{1, 1, 2, 1, 1, 3}
	b := []int{2, 2, 2} // every estimator: 2 frames, 2 hits → score 100
	last, _ := ParseEstimator("last")
	eq2, _ := ParseEstimator("equal-2")
	r := Rank([]Estimator{last, eq2}, [][]int{a, b})
	// last: scores 24, 100 → mean 62, spread 76, index −14.
	// equal-2: 36, 100 → mean 68, spread 64, index 4.
	if r[0].Estimator != eq2 || r[1].Estimator != last {
		t.Fatalf("order %s, %s", r[0].Estimator.Name(), r[1].Estimator.Name())
	}
	if !near(r[0].Index, 4) || !near(r[1].Index, -14) || !near(r[1].Mean, 62) || !near(r[1].Spread, 76) {
		t.Errorf("index %v %v mean %v spread %v", r[0].Index, r[1].Index, r[1].Mean, r[1].Spread)
	}
	if !near(r[1].MinHit, 40) || !near(r[1].MaxRisk, 40) {
		t.Errorf("last min hit %v max risk %v, want 40 40", r[1].MinHit, r[1].MaxRisk)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
