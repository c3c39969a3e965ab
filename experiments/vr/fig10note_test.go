package vr

import (
	"bytes"
	"strings"
	"testing"

	"math"

	"github.com/ptxtrace/ptxtrace/analysis"
)

// TestFig10IdleWarpNote: a warp without accesses is left out of Fig. 10
// with a note saying why, not counted as a skipped (bad) value.
func TestFig10IdleWarpNote(t *testing.T) {
	ws := []analysis.WarpStats{{Warp: 0, SM: 0}, {Warp: 1, SM: 0}, {Warp: 2, SM: 1}}
	ws[0].Accesses, ws[0].Memory, ws[0].MeanAccess = 2, 100, 50
	ws[1].MeanAccess = math.NaN()
	fig10, _ := warpCharts("auto", Shape{X: 1, Y: 128}, ws, []float64{1, 2}, 0, "gtx480")
	if len(fig10.Categories) != 1 || fig10.Categories[0] != "0" {
		t.Fatalf("categories %v", fig10.Categories)
	}
	var b bytes.Buffer
	if err := fig10.Render(&b); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "Not shown: warp(s) 1 on SM 0 made no texture access") || strings.Contains(s, "skipped") {
		t.Errorf("footnote wrong:\n%s", s)
	}
}
