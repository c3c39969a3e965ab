package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// chromium returns the path of a Chromium binary or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (apt-get install chromium); browser tests skipped")
	return ""
}

// browser starts a headless Chromium and records every URL the page
// requests.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	reqs []string
}

func newBrowser(t *testing.T) *browser {
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 900), chromedp.Flag("disable-gpu", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(bctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b := &browser{ctx: ctx}
	// The first Run starts the browser; it must not carry the timeout.
	if _, err := chromedp.Run(bctx, chromedp.Location()); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.reqs = append(b.reqs, e.Request.URL)
			b.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return b
}

func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// evalInt evaluates a JS expression to an int.
func (b *browser) evalInt(t *testing.T, expr string) int {
	t.Helper()
	return int(eval[float64](t, b, expr))
}

// waitFor polls the JS condition cond until it holds.
func (b *browser) waitFor(t *testing.T, cond string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+cond+")")); err == nil && ok {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", cond)
}

// screenshot saves a PNG of the page (in $PTXTRACE_SCREENSHOTS when set)
// and returns it decoded.
func (b *browser) screenshot(t *testing.T, name string) image.Image {
	t.Helper()
	buf, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("PTXTRACE_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// colours counts the distinct colours in rect of img (device pixels).
func colours(img image.Image, r image.Rectangle) int {
	seen := map[[3]uint32]bool{}
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			c0, c1, c2, _ := img.At(x, y).RGBA()
			seen[[3]uint32{c0 >> 8, c1 >> 8, c2 >> 8}] = true
		}
	}
	return len(seen)
}

// pixels counts the pixels of colour (r, g, b) in rect of img.
func pixels(img image.Image, rect image.Rectangle, r, g, b uint32) int {
	n := 0
	rect = rect.Intersect(img.Bounds())
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			c0, c1, c2, _ := img.At(x, y).RGBA()
			if c0>>8 == r && c1>>8 == g && c2>>8 == b {
				n++
			}
		}
	}
	return n
}

// eval evaluates a JS expression.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// rect returns the bounding box of the first element matching sel.
func (b *browser) rect(t *testing.T, sel string) image.Rectangle {
	t.Helper()
	r := eval[[]float64](t, b, fmt.Sprintf(`(()=>{const r=document.querySelector(%q).getBoundingClientRect();return [r.left,r.top,r.right,r.bottom]})()`, sel))
	return image.Rect(int(r[0]), int(r[1]), int(r[2]), int(r[3]))
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	return eval[string](t, b, fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel))
}

