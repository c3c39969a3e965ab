package timeline

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func render(t testing.TB, tl *Timeline) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tl.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sample() *Timeline {
	var rows []Row
	for w := 0; w < 4; w++ {
		var ss []Span
		t := int64(100 + w*30)
		for i := 0; i < 6; i++ {
			ss = append(ss, Span{Start: t, End: t + 40, Kind: "other", Label: fmt.Sprintf("compute %d", i)})
			t += 40
			ss = append(ss, Span{Start: t, End: t + int64(200+(w*37+i*53)%300), Kind: "memory", Label: fmt.Sprintf("tex.3d line %d", 40+i)})
			t = ss[len(ss)-1].End
		}
		rows = append(rows, Row{Label: fmt.Sprintf("SM 0 / CTA %d / warp %d", w/2, w%2), Spans: ss})
	}
	rows[3].Spans = append(rows[3].Spans, Span{Start: 10, End: 5, Kind: "memory"}) // invalid
	return &Timeline{Title: "Warps of SM 0 <sample> & more", Rows: rows}
}

// svgPart returns the <svg>…</svg> element of the page.
func svgPart(t testing.TB, page []byte) []byte {
	t.Helper()
	i := bytes.Index(page, []byte("<svg"))
	j := bytes.Index(page, []byte("</svg>"))
	if i < 0 || j < i {
		t.Fatal("no svg element")
	}
	return page[i : j+len("</svg>")]
}

// rects decodes the SVG with encoding/xml and returns the bar rects.
func bars(t testing.TB, page []byte) []map[string]string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svgPart(t, page)))
	var out []map[string]string
	depthInBars := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("svg not well-formed: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			a := map[string]string{}
			for _, at := range e.Attr {
				a[at.Name.Local] = at.Value
			}
			if e.Name.Local == "g" && a["id"] == "bars" {
				depthInBars = 1
				continue
			}
			if depthInBars > 0 {
				depthInBars++
				if e.Name.Local == "rect" {
					out = append(out, a)
				}
			}
		case xml.EndElement:
			if depthInBars > 0 {
				depthInBars--
			}
		}
	}
	return out
}

func TestGolden(t *testing.T) {
	got := render(t, sample())
	path := filepath.Join("testdata", "sample.html")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("sample.html differs from the golden file (go test -update rewrites it)")
	}
	if !bytes.Equal(got, render(t, sample())) {
		t.Error("two renders differ")
	}
	bs := bars(t, got)
	if len(bs) != 4*12 {
		t.Errorf("%d bars, want 48 (the invalid span is not drawn)", len(bs))
	}
	if !bytes.Contains(got, []byte("Spans with end &lt; start, not drawn: 1.")) {
		t.Error("invalid span not reported")
	}
	if bytes.Contains(got, []byte("<sample>")) {
		t.Error("title not escaped")
	}
	for _, bad := range []string{"http://", "https://", "src=", "<link"} {
		if n := bytes.Count(got, []byte(bad)); bad == "http://" && n != 2 || bad != "http://" && n != 0 {
			// The only URL is the SVG namespace (in the markup and the script).
			t.Errorf("%q occurs %d times", bad, n)
		}
	}
}

func TestScriptSize(t *testing.T) {
	if n := strings.Count(script, "\n"); n > 200 {
		t.Errorf("zoom script has %d lines, the budget is 200", n)
	}
	if strings.Contains(script, "</script") {
		t.Error("script contains its own end tag")
	}
}

