package main

// `ptxtrace view`: index the named runs in memory (viewers/web) and serve
// the interactive viewer on a loopback address until interrupted.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/viewers/web"
	"github.com/urfave/cli/v2"
)

// defaultListen is the loopback address view binds when --listen is absent.
const defaultListen = "127.0.0.1:0"

type viewOptions struct {
	streams
	Runs   []string
	Listen string
	// Ready, when set, is called with the URL once the server listens
	// (tests use it; the command prints the URL either way).
	Ready func(url string)
}

func newViewCommand() *cli.Command {
	return &cli.Command{
		Name:      "view",
		Usage:     "serve an interactive timeline, source view and charts of runs in a browser",
		ArgsUsage: "RUN...",
		Description: "view indexes every traced launch of each RUN (bundle file or run directory)\n" +
			"in memory and serves a single-page viewer on a loopback address (default\n" +
			defaultListen + ", a free port) until interrupted; it prints the URL. The page\n" +
			"is embedded in the binary and loads nothing from the network; the server\n" +
			"serves only the runs named here. The timeline asks the server for buckets\n" +
			"at the screen's resolution, so runs of tens of millions of regions stay\n" +
			"interactive. Two runs can be compared side by side. Transfers of the launch\n" +
			"show on a copy engine row; a run recorded with run --activity adds each\n" +
			"SM's power state and its units' activity.\n\n" +
			"--listen HOST:PORT binds another address. An address on every interface\n" +
			"(\":8080\", 0.0.0.0, ::) is refused; a named non-loopback address is served\n" +
			"with a warning, since the traces become readable from the network.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "serve on `HOST:PORT`", Value: defaultListen},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return usagef("view: want at least one RUN argument")
			}
			return runView(c.Context, viewOptions{streams: streamsOf(c), Runs: c.Args().Slice(), Listen: c.String("listen")})
		},
	}
}

// checkListen validates addr: loopback is fine, a named other address
// warns, an unspecified host (every interface) is refused.
func checkListen(addr string) (warn string, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usagef("view: --listen %q: %v", addr, err)
	}
	if host == "localhost" {
		return "", nil
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		return "", usagef("view: --listen %q binds every interface; name one address (127.0.0.1 is the default)", addr)
	case ip == nil:
		return "", usagef("view: --listen %q: host must be an IP address or localhost", addr)
	case ip.IsLoopback():
		return "", nil
	}
	return fmt.Sprintf("ptxtrace view: warning: serving on non-loopback address %s: anyone who can reach it can read these traces", host), nil
}

func runView(ctx context.Context, o viewOptions) error {
	warn, err := checkListen(o.Listen)
	if err != nil {
		return err
	}
	runs, err := loadViewRuns(ctx, o.Runs)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if warn != "" {
		fmt.Fprintln(o.Stderr, warn)
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(o.Stdout, "ptxtrace view: %d run(s) at %s (interrupt to stop)\n", len(runs), url)
	srv := &http.Server{Handler: hostGuard(ln.Addr().String(), web.NewServer(runs)), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if o.Ready != nil {
		o.Ready(url)
	}
	select {
	case err := <-done:
		return fmt.Errorf("view: %w", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("view: %w", err)
		}
		return nil
	}
}

// loadViewRuns indexes every traced launch of every path, in order.
func loadViewRuns(ctx context.Context, paths []string) ([]web.Run, error) {
	var runs []web.Run
	for _, p := range paths {
		rbs, err := trace.RunBundles(p)
		if err != nil {
			return nil, err
		}
		for _, rb := range rbs {
			name := filepath.Base(filepath.Clean(p))
			if rb.Multi {
				name = fmt.Sprintf("%s #%d", name, rb.Launch)
			}
			r, err := loadViewRun(ctx, name, rb.Path)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
	}
	return runs, nil
}

func loadViewRun(ctx context.Context, name, path string) (web.Run, error) {
	b, err := trace.OpenBundleFile(path)
	if err != nil {
		return web.Run{}, err
	}
	defer b.Close()
	if err := b.VerifyChecksums(); err != nil {
		return web.Run{}, err
	}
	d, err := b.Regions()
	if err != nil {
		return web.Run{}, err
	}
	ix, err := web.Build(ctx, name, d)
	if err != nil {
		return web.Run{}, err
	}
	st, err := web.Analyze(ctx, name, func() (trace.RegionSource, error) { return b.Regions() }, b.Counters)
	if err != nil {
		return web.Run{}, err
	}
	charts, err := web.RunCharts(ix, st)
	if err != nil {
		return web.Run{}, fmt.Errorf("view: %s: %w", name, err)
	}
	return web.Run{Index: ix, Charts: charts, Stats: st}, nil
}

// hostGuard answers only requests whose Host header names the bound
// address (or localhost with its port), so that a web page elsewhere cannot
// reach the server through a DNS name rebound to 127.0.0.1.
func hostGuard(addr string, h http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(addr)
	ok := map[string]bool{addr: true, "localhost:" + port: true, "127.0.0.1:" + port: true, "[::1]:" + port: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ok[r.Host] {
			http.Error(w, "unexpected Host header", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}
