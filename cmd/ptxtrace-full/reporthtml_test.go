package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
)

// TestReportHTML writes `report --html` for a synthetic run and checks
// that the page is well-formed, self-contained, inlines only safe SVG, and
// draws every region of every warp in its timeline at the region's times.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "r.bundle")
	writeBundle(t, run, smallSynth, trace.RunMeta{ClockHz: 1e9})
	out := filepath.Join(dir, "report.html")
	r := runCLI(t, "", "report", "--html", out, run)
	if r.code != 0 || !strings.Contains(r.stdout, "memory share:") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || bytes.Contains(page, []byte("<script")) {
		t.Fatal("not a static HTML page")
	}
	// Well-formed: every element closed (HTML void elements auto-closed).
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict, dec.AutoClose, dec.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page not well-formed: %v", err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if depth != 0 {
		t.Fatalf("page ends at depth %d", depth)
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAll(page, -1)
	if len(svgs) != 3 {
		t.Fatalf("%d inline charts, want region, warp and timeline charts", len(svgs))
	}
	for i, s := range svgs {
		if err := htmlreport.CheckSVG(s); err != nil {
			t.Errorf("chart %d: %v", i, err)
		}
	}

	// The timeline: one row per warp, one bar per region at its times.
	tr := regionsOf(t, run)
	tl := svgs[2]
	if !bytes.Contains(tl, []byte(`id="tl"`)) {
		t.Fatal("third chart is not the timeline")
	}
	for _, w := range tr.Warps {
		label := fmt.Sprintf("SM %d / CTA %d,%d,%d / warp %d", w.SM, w.CTA[0], w.CTA[1], w.CTA[2], w.WarpInCTA)
		if !bytes.Contains(tl, []byte(">"+label+"<")) {
			t.Errorf("timeline lacks row %q", label)
		}
	}
	t0 := uint64(1<<64 - 1)
	var want []string
	for _, rg := range tr.Regions {
		t0 = min(t0, rg.Start)
	}
	for _, rg := range tr.Regions {
		want = append(want, fmt.Sprintf("%d-%d", rg.Start-t0, rg.End-t0))
	}
	var got []string
	for _, m := range regexp.MustCompile(`data-s="(\d+)" data-e="(\d+)"`).FindAllSubmatch(tl, -1) {
		got = append(got, string(m[1])+"-"+string(m[2]))
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) != smallSynth.Warps*smallSynth.Iters*(1+smallSynth.Loads) || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("timeline bars %d, regions %d (%d expected by construction):\n got %v\nwant %v", len(got), len(want),
			smallSynth.Warps*smallSynth.Iters*(1+smallSynth.Loads), got, want)
	}
	legend := `<td>memory</td><td class="num">` + strconv.Itoa(smallSynth.Warps*smallSynth.Iters*smallSynth.Loads) + `</td>`
	if !strings.Contains(string(page), legend) {
		t.Errorf("legend lacks %s", legend)
	}

	// Deterministic, and a failed write leaves no file.
	out2 := filepath.Join(dir, "again.html")
	if r := runCLI(t, "", "report", "--html", out2, run); r.code != 0 {
		t.Fatalf("second run: exit %d", r.code)
	}
	if again, _ := os.ReadFile(out2); !bytes.Equal(again, page) {
		t.Error("two renders differ")
	}
	bad := filepath.Join(dir, "missing", "x.html")
	if r := runCLI(t, "", "report", "--html", bad, run); r.code != 1 {
		t.Errorf("unwritable --html: exit %d", r.code)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("file written despite the error")
	}
}
