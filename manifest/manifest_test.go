package manifest

import (
	"bytes"
	"strings"
	"testing"
)

func sample() *Manifest {
	return &Manifest{
		Version:           Version,
		Tool:              "test",
		Input:             "k.ptx",
		InputSHA256:       strings.Repeat("ab", 32),
		InstrumentationID: "0011223344556677",
		Target:            "sm_80",
		AddressSize:       64,
		Mode:              ModeAuto,
		Timer:             TimerClock64,
		Buffer: Buffer{
			LayoutVersion: LayoutVersion, HeaderBytes: HeaderBytes, SegmentHeaderBytes: SegmentHeaderBytes,
			RecordBytes: RecordBytes, RecordsPerWarp: 4, SegmentBytes: 32 + 4*16, TimerCode: 1,
		},
		Kernels: []Kernel{{
			Name: "k",
			ParamsAdded: []Param{
				{Index: 3, Name: "__pt_buf", Type: ".u64", Host: HostTraceBuffer},
				{Index: 4, Name: "__pt_dummy", Type: ".u32", Host: HostZero},
			},
			Staging: Staging{Where: StagingShared, Requested: "auto"},
			Probes: []Probe{
				{ID: 0, Kernel: "k", Kind: KindBegin, Region: 0, RegionKind: RegionLoad, Mode: ModeFence, Space: "global", Line: 10, OutLine: 20},
				{ID: 1, Kernel: "k", Kind: KindEnd, Region: 0, RegionKind: RegionLoad, Mode: ModeFence, Space: "global", Line: 10, OutLine: 20},
			},
		}},
	}
}

func TestRoundTrip(t *testing.T) {
	m := sample()
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := got.Write(&again); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	_ = m.Write(&first)
	if first.String() != again.String() {
		t.Errorf("round trip changed the manifest:\n%s\n%s", first.String(), again.String())
	}
	if p, k := got.ProbeByID(1); p == nil || k.Name != "k" || p.Kind != KindEnd {
		t.Errorf("ProbeByID(1) = %v, %v", p, k)
	}
	if got.Kernel("nope") != nil || got.Kernel("k") == nil {
		t.Error("Kernel lookup")
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", "{", "manifest:"},
		{"no version", `{"tool":"x"}`, `no "version" field`},
		{"bad version", `{"version":"x.1"}`, `malformed version "x.1"`},
		{"future major", `{"version":"2.0","kernels":"whatever"}`, "version 2.0 is not supported: this ptxtrace reads major version 1"},
		{"wrong types", `{"version":"1.0","kernels":3}`, "manifest:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read(%s) error %v, want %q", tt.json, err, tt.want)
			}
		})
	}
}

func TestNewerMinorAccepted(t *testing.T) {
	m := sample()
	m.Version = "1.7"
	var buf bytes.Buffer
	_ = m.Write(&buf)
	s := strings.Replace(buf.String(), `"tool"`, `"future_field": 1, "tool"`, 1)
	if _, err := Read(strings.NewReader(s)); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Manifest)
		want   string
	}{
		{"ok", func(*Manifest) {}, ""},
		{"id", func(m *Manifest) { m.InstrumentationID = "xyz" }, "instrumentation_id"},
		{"sha", func(m *Manifest) { m.InputSHA256 = "00" }, "input_sha256"},
		{"addr", func(m *Manifest) { m.AddressSize = 16 }, "address_size"},
		{"mode", func(m *Manifest) { m.Mode = "fast" }, "unknown mode"},
		{"timer", func(m *Manifest) { m.Timer = "tsc" }, "unknown timer"},
		{"timer code", func(m *Manifest) { m.Buffer.TimerCode = 2 }, "timer_code"},
		{"layout", func(m *Manifest) { m.Buffer.RecordBytes = 8 }, "does not match layout 1"},
		{"layout version", func(m *Manifest) { m.Buffer.LayoutVersion = 2 }, "layout version 2"},
		{"records", func(m *Manifest) { m.Buffer.RecordsPerWarp = 0 }, "records_per_warp"},
		{"segment", func(m *Manifest) { m.Buffer.SegmentBytes = 1 }, "segment_bytes"},
		{"dup id", func(m *Manifest) { m.Kernels[0].Probes[1].ID = 0 }, "used twice"},
		{"kernel mismatch", func(m *Manifest) { m.Kernels[0].Probes[1].Kernel = "x" }, "listed under"},
		{"probe mode", func(m *Manifest) { m.Kernels[0].Probes[1].Mode = ModeAuto }, "mode \"auto\""},
		{"no end", func(m *Manifest) { m.Kernels[0].Probes[1].Kind = KindBegin }, "2 begin and 0 end"},
		{"kind", func(m *Manifest) { m.Kernels[0].Probes[1].Kind = "middle" }, "unknown kind"},
		{"region kind", func(m *Manifest) { m.Kernels[0].Probes[1].RegionKind = "x" }, "unknown region kind"},
		{"staging", func(m *Manifest) { m.Kernels[0].Staging.Where = "tape" }, "unknown staging"},
		{"dup kernel", func(m *Manifest) { m.Kernels = append(m.Kernels, Kernel{Name: "k", Staging: Staging{Where: "global"}}) }, "listed twice"},
		{"param", func(m *Manifest) { m.Kernels[0].ParamsAdded[0].Type = "" }, "no name or type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := sample()
			tt.modify(m)
			err := m.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestTimerCode(t *testing.T) {
	for name, want := range map[string]int{"clock": 0, "clock64": 1, "globaltimer": 2, "x": -1} {
		if got := TimerCode(name); got != want {
			t.Errorf("TimerCode(%q) = %d, want %d", name, got, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	_ = sample().Write(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte(`{"version":"2.0"}`))
	f.Add([]byte(`{"version":"1.0","kernels":[{"probes":[{"id":1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		// A manifest Read accepts must survive a round trip.
		var out bytes.Buffer
		if err := m.Write(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&out); err != nil {
			t.Fatalf("re-read of accepted manifest: %v", err)
		}
	})
}
