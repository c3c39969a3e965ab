package clog2_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/parquet-go/parquet-go"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/exporters/clog2"
	csvexp "github.com/ptxtrace/ptxtrace/exporters/csv"
	"github.com/ptxtrace/ptxtrace/exporters/otlp"
	"github.com/ptxtrace/ptxtrace/exporters/otlp/otlptest"
	parquetexp "github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/exporters/perfetto"
	pprofexp "github.com/ptxtrace/ptxtrace/exporters/pprof"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// totals are what every format must agree on: region instances and their
// cycles, split into memory (load) and other (user) regions.
type totals struct {
	MemN, MemCycles     int64
	OtherN, OtherCycles int64
}

// synthTrace decodes a synthetic raw buffer through the real decoder.
func synthTrace(t *testing.T) *trace.Trace {
	t.Helper()
	s := tracetest.Synth{Warps: 48, WarpsPerCTA: 4, Iters: 12, Loads: 3, NumSMs: 5, Timer: 1}
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Decode(raw.Bytes(), s.Manifest(), tracetest.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(tr.Regions)) != s.Regions() {
		t.Fatalf("decoded %d regions, want %d", len(tr.Regions), s.Regions())
	}
	return tr
}

func (x *totals) add(memory bool, cycles int64) {
	if memory {
		x.MemN++
		x.MemCycles += cycles
	} else {
		x.OtherN++
		x.OtherCycles += cycles
	}
}

func exportTo(t *testing.T, tr *trace.Trace, e exporters.Exporter) {
	t.Helper()
	if err := exporters.Run(context.Background(), tr.Source(), e); err != nil {
		t.Fatal(err)
	}
}

// TestCrossFormat exports one trace to every format and reads each back
// with its reader: all give the same counts and cycle sums.
func TestCrossFormat(t *testing.T) {
	tr := synthTrace(t)
	var want totals
	for _, r := range tr.Regions {
		want.add(r.Info.Memory(), int64(r.Cycles))
	}
	isMem := func(name string) bool { return len(name) > 4 && name[:4] != "user" }
	got := map[string]*totals{}

	{ // CLOG2, through the package's validating reader; cycles from cargo.
		var b bytes.Buffer
		exportTo(t, tr, clog2.New(&b, clog2.Options{}))
		x := &totals{}
		_, err := clog2.Check(&b, &clog2.CheckOptions{OnInstance: func(in *clog2.Instance) {
			ts, _ := clog2.CargoFormat(in.State.Format)
			v, err := clog2.DecodeCargo(ts, in.Cargo[:])
			if err != nil {
				t.Fatal(err)
			}
			x.add(isMem(in.State.Name), v[len(v)-1].(int64))
		}})
		if err != nil {
			t.Fatal(err)
		}
		got["clog2"] = x
	}
	perfettoTotals := func(s *perfetto.Summary) *totals {
		x := &totals{}
		for name, st := range s.Slices {
			if isMem(name) {
				x.MemN += st.Count
				x.MemCycles += int64(st.Cycles)
			} else {
				x.OtherN += st.Count
				x.OtherCycles += int64(st.Cycles)
			}
			if st.DurNs != st.Cycles { // no clock rate: 1 cycle = 1 ns
				t.Errorf("%s: duration %d ns, cycles %d", name, st.DurNs, st.Cycles)
			}
		}
		return x
	}
	{
		var b bytes.Buffer
		exportTo(t, tr, perfetto.New(&b, perfetto.Options{}))
		s, err := perfetto.Check(&b)
		if err != nil {
			t.Fatal(err)
		}
		got["perfetto"] = perfettoTotals(s)
	}
	{
		var b bytes.Buffer
		exportTo(t, tr, perfetto.NewJSON(&b, perfetto.Options{}))
		s, err := perfetto.CheckJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		got["chrome-json"] = perfettoTotals(s)
	}
	{
		var b bytes.Buffer
		exportTo(t, tr, pprofexp.New(&b, pprofexp.Options{}))
		p, err := profile.Parse(&b)
		if err != nil {
			t.Fatal(err)
		}
		x := &totals{}
		for _, s := range p.Sample {
			if s.Label["kind"][0] == "load" {
				x.MemN += s.Value[pprofexp.Regions]
			} else {
				x.OtherN += s.Value[pprofexp.Regions]
			}
			x.MemCycles += s.Value[pprofexp.MemoryCycles]
			x.OtherCycles += s.Value[pprofexp.OtherCycles]
		}
		got["pprof"] = x
	}
	// OTLP/JSON file, read by the OpenTelemetry Collector's reader.
	if bin, err := otlptest.Build(t.TempDir()); err != nil {
		t.Logf("otlp not checked: %v", err)
	} else {
		var b bytes.Buffer
		exportTo(t, tr, otlp.NewFile(&b, otlp.Options{Granularity: otlp.Region, MaxSpans: 1 << 20}))
		file := filepath.Join(t.TempDir(), "t.otlp.json")
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		x := &totals{}
		for _, rs := range otlptest.Read(t, bin, file).ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, span := range ss.Spans {
					var cyc int64
					region := false
					for _, a := range span.Attributes {
						switch a.Key {
						case "ptxtrace.cycles":
							cyc = a.Value.GetIntValue()
						case "ptxtrace.region.id":
							region = true
						}
					}
					if region {
						x.add(isMem(span.Name), cyc)
					}
				}
			}
		}
		got["otlp"] = x
	}
	{
		var b bytes.Buffer
		exportTo(t, tr, csvexp.New(&b, csvexp.Options{}))
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, c := range rows[0] {
			col[c] = i
		}
		x := &totals{}
		for _, row := range rows[1:] {
			c, err := strconv.ParseInt(row[col["cycles"]], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			x.add(row[col["region_kind"]] == "load", c)
		}
		got["csv"] = x
	}
	{
		var b bytes.Buffer
		exportTo(t, tr, parquetexp.New(&b, parquetexp.Options{}))
		rows, err := parquet.Read[parquetexp.Row](bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil {
			t.Fatal(err)
		}
		x := &totals{}
		for _, r := range rows {
			x.add(r.RegionKind == "load", int64(r.Cycles))
		}
		got["parquet"] = x
	}
	for f, x := range got {
		if *x != want {
			t.Errorf("%s: %+v, want %+v", f, *x, want)
		}
	}
	if _, ok := got["otlp"]; len(got) != 7 && (ok || len(got) != 6) {
		t.Errorf("%d formats checked", len(got))
	}
}
