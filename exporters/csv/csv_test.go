package csv_test

import (
	"bytes"
	"context"
	stdcsv "encoding/csv"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/exporters/csv"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func decode(t testing.TB, s tt.Synth, meta trace.RunMeta) *trace.Trace {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.DecodeOptions(buf.Bytes(), s.Manifest(), "", trace.Options{Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta trace.RunMeta
		s    tt.Synth
	}{
		{"cycles only", trace.RunMeta{}, tt.Synth{Warps: 8, WarpsPerCTA: 4, Iters: 3, Loads: 2, NumSMs: 2, Timer: 1}},
		{"with clock rate", trace.RunMeta{ClockHz: 1.4e9}, tt.Synth{Warps: 8, WarpsPerCTA: 4, Iters: 3, Loads: 2, NumSMs: 2, Timer: 0}},
		{"globaltimer", trace.RunMeta{}, tt.Synth{Warps: 4, WarpsPerCTA: 2, Iters: 2, Loads: 1, Timer: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := decode(t, tc.s, tc.meta)
			// Give one region ground truth and an odd file name.
			tr.Regions[1].HasTruth, tr.Regions[1].TruthIssue, tr.Regions[1].TruthComplete = true, 5, 9
			tr.Header.Regions[1].LocFile = "dir, \"quoted\"\nname.cu"
			var out bytes.Buffer
			if err := exporters.Run(context.Background(), tr.Source(), csv.New(&out, csv.Options{})); err != nil {
				t.Fatal(err)
			}
			rows, err := stdcsv.NewReader(bytes.NewReader(out.Bytes())).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1+len(tr.Regions) {
				t.Fatalf("%d rows, want %d", len(rows), 1+len(tr.Regions))
			}
			col := map[string]int{}
			for i, c := range rows[0] {
				col[c] = i
			}
			for i, r := range tr.Regions {
				row := rows[1+i]
				get := func(c string) string { return row[col[c]] }
				num := func(c string) uint64 {
					v, err := strconv.ParseUint(get(c), 10, 64)
					if err != nil {
						t.Fatalf("row %d %s: %v", i, c, err)
					}
					return v
				}
				if get("kernel") != tt.Kernel || num("warp") != uint64(r.Warp) || num("sm") != uint64(r.SM) ||
					num("cta_x") != uint64(r.CTA[0]) || num("warp_in_cta") != uint64(r.WarpInCTA) ||
					num("region") != uint64(r.ID) || get("region_kind") != r.Info.Kind || get("space") != r.Info.Space ||
					num("start") != r.Start || num("end") != r.End || num("cycles") != r.Cycles ||
					num("instance") != uint64(r.Instance) || num("depth") != uint64(r.Depth) ||
					num("begin_record") != uint64(r.BeginRec) || num("end_record") != uint64(r.EndRec) ||
					get("loc_file") != r.Info.LocFile || num("ptx_line") != uint64(r.Info.Line) {
					t.Fatalf("row %d = %v, region %+v", i, row, r)
				}
				if tr.Header.HasNs() {
					d, err := strconv.ParseFloat(get("dur_ns"), 64)
					if err != nil || d != r.DurNs {
						t.Fatalf("row %d dur_ns %q, want %v", i, get("dur_ns"), r.DurNs)
					}
				} else if get("dur_ns") != "" || get("start_ns") != "" {
					t.Fatalf("row %d: ns without clock rate", i)
				}
				if r.HasTruth {
					if num("truth_issue") != r.TruthIssue || num("truth_complete") != r.TruthComplete {
						t.Fatalf("row %d truth", i)
					}
				} else if get("truth_issue") != "" {
					t.Fatalf("row %d: truth without truth", i)
				}
			}
			// Deterministic.
			var again bytes.Buffer
			exporters.Run(context.Background(), tr.Source(), csv.New(&again, csv.Options{}))
			if !bytes.Equal(out.Bytes(), again.Bytes()) {
				t.Fatal("output not deterministic")
			}
		})
	}
}

func BenchmarkExport(b *testing.B) {
	s := tt.Synth{Warps: 200, WarpsPerCTA: 4, Iters: 100, Loads: 4, NumSMs: 15, Timer: 1}
	tr := decode(b, s, trace.RunMeta{ClockHz: 1.4e9})
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := exporters.Run(context.Background(), tr.Source(), csv.New(io.Discard, csv.Options{})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(tr.Regions))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(tr.Regions))*float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
}

// cpuTime is the process's user+system CPU time: events per CPU-second do
// not depend on how loaded the machine is.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLaunchColumn: two launches written into one table: one header with
// "launch" first, then every row of launch 3 and of launch 12 with its
// index in front of the row the plain export writes.
func TestLaunchColumn(t *testing.T) {
	tr := decode(t, tt.Synth{Warps: 2, WarpsPerCTA: 1, Iters: 1, Loads: 1, Timer: 1}, trace.RunMeta{})
	var plain, merged bytes.Buffer
	if err := exporters.Run(context.Background(), tr.Source(), csv.New(&plain, csv.Options{NoHeader: true})); err != nil {
		t.Fatal(err)
	}
	for i, l := range []int{3, 12} {
		e := csv.New(&merged, csv.Options{NoHeader: i > 0, LaunchColumn: true, Launch: l})
		if err := exporters.Run(context.Background(), tr.Source(), e); err != nil {
			t.Fatal(err)
		}
	}
	want := "launch," + strings.Join(csv.Columns(), ",") + "\n"
	for _, l := range []string{"3", "12"} {
		for _, row := range strings.SplitAfter(plain.String(), "\n") {
			if row != "" {
				want += l + "," + row
			}
		}
	}
	if merged.String() != want {
		t.Errorf("merged CSV\n%s\nwant\n%s", merged.String(), want)
	}
}