// TestViewBrowser drives the viewer in headless Chromium on the demo's
// naive and auto runs side by side: rows, expand, zoom, selection, search,
// source view and charts, checked in the DOM; screenshots compared
// structurally; every request stays on the server.
func TestViewBrowser(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	if r := runCLI(t, "", "demo", "-o", dir); r.code != 0 {
		t.Fatalf("demo: %s", r.stderr)
	}
	u := startView(t, filepath.Join(dir, "naive-1x128.bundle"), filepath.Join(dir, "auto-1x128.bundle"))
	b.run(t, "load", chromedp.Navigate(u))
	b.waitFor(t, `document.body.dataset.ready==="1" && document.querySelectorAll(".panel").length===2`)
	b.waitFor(t, `+document.querySelector(".panel canvas.track, .panel .track canvas").dataset.drawn > 0`)

	// Rows: GPU expanded into its SMs; expanding the first SM adds its CTAs.
	rows := b.evalInt(t, `document.querySelectorAll(".panel")[0].querySelectorAll(".rowlabels div").length`)
	sms := b.evalInt(t, `document.querySelectorAll(".panel")[0].querySelectorAll(".rowlabels div.sm").length`)
	if sms < 1 || rows != sms+1 {
		t.Fatalf("rows %d, SM rows %d", rows, sms)
	}
	b.run(t, "expand SM", chromedp.Click(chromedp.CSS(`.panel .rowlabels div.sm .tog`)))
	b.waitFor(t, `document.querySelectorAll(".panel")[0].querySelectorAll(".rowlabels div.cta").length > 0`)

	// Zoom with the keyboard: W narrows the view, S widens it.
	view := func() (int64, int64) {
		s := eval[string](t, b, `document.querySelector(".panel .track canvas").dataset.view`)
		f := strings.Split(s, ",")
		v0, _ := strconv.ParseInt(f[0], 10, 64)
		v1, _ := strconv.ParseInt(f[1], 10, 64)
		return v0, v1
	}
	a0, a1 := view()
	b.run(t, "zoom in", chromedp.KeyEvent("w"), chromedp.KeyEvent("w"), chromedp.KeyEvent("w"))
	b.waitFor(t, fmt.Sprintf(`(()=>{const v=document.querySelector(".panel .track canvas").dataset.view.split(",");return v[1]-v[0] < %d})()`, (a1-a0)*6/10))
	z0, z1 := view()
	b.run(t, "zoom out", chromedp.KeyEvent("s"), chromedp.KeyEvent("s"))
	b.waitFor(t, fmt.Sprintf(`(()=>{const v=document.querySelector(".panel .track canvas").dataset.view.split(",");return v[1]-v[0] > %d})()`, (z1-z0)*14/10))
	b.run(t, "pan", chromedp.KeyEvent("d"))

	// Search by PTX line of the slowest source line: the first instance is
	// selected and its details shown.
	b.run(t, "source tab", chromedp.Click(chromedp.CSS(`#tab-source`)))
	b.waitFor(t, `document.querySelectorAll("table.src tr.line").length > 0`)
	nLines := b.evalInt(t, `document.querySelectorAll("table.src")[0].querySelectorAll("tr.line").length`)
	heat := b.evalInt(t, `Math.max(...[...document.querySelectorAll("table.src")[0].querySelectorAll(".heat")].map(e=>e.getBoundingClientRect().width))`)
	if nLines < 2 || heat < 100 {
		t.Errorf("source view: %d lines, widest heat bar %d px", nLines, heat)
	}
	srcShot := b.screenshot(t, "viewer-source")
	if c := colours(srcShot, b.rect(t, "table.src")); c < 4 {
		t.Errorf("source view screenshot: %d colours", c)
	}
	// Click the hottest texture/global line → its regions, first selected.
	eval[string](t, b, `(()=>{const rs=[...document.querySelectorAll("table.src")[0].querySelectorAll("tr.line")];
	  rs.sort((a,b)=>b.querySelector(".heat").getBoundingClientRect().width-a.querySelector(".heat").getBoundingClientRect().width); rs[0].click(); return rs[0].dataset.line})()`)
	b.waitFor(t, `document.querySelector("#timeline").classList.contains("active") && document.querySelector("#detailTable")`)
	det := b.text(t, "#detailTable")
	for _, want := range []string{"PTX line", "CUDA line", "measured", "ground truth"} {
		if !strings.Contains(det, want) {
			t.Errorf("details lack %q: %s", want, det)
		}
	}
	if !strings.Contains(b.text(t, "#hitCount"), "instance") {
		t.Errorf("hit count %q", b.text(t, "#hitCount"))
	}
	b.waitFor(t, `+document.querySelector(".panel .track canvas").dataset.drawn > 0`)
	tl := b.screenshot(t, "viewer-timeline")
	if c := colours(tl, b.rect(t, ".panel .track canvas")); c < 4 {
		t.Errorf("timeline canvas: %d colours (blank?)", c)
	}
	if r := b.rect(t, ".panel .track canvas"); r.Dx() < 600 || r.Dy() < 18 {
		t.Errorf("timeline canvas %v too small", r)
	}

	// Search box: text search; the first tex load is revealed.
	b.run(t, "search", chromedp.SetValue(chromedp.CSS(`#search`), "tex"), chromedp.Click(chromedp.CSS(`#searchForm button`)))
	b.waitFor(t, `document.querySelector("#hits h3") && document.querySelector("#hits h3").textContent.includes("tex")`)
	b.waitFor(t, `panels[0].hitList.some(h=>h.span && h.span.m==="naive")`)

	// Colour by probe mode: the naive run's load spans turn red
	// (#e53935), which no state space uses.
	b.run(t, "colour by mode", chromedp.SetValue(chromedp.CSS(`#colorBy`), "mode"))
	eval[bool](t, b, `document.querySelector("#colorBy").dispatchEvent(new Event("change"))`)
	b.waitFor(t, `document.querySelector(".panel .legend").textContent.includes("probe mode:naive")`)
	b.waitFor(t, `+document.querySelector(".panel .track canvas").dataset.drawn > 0`)
	if n := pixels(b.screenshot(t, "viewer-modes"), b.rect(t, ".panel .track canvas"), 0xe5, 0x39, 0x35); n == 0 {
		t.Error("no naive-coloured pixel in the naive run's timeline")
	}
	b.run(t, "colour by space", chromedp.SetValue(chromedp.CSS(`#colorBy`), "space"))
	eval[bool](t, b, `document.querySelector("#colorBy").dispatchEvent(new Event("change"))`)

	// Charts tab: across the runs Fig. 5 (a bar pair per run) and the
	// probe error; per run the report's charts, the probe error per
	// region, Fig. 10 and Fig. 11.
	b.run(t, "charts tab", chromedp.Click(chromedp.CSS(`#tab-charts`)))
	b.waitFor(t, `document.querySelector("#chartsBody").dataset.ready === "1"`)
	ids := eval[string](t, b, `[...document.querySelectorAll("#compareCharts .chart")].map(c=>c.dataset.id).join(",")`)
	if ids != "fig5,probe_error" {
		t.Errorf("charts across runs: %s", ids)
	}
	if n := b.evalInt(t, `document.querySelectorAll('#compareCharts .chart[data-id="fig5"] rect.bar').length`); n != 4 {
		t.Errorf("Fig. 5: %d bars, want 2 runs × (memory, other)", n)
	}
	for _, run := range []string{"0", "1"} {
		ids := eval[string](t, b, `[...document.querySelectorAll('.runCharts[data-run="`+run+`"] .chart')].map(c=>c.dataset.id).join(",")`)
		for _, want := range []string{"probe_error_regions", "fig10", "fig11", "stalls"} {
			if !strings.Contains(ids, want) {
				t.Errorf("run %s charts %s lack %s", run, ids, want)
			}
		}
	}
	if n := b.evalInt(t, `(document.querySelector('.runCharts[data-run="1"] .chart[data-id="fig11"] path.line').getAttribute("d").match(/[ML]/g)||[]).length`); n < 2 {
		t.Errorf("Fig. 11 of the auto run: a line of %d vertices", n)
	}
	ch := b.screenshot(t, "viewer-charts")
	if c := colours(ch, b.rect(t, `.chart[data-id="fig5"] svg`)); c < 4 {
		t.Errorf("chart: %d colours", c)
	}
	checkRequests(t, b, u)
}

