package manifest_test

import (
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/samples"
)

// instrumentSample instruments one embedded sample PTX with opts.
func instrumentSample(t *testing.T, path string, opts instrument.Options) *instrument.Result {
	t.Helper()
	src, err := fs.ReadFile(samples.FS(), path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := instrument.Instrument(fset, f, opts)
	if err != nil {
		t.Fatalf("%s %+v: %v", path, opts, err)
	}
	return res
}

// TestCheckPTXAcceptsInstrumentOutput: the cross-checks of CheckPTX hold
// for what instrument writes, in every mode, staging, timer and capacity,
// for every sample.
func TestCheckPTXAcceptsInstrumentOutput(t *testing.T) {
	for _, s := range samples.List() {
		for _, p := range s.PTX {
			for _, mode := range []string{"auto", "naive", "fence", "dummy"} {
				for _, st := range []string{"shared", "global", "auto"} {
					for _, timer := range []string{"clock64", "clock", "globaltimer"} {
						opts := instrument.Options{Mode: mode, Staging: st, Timer: timer, Capacity: 16 + len(p)%7}
						res := instrumentSample(t, p, opts)
						if err := res.Manifest.CheckPTX(res.PTX); err != nil {
							t.Errorf("%s %s/%s/%s: %v", p, mode, st, timer, err)
						}
					}
				}
			}
		}
	}
}

// TestCheckPTXRefusesEditedManifests: a manifest edited by hand, with its
// instrumentation id kept, is refused with the field named.
func TestCheckPTXRefusesEditedManifests(t *testing.T) {
	base := instrumentSample(t, "vecadd/vecadd.sm_52.ptx", instrument.Options{})
	tests := []struct {
		name string
		edit func(m *manifest.Manifest)
		want string
	}{
		{"unchanged", func(m *manifest.Manifest) {}, ""},
		{"probe ids shifted", func(m *manifest.Manifest) {
			for ki := range m.Kernels {
				for pi := range m.Kernels[ki].Probes {
					m.Kernels[ki].Probes[pi].ID += 100
				}
			}
		}, "records probe id 0, which no probe"},
		{"a probe removed", func(m *manifest.Manifest) {
			k := &m.Kernels[0]
			k.Probes = k.Probes[:len(k.Probes)-2] // the last region's pair
		}, "which no probe of the manifest has"},
		{"capacity", func(m *manifest.Manifest) {
			m.Buffer.RecordsPerWarp = 8
			m.Buffer.SegmentBytes = manifest.SegmentHeaderBytes + 8*manifest.RecordBytes
		}, "records_per_warp 8 does not match the PTX, whose probe code is built for 64"},
		{"timer", func(m *manifest.Manifest) {
			m.Timer, m.Buffer.TimerCode = manifest.TimerGlobaltimer, 2
		}, `timer "globaltimer" does not match the PTX, whose probe code reads %clock64`},
		{"kernel renamed", func(m *manifest.Manifest) {
			m.Kernels[0].Name = "other"
		}, `kernel "other" is not an .entry`},
		{"out_line past the end", func(m *manifest.Manifest) {
			m.Kernels[0].Probes[0].OutLine = 1 << 20
		}, "out_line 1048576 is past"},
		{"instrumentation id", func(m *manifest.Manifest) {
			m.InstrumentationID = "0011223344556677"
		}, "instrumentation_id 0011223344556677 does not match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			if err := base.Manifest.Write(&sb); err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Read(strings.NewReader(sb.String()))
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			err = m.CheckPTX(base.PTX)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
