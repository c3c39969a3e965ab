package texture

import "testing"

// TestNewShared: New reads a copy (a later write to the caller's data does
// not show), NewShared the caller's bytes themselves; both validate alike.
func TestNewShared(t *testing.T) {
	d := Desc{Dims: 1, Width: 2, Format: Format{F32, 1}, Address: clampAll}
	data := f32Data(10, 20)
	cp, err := New(d, data)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := NewShared(d, data)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, f32Data(99)) // texel 0 := 99
	// Point sampling at unnormalized x = 0.5 reads texel 0.
	if got := cp.SampleF(0.5, 0, 0, 0, nil)[0]; got != 10 {
		t.Errorf("New: texel 0 = %g after the caller's write, want the copy's 10", got)
	}
	if got := sh.SampleF(0.5, 0, 0, 0, nil)[0]; got != 99 {
		t.Errorf("NewShared: texel 0 = %g, want the shared bytes' 99", got)
	}
	if _, err := NewShared(d, data[:4]); err == nil {
		t.Error("NewShared accepted 4 bytes for 2 float texels")
	}
}
