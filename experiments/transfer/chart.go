package transfer

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/viewers/svg"
)

// palette is Okabe–Ito (as viewers/svg), eight colours; series past the
// eighth repeat a colour with a dash pattern.
var palette = [...]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

const (
	panelW, panelH      = 470.0, 300.0
	marginL, marginT    = 70.0, 50.0
	plotW, plotH        = 300.0, 220.0
	legendX             = marginL + plotW + 12
	chartW, chartH      = 2 * panelW, 2*panelH + 60
	crossLabelMaxPerPan = 8
)

// Chart renders the sweep as one standalone SVG document: four log–log
// panels (h2d and d2h, single transfers and pairs), time (µs) against
// size (bytes), one line per method, crossovers as dashed vertical lines
// labelled "from→to". Output bytes depend only on the sweep.
func (sw *Sweep) Chart(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="Helvetica, Arial, sans-serif" font-size="11" role="img" aria-labelledby="t d">`+"\n",
		svg.Num(chartW), svg.Num(chartH), svg.Num(chartW), svg.Num(chartH))
	title := fmt.Sprintf("Host-device transfer time by method, model %s (PCIe %d.0 x%d)", sw.Spec.Name, sw.Spec.Link.Gen, sw.Spec.Link.Lanes)
	fmt.Fprintf(&b, "<title id=\"t\">%s</title>\n<desc id=\"d\">%s</desc>\n", svg.Escape(title),
		svg.Escape("Log-log time against size; crossovers where the fastest method changes: "+sw.crossText()))
	fmt.Fprintf(&b, "<rect width=\"%s\" height=\"%s\" fill=\"white\"/>\n", svg.Num(chartW), svg.Num(chartH))
	fmt.Fprintf(&b, "<text x=\"%s\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">%s</text>\n", svg.Num(chartW/2), svg.Escape(title))
	for pi, d := range []model.Direction{model.HostToDevice, model.DeviceToHost} {
		for pj, pair := range []bool{false, true} {
			sw.panel(&b, d, pair, float64(pj)*panelW, 40+float64(pi)*panelH)
		}
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

func (sw *Sweep) crossText() string {
	var b bytes.Buffer
	for i, c := range sw.Crossovers() {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s at %s %s to %s", c.Dir, kind(c.Pair), FormatBytes(c.Size), c.From, c.To)
	}
	return b.String()
}

func (sw *Sweep) panel(b *bytes.Buffer, d model.Direction, pair bool, ox, oy float64) {
	g := sw.group(d, pair)
	x0, y0 := ox+marginL, oy+marginT
	lx := func(size int64) float64 { return math.Log2(float64(size)) }
	xlo, xhi := lx(sw.Sizes[0]), lx(sw.Sizes[len(sw.Sizes)-1])
	if xhi == xlo {
		xlo, xhi = xlo-1, xhi+1
	}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, s := range g {
		for _, ps := range s.Ps {
			v := math.Log10(float64(ps) / 1e6)
			ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
		}
	}
	ylo, yhi = math.Floor(ylo), math.Ceil(yhi)
	if yhi == ylo {
		yhi++
	}
	px := func(v float64) float64 { return x0 + (v-xlo)/(xhi-xlo)*plotW }
	py := func(v float64) float64 { return y0 + plotH - (v-ylo)/(yhi-ylo)*plotH }
	name := d.String() + " " + kind(pair)
	if pair {
		name = d.String() + ", two transfers (+ sequential, | overlapped)"
	} else {
		name = d.String() + ", single transfer"
	}
	fmt.Fprintf(b, "<g class=\"panel\" id=\"%s-%s\">\n", d, kind(pair))
	fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\" font-size=\"13\">%s</text>\n", svg.Num(x0), svg.Num(y0-14), svg.Escape(name))
	fmt.Fprintf(b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#444\"/>\n", svg.Num(x0), svg.Num(y0), svg.Num(plotW), svg.Num(plotH))
	// y: one tick per decade.
	for v := ylo; v <= yhi; v++ {
		y := py(v)
		fmt.Fprintf(b, "<path d=\"M%s %sH%s\" stroke=\"#ddd\"/><text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
			svg.Num(x0), svg.Num(y), svg.Num(x0+plotW), svg.Num(x0-4), svg.Num(y+4), svg.Escape(decade(v)))
	}
	fmt.Fprintf(b, "<text transform=\"translate(%s %s) rotate(-90)\" text-anchor=\"middle\">time (µs, log)</text>\n", svg.Num(ox+16), svg.Num(y0+plotH/2))
	// x: a tick every 4 powers of two from the first size.
	for i, s := range sw.Sizes {
		if i%4 != 0 && i != len(sw.Sizes)-1 {
			continue
		}
		x := px(lx(s))
		fmt.Fprintf(b, "<path d=\"M%s %sV%s\" stroke=\"#ddd\"/><text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
			svg.Num(x), svg.Num(y0), svg.Num(y0+plotH), svg.Num(x), svg.Num(y0+plotH+14), svg.Escape(FormatBytes(s)))
	}
	fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">size (bytes, log)</text>\n", svg.Num(x0+plotW/2), svg.Num(y0+plotH+30))
	// crossovers
	n := 0
	for _, c := range sw.Crossovers() {
		if c.Dir != d || c.Pair != pair {
			continue
		}
		x := px(lx(c.Size))
		fmt.Fprintf(b, "<path class=\"crossover\" d=\"M%s %sV%s\" stroke=\"#888\" stroke-dasharray=\"3 3\"><title>%s</title></path>\n",
			svg.Num(x), svg.Num(y0), svg.Num(y0+plotH), svg.Escape(fmt.Sprintf("at %s: %s → %s", FormatBytes(c.Size), c.From, c.To)))
		if n < crossLabelMaxPerPan {
			fmt.Fprintf(b, "<text class=\"crosslabel\" x=\"%s\" y=\"%s\" font-size=\"9\" fill=\"#555\">%s</text>\n",
				svg.Num(x+2), svg.Num(y0+10+float64(n)*10), svg.Escape(c.From+"→"+c.To))
		}
		n++
	}
	// lines and legend
	for j, s := range g {
		color := palette[j%len(palette)]
		dash := ""
		if j >= len(palette) {
			dash = ` stroke-dasharray="6 3"`
		}
		var p bytes.Buffer
		for i, ps := range s.Ps {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&p, "%s%s %s", cmd, svg.Num(px(lx(sw.Sizes[i]))), svg.Num(py(math.Log10(float64(ps)/1e6))))
		}
		fmt.Fprintf(b, "<path class=\"line s%d\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s><title>%s</title></path>\n",
			j, p.String(), color, dash, svg.Escape(s.Name))
		ly := y0 + 6 + float64(j)*16
		fmt.Fprintf(b, "<path d=\"M%s %sh18\" stroke=\"%s\" stroke-width=\"2\"%s/><text x=\"%s\" y=\"%s\">%s</text>\n",
			svg.Num(ox+legendX), svg.Num(ly), color, dash, svg.Num(ox+legendX+22), svg.Num(ly+4), svg.Escape(s.Name))
	}
	b.WriteString("</g>\n")
}

// decade labels 10^v µs.
func decade(v float64) string {
	e := int(v)
	switch {
	case e >= 0:
		return fmt.Sprintf("%.0f", math.Pow(10, float64(e)))
	default:
		return fmt.Sprintf("%g", math.Pow(10, float64(e)))
	}
}