func TestAggregation(t *testing.T) {
	var rows []Row
	for r := 0; r < 50; r++ {
		var ss []Span
		for i := int64(0); i < 1000; i++ {
			k := "other"
			if i%2 == 1 {
				k = "memory"
			}
			ss = append(ss, Span{Start: i * 10, End: i*10 + 9, Kind: k})
		}
		rows = append(rows, Row{Label: fmt.Sprint("row ", r), Spans: ss})
	}
	tl := &Timeline{Rows: rows, Options: Options{MaxSpans: 5000}}
	p := tl.Layout()
	if !p.Aggregated() || p.SpansDrawn > 5000 || p.RowsDrawn != 50 || p.Spans != 50000 {
		t.Fatalf("plan %+v", p)
	}
	page := render(t, tl)
	bs := bars(t, page)
	if len(bs) != p.SpansDrawn {
		t.Errorf("%d bars, plan says %d", len(bs), p.SpansDrawn)
	}
	// Every span is in exactly one bar: merged counts add up.
	re := regexp.MustCompile(`<title>(\d+) (memory|other) spans merged`)
	total := 0
	for _, m := range re.FindAllSubmatch(page, -1) {
		var n int
		fmt.Sscan(string(m[1]), &n)
		total += n
	}
	single := bytes.Count(page, []byte(" cycles</title>")) - len(re.FindAll(page, -1))
	if total+single != 50000 {
		t.Errorf("merged %d + single %d spans, want 50000", total, single)
	}
	if !bytes.Contains(page, []byte("merged into one bar")) {
		t.Error("aggregation not explained on the page")
	}
	// Too many rows for the cap: rows are dropped.
	tl.MaxSpans = 10
	p = tl.Layout()
	if p.RowsDrawn != 5 || p.SpansDrawn > 10 {
		t.Errorf("tiny cap: plan %+v", p)
	}
	render(t, tl)
}

func TestDegenerate(t *testing.T) {
	for _, tl := range []*Timeline{
		{},
		{Rows: []Row{{Label: "empty"}}},
		{Rows: []Row{{Label: "\x00\xff<", Spans: []Span{{Start: 5, End: 5, Kind: "<x>"}}}}},
		{Rows: []Row{{Spans: []Span{{Start: -1 << 62, End: 1 << 62}}}}, Options: Options{Colors: map[string]string{"other": "red;}</style>"}}},
	} {
		page := render(t, tl)
		bars(t, page)
		if bytes.Contains(page, []byte("red;}")) {
			t.Error("unsafe colour used")
		}
	}
}

func BenchmarkTimeline100k(b *testing.B) {
	var rows []Row
	for r := 0; r < 100; r++ {
		var ss []Span
		for i := int64(0); i < 1000; i++ {
			ss = append(ss, Span{Start: i * 10, End: i*10 + 7, Kind: []string{"memory", "other"}[i%2]})
		}
		rows = append(rows, Row{Label: fmt.Sprint("warp ", r), Spans: ss})
	}
	tl := &Timeline{Rows: rows}
	b.ReportAllocs()
	for b.Loop() {
		if err := tl.Render(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100000*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
}

// TestSVG checks the standalone chart: the page's drawing (same bars and
// positions) with colours as attributes, no script, no style sheet, and a
// form viewers/report accepts for inlining.
func TestSVG(t *testing.T) {
	tl := sample()
	var b bytes.Buffer
	if err := tl.SVG(&b); err != nil {
		t.Fatal(err)
	}
	got := b.Bytes()
	if err := htmlreport.CheckSVG(got); err != nil {
		t.Fatalf("CheckSVG: %v", err)
	}
	for _, bad := range []string{"<script", "<style", "id=\"sel\""} {
		if bytes.Contains(got, []byte(bad)) {
			t.Errorf("standalone SVG contains %q", bad)
		}
	}
	page := bars(t, render(t, tl))
	own := bars(t, got)
	if len(own) != len(page) || len(own) != 48 {
		t.Fatalf("%d bars, page %d, want 48", len(own), len(page))
	}
	for i := range own {
		if own[i]["x"] != page[i]["x"] || own[i]["width"] != page[i]["width"] || own[i]["class"] != page[i]["class"] {
			t.Errorf("bar %d: %v, page %v", i, own[i], page[i])
		}
		// memory is kind 0 (blue), other kind 1 (grey): package doc.
		want := map[string]string{"k0": "#0072B2", "k1": "#B0B0B0"}[own[i]["class"]]
		if own[i]["fill"] != want {
			t.Errorf("bar %d class %s fill %q, want %q", i, own[i]["class"], own[i]["fill"], want)
		}
	}
	tot := tl.Totals()
	if len(tot) != 2 || tot[0].Kind != "memory" || tot[0].Spans != 24 || tot[1].Kind != "other" || tot[1].Spans != 24 || tot[1].Busy != 24*40 {
		t.Errorf("totals %+v", tot)
	}
	if info := tl.Info(); !strings.Contains(info, "4 rows, 48 spans") || !strings.Contains(info, "end < start, not drawn: 1") {
		t.Errorf("Info = %q", info)
	}
}
