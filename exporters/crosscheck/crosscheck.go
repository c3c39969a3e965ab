package crosscheck

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
)

// Totals are what every format must agree on: region instances and their
// cycles, split into memory (load) and other (user) regions.
type Totals struct {
	MemN, MemCycles     int64
	OtherN, OtherCycles int64
}

func (x *Totals) add(memory bool, cycles int64) {
	if memory {
		x.MemN++
		x.MemCycles += cycles
	} else {
		x.OtherN++
		x.OtherCycles += cycles
	}
}

// Of counts the regions of tr directly.
func Of(tr *trace.Trace) Totals {
	var x Totals
	for _, r := range tr.Regions {
		x.add(r.Info.Memory(), int64(r.Cycles))
	}
	return x
}

func exportTo(t testing.TB, src *trace.Trace, e exporters.Exporter) {
	t.Helper()
	if err := exporters.Run(context.Background(), src.Source(), e); err != nil {
		t.Fatal(err)
	}
}

// Formats exports tr to every format and returns each file's totals as its
// reader sees them, by format name. OTLP is missing (and logged) when the
// Collector's reader cannot be built. Without a clock rate the Perfetto and
// Chrome JSON durations must equal the cycles (1 cycle = 1 ns); the
// checkers also assert each packet sequence's timestamps never go back.
func Formats(t testing.TB, tr *trace.Trace) map[string]Totals {
	t.Helper()
	isMem := func(name string) bool { return len(name) > 4 && name[:4] != "user" }
	got := map[string]*Totals{}

	{ // CLOG2, through the package's validating reader; cycles from cargo.
		var b bytes.Buffer
		exportTo(t, tr, clog2.New(&b, clog2.Options{}))
		x := &Totals{}
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
	perfettoTotals := func(s *perfetto.Summary) *Totals {
		x := &Totals{}
		for name, st := range s.Slices {
			if isMem(name) {
				x.MemN += st.Count
				x.MemCycles += int64(st.Cycles)
			} else {
				x.OtherN += st.Count
				x.OtherCycles += int64(st.Cycles)
			}
			if !tr.Header.HasNs() && st.DurNs != st.Cycles { // no clock rate: 1 cycle = 1 ns
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
		x := &Totals{}
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
		x := &Totals{}
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
		x := &Totals{}
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
		x := &Totals{}
		for _, r := range rows {
			x.add(r.RegionKind == "load", int64(r.Cycles))
		}
		got["parquet"] = x
	}
	res := map[string]Totals{}
	for f, x := range got {
		res[f] = *x
	}
	return res
}

// NullParity exports tr as CSV and as Parquet and requires, row by row and
// for every column both have, that a CSV cell is empty exactly when the
// Parquet value is NULL.
func NullParity(t testing.TB, tr *trace.Trace) {
	t.Helper()
	var c, p bytes.Buffer
	exportTo(t, tr, csvexp.New(&c, csvexp.Options{}))
	exportTo(t, tr, parquetexp.New(&p, parquetexp.Options{}))
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(p.Bytes()), int64(p.Len()))
	if err != nil {
		t.Fatal(err)
	}
	csvCol := map[string]int{}
	for i, name := range rows[0] {
		csvCol[name] = i
	}
	var cols []int // parquet column index -> CSV column (-1: none)
	shared := 0
	for _, leaf := range f.Schema().Fields() {
		if i, ok := csvCol[leaf.Name()]; ok {
			cols = append(cols, i)
			shared++
		} else {
			cols = append(cols, -1)
		}
	}
	if shared < 10 {
		t.Fatalf("CSV and Parquet share only %d columns", shared)
	}
	n := 1
	nulls := 0
	for _, rg := range f.RowGroups() {
		rr := rg.Rows()
		buf := make([]parquet.Row, 64)
		for {
			k, err := rr.ReadRows(buf)
			for _, row := range buf[:k] {
				if n >= len(rows) {
					t.Fatalf("Parquet has more rows than the CSV's %d", len(rows)-1)
				}
				for _, v := range row {
					ci := cols[v.Column()]
					if ci < 0 {
						continue
					}
					empty := rows[n][ci] == ""
					if v.IsNull() {
						nulls++
					}
					if empty != v.IsNull() {
						t.Errorf("row %d column %s: CSV %q, Parquet null=%v", n, rows[0][ci], rows[n][ci], v.IsNull())
					}
				}
				n++
			}
			if err != nil {
				break
			}
		}
		rr.Close()
	}
	if n != len(rows) {
		t.Errorf("Parquet has %d rows, CSV %d", n-1, len(rows)-1)
	}
	t.Logf("null parity: %d rows, %d shared columns, %d NULLs", n-1, shared, nulls)
}
