package parquet

import (
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// The exporter writes flatRow; readers use Row: both must have one schema.
func TestFlatRowSchema(t *testing.T) {
	got, want := pq.NewSchema("Row", pq.SchemaOf(flatRow{})).String(), pq.SchemaOf(Row{}).String()
	if got != want {
		t.Fatalf("flatRow schema\n%s\nRow schema\n%s", got, want)
	}
}
