package parquet_test

import (
	"bytes"
	"io"
	"math"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// Present zeros in nullable columns stay zeros (not nulls), in any position
// of a batch, mixed with ordinary rows and across row groups.
func TestZeroValuesNotNull(t *testing.T) {
	for _, timer := range []trace.Timer{trace.TimerGlobaltimer, trace.TimerClock64} {
		testZeroValues(t, timer)
	}
}

func testZeroValues(t *testing.T, timer trace.Timer) {
	tr := decode(t, tt.Synth{Warps: 8, WarpsPerCTA: 4, Iters: 10, Loads: 3, NumSMs: 2, Timer: uint32(timer)}, trace.RunMeta{})
	if tr.Header.HasNs() != (timer == trace.TimerGlobaltimer) {
		t.Fatal("unexpected HasNs")
	}
	rs := tr.Regions
	rs[0].StartNs = 0
	rs[5].DurNs = 0
	rs[6].EndNs = math.Copysign(0, -1)
	rs[7].HasTruth, rs[7].TruthIssue, rs[7].TruthComplete = true, 0, 5
	rs[8].HasTruth, rs[8].TruthIssue, rs[8].TruthComplete = true, 3, 0
	rs[9].HasTruth, rs[9].TruthIssue, rs[9].TruthComplete = true, 3, 4
	last := len(rs) - 1
	rs[last].DurNs, rs[last].HasTruth = 0, true
	data := export(t, tr, parquet.Options{RowGroupRows: 7})
	f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range f.RowGroups() {
		if want := min(7, int64(len(rs)-7*i)); g.NumRows() != want {
			t.Fatalf("row group %d has %d rows, want %d", i, g.NumRows(), want)
		}
	}
	rows := make([]parquet.Row, len(rs)+1)
	n, err := pq.NewGenericReader[parquet.Row](bytes.NewReader(data)).Read(rows)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	checkRows(t, tr, rows[:n])
	if tr.Header.HasNs() && !math.Signbit(*rows[6].EndNs) {
		t.Errorf("-0 end_ns read back as %v", *rows[6].EndNs)
	}
	if !bytes.Equal(data, export(t, tr, parquet.Options{RowGroupRows: 7})) {
		t.Fatal("output not deterministic")
	}
}
