package ref

import (
	"fmt"
	"math"
	"testing"
)

// TestCompareVecAdd checks that the streaming vecadd comparison gives
// exactly what Compare gives against the materialised VecAdd reference:
// nil on a correct output, the same error text on wrong, NaN and short
// outputs.
func TestCompareVecAdd(t *testing.T) {
	in := VecAddInputs(1000, 7)
	in.A[3], in.B[3] = float32(math.NaN()), 1 // NaN reference element
	correct := make([]float32, in.N)
	for i := range correct {
		correct[i] = in.A[i] + in.B[i] // one float32 addition: correctly rounded
	}
	cases := map[string]func([]float32) []float32{
		"correct": func(g []float32) []float32 { return g },
		"one off by an ulp": func(g []float32) []float32 {
			g[10] = math.Nextafter32(g[10], 2)
			return g
		},
		"many wrong": func(g []float32) []float32 {
			for i := 0; i < len(g); i += 7 {
				g[i] = -g[i] + 0.5
			}
			return g
		},
		"NaN where a number is due": func(g []float32) []float32 {
			g[20] = float32(math.NaN())
			return g
		},
		"number where NaN is due": func(g []float32) []float32 {
			g[3] = 0
			return g
		},
		"short": func(g []float32) []float32 { return g[:999] },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			got := mutate(append([]float32(nil), correct...))
			want := Compare(got, VecAdd(in))
			have := CompareVecAdd(got, in)
			if fmt.Sprint(want) != fmt.Sprint(have) {
				t.Errorf("CompareVecAdd = %v\nCompare(VecAdd) = %v", have, want)
			}
			if (want == nil) != (name == "correct") {
				t.Errorf("Compare(VecAdd) = %v on the %q output", want, name)
			}
		})
	}
}