func checkRequests(t *testing.T, b *browser, u string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.reqs) < 5 {
		t.Errorf("only %d requests recorded", len(b.reqs))
	}
	for _, r := range b.reqs {
		if !strings.HasPrefix(r, u) && !strings.HasPrefix(r, "data:") {
			t.Errorf("page requested %s (not from %s)", r, u)
		}
	}
}

// TestViewBrowserLarge loads a synthetic run (1M regions; set
// PTXTRACE_VIEW_REGIONS for more) and checks that the zoomed-out timeline
// is drawn from aggregated buckets and that zooming and expanding work.
func TestViewBrowserLarge(t *testing.T) {
	b := newBrowser(t)
	regions := int64(1_000_000)
	if v := os.Getenv("PTXTRACE_VIEW_REGIONS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		regions = n
	}
	s := tt.Synth{Warps: 2048, WarpsPerCTA: 8, Loads: 4, NumSMs: 16, Timer: 1}
	s.Iters = int(max(1, regions/int64(s.Warps*(s.Loads+1))))
	path := filepath.Join(t.TempDir(), "large.bundle")
	// A model run with a copy-in before the kernel (−20 µs … −2 µs) and a
	// copy-out after it: the copy engine track.
	xfers := []trace.Transfer{{Buffer: "vol", Dir: "h2d", Method: "dma", Bytes: 1 << 20, StartPs: -20_000_000, EndPs: -2_000_000},
		{Buffer: "img", Dir: "d2h", Method: "iorw", Bytes: 4096, StartPs: 300_000_000, EndPs: 310_000_000}}
	writeBundle(t, path, s, trace.RunMeta{Source: "model", ClockHz: 1.4e9, Transfers: xfers})
	u := startView(t, path)
	b.run(t, "load", chromedp.Navigate(u))
	b.waitFor(t, `document.body.dataset.ready==="1" && +document.querySelector(".panel .track canvas").dataset.drawn > 0`)
	if h := b.text(t, ".panel h4"); !strings.Contains(h, strconv.FormatInt(s.Regions(), 10)+" regions") {
		t.Errorf("header %q, want %d regions", h, s.Regions())
	}
	checkTransferTrack(t, b)
	b.run(t, "expand SM", chromedp.Click(chromedp.CSS(`.panel .rowlabels div.sm .tog`)))
	b.waitFor(t, `document.querySelectorAll(".rowlabels div.cta").length === 2048/8/16`)
	b.run(t, "expand CTA", chromedp.Click(chromedp.CSS(`.panel .rowlabels div.cta .tog`)))
	b.waitFor(t, `document.querySelectorAll(".rowlabels div.warp").length === 8`)
	// F fits the kernel's regions (the view starts with the transfers).
	b.run(t, "fit", chromedp.KeyEvent("f"))
	b.waitFor(t, fmt.Sprintf(`document.querySelector(".panel .track canvas").dataset.view === "%d,%d"`, eval[int64](t, b, "runs[0].t0"), eval[int64](t, b, "runs[0].t1")))
	for i := 0; i < 25; i++ {
		b.run(t, "zoom", chromedp.KeyEvent("w"))
	}
	b.waitFor(t, `+document.querySelector(".panel .track canvas").dataset.drawn > 0`)
	img := b.screenshot(t, "viewer-large")
	if c := colours(img, b.rect(t, ".panel .track canvas")); c < 3 {
		t.Errorf("large timeline: %d colours", c)
	}
	checkRequests(t, b, u)
}

