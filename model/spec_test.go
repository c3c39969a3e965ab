package model

import (
	"errors"
	"testing"
)

func TestPresetsValidate(t *testing.T) {
	for _, name := range PresetNames() {
		s, ok := Preset(name)
		if !ok {
			t.Fatalf("Preset(%q) missing", name)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if s.Name != name {
			t.Errorf("preset %q is named %q", name, s.Name)
		}
		if s.Quantum() < 1 || s.Quantum() > s.Lookahead() {
			t.Errorf("%s: quantum %d outside [1, lookahead %d]", name, s.Quantum(), s.Lookahead())
		}
	}
	if _, ok := Preset("nope"); ok {
		t.Error("unknown preset found")
	}
}

// The presets follow the seed papers' tables.
func TestPresetTables(t *testing.T) {
	g := GTX480()
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"SMs", g.NumSMs, 15},
		{"SIMD units", g.SM.Units.SP.Count, 2},
		{"SIMD width", g.SM.Units.SP.Lanes, 16},
		{"threads", g.SM.MaxThreads, 1536},
		{"CTAs", g.SM.MaxCTAs, 8},
		{"register file bytes", g.SM.Registers * 4, 128 << 10},
		{"shared", g.Shared.Bytes, 16 << 10},
		{"L1", g.L1D.Bytes(), 48 << 10},
		{"L2", g.L2.Bytes(), 768 << 10},
		{"channels", g.DRAM.Channels, 6},
		{"DRAM queue", g.DRAM.QueueSize, 32},
		{"MHz", int(g.CoreMHz), 700},
	} {
		if c.got != c.want {
			t.Errorf("gtx480 %s = %d, want %d (seed 000)", c.name, c.got, c.want)
		}
	}
	r := RTX3080()
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"SMs", r.NumSMs, 68},
		{"MHz", int(r.CoreMHz), 1440},
		{"schedulers", r.SM.Schedulers, 4},
		{"threads", r.SM.MaxThreads, 2048},
		{"registers", r.SM.Registers, 65536},
		{"shared", r.Shared.Bytes, 128 << 10},
		{"L1", r.L1D.Bytes(), 64 << 10},
		{"L1 ways", r.L1D.Ways, 8},
		{"L1 line", r.L1D.LineBytes, 128},
		{"L2", r.L2.Bytes(), 4 << 20},
		{"L2 slices", r.L2.Slices, 64},
		{"L2 ways", r.L2.Ways, 16},
		{"DRAM MHz", int(r.DRAM.ClockMHz), 1523},
		{"DRAM latency", r.DRAM.Latency, 100},
	} {
		if c.got != c.want {
			t.Errorf("rtx3080 %s = %d, want %d (seed 002)", c.name, c.got, c.want)
		}
	}
	if r.SM.Scheduler != "gto" {
		t.Errorf("rtx3080 scheduler %q, want gto", r.SM.Scheduler)
	}
	if bw := A100().DRAM.Bandwidth(); bw < 1.55e12 || bw > 1.56e12 {
		t.Errorf("a100 DRAM bandwidth %.3g, want 1555 GB/s", bw)
	}
	if bw := H100().DRAM.Bandwidth(); bw < 3.34e12 || bw > 3.36e12 {
		t.Errorf("h100 DRAM bandwidth %.3g, want 3.35 TB/s", bw)
	}
}

func TestValidateNamesField(t *testing.T) {
	for _, c := range []struct {
		field string
		edit  func(*Spec)
	}{
		{"name", func(s *Spec) { s.Name = "" }},
		{"num_sms", func(s *Spec) { s.NumSMs = 0 }},
		{"core_mhz", func(s *Spec) { s.CoreMHz = -1 }},
		{"device_launch_ns", func(s *Spec) { s.DeviceLaunchNs = -1 }},
		{"device_launch_ns", func(s *Spec) { s.DeviceLaunchNs = MaxTimerNs + 1 }},
		{"sm.scheduler", func(s *Spec) { s.SM.Scheduler = "fifo" }},
		{"sm.units.sp.lanes", func(s *Spec) { s.SM.Units.SP.Lanes = 0 }},
		{"sm.classes.fp64.unit", func(s *Spec) { s.SM.Classes.FP64.Unit = "tensor" }},
		{"sm.classes.sfu.unit", func(s *Spec) { s.SM.Classes.SFU.Unit = "gpu" }},
		{"l1d.line_bytes", func(s *Spec) { s.L1D.LineBytes = 100 }},
		{"l1d.sector_bytes", func(s *Spec) { s.L1D.SectorBytes = 256 }},
		{"l2.mshrs", func(s *Spec) { s.L2.MSHRs = 0 }},
		{"dram.channels", func(s *Spec) { s.DRAM.Channels = 5 }},
		{"dram.scheduler", func(s *Spec) { s.DRAM.Scheduler = "lifo" }},
		{"shared.banks", func(s *Spec) { s.Shared.Banks = 128 }},
		{"tex.tile_x", func(s *Spec) { s.Tex.TileX = 0 }},
	} {
		t.Run(c.field, func(t *testing.T) {
			s := GTX480()
			c.edit(&s)
			err := s.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != c.field {
				t.Fatalf("Validate() = %v, want an error naming %s", err, c.field)
			}
		})
	}
}
