package vr

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	htmlreport "github.com/ptxtrace/ptxtrace/viewers/report"
)

func TestDemoCharts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	ms := gtx480(t)
	sc := Scene{Image: 16, Volume: 16, Kind: "sphere"}
	var runs []*Result
	for _, mode := range []string{"naive", "auto"} {
		k, err := Instrument(mode, Capacity(), "test")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), RunOptions{Code: k, Model: ms, Scene: sc, Shape: Shape{1, 128}, KeepBundle: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Bundle) == 0 || r.Trace != nil {
			t.Errorf("%s: KeepBundle without KeepTrace: bundle %d bytes, trace kept %v", mode, len(r.Bundle), r.Trace != nil)
		}
		runs = append(runs, r)
	}
	cs, err := DemoCharts(runs, sc, ms.Name)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		if err := htmlreport.CheckSVG(c.SVG); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if want := []string{"fig5_share.svg", "probe_error.svg", "fig10_warps_1x128.svg", "fig11_warp_1x128.svg"}; !reflect.DeepEqual(names, want) {
		t.Errorf("charts %v, want %v", names, want)
	}
	var page bytes.Buffer
	if err := DemoReport(runs, sc, View{}, ms.Name, cs, nil, "test").Render(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<td>naive</td>", "<td>auto</td>", `src="fig5_share.svg"`, "16×16 image of a 16³ sphere volume"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	app, err := Instrument("", Capacity(), "test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), RunOptions{Code: app, Model: ms, Scene: sc, Shape: Shape{1, 128}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DemoCharts([]*Result{r}, sc, ms.Name); err == nil {
		t.Error("DemoCharts accepted an uninstrumented run")
	}
}
