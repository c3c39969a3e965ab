package ref

// rng is a SplitMix64 generator: small, fast, and fully determined by its seed,
// so every input generator in this package is reproducible across platforms and
// Go versions (math/rand's streams are not guaranteed to be).
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// unit returns a float32 uniformly distributed in [0, 1) with 24 random bits,
// so the value is exactly representable.
func (r *rng) unit() float32 { return float32(r.next()>>40) / (1 << 24) }

// uniform returns a float32 in [lo, hi] (rounded in float32; the generators
// only need determinism, not exactness).
func (r *rng) uniform(lo, hi float32) float32 { return lo + (hi-lo)*r.unit() }

// intn returns an int in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }
