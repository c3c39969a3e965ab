package svg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestPointLabelsDoNotOverlap: clustered labelled points (the sweep's
// block shapes often fall close together) get label boxes that overlap
// neither each other nor leave the plot.
func TestPointLabelsDoNotOverlap(t *testing.T) {
	var pts []Point
	for i := 0; i < 9; i++ {
		pts = append(pts, Point{X: 1 + float64(i%3)*0.01, Y: 1 + float64(i/3)*0.01, Label: fmt.Sprintf("%d×%d", 1<<i, 256>>i)})
	}
	pts = append(pts, Point{X: 5, Y: 5, Label: "far"})
	c := &ScatterChart{Title: "t", Series: []ScatterSeries{{Name: "a", Points: pts}}, PointLabels: true}
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		t.Fatal(err)
	}
	type tb struct{ x0, y0, x1, y1 float64 }
	var boxes []tb
	dec := xml.NewDecoder(&b)
	in := false
	var cur tb
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if e.Name.Local == "g" {
				for _, a := range e.Attr {
					if a.Name.Local == "class" && a.Value == "point-labels" {
						in = true
					}
				}
			}
			if in && e.Name.Local == "text" {
				var x, y, fs float64
				for _, a := range e.Attr {
					v, _ := strconv.ParseFloat(a.Value, 64)
					switch a.Name.Local {
					case "x":
						x = v
					case "y":
						y = v
					case "font-size":
						fs = v
					}
				}
				cur = tb{x0: x, y0: y - fs*0.8, y1: y + fs*0.2}
				cur.x1 = fs
			}
		case xml.CharData:
			if in && cur.x1 > 0 {
				fs := cur.x1
				cur.x1 = cur.x0 + textWidth(strings.TrimSpace(string(e)), fs)
				boxes = append(boxes, cur)
				cur = tb{}
			}
		case xml.EndElement:
			if e.Name.Local == "g" {
				in = false
			}
		}
	}
	if len(boxes) != len(pts) {
		t.Fatalf("%d labels, want %d", len(boxes), len(pts))
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			a, c := boxes[i], boxes[j]
			if a.x0 < c.x1-0.01 && c.x0 < a.x1-0.01 && a.y0 < c.y1-0.01 && c.y0 < a.y1-0.01 {
				t.Errorf("labels %d %+v and %d %+v overlap", i, a, j, c)
			}
		}
	}
}

// TestCoincidingSeries: a series equal to an earlier one is drawn dashed
// and named in a note.
func TestCoincidingSeries(t *testing.T) {
	c := &LineChart{Title: "t", Series: []LineSeries{{Name: "naive", Y: []float64{1, 2, 3}}, {Name: "auto", Y: []float64{1, 2, 3}}, {Name: "app", Y: []float64{3, 2, 1}}}}
	var b bytes.Buffer
	if err := c.Render(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.Contains(s, "auto coincides with naive (drawn over it, dashed).") {
		t.Error("no note for the coinciding series")
	}
	if strings.Contains(s, "app coincides") {
		t.Error("note for a distinct series")
	}
	if !strings.Contains(s, `class="line s1" `) || strings.Count(s, `stroke-dasharray="6 3"`) < 2 {
		t.Error("second series (and its legend line) not dashed")
	}
}
