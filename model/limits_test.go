package model

import "testing"

// TestSpecLimits: values past a physical range are refused with the field
// named, before anything is allocated; every preset stays within range.
func TestSpecLimits(t *testing.T) {
	for _, name := range PresetNames() {
		s, _ := Preset(name)
		if err := s.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	// Out-of-range values in spec files: model/specfile TestSpecLimits.
}
