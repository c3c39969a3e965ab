package formats

import (
	"slices"
	"testing"
	"time"
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

func TestParseBaseTime(t *testing.T) {
	now := time.Date(2026, 11, 24, 1, 2, 3, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want int64 // Unix ns; -1 = zero Time
		ok   bool
	}{
		{"", -1, true},
		{"now", now.UnixNano(), true},
		{"1970-01-01T00:00:00Z", 0, true},
		{"2026-11-24T01:02:03.000000004+09:00", 1795449723000000004, true},
		{"yesterday", 0, false},
		{"1969-12-31T23:59:59Z", 0, false},
		{"2300-01-01T00:00:00Z", 0, false},
	} {
		got, err := ParseBaseTime(c.in, now)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if !c.ok {
			continue
		}
		if c.want < 0 {
			if !got.IsZero() {
				t.Errorf("%q: %v, want zero", c.in, got)
			}
		} else if got.UnixNano() != c.want {
			t.Errorf("%q: %d, want %d", c.in, got.UnixNano(), c.want)
		}
	}
}
