package manifest

import (
	"strings"
	"testing"
)

// TestVersion11: a kernel without probes (staging none), dynamic staging,
// and a function's probes listed under two kernels with the same id.
func TestVersion11(t *testing.T) {
	fp := func(kernel string, id uint32, kind string) Probe {
		return Probe{ID: id, Kernel: kernel, Kind: kind, Region: 5, RegionKind: RegionLoad, Mode: ModeDummy, Function: "f"}
	}
	good := func() *Manifest {
		m := sample()
		m.Kernels[0].Staging.Where = StagingDynamic
		m.Kernels[0].Probes = append(m.Kernels[0].Probes, fp("k", 10, KindBegin), fp("k", 11, KindEnd))
		m.Kernels = append(m.Kernels,
			Kernel{Name: "k2", Staging: Staging{Where: StagingDynamic}, Probes: []Probe{fp("k2", 10, KindBegin), fp("k2", 11, KindEnd)}},
			Kernel{Name: "plain", Staging: Staging{Where: StagingNone}})
		return m
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid manifest: %v", err)
	}
	tests := []struct {
		name, want string
		edit       func(m *Manifest)
	}{
		{"none with probes", `kernel "plain": staging none but 0 added parameters and 1 probes`, func(m *Manifest) {
			m.Kernels[2].Probes = []Probe{fp("plain", 12, KindBegin)}
		}},
		{"kernel id reused", "probe id 0 used twice", func(m *Manifest) {
			m.Kernels[1].Probes[0] = Probe{ID: 0, Kernel: "k2", Kind: KindBegin, Region: 0, RegionKind: RegionLoad, Mode: ModeFence}
		}},
		{"function probe differs", "probe id 10 used twice", func(m *Manifest) {
			m.Kernels[1].Probes[0].Region = 6
		}},
		{"function probe twice in one kernel", "probe id 10 used twice", func(m *Manifest) {
			m.Kernels[0].Probes = append(m.Kernels[0].Probes, fp("k", 10, KindBegin))
		}},
	}
	for _, tt := range tests {
		m := good()
		tt.edit(m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}
