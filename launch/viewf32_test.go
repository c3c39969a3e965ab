package launch

import (
	"encoding/binary"
	"math"
	"testing"
)

func f32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// TestVerifyVecaddInPlace: the verifier reading its buffers in place still
// accepts the exact sums (1+3, 2+4 by hand), rejects a wrong element and a
// short buffer, and an unaligned view reads the same values as a copy.
func TestVerifyVecaddInPlace(t *testing.T) {
	in := RefInput{Buffers: map[string][]byte{"a": f32Bytes(1, 2), "b": f32Bytes(3, 4)}, Scalars: map[string]float64{"n": 2}}
	if err := verifyVecadd(in, f32Bytes(4, 6, 99)); err != nil {
		t.Errorf("exact sums (and padding) rejected: %v", err)
	}
	if err := verifyVecadd(in, f32Bytes(4, 7)); err == nil {
		t.Error("a wrong element (7, want 6) accepted")
	}
	if err := verifyVecadd(in, f32Bytes(4)); err == nil {
		t.Error("a 1-element output accepted for n = 2")
	}
	in.Buffers["b"] = f32Bytes(3)
	if err := verifyVecadd(in, f32Bytes(4, 6)); err == nil {
		t.Error("a 1-element input b accepted for n = 2")
	}
	raw := append([]byte{0}, f32Bytes(1.5, -2)...)
	if v := viewF32(raw[1:]); len(v) != 2 || v[0] != 1.5 || v[1] != -2 {
		t.Errorf("unaligned view = %v, want [1.5 -2]", v)
	}
}
