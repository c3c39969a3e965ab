package fpx

import (
	"math"
	"math/big"
	"testing"
)

// TestPio2Split derives the Cody-Waite split of π/2 from the decimal digits
// of π with big.Float and checks the literals approx.go uses instead of an
// init function.
func TestPio2Split(t *testing.T) {
	pi, _, err := big.ParseFloat(piDigits, 10, 340, big.ToNearestEven)
	if err != nil {
		t.Fatal(err)
	}
	rem := new(big.Float).SetPrec(340).Quo(pi, big.NewFloat(2))
	chop := func(v float64) float64 { // keep the top 33 significant bits
		return math.Float64frombits(math.Float64bits(v) &^ (1<<20 - 1))
	}
	f, _ := rem.Float64()
	a := chop(f)
	rem.Sub(rem, big.NewFloat(a))
	f, _ = rem.Float64()
	b := chop(f)
	rem.Sub(rem, big.NewFloat(b))
	c, _ := rem.Float64()
	for _, tc := range []struct {
		name      string
		got, want float64
	}{{"pio2a", pio2a, a}, {"pio2b", pio2b, b}, {"pio2c", pio2c, c}} {
		if math.Float64bits(tc.got) != math.Float64bits(tc.want) {
			t.Errorf("%s = %x, derived %x", tc.name, tc.got, tc.want)
		}
	}
	if got := bigPiConsts().pio2; got.Cmp(new(big.Float).SetPrec(340).Quo(pi, big.NewFloat(2))) != 0 {
		t.Errorf("bigPiConsts().pio2 = %v", got)
	}
}
