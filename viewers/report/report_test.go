package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func chart(t *testing.T) []byte {
	c := &svg.BarChart{
		Title:      "Memory vs other time",
		Categories: []string{"1×128\nnaive", "1×128\nproposed"},
		Series:     []svg.BarSeries{{Name: "memory", Values: []float64{20, 80}}, {Name: "other", Values: []float64{80, 20}}},
		Mode:       svg.Stacked100,
	}
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sample(t *testing.T) *Report {
	return &Report{
		Title:     "ptxtrace report: vr <volume rendering> & friends",
		Intro:     "Memory time measured with naive and proposed probes.\n\nSecond paragraph.",
		Generated: "ptxtrace devel, preset gtx480",
		Summary: &Table{Caption: "Summary", Columns: []string{"shape", "mode", "memory share", "cycles"},
			Rows: [][]string{{"1×128", "naive", "20.0 %", "1,234,567"}, {"1×128", "proposed", "80.0 %"}}},
		Sections: []Section{
			{Title: "Memory share (Fig. 5)", Text: "Stacked to 100 %.", SVG: chart(t)},
			{Title: "Timeline", Href: "charts/fig6.svg", Table: &Table{Rows: [][]string{{"a", "-3.5e4"}}}},
		},
		Links: []Link{
			{Href: "trace.csv", Desc: "one row per probe record"},
			{Href: "trace.clog2", Label: "CLOG2", Desc: "for Jumpshot"},
			{Href: "trace.perfetto", Desc: "open in ui.perfetto.dev"},
			{Href: "javascript:alert(1)", Label: "bad"},
		},
	}
}

func TestGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sample(t).Render(&b); err != nil {
		t.Fatal(err)
	}
	got := b.Bytes()
	path := filepath.Join("testdata", "report.html")
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
		t.Errorf("report.html differs from the golden file (go test -update rewrites it)")
	}
	var b2 bytes.Buffer
	sample(t).Render(&b2)
	if !bytes.Equal(got, b2.Bytes()) {
		t.Error("two renders differ")
	}
	s := string(got)
	for _, want := range []string{
		"&lt;volume rendering&gt; &amp; friends",
		`<td class="num">1,234,567</td>`,
		`<td class="num">20.0 %</td>`,
		`<td>naive</td>`,
		"<svg xmlns=",
		`<img src="charts/fig6.svg" alt="Timeline">`,
		`<a href="trace.csv">trace.csv</a>`,
		`#ZgotmplZ`, // javascript: neutralised
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<link", "@import", "src=\"http", "javascript:"} {
		if strings.Contains(s, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
}

func TestRejects(t *testing.T) {
	bad := map[string]string{
		"script":  `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"onload":  `<svg xmlns="http://www.w3.org/2000/svg" onload="x()"/>`,
		"href":    `<svg xmlns="http://www.w3.org/2000/svg"><image href="http://x/y.png"/></svg>`,
		"url":     `<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(http://x/#a)"/></svg>`,
		"style":   `<svg xmlns="http://www.w3.org/2000/svg"><style>body{}</style></svg>`,
		"notsvg":  `<html/>`,
		"broken":  `<svg><g></svg>`,
		"foreign": `<svg><foreignObject/></svg>`,
		"two":     `<svg/><svg/>`,
		"empty":   ``,
	}
	for name, s := range bad {
		if err := CheckSVG([]byte(s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := CheckSVG(append([]byte(`<?xml version="1.0"?>`+"\n"), chart(t)...)); err != nil {
		t.Errorf("chart with declaration rejected: %v", err)
	}
	for _, r := range []*Report{
		{Sections: []Section{{Href: "http://example.com/x.svg"}}},
		{Sections: []Section{{Href: "/etc/x.svg"}}},
		{Sections: []Section{{SVG: []byte("<svg/>"), Href: "x.svg"}}},
		{Summary: &Table{Columns: []string{"a"}, Rows: [][]string{{"1", "2"}}}},
	} {
		var b bytes.Buffer
		if err := r.Render(&b); err == nil {
			t.Errorf("%+v: accepted", r)
		}
		if b.Len() != 0 {
			t.Error("wrote output despite the error")
		}
	}
	var b bytes.Buffer
	if err := (&Report{}).Render(&b); err != nil {
		t.Errorf("empty report: %v", err)
	}
}
