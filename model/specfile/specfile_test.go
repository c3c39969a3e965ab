package specfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

func TestParse(t *testing.T) {
	t.Run("override", func(t *testing.T) {
		s, err := Parse([]byte("base: rtx3080\nname: my3080\nnum_sms: 10\nl1d:\n  latency: 40\n"))
		if err != nil {
			t.Fatal(err)
		}
		want := model.RTX3080()
		want.Name, want.NumSMs, want.L1D.Latency = "my3080", 10, 40
		if !reflect.DeepEqual(s, want) {
			t.Errorf("got %+v\nwant %+v", s, want)
		}
	})
	t.Run("json", func(t *testing.T) {
		s, err := Parse([]byte(`{"base": "a100", "sm": {"scheduler": "lrr"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != "a100" || s.SM.Scheduler != "lrr" || s.SM.Schedulers != 4 {
			t.Errorf("got %+v", s.SM)
		}
	})
	t.Run("device launch latency", func(t *testing.T) {
		s, err := Parse([]byte("base: a100\ndevice_launch_ns: 2500\n"))
		if err != nil || s.DeviceLaunchNs != 2500 {
			t.Fatalf("device_launch_ns %d, %v; want 2500", s.DeviceLaunchNs, err)
		}
		if p := model.A100(); p.DeviceLaunchNs != 5000 {
			t.Fatalf("a100 preset device_launch_ns %d, want 5000 (docs/model.md)", p.DeviceLaunchNs)
		}
	})
	t.Run("default base", func(t *testing.T) {
		s, err := Parse([]byte("num_sms: 1\n"))
		if err != nil || s.NumSMs != 1 || s.Name != "gtx480" {
			t.Fatalf("got %v, %v", s.Name, err)
		}
	})
	for _, c := range []struct{ name, src, want string }{
		{"unknown field", "num_smz: 3\n", "num_smz"},
		{"unknown base", "base: gtx9000\n", "base"},
		{"invalid value", "l2:\n  ways: -1\n", "l2.ways"},
		{"negative launch latency", "device_launch_ns: -5\n", "device_launch_ns"},
		{"bad yaml", "sm: [\n", "spec:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	for _, name := range model.PresetNames() {
		s, _ := model.Preset(name)
		y, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(y)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, y)
		}
		if !reflect.DeepEqual(back, s) {
			t.Errorf("%s: round trip changed the spec", name)
		}
	}
}

func TestLoad(t *testing.T) {
	s, err := Load("a100")
	if err != nil || s.Name != "a100" {
		t.Fatalf("Load(a100) = %v, %v", s.Name, err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(p, []byte("base: h100\nnum_sms: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Load(p)
	// no name: in the file, so the spec is named by the file, not its base
	if err != nil || s.Name != "m.yaml" || s.NumSMs != 3 || s.L2 != model.H100().L2 {
		t.Fatalf("Load(file) = %v %d, %v", s.Name, s.NumSMs, err)
	}
	if _, err := Load("gtx9000"); err == nil || !strings.Contains(err.Error(), "not a preset") {
		t.Errorf("Load(gtx9000) err = %v, want not a preset", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("num_smz: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Load(bad) err = %v, want it to name the file", err)
	}
}

// FuzzParse: Parse never panics, and whatever it accepts is valid and
// survives a Marshal/Parse round trip unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte("base: rtx3080\nnum_sms: 10\n"))
	f.Add([]byte(`{"base": "a100", "sm": {"scheduler": "lrr"}}`))
	f.Add([]byte("sm: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid spec: %v", err)
		}
		y, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(y)
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
