package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// benchRegions is the size of the benchmark's synthetic run:
// PTXTRACE_BENCH_REGIONS (e.g. 10000000, 50000000), default 1M.
func benchRegions(b *testing.B) int {
	if v := os.Getenv("PTXTRACE_BENCH_REGIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 1_000_000
}

// BenchmarkTiles measures one viewer query on a synthetic run of
// benchRegions regions (10 000 warps of 8 per CTA on 80 SMs) at 1600 px:
// "overview" asks the GPU and every SM row over the whole run, "expanded"
// one SM's CTAs and one CTA's warps over the whole run, "zoomed" the same
// rows over 1/1000 of the run. It reports the index's heap size.
func BenchmarkTiles(b *testing.B) {
	n := benchRegions(b)
	const warps = 10_000
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	ix, err := Build(context.Background(), "bench", newSynth(warps, 8, 80, max(1, n/warps-1)))
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	heap := float64(ms1.HeapAlloc-ms0.HeapAlloc) / (1 << 20)
	var overview, expanded []int
	sm := -1
	for _, nd := range ix.Nodes {
		if nd.Level == "gpu" || nd.Level == "sm" {
			overview = append(overview, nd.ID)
			if nd.Level == "sm" && sm < 0 {
				sm = nd.ID
			}
		}
		if (nd.Level == "cta" && nd.Parent == sm) || (nd.Level == "warp" && nd.Parent == sm+1) {
			expanded = append(expanded, nd.ID)
		}
	}
	span := ix.T1 - ix.T0
	for _, c := range []struct {
		name   string
		rows   []int
		t0, t1 int64
	}{
		{"overview", overview, ix.T0, ix.T1},
		{"expanded", append([]int{0, sm}, expanded...), ix.T0, ix.T1},
		{"zoomed", append([]int{0, sm}, expanded...), ix.T0 + span/2, ix.T0 + span/2 + span/1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Tiles(c.rows, c.t0, c.t1, 1600); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(heap, "MiB-index")
			b.ReportMetric(float64(ix.Total), "regions")
			b.ReportMetric(float64(len(c.rows)), "rows")
		})
		// The same query through the HTTP handler, JSON included.
		b.Run(c.name+"-http", func(b *testing.B) {
			srv := NewServer([]Run{{Index: ix}})
			var q strings.Builder
			fmt.Fprintf(&q, "/api/tiles?run=0&t0=%d&t1=%d&px=1600&rows=", c.t0, c.t1)
			for i, r := range c.rows {
				if i > 0 {
					q.WriteByte(',')
				}
				fmt.Fprint(&q, r)
			}
			var size int
			for b.Loop() {
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, httptest.NewRequest("GET", q.String(), nil))
				if w.Code != 200 {
					b.Fatal(w.Body.String())
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size)/1024, "KiB-response")
		})
	}
}
