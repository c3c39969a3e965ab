package launch

import (
	"testing"
)

// FuzzParseSpec checks that the launch-spec parser never panics and that
// accepted specs are valid.
func FuzzParseSpec(f *testing.F) {
	f.Add([]byte("kernel: k\ngrid: [1]\nblock: [32]\nparams:\n  - value: 3\n"))
	f.Add([]byte("kernel: k\ngrid: [2, 2]\nblock: [16, 16]\nparams:\n  - buffer: {type: f32, count: 4, init: {ramp: {start: 0, step: 1}}}\nchecks:\n  - {buffer: param0, file: x.bin}\n"))
	f.Add([]byte("kernel: k\ngrid: [1]\nblock: [1]\ntextures:\n  - {name: t, dims: 3, width: 8, height: 8, depth: 8, format: f32, generator: sphere}\nparams:\n  - texture: t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data)
		if err != nil {
			return
		}
		if err := s.validate(); err != nil {
			t.Fatalf("accepted spec does not validate: %v", err)
		}
	})
}