// checkTransferTrack: the copy engine row shows both transfers of
// TestViewBrowserLarge's run, the view starts at the copy-in (−20 µs at
// 1.4 GHz = −28000 cycles from the kernel's start), and clicking the
// copy-in shows its details.
func checkTransferTrack(t *testing.T, b *browser) {
	t.Helper()
	b.waitFor(t, `+(document.querySelector(".panel .ttrack canvas").dataset.drawn||0) === 2`)
	if l := b.text(t, ".panel .tracklabels div.transfer"); l != "copy engine" {
		t.Errorf("track label %q", l)
	}
	if v := eval[string](t, b, `document.querySelector(".panel .track canvas").dataset.view`); !strings.HasPrefix(v, "-28000,") {
		t.Errorf("initial view %s, want it to start at the copy-in (-28000)", v)
	}
	img := b.screenshot(t, "viewer-transfers")
	tr := b.rect(t, ".panel .ttrack canvas")
	if c := colours(img, tr); c < 3 || tr.Dy() < 16 {
		t.Errorf("copy engine track %v: %d colours", tr, c)
	}
	x := eval[float64](t, b, `(()=>{const h=panels[0].trackHits.find(h=>h.transfer.dir==="h2d");return (h.x0+h.x1)/2})()`)
	b.run(t, "click transfer", chromedp.MouseClickXY(float64(tr.Min.X)+x, float64(tr.Min.Y)+9))
	b.waitFor(t, `document.querySelector("#detailTable.transfer")`)
	det := b.text(t, "#detailTable")
	for _, want := range []string{"h2d vol (dma, 1048576 B)", "host → device", "-20000.000 ns", "-28000 … -2800 cyc"} {
		if !strings.Contains(det, want) {
			t.Errorf("transfer details lack %q: %s", want, det)
		}
	}
}

