package power

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The analysis of an exported Parquet activity file gives the same
// numbers (the same JSON, curves included, and table) as the analysis of
// the run itself, at the default and another BET.
func TestParquetRoundTrip(t *testing.T) {
	for _, name := range []string{"bfs", "nn"} {
		in := sampleInput(t, name)
		direct, err := Run(context.Background(), in, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		act, err := RecordActivity(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		var pqf bytes.Buffer
		if err := act.WriteParquet(&pqf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadParquet(bytes.NewReader(pqf.Bytes()), int64(pqf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []Config{DefaultConfig(), DefaultConfig().WithBET(37)} {
			a, err := act.Summarise(cfg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := back.Summarise(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var ja, jb, jd bytes.Buffer
			a.WriteJSON(&ja)
			a.WriteTable(&ja)
			b.WriteJSON(&jb)
			b.WriteTable(&jb)
			if !bytes.Equal(ja.Bytes(), jb.Bytes()) {
				t.Errorf("%s: analysis from Parquet differs from the run's", name)
			}
			if cfg == DefaultConfig() {
				direct.WriteJSON(&jd)
				direct.WriteTable(&jd)
				if !bytes.Equal(jd.Bytes(), ja.Bytes()) {
					t.Errorf("%s: RecordActivity's analysis differs from Run's", name)
				}
			}
		}
		if name == "nn" {
			t.Logf("nn activity: %d rows, %d bytes of Parquet", len(act.Rows()), pqf.Len())
		}
	}
}

// Rows out of order or of unknown kinds are refused.
func TestFromRowsErrors(t *testing.T) {
	in := sampleInput(t, "nn")
	act, err := RecordActivity(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	rows := act.Rows()
	for _, tc := range []struct {
		name string
		edit func([]ActivityRow) []ActivityRow
		want string
	}{
		{"idle first", func(r []ActivityRow) []ActivityRow { return r[1:] }, "before its block's busy row"},
		{"level", func(r []ActivityRow) []ActivityRow { r[0].Level = "chip"; return r }, "unknown level"},
		{"launch", func(r []ActivityRow) []ActivityRow { r[0].Launch = 3; return r }, "out of order"},
		{"bins", func(r []ActivityRow) []ActivityRow {
			for i := range r {
				if r[i].Row == "idle" {
					r[i].Len = 0
					break
				}
			}
			return r
		}, "idle bins"},
	} {
		c := append([]ActivityRow(nil), rows...)
		if _, err := FromRows(act.Kernel, act.Model, tc.edit(c)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	var b bytes.Buffer
	if err := act.WriteCSV(&b); err != nil || !strings.HasPrefix(b.String(), "launch,cycles,level,unit,sm,index,row,len,count,from,to\n0,1145,core,,0,0,busy,") {
		t.Errorf("csv: %v %.80q", err, b.String())
	}
}
