package frames

import (
	"fmt"
	"sort"
)

// Method is an estimator family of seed Table 1.
type Method int

const (
	Last     Method = iota // the previous frame's count
	Equal                  // change only after N equal values
	Mean                   // mean of the last N, rounded
	Weighted               // linearly weighted moving average of the last N, rounded
)

// Rounding of a mean to an integer count.
type Rounding int

const (
	NoRounding Rounding = iota
	Floor
	Ceil
	Round // half up
)

// Estimator predicts a frame's draw count from the counts of the frames
// before it.
type Estimator struct {
	Method Method
	N      int
	Round  Rounding
}

// Name is the estimator's short name, e.g. "last", "equal-3",
// "mean-3-ceil", "wma-2-round".
func (e Estimator) Name() string {
	r := [...]string{"", "floor", "ceil", "round"}[e.Round]
	switch e.Method {
	case Last:
		return "last"
	case Equal:
		return fmt.Sprintf("equal-%d", e.N)
	case Mean:
		return fmt.Sprintf("mean-%d-%s", e.N, r)
	}
	return fmt.Sprintf("wma-%d-%s", e.N, r)
}

// Estimators are the 42 candidates of seed Table 1, in its order: last
// value (1); change after n equal values, n = 2…6 (5); mean of the last
// n ∈ {2,3,5,10,15,20} with floor/ceil/round (18); the linearly weighted
// moving average with the same n and roundings (18).
func Estimators() []Estimator {
	es := []Estimator{{Method: Last, N: 1}}
	for n := 2; n <= 6; n++ {
		es = append(es, Estimator{Method: Equal, N: n})
	}
	for _, m := range []Method{Mean, Weighted} {
		for _, n := range []int{2, 3, 5, 10, 15, 20} {
			for _, r := range []Rounding{Floor, Ceil, Round} {
				es = append(es, Estimator{Method: m, N: n, Round: r})
			}
		}
	}
	return es
}

// ParseEstimator finds an estimator by Name.
func ParseEstimator(s string) (Estimator, error) {
	for _, e := range Estimators() {
		if e.Name() == s {
			return e, nil
		}
	}
	return Estimator{}, fmt.Errorf("unknown estimator %q (want one of last, equal-N, mean-N-ROUND, wma-N-ROUND)", s)
}

// Predictor is an Estimator's running state over one sequence.
type Predictor struct {
	e    Estimator
	hist []int // the last up to max(N,1) counts, oldest first
	cur  int   // Equal: the current estimate
	seen bool
}

// NewPredictor starts e on an empty history.
func (e Estimator) NewPredictor() *Predictor { return &Predictor{e: e} }

// Ready reports whether a history exists (the first frame has none and is
// not scored).
func (p *Predictor) Ready() bool { return p.seen }

// Estimate is the prediction for the next frame. With fewer than N frames
// of history the means use what there is; Equal keeps the first count
// until N equal counts are seen.
func (p *Predictor) Estimate() int {
	h := p.hist
	if len(h) == 0 {
		return 0
	}
	switch p.e.Method {
	case Last:
		return h[len(h)-1]
	case Equal:
		return p.cur
	case Mean:
		var s int64
		for _, v := range h {
			s += int64(v)
		}
		return rounded(s, int64(len(h)), p.e.Round)
	}
	// Weighted: weights 1 (oldest) … len(h) (newest).
	var s, w int64
	for i, v := range h {
		s += int64(i+1) * int64(v)
		w += int64(i + 1)
	}
	return rounded(s, w, p.e.Round)
}

// Observe appends a frame's actual count.
func (p *Predictor) Observe(v int) {
	if !p.seen {
		p.cur, p.seen = v, true
	}
	n := max(p.e.N, 1)
	if len(p.hist) == n {
		copy(p.hist, p.hist[1:])
		p.hist = p.hist[:n-1]
	}
	p.hist = append(p.hist, v)
	if p.e.Method == Equal && len(p.hist) == n {
		eq := true
		for _, x := range p.hist {
			eq = eq && x == v
		}
		if eq {
			p.cur = v
		}
	}
}

func rounded(num, den int64, r Rounding) int {
	switch r {
	case Floor:
		return int(num / den)
	case Ceil:
		return int((num + den - 1) / den)
	}
	return int((2*num + den) / (2 * den))
}

// Score is an estimator's result on one sequence.
type Score struct {
	Frames int // scored frames (all but the first)
	Hits   int // estimate == actual
	Risks  int // actual > estimate
}

// Hit is the hit rate in percent.
func (s Score) Hit() float64 { return pct(s.Hits, s.Frames) }

// Risk is the risk rate in percent.
func (s Score) Risk() float64 { return pct(s.Risks, s.Frames) }

// Value is seed eq. (1): hit × (100 − risk) / 100.
func (s Score) Value() float64 { return s.Hit() * (100 - s.Risk()) / 100 }

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// Evaluate scores e on a sequence of per-frame counts: frame k ≥ 1 is
// predicted from frames 0…k−1.
func Evaluate(e Estimator, counts []int) Score {
	p := e.NewPredictor()
	var s Score
	for _, a := range counts {
		if p.Ready() {
			est := p.Estimate()
			s.Frames++
			if est == a {
				s.Hits++
			}
			if a > est {
				s.Risks++
			}
		}
		p.Observe(a)
	}
	return s
}

// Ranked is one estimator's line of the ranking.
type Ranked struct {
	Estimator Estimator
	Scores    []Score // per sequence
	Mean      float64 // mean score
	Spread    float64 // max − min score
	Index     float64 // seed eq. (2): mean − spread
	MinHit    float64 // Table 2's columns: lowest hit rate …
	MaxRisk   float64 // … and highest risk rate over the sequences
}

// Rank evaluates every estimator of es on every sequence and sorts by
// index (descending; ties keep Table 1 order).
func Rank(es []Estimator, seqs [][]int) []Ranked {
	out := make([]Ranked, len(es))
	for i, e := range es {
		r := Ranked{Estimator: e}
		lo, hi, sum := 0.0, 0.0, 0.0
		for j, s := range seqs {
			sc := Evaluate(e, s)
			r.Scores = append(r.Scores, sc)
			v := sc.Value()
			sum += v
			if j == 0 || v < lo {
				lo = v
			}
			if j == 0 || v > hi {
				hi = v
			}
			if j == 0 || sc.Hit() < r.MinHit {
				r.MinHit = sc.Hit()
			}
			if sc.Risk() > r.MaxRisk {
				r.MaxRisk = sc.Risk()
			}
		}
		if len(seqs) > 0 {
			r.Mean = sum / float64(len(seqs))
		}
		r.Spread = hi - lo
		r.Index = r.Mean - r.Spread
		out[i] = r
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Index > out[j].Index })
	return out
}