// activitySynth is a model run of s's kind with hand-made recorded
// activity over cycles [0, 12000) on SMs 0 … sms (SM sms has no warps):
// SM k holds CTAs in [300k, 9000 + 100k), the last SM none; 2 sp units of
// 16 lanes per SM, busy in a ramp.
func activitySynth(sms int) *trace.Activity {
	const cycles, w = 12000, 256
	a := &trace.Activity{Format: trace.ActivityFormat, Cycles: cycles, Model: []byte(`{}`), SeriesWidth: w}
	for k := 0; k <= sms; k++ {
		b := trace.ActivityBlock{Level: trace.LevelCore, SM: k}
		if k < sms {
			from, to := uint64(300*k), uint64(9000+100*k)
			b.Runs, b.Busy = [][2]uint64{{from, to}}, to-from
			if from > 0 {
				b.Idle = append(b.Idle, [2]uint64{from, 1})
			}
			b.Idle = append(b.Idle, [2]uint64{cycles - to, 1})
			if from == cycles-to {
				b.Idle = [][2]uint64{{from, 2}}
			}
		} else {
			b.Idle = [][2]uint64{{cycles, 1}}
		}
		a.Blocks = append(a.Blocks, b)
		if k == sms {
			continue
		}
		s := trace.ActivitySeries{SM: k, Unit: "sp", Units: 2, Lanes: 32}
		for i := 0; i < (cycles+w-1)/w; i++ {
			u := uint64((i*37+k*11)%(2*w)) * uint64(min(w, cycles-i*w)) / w
			s.UnitCycles, s.LaneCycles = append(s.UnitCycles, u), append(s.LaneCycles, u*12)
		}
		a.Series = append(a.Series, s)
	}
	return a
}

