package parquet_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// TestArrowReadsBack reads the exporter's output with Apache Arrow Go
// (the arrowcheck module next to this package), an implementation
// independent of parquet-go, and compares every value with the trace.
func TestArrowReadsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Arrow reader; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go tool not on PATH: cannot build the Arrow reader")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "arrowcheck")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = "arrowcheck"
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("cannot build the Arrow Go reader (needs github.com/apache/arrow-go/v18 from the module proxy): %v\n%s", err, out)
	}

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
