package dualflow

import (
	"strings"
	"testing"
)

// TestCDF: two instructions, the first issued twice with sources at
// distances 1 and 3, the second once with one at distance 1: operands at
// distance 1: 2+1 = 3, at 3: 2; cumulative 3/5, 5/5.
func TestCDF(t *testing.T) {
	c := &Counts{
		PerInst: map[string][]uint64{"k": {2, 1}},
		Flat:    map[string][]*DInst{"k": {{Srcs: []Src{{"%r1", 1}, {"%r2", 3}}}, {Srcs: []Src{{"%r3", 1}}}}},
	}
	rows := CDF([]*Result{{Sample: "s", Counts: c}})
	var b strings.Builder
	if err := WriteCDFCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "sample,kernel,distance,operands,cumulative\ns,k,1,3,0.600000\ns,k,3,2,1.000000\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	var svg strings.Builder
	if err := WriteCDFSVG(&svg, rows, 100); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg.String(), "<svg") || !strings.Contains(svg.String(), "s/k") {
		t.Errorf("SVG lacks the series")
	}
}