// TestViewBrowserActivity: a model run with recorded activity shows the
// GPU's activity rows, an SM without warps (its power state gated for the
// whole launch at the default BET), an SM's power-state and sp rows, and
// their details on click; changing the BET redraws.
func TestViewBrowserActivity(t *testing.T) {
	b := newBrowser(t)
	s := tt.Synth{Warps: 64, WarpsPerCTA: 4, Iters: 20, Loads: 2, NumSMs: 4, Timer: 1}
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "act.bundle")
	act := activitySynth(4)
	if err := act.Check(); err != nil {
		t.Fatal(err)
	}
	in := &trace.BundleInput{Raw: raw.Bytes(), Manifest: s.Manifest(), Meta: trace.RunMeta{Source: "model", ClockHz: 1.4e9}, Activity: act,
		Counters: []trace.Counter{{Name: "cycles", SM: -1, Value: 1}}}
	if err := trace.WriteBundleFile(path, in); err != nil {
		t.Fatal(err)
	}
	u := startView(t, path)
	b.run(t, "load", chromedp.Navigate(u))
	b.waitFor(t, `document.body.dataset.ready==="1" && +document.querySelector(".panel .track canvas").dataset.drawn > 0`)
	if n := b.evalInt(t, `document.querySelectorAll(".rowlabels div.act").length`); n != 2 {
		t.Errorf("GPU activity rows: %d, want 2 (power, sp)", n)
	}
	if n := b.evalInt(t, `document.querySelectorAll(".rowlabels div.sm").length`); n != 5 {
		t.Errorf("SM rows: %d, want 5 (SM 4 has activity but no warps)", n)
	}
	if l := b.text(t, ".rowlabels div.act.power"); l != "SMs with a CTA (of 5)" {
		t.Errorf("GPU power row %q", l)
	}
	// Expand SM 0 and SM 4.
	b.run(t, "expand SM 0", chromedp.Click(chromedp.CSS(`.rowlabels div.sm .tog`)))
	b.waitFor(t, `document.querySelectorAll(".rowlabels div.act").length === 4`)
	eval[bool](t, b, `(()=>{const r=[...document.querySelectorAll(".rowlabels div.sm")].pop(); r.querySelector(".tog").click(); return true})()`)
	b.waitFor(t, `document.querySelectorAll(".rowlabels div.act").length === 5`)
	b.waitFor(t, `panels[0].hitList.filter(h=>h.state).length === 3`)
	// SM 4: one state over the launch, gated (12000 ≥ BET 100).
	if st := eval[string](t, b, `panels[0].hitList.filter(h=>h.state && h.node.sm===4).map(h=>h.state.state+":"+h.state.s+"-"+h.state.e).join(",")`); st != "gated:0-12000" {
		t.Errorf("SM 4 states %q", st)
	}
	// SM 0: active [0, 9000), then gated.
	if st := eval[string](t, b, `panels[0].hitList.filter(h=>h.state && h.node.sm===0).map(h=>h.state.state).join(",")`); st != "active,gated" {
		t.Errorf("SM 0 states %q", st)
	}
	img := b.screenshot(t, "viewer-activity")
	if c := colours(img, b.rect(t, ".panel .track canvas")); c < 5 {
		t.Errorf("activity timeline: %d colours", c)
	}
	// Click the GPU sp row in its middle: details of a unit bucket.
	click := func(sel string) {
		t.Helper()
		r, c := b.rect(t, sel), b.rect(t, ".panel .track canvas")
		b.run(t, "click "+sel, chromedp.MouseClickXY(float64(c.Min.X+c.Dx()/2), float64(r.Min.Y+r.Dy()/2)))
	}
	click(".rowlabels div.act.unit")
	b.waitFor(t, `document.querySelector("#detailTable.activity")`)
	if d := b.text(t, "#detailTable"); !strings.Contains(d, "mean busy units") || !strings.Contains(d, " of 8 (") {
		t.Errorf("sp details: %s", d)
	}
	// A BET above SM 0's trailing idle interval (12000 − 9000 cycles)
	// turns it from gated to idle.
	b.run(t, "BET", chromedp.SetValue(chromedp.CSS(`#bet`), "5000"))
	eval[bool](t, b, `document.querySelector("#bet").dispatchEvent(new Event("change"))`)
	b.waitFor(t, `panels[0].hitList.filter(h=>h.state && h.node.sm===0).map(h=>h.state.state).join(",") === "active,idle"`)
	checkRequests(t, b, u)
}

// TestViewBrowserActivityRun: a real model run recorded with
// `run --activity` (hotspot, 4 launches) shows activity rows for every
// launch: the GPU's power and unit rows and, expanded, an SM's power
// state with at least one active interval.
func TestViewBrowserActivityRun(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	inst := filepath.Join(dir, "hotspot.ptx")
	if r := runCLI(t, "", "instrument", "--mode", "auto", "--no-ptxas", "-o", inst, "../../samples/hotspot/hotspot.sm_52.ptx"); r.code != 0 {
		t.Fatalf("instrument: %s", r.stderr)
	}
	run := filepath.Join(dir, "hotspot")
	if r := runCLI(t, "", "run", "--activity", "--launch", "../../launch/testdata/samples/hotspot/launch.yaml", "-o", run, inst); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	u := startView(t, run)
	b.run(t, "load", chromedp.Navigate(u))
	b.waitFor(t, `document.body.dataset.ready==="1" && +document.querySelector(".panel .track canvas").dataset.drawn > 0`)
	if n := b.evalInt(t, `document.querySelectorAll("#runA option").length`); n != 4 {
		t.Errorf("%d runs listed, want hotspot's 4 launches", n)
	}
	if n := b.evalInt(t, `document.querySelectorAll(".rowlabels div.act.unit").length`); n < 2 {
		t.Errorf("%d GPU unit rows, want at least sp and ldst", n)
	}
	// issue slots and stall reasons over time (the scheduler series)
	if n, p := b.evalInt(t, `document.querySelectorAll(".rowlabels div.act.issue").length`), b.evalInt(t, `document.querySelectorAll(".rowlabels div.act.power").length`); n != p {
		t.Errorf("%d issue-slot rows, want one per power row (%d)", n, p)
	}
	if n := b.evalInt(t, `document.querySelectorAll(".rowlabels div.act.stall").length`); n < 1 {
		t.Errorf("%d GPU stall rows, want at least one reason", n)
	}
	b.run(t, "expand SM 0", chromedp.Click(chromedp.CSS(`.rowlabels div.sm .tog`)))
	b.waitFor(t, `panels[0].hitList.some(h=>h.state && h.node.sm===0 && h.state.state==="active")`)
	b.waitFor(t, `panels[0].hitList.some(h=>h.act && h.node.sm===0 && h.node.track==="issue" && h.act.busy > 0)`)
	// every label sits on its canvas row (ROWH = 18 px): a label taller
	// than the row shifted the rows under it (one row after 18 labels)
	if bad := b.evalInt(t, `(()=>{const ds=[...document.querySelector(".panel .rowlabels").children]; return ds.filter((d,i)=>d.offsetTop-ds[0].offsetTop!==18*i).length})()`); bad != 0 {
		t.Errorf("%d row labels off their canvas rows", bad)
	}
	img := b.screenshot(t, "viewer-activity-run")
	if c := colours(img, b.rect(t, ".panel .track canvas")); c < 5 {
		t.Errorf("activity timeline: %d colours", c)
	}
	checkRequests(t, b, u)
}

