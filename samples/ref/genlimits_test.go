package ref

import (
	"strings"
	"testing"
	"time"
)

// TestGeneratorSizeLimits: arguments that would make a buffer of more than
// MaxGenElems elements are refused before anything is allocated (they
// were Go out-of-memory crashes), naming the argument.
func TestGeneratorSizeLimits(t *testing.T) {
	g := Generators()
	for name, gen := range HeldoutGenerators() {
		g[name] = gen
	}
	for _, tc := range []struct {
		gen  string
		args Args
		want string
	}{
		{"vecadd", Args{"n": "2147483648"}, "argument n = 2147483648 exceeds the limit of 268435456"},
		{"matmul", Args{"m": "65536", "k": "65536"}, "m×k = [65536 65536] gives more than 268435456 elements"},
		{"lud", Args{"n": "32768"}, "n×n = [32768 32768]"},
		{"gaussian", Args{"n": "100000"}, "n×n = [100000 100000]"},
		{"hotspot", Args{"rows": "100000", "cols": "100000"}, "rows×cols"},
		{"transpose", Args{"rows": "100000", "cols": "100000"}, "rows×cols"},
		{"stencil2d", Args{"rows": "100000", "cols": "100000"}, "rows×cols"},
		{"spmv", Args{"rows": "100000000", "degree": "100"}, "rows×degree"},
		{"volume", Args{"n": "100000"}, ""},
	} {
		start := time.Now()
		_, err := g[tc.gen].Make(tc.args)
		if time.Since(start) > 2*time.Second {
			t.Errorf("%s %v took %v", tc.gen, tc.args, time.Since(start))
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err = %v, want %q", tc.gen, tc.args, err, tc.want)
		}
	}
}
