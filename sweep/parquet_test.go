package sweep

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// TestResultsParquet: results.parquet holds results.csv's rows, in the
// same order, nulls where the CSV is empty.
func TestResultsParquet(t *testing.T) {
	p := smallPlan(t)
	dir := t.TempDir()
	mustRun(t, p, RunOptions{Out: dir, Jobs: 2})
	m, err := Merge(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.ResultsCSV()
	recs, err := csv.NewReader(bytes.NewReader(c)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.ResultsParquet()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pq.Read[resultRow](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(recs)-1 {
		t.Fatalf("%d rows, csv %d", len(rows), len(recs)-1)
	}
	fmtp := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	for i, r := range rows {
		want := recs[i+1]
		if r.ID != want[0] || r.Mode != want[4] || fmtp(r.Cycles) != want[10] || fmtp(r.MeanAcc) != want[13] || (r.Accesses == nil) != (want[18] == "") {
			t.Errorf("row %d: %+v vs %v", i, r, want)
		}
	}
	b2, _ := m.ResultsParquet()
	if !bytes.Equal(b, b2) {
		t.Error("results.parquet is not deterministic")
	}
}
