package svg

import "strings"

// Palette is the default series palette: the Okabe–Ito colours (safe for
// the common colour-vision deficiencies), ordered so that neighbouring
// series also differ in lightness and stay apart in greyscale print. Yellow
// is left out because it vanishes on white paper.
var Palette = []string{
	"#0072B2", // blue
	"#D55E00", // vermillion
	"#009E73", // bluish green
	"#E69F00", // orange
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#000000", // black
	"#999999", // grey
}

// Marker is a point glyph of a scatter or line series. Series get distinct
// markers in this order, so series stay apart in greyscale print.
type Marker int

const (
	MarkerCircle Marker = iota
	MarkerSquare
	MarkerTriangle
	MarkerDiamond
	MarkerTriangleDown
	MarkerCross
	MarkerPlus
	numMarkers
)

func (m Marker) String() string {
	switch m {
	case MarkerCircle:
		return "circle"
	case MarkerSquare:
		return "square"
	case MarkerTriangle:
		return "triangle"
	case MarkerDiamond:
		return "diamond"
	case MarkerTriangleDown:
		return "triangle-down"
	case MarkerCross:
		return "cross"
	case MarkerPlus:
		return "plus"
	}
	return "circle"
}

// stroked reports whether the marker is drawn with a stroke only.
func (m Marker) stroked() bool { return m == MarkerCross || m == MarkerPlus }

// markerPath returns the path data of marker m centred at (x,y) with
// "radius" r. Every glyph is a single path so a test can count marks.
func markerPath(m Marker, x, y, r float64) string {
	var b strings.Builder
	p := func(cmd string, px, py float64) {
		b.WriteString(cmd)
		b.WriteString(Num(px))
		b.WriteByte(' ')
		b.WriteString(Num(py))
	}
	switch ((m % numMarkers) + numMarkers) % numMarkers {
	case MarkerSquare:
		s := r * 0.9
		p("M", x-s, y-s)
		b.WriteString("h" + Num(2*s) + "v" + Num(2*s) + "h" + Num(-2*s) + "z")
	case MarkerTriangle:
		h := r * 1.15
		p("M", x, y-h)
		p("L", x+h, y+h*0.8)
		p("L", x-h, y+h*0.8)
		b.WriteByte('z')
	case MarkerTriangleDown:
		h := r * 1.15
		p("M", x, y+h)
		p("L", x+h, y-h*0.8)
		p("L", x-h, y-h*0.8)
		b.WriteByte('z')
	case MarkerDiamond:
		h := r * 1.25
		p("M", x, y-h)
		p("L", x+h, y)
		p("L", x, y+h)
		p("L", x-h, y)
		b.WriteByte('z')
	case MarkerCross:
		p("M", x-r, y-r)
		p("L", x+r, y+r)
		p("M", x-r, y+r)
		p("L", x+r, y-r)
	case MarkerPlus:
		h := r * 1.2
		p("M", x-h, y)
		p("L", x+h, y)
		p("M", x, y-h)
		p("L", x, y+h)
	default: // circle: two arcs
		p("M", x-r, y)
		b.WriteString("a" + Num(r) + " " + Num(r) + " 0 1 0 " + Num(2*r) + " 0")
		b.WriteString("a" + Num(r) + " " + Num(r) + " 0 1 0 " + Num(-2*r) + " 0z")
	}
	return b.String()
}
