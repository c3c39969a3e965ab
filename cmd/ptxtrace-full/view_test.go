package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
)

func TestViewCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr       string
		warn, fail bool
	}{
		{"127.0.0.1:0", false, false}, {"localhost:8080", false, false}, {"[::1]:0", false, false}, {"127.0.0.2:80", false, false},
		{":8080", false, true}, {"0.0.0.0:8080", false, true}, {"[::]:0", false, true}, {"example.org:80", false, true}, {"nonsense", false, true},
		{"192.168.1.5:8080", true, false}, {"10.0.0.1:0", true, false},
	} {
		warn, err := checkListen(c.addr)
		if (err != nil) != c.fail || (warn != "") != c.warn {
			t.Errorf("checkListen(%q) = %q, %v", c.addr, warn, err)
		}
	}
}

// startView runs `view` on runs with the default address and returns its
// URL; the server stops at the end of the test.
func startView(t *testing.T, runs ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var out strings.Builder
	go func() {
		done <- runView(ctx, viewOptions{streams: streams{Stdout: &out, Stderr: io.Discard}, Runs: runs, Listen: defaultListen,
			Ready: func(u string) { ready <- u }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("view: %v", err)
		}
	})
	select {
	case u := <-ready:
		return u
	case err := <-done:
		t.Fatalf("view: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("view did not start")
	}
	return ""
}

// TestViewServesLoopback: the default address is 127.0.0.1 and the server
// lists the runs named, one per traced launch.
func TestViewServesLoopback(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bundle"), filepath.Join(dir, "b.bundle")
	writeBundle(t, a, smallSynth, trace.RunMeta{ClockHz: 1e9})
	writeBundle(t, b, smallSynth, trace.RunMeta{})
	u := startView(t, a, b)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if host, _, _ := net.SplitHostPort(pu.Host); host != "127.0.0.1" {
		t.Fatalf("served on %s, want 127.0.0.1", pu.Host)
	}
	resp, err := http.Get(u + "api/runs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var runs []struct {
		Name    string `json:"name"`
		Regions int64  `json:"regions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Name != "a.bundle" || runs[1].Regions != smallSynth.Regions() {
		t.Errorf("runs %+v", runs)
	}
	// A request naming another host (DNS rebinding) is refused.
	req, _ := http.NewRequest("GET", u+"api/runs", nil)
	req.Host = "evil.example:80"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// A missing run is an error before anything is served.
	r := runCLI(t, "", "view", filepath.Join(dir, "nope"))
	if r.code == 0 {
		t.Error("view of a missing run succeeded")
	}
	r = runCLI(t, "", "view", "--listen", "0.0.0.0:0", a)
	if r.code != exitUsage || !strings.Contains(r.stderr, "every interface") {
		t.Errorf("view --listen 0.0.0.0: exit %d, %s", r.code, r.stderr)
	}
}
