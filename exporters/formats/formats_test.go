package formats

import (
	"slices"
	"testing"
)

func TestFormatsTable(t *testing.T) {
	want := []string{"chrome", "clog2", "csv", "otlp", "otlp-grpc", "otlp-http", "parquet", "perfetto", "pprof"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	a, b := Formats(NetOptions{}), Formats(NetOptions{})
	delete(a, "csv")
	if _, ok := b["csv"]; !ok {
		t.Errorf("Formats shares its map between calls")
	}
	for name, f := range b {
		if f.New == nil {
			t.Errorf("%s: no constructor", name)
		}
		if (f.Ext == "") != (name == "otlp-grpc" || name == "otlp-http") {
			t.Errorf("%s: extension %q", name, f.Ext)
		}
		if f.Merges() != (name == "csv") {
			t.Errorf("%s: Merges = %v", name, f.Merges())
		}
	}
}

func TestLaunchPath(t *testing.T) {
	for _, c := range []struct {
		path, ext string
		launch    int
		want      string
	}{
		{"out.csv", ".csv", 3, "out.003.csv"},
		{"dir/t.pb.gz", ".pb.gz", 12, "dir/t.012.pb.gz"},
		{"t.gz", ".pb.gz", 1, "t.001.gz"},
		{"trace", ".json", 1000, "trace.1000"},
		{".csv", ".csv", 0, ".000.csv"},
	} {
		if got := LaunchPath(c.path, c.ext, c.launch); got != c.want {
			t.Errorf("LaunchPath(%q, %q, %d) = %q, want %q", c.path, c.ext, c.launch, got, c.want)
		}
	}
}
