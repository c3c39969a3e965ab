package parquet_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	csvexp "github.com/ptxtrace/ptxtrace/exporters/csv"
	"github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// arrowChecker builds the arrowcheck command, or skips the test.
func arrowChecker(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the Arrow reader; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH: cannot build the Arrow reader")
	}
	bin := filepath.Join(t.TempDir(), "arrowcheck")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "arrowcheck"
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build the Arrow Go reader (needs github.com/apache/arrow-go/v18 from the module proxy): %v\n%s", err, out)
	}
	return bin
}

// TestArrowReadsBack reads the exporter's output with Apache Arrow Go
// (the arrowcheck module next to this package), an implementation
// independent of parquet-go, and compares every value with the trace.
func TestArrowReadsBack(t *testing.T) {
	bin := arrowChecker(t)
	dir := t.TempDir()

	tr := decode(t, tt.Synth{Warps: 12, WarpsPerCTA: 4, Iters: 40, Loads: 3, NumSMs: 3, Timer: 0}, trace.RunMeta{ClockHz: 1.41e9, RunID: "x"})
	for i := 0; i < len(tr.Regions); i += 7 {
		tr.Regions[i].HasTruth, tr.Regions[i].TruthIssue, tr.Regions[i].TruthComplete = true, uint64(i), uint64(i)+1<<40
	}
	file := filepath.Join(dir, "t.parquet")
	if err := os.WriteFile(file, export(t, tr, parquet.Options{RowGroupRows: 500}), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, file).Output()
	if err != nil {
		t.Fatalf("arrowcheck: %v", err)
	}
	dec := json.NewDecoder(bufio.NewReader(bytes.NewReader(out)))
	dec.UseNumber()
	var head struct {
		Metadata map[string]string
		Rows     int64
	}
	if err := dec.Decode(&head); err != nil {
		t.Fatal(err)
	}
	if head.Rows != int64(len(tr.Regions)) || head.Metadata[parquet.KeyKernel] != tt.Kernel ||
		head.Metadata[parquet.KeyManifest] != string(tr.Header.ManifestJSON) {
		t.Fatalf("arrow sees %d rows, metadata %v", head.Rows, head.Metadata[parquet.KeyKernel])
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i, r := range tr.Regions {
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		want := map[string]string{
			"kernel": tt.Kernel, "warp": u(uint64(r.Warp)), "cta_x": u(uint64(r.CTA[0])), "cta_y": "0", "cta_z": "0",
			"warp_in_cta": u(uint64(r.WarpInCTA)), "sm": u(uint64(r.SM)), "region": strconv.Itoa(r.ID),
			"region_kind": r.Info.Kind, "space": r.Info.Space, "mode": r.Info.Mode,
			"instance": u(uint64(r.Instance)), "depth": u(uint64(r.Depth)),
			"begin_record": u(uint64(r.BeginRec)), "end_record": u(uint64(r.EndRec)), "end_probe": u(uint64(r.EndProbe)),
			"start": u(r.Start), "end": u(r.End), "cycles": u(r.Cycles),
			"start_ns": f(r.StartNs), "end_ns": f(r.EndNs), "dur_ns": f(r.DurNs),
			"ptx_line": strconv.Itoa(r.Info.Line), "loc_file": r.Info.LocFile, "loc_line": strconv.Itoa(r.Info.LocLine),
			"truth_issue": "<nil>", "truth_complete": "<nil>",
		}
		if r.HasTruth {
			want["truth_issue"], want["truth_complete"] = u(r.TruthIssue), u(r.TruthComplete)
		}
		// Unknown space and source position are null.
		for k, v := range map[string]string{"space": r.Info.Space, "loc_file": r.Info.LocFile} {
			if v == "" {
				want[k] = "<nil>"
			}
		}
		if r.Info.LocLine == 0 {
			want["loc_line"] = "<nil>"
		}
		if len(row) != len(want) {
			t.Fatalf("row %d has %d columns, want %d: %v", i, len(row), len(want), row)
		}
		for k, w := range want {
			got := fmt.Sprint(row[k])
			if n, ok := row[k].(json.Number); ok && (k == "start_ns" || k == "end_ns" || k == "dur_ns") {
				v, _ := n.Float64()
				got = f(v)
			}
			if got != w {
				t.Fatalf("row %d column %s: arrow reads %s, want %s", i, k, got, w)
			}
		}
	}
}

// TestCSVParquetNullParity exports one trace as CSV and as Parquet and
// reads both into one reader's terms (encoding/csv for the CSV, Apache
// Arrow Go for the Parquet): row by row and column by column, an empty CSV
// cell is exactly an Arrow null, and the other integer and string cells
// are equal. The trace has user regions (no state space) and regions with
// and without a .loc position.
func TestCSVParquetNullParity(t *testing.T) {
	bin := arrowChecker(t)
	for _, meta := range []trace.RunMeta{{ClockHz: 1.41e9}, {}} {
		tr := decode(t, tt.Synth{Warps: 8, WarpsPerCTA: 4, Iters: 5, Loads: 3, NumSMs: 2, Timer: 0}, meta)
		for i := range tr.Header.Regions {
			// Every other region has a source position.
			tr.Header.Regions[i].LocFile, tr.Header.Regions[i].LocLine = "", 0
			if i%2 == 1 {
				tr.Header.Regions[i].LocFile, tr.Header.Regions[i].LocLine = "k.cu", 10+i
			}
		}
		for i := 0; i < len(tr.Regions); i += 5 {
			tr.Regions[i].HasTruth, tr.Regions[i].TruthIssue, tr.Regions[i].TruthComplete = true, 7, 9
		}
		var c bytes.Buffer
		if err := exporters.Run(context.Background(), tr.Source(), csvexp.New(&c, csvexp.Options{})); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&c).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "t.parquet")
		if err := os.WriteFile(file, export(t, tr, parquet.Options{}), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, file).Output()
		if err != nil {
			t.Fatalf("arrowcheck: %v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		var head map[string]any
		if err := dec.Decode(&head); err != nil {
			t.Fatal(err)
		}
		nulls := map[string]int{}
		for i, rec := range rows[1:] {
			var row map[string]any
			if err := dec.Decode(&row); err != nil {
				t.Fatalf("row %d: %v", i, err)
			}
			if len(row) != len(rows[0]) {
				t.Fatalf("row %d: %d Parquet columns, %d CSV columns", i, len(row), len(rows[0]))
			}
			for j, col := range rows[0] {
				v, ok := row[col]
				if !ok {
					t.Fatalf("column %s not in the Parquet file", col)
				}
				if (rec[j] == "") != (v == nil) {
					t.Fatalf("row %d column %s: CSV %q, Parquet %v: NULL differs", i, col, rec[j], v)
				}
				if v == nil {
					nulls[col]++
					continue
				}
				if strings.HasSuffix(col, "_ns") {
					continue // float formatting differs; values are checked by TestArrowReadsBack
				}
				if got := fmt.Sprint(v); got != rec[j] {
					t.Fatalf("row %d column %s: CSV %q, Parquet %s", i, col, rec[j], got)
				}
			}
		}
		// The trace has nulls in each of these columns (the test can fail).
		for _, col := range []string{"space", "loc_file", "loc_line", "truth_issue"} {
			if nulls[col] == 0 || nulls[col] == len(rows)-1 {
				t.Errorf("column %s: %d nulls in %d rows: the trace does not exercise NULL parity", col, nulls[col], len(rows)-1)
			}
		}
		if (meta.ClockHz == 0) != (nulls["start_ns"] == len(rows)-1) {
			t.Errorf("start_ns: %d nulls, clock rate %g", nulls["start_ns"], meta.ClockHz)
		}
	}
}
