package dualflow

import (
	"strings"
	"testing"
)

// TestStudyRegisters: seed 002's Table 1 GPU has 65,536 registers and
// 2048 threads (64 warps) per SM, so a point with 16 resident warps gets a
// quarter of the register file, 16,384 registers (64 KB), and 64 warps the
// whole of it.
func TestStudyRegisters(t *testing.T) {
	cfg := Config{Spec: Table1()}
	for _, c := range []struct{ warps, want int }{{16, 16384}, {64, 65536}, {8, 8192}} {
		if got := StudyRegisters(cfg, c.warps); got != c.want {
			t.Errorf("%d warps: %d registers, want %d", c.warps, got, c.want)
		}
	}
}

// TestSamplePTX: a bundled sample's module is PTX; an unknown name is an
// error naming it.
func TestSamplePTX(t *testing.T) {
	src, err := SamplePTX("vecadd")
	if err != nil {
		t.Fatal(err)
	}
	if len(src) == 0 || !strings.Contains(string(src), ".target sm_52") {
		t.Errorf("vecadd: %d bytes without .target sm_52", len(src))
	}
	if _, err := SamplePTX("no-such-sample"); err == nil {
		t.Error("unknown sample: no error")
	}
}
