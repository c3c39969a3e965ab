package web

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func newTestServer(t *testing.T) (*httptest.Server, *Index) {
	t.Helper()
	ix := build(t, newSynth(16, 4, 2, 20))
	ix2 := build(t, newSynth(8, 4, 2, 10))
	srv := httptest.NewServer(NewServer([]Run{{Index: ix, Charts: []Chart{{Title: "c", SVG: "<svg></svg>"}}}, {Index: ix2}}))
	t.Cleanup(srv.Close)
	return srv, ix
}

func get(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 && v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v\n%s", url, err, b)
		}
	}
	return resp.StatusCode
}

func TestAPI(t *testing.T) {
	srv, ix := newTestServer(t)
	var runs []runInfo
	if get(t, srv.URL+"/api/runs", &runs) != 200 || len(runs) != 2 || runs[0].Regions != 16*21 || runs[1].Warps != 8 || runs[0].Kernel != "synthk" {
		t.Fatalf("runs %+v", runs)
	}
	var nodes []Node
	if get(t, srv.URL+"/api/tree?run=0", &nodes) != 200 || len(nodes) != 1+2+4+16 {
		t.Fatalf("tree: %d nodes", len(nodes))
	}
	wid := -1
	for _, n := range nodes {
		if n.Level == "warp" && wid < 0 {
			wid = n.ID
		}
	}
	var tiles []struct {
		Node  int     `json:"node"`
		Mode  string  `json:"mode"`
		T0    []int64 `json:"t0"`
		N     []int64 `json:"n"`
		Spans [][]any `json:"spans"`
	}
	q := srv.URL + "/api/tiles?run=0&t0=" + itoa(ix.T0) + "&t1=" + itoa(ix.T1) + "&px=100&rows=0,1," + itoa(int64(wid))
	if get(t, q, &tiles) != 200 || len(tiles) != 3 || tiles[2].Node != wid {
		t.Fatalf("tiles %+v", tiles)
	}
	var n int64
	for _, c := range tiles[0].N {
		n += c
	}
	if tiles[0].Mode == "spans" || len(tiles[0].T0) != len(tiles[0].N) || tiles[2].Mode != "spans" || len(tiles[2].Spans) != 21 {
		t.Errorf("tiles %+v", tiles)
	}
	if n != ix.Total {
		t.Errorf("GPU buckets count %d regions, want %d", n, ix.Total)
	}
	// A warp's spans: its user region (no mode), then its 20 loads with
	// the synth's probe mode.
	for k, sp := range tiles[2].Spans {
		if want := map[bool]int{true: 5, false: 6}[k == 0]; len(sp) != want || (k > 0 && sp[5] != "naive") {
			t.Errorf("span %d: %v", k, sp)
		}
	}
	var d Detail
	if get(t, srv.URL+"/api/region?run=0&row=2&i=2", &d) != 200 || d.Line != 30 || d.Class != "shared" {
		t.Errorf("region %+v", d)
	}
	var lines []LineStat
	if get(t, srv.URL+"/api/source?run=1", &lines) != 200 || len(lines) != 3 || lines[0].Count != 8 {
		t.Errorf("source %+v", lines)
	}
	var res struct {
		Hits  []Hit `json:"hits"`
		Total int64 `json:"total"`
	}
	if get(t, srv.URL+"/api/search?run=0&line=20", &res) != 200 || res.Total != 16*10 || len(res.Hits) != 160 {
		t.Errorf("search: total %d, %d hits", res.Total, len(res.Hits))
	}
	var charts []Chart
	if get(t, srv.URL+"/api/charts?run=0", &charts) != 200 || len(charts) != 1 {
		t.Errorf("charts %+v", charts)
	}
	if get(t, srv.URL+"/api/charts?run=1", &charts) != 200 || len(charts) != 0 {
		t.Errorf("charts of run 1 %+v", charts)
	}
	for _, bad := range []string{
		"/api/tiles?run=0&t0=5&t1=5&px=10&rows=0", "/api/tiles?run=0&t0=x&t1=5&px=10", "/api/tiles?run=0&t0=0&t1=5&px=10&rows=a",
		"/api/region?run=0&row=x&i=0", "/api/search?run=0", "/api/search?run=0&line=-3",
	} {
		if c := get(t, srv.URL+bad, nil); c != 400 {
			t.Errorf("%s: status %d, want 400", bad, c)
		}
	}
	if c := get(t, srv.URL+"/api/region?run=0&row=0&i=999", nil); c != 404 {
		t.Errorf("region out of range: %d", c)
	}
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }

// TestNoPathAccess: runs are addressed by index only and files come from the
// embedded tree; no user-supplied path reaches the file system.
func TestNoPathAccess(t *testing.T) {
	srv, _ := newTestServer(t)
	for _, p := range []string{
		"/api/tree?run=../../etc/passwd", "/api/tree?run=/etc/passwd", "/api/tree?run=2", "/api/tree?run=-1", "/api/tree?run=01", "/api/tree?run=0x1",
		"/api/source?run=..%2f..%2fetc%2fpasswd", "/api/charts?run=", "/api/tree",
		"/../../etc/passwd", "/..%2f..%2fetc%2fpasswd", "/static/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/etc/passwd", "/index.go", "/doc.go",
	} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 || strings.Contains(string(b), "root:") || strings.Contains(string(b), "package web") {
			t.Errorf("%s: status %d, body %.80q", p, resp.StatusCode, b)
		}
	}
	// The page itself is served, with a same-origin-only policy.
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("index: %d, CSP %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}

// TestStaticSelfContained: no file of the page names another origin.
func TestStaticSelfContained(t *testing.T) {
	ext := regexp.MustCompile(`(?i)(https?:|wss?:|ftp:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|src\s*=\s*["']?(https?:)?//`)
	n := 0
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		b, _ := fs.ReadFile(staticFS, p)
		if m := ext.Find(b); m != nil {
			t.Errorf("%s references %q", p, m)
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walk: %v, %d files", err, n)
	}
}