// TestViewBrowserSweepCharts: three runs of one probe mode with the
// model's texture hit rate and cycles (as a sweep's entries have) get the
// frequency-vs-hit-rate and frequency-vs-frame-rate charts across runs,
// one point per run and Pearson's r in the legend.
func TestViewBrowserSweepCharts(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	var paths []string
	for i, warps := range []int{8, 16, 24} {
		s := tt.Synth{Warps: warps, WarpsPerCTA: 4, Iters: 3 + i, Loads: 2, NumSMs: 2, Timer: 1}
		var raw bytes.Buffer
		if _, err := s.WriteTo(&raw); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("shape%d.bundle", i))
		in := &trace.BundleInput{Raw: raw.Bytes(), Manifest: s.Manifest(),
			Meta:     trace.RunMeta{Source: "model", ClockHz: 1.4e9, Labels: map[string]string{"mode": "auto"}},
			Counters: []trace.Counter{{Name: trace.CounterTexHitRate, SM: -1, Value: 0.5 + 0.1*float64(i)}, {Name: trace.CounterKernelCycles, SM: -1, Value: float64(5000 * (i + 1))}}}
		if err := trace.WriteBundleFile(p, in); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	u := startView(t, paths...)
	b.run(t, "load", chromedp.Navigate(u))
	b.waitFor(t, `document.body.dataset.ready==="1"`)
	b.run(t, "charts tab", chromedp.Click(chromedp.CSS(`#tab-charts`)))
	b.waitFor(t, `document.querySelector("#chartsBody").dataset.ready === "1"`)
	if ids := eval[string](t, b, `[...document.querySelectorAll("#compareCharts .chart")].map(c=>c.dataset.id).join(",")`); ids != "fig5,corr_hitrate,corr_fps" {
		t.Errorf("charts across runs: %s (no ground truth: no probe error chart)", ids)
	}
	for _, id := range []string{"corr_hitrate", "corr_fps"} {
		sel := `#compareCharts .chart[data-id="` + id + `"]`
		if n := b.evalInt(t, `document.querySelectorAll('`+sel+` path.mark').length`); n != 3 {
			t.Errorf("%s: %d points, want 3", id, n)
		}
		if l := b.text(t, sel+" svg"); !strings.Contains(l, "auto (r = ") || !strings.Contains(l, "n = 3") {
			t.Errorf("%s legend lacks r: %.200s", id, l)
		}
	}
	b.screenshot(t, "viewer-sweep-charts")
	checkRequests(t, b, u)
}
