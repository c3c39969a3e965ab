package parquet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/exporters/parquet"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func decode(t testing.TB, s tt.Synth, meta trace.RunMeta) *trace.Trace {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	mj, _ := json.Marshal(s.Manifest())
	tr, err := trace.DecodeOptions(buf.Bytes(), s.Manifest(), "", trace.Options{Meta: meta, ManifestJSON: mj})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkRows compares rows read back with the trace's regions.
func checkRows(t *testing.T, tr *trace.Trace, rows []parquet.Row) {
	t.Helper()
	if len(rows) != len(tr.Regions) {
		t.Fatalf("%d rows, want %d", len(rows), len(tr.Regions))
	}
	for i, r := range tr.Regions {
		g := rows[i]
		if g.Kernel != tr.Header.Kernel || g.Warp != r.Warp || g.CTAX != r.CTA[0] || g.SM != r.SM || g.WarpInCTA != r.WarpInCTA ||
			g.Region != int32(r.ID) || g.RegionKind != r.Info.Kind || g.Space != r.Info.Space || g.Mode != r.Info.Mode ||
			g.Instance != r.Instance || g.Depth != r.Depth || g.BeginRecord != r.BeginRec || g.EndRecord != r.EndRec ||
			g.EndProbe != r.EndProbe || g.Start != r.Start || g.End != r.End || g.Cycles != r.Cycles ||
			g.PTXLine != int32(r.Info.Line) || g.LocFile != r.Info.LocFile || g.LocLine != int32(r.Info.LocLine) {
			t.Fatalf("row %d = %+v, region %+v", i, g, r)
		}
		if tr.Header.HasNs() != (g.DurNs != nil) || (g.DurNs != nil && (*g.DurNs != r.DurNs || *g.StartNs != r.StartNs || *g.EndNs != r.EndNs)) {
			t.Fatalf("row %d ns %v", i, g.DurNs)
		}
		if r.HasTruth != (g.TruthIssue != nil) || (r.HasTruth && (*g.TruthIssue != r.TruthIssue || *g.TruthComplete != r.TruthComplete)) {
			t.Fatalf("row %d truth", i)
		}
	}
}

func export(t testing.TB, tr *trace.Trace, o parquet.Options) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := exporters.Run(context.Background(), tr.Source(), parquet.New(&out, o)); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta trace.RunMeta
		s    tt.Synth
		rg   int64
	}{
		{"cycles", trace.RunMeta{RunID: "a"}, tt.Synth{Warps: 8, WarpsPerCTA: 4, Iters: 3, Loads: 2, NumSMs: 2, Timer: 1}, 0},
		{"ns, small row groups", trace.RunMeta{ClockHz: 1.4e9}, tt.Synth{Warps: 16, WarpsPerCTA: 4, Iters: 10, Loads: 3, NumSMs: 3, Timer: 0}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := decode(t, tc.s, tc.meta)
			tr.Regions[2].HasTruth, tr.Regions[2].TruthIssue, tr.Regions[2].TruthComplete = true, 11, 99
			data := export(t, tr, parquet.Options{RowGroupRows: tc.rg})
			f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.rg > 0 && len(f.RowGroups()) != (len(tr.Regions)+int(tc.rg)-1)/int(tc.rg) {
				t.Errorf("%d row groups", len(f.RowGroups()))
			}
			if v, _ := f.Lookup(parquet.KeyKernel); v != tt.Kernel {
				t.Errorf("kernel metadata %q", v)
			}
			if v, _ := f.Lookup(parquet.KeyManifest); v != string(tr.Header.ManifestJSON) {
				t.Errorf("manifest metadata differs")
			}
			var meta trace.RunMeta
			if v, _ := f.Lookup(parquet.KeyRun); json.Unmarshal([]byte(v), &meta) != nil || meta.ClockHz != tc.meta.ClockHz {
				t.Errorf("run metadata %q", v)
			}
			// Column types: ints stay ints, strings are dictionary encoded, zstd.
			for _, c := range f.Metadata().RowGroups[0].Columns {
				md := c.MetaData
				if md.Codec.String() != "ZSTD" {
					t.Errorf("column %v codec %v", md.PathInSchema, md.Codec)
				}
				if md.PathInSchema[0] == "region_kind" {
					dict := false
					for _, enc := range md.Encoding {
						dict = dict || enc.String() == "RLE_DICTIONARY"
					}
					if !dict {
						t.Errorf("region_kind encodings %v", md.Encoding)
					}
				}
			}
			rd := pq.NewGenericReader[parquet.Row](bytes.NewReader(data))
			rows := make([]parquet.Row, len(tr.Regions)+1)
			n, err := rd.Read(rows)
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			checkRows(t, tr, rows[:n])
			if !bytes.Equal(data, export(t, tr, parquet.Options{RowGroupRows: tc.rg})) {
				t.Fatal("output not deterministic")
			}
		})
	}
}

func TestDatasetPath(t *testing.T) {
	got := parquet.DatasetPath("d", "my/kern=1", "run 7%")
	want := filepath.Join("d", "kernel=my%2Fkern%3D1", "run=run 7%25", "part-0.parquet")
	if got != want {
		t.Fatalf("%q, want %q", got, want)
	}
}

func TestDatasetPartPath(t *testing.T) {
	dir := filepath.Join("d", "kernel=k", "run=r")
	for _, c := range []struct {
		launch int
		multi  bool
		ext    string
		want   string
	}{
		{0, false, ".csv", "part-0.csv"},
		{3, false, ".parquet", "part-0.parquet"}, // one traced launch: part-0 whatever its index
		{3, true, ".parquet", "part-003.parquet"},
		{1234, true, ".json", "part-1234.json"},
	} {
		got := parquet.DatasetPartPath("d", "k", "r", c.launch, c.multi, c.ext)
		if want := filepath.Join(dir, c.want); got != want {
			t.Errorf("%+v: %q, want %q", c, got, want)
		}
	}
}

func BenchmarkExport(b *testing.B) {
	s := tt.Synth{Warps: 200, WarpsPerCTA: 4, Iters: 100, Loads: 4, NumSMs: 15, Timer: 1}
	tr := decode(b, s, trace.RunMeta{ClockHz: 1.4e9})
	b.ResetTimer()
	cpu0 := cpuTime()
	size := 0
	for i := 0; i < b.N; i++ {
		var cw countWriter
		if err := exporters.Run(context.Background(), tr.Source(), parquet.New(&cw, parquet.Options{})); err != nil {
			b.Fatal(err)
		}
		size = int(cw)
	}
	b.ReportMetric(float64(len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(tr.Regions))*float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
	b.ReportMetric(float64(size)/float64(len(tr.Regions)), "bytes/event")
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ = os.Getenv

// cpuTime is the process's user+system CPU time: events per CPU-second do
// not depend on how loaded the machine is.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
