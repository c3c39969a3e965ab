package report

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Report is the content of report.html.
type Report struct {
	Title string
	// Intro is shown under the title; blank lines separate paragraphs.
	Intro string
	// Generated is a free-form provenance line ("ptxtrace v0.3, preset
	// gtx480, sample vr"). Render reads no clock: pass a date here if one is
	// wanted, knowing it makes the output differ between runs.
	Generated string
	// Summary is the table shown first (nil: none).
	Summary  *Table
	Sections []Section
	// Links lists the other output files (CSV, Parquet, CLOG2, Perfetto
	// trace, pprof profile, timeline.html, …).
	Links []Link
}

// Table is a table of strings. Rows shorter than Columns are padded with
// empty cells; longer ones are an error. Cells that look like numbers
// ("12", "-3.5e4", "45.1 %", "1,024") are right-aligned.
type Table struct {
	Caption string
	Columns []string
	Rows    [][]string
}

// Section is one titled part of the report: text, then a chart (inline
// SVG or a linked image file), then an optional table.
type Section struct {
	Title string
	// Text is shown before the chart; blank lines separate paragraphs.
	Text string
	// SVG is a chart to inline (e.g. from viewers/svg). It must pass
	// CheckSVG. Charts inlined in one page need distinct ids: give them
	// distinct titles or set svg.Options.IDPrefix.
	SVG []byte
	// Href links a chart file instead (shown with <img>); it must be a
	// relative path, so the report never loads anything from elsewhere.
	Href string
	// Alt is the image's alternative text for Href (default Title).
	Alt   string
	Table *Table
}

// Link is an entry of the "Files" list.
type Link struct {
	Href  string // usually a relative path next to report.html
	Label string // default Href
	Desc  string
}

//go:embed report.html.tmpl
var files embed.FS

// reportTmpl parses the embedded template on first use, not at package init
// (ptxtrace's quick commands link this package but never render a report).
var reportTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		"paras":   paras,
		"numeric": numeric,
	}).ParseFS(files, "report.html.tmpl"))
})

var numRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+−]?[0-9][0-9,]*(\.[0-9]+)?([eE][-+]?[0-9]+)?\s*%?$|^[-+]?\.[0-9]+$`)
})

func numeric(s string) bool { return numRE().MatchString(strings.TrimSpace(s)) }

func paras(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`\n\s*\n`).Split(strings.TrimSpace(s), -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// view is what the template sees.
type view struct {
	*Report
	Summary  *tableView
	Sections []sectionView
	Links    []Link
}

type tableView struct {
	Caption string
	Columns []string
	Rows    [][]cell
}

type cell struct {
	Text string
	Num  bool
}

type sectionView struct {
	Section
	ID     string
	Inline template.HTML
	Table  *tableView
}

func tableOf(t *Table, where string) (*tableView, error) {
	if t == nil {
		return nil, nil
	}
	v := &tableView{Caption: t.Caption, Columns: t.Columns}
	for i, r := range t.Rows {
		if len(t.Columns) > 0 && len(r) > len(t.Columns) {
			return nil, fmt.Errorf("report: %s: row %d has %d cells for %d columns", where, i+1, len(r), len(t.Columns))
		}
		n := max(len(r), len(t.Columns))
		row := make([]cell, n)
		for j := range row {
			if j < len(r) {
				row[j] = cell{Text: r[j], Num: numeric(r[j])}
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// Render writes report.html: one self-contained page (CSS inline, charts
// inline or linked by relative path, no scripts, nothing fetched).
func (r *Report) Render(w io.Writer) error {
	v := view{Report: r}
	var err error
	if v.Summary, err = tableOf(r.Summary, "summary table"); err != nil {
		return err
	}
	for i, s := range r.Sections {
		sv := sectionView{Section: s, ID: fmt.Sprintf("s%d", i+1)}
		if len(s.SVG) > 0 && s.Href != "" {
			return fmt.Errorf("report: section %d %q: set SVG or Href, not both", i+1, s.Title)
		}
		if len(s.SVG) > 0 {
			body, err := inlineSVG(s.SVG)
			if err != nil {
				return fmt.Errorf("report: section %d %q: %w", i+1, s.Title, err)
			}
			sv.Inline = template.HTML(body) // checked by inlineSVG
		}
		if s.Href != "" && !relative(s.Href) {
			return fmt.Errorf("report: section %d %q: chart href %q is not a relative path", i+1, s.Title, s.Href)
		}
		if sv.Alt == "" {
			sv.Alt = s.Title
		}
		if sv.Table, err = tableOf(s.Table, fmt.Sprintf("section %d table", i+1)); err != nil {
			return err
		}
		v.Sections = append(v.Sections, sv)
	}
	for _, l := range r.Links {
		if l.Label == "" {
			l.Label = l.Href
		}
		v.Links = append(v.Links, l)
	}
	var b bytes.Buffer
	if err := reportTmpl().Execute(&b, v); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// relative reports whether href is a relative reference without scheme or
// host (a path next to the report).
func relative(href string) bool {
	u, err := url.Parse(href)
	return err == nil && u.Scheme == "" && u.Host == "" && !strings.HasPrefix(href, "//") && !strings.HasPrefix(href, "/")
}

// CheckSVG reports whether b is safe to inline: well-formed XML whose root
// is an <svg> element, with no <script>, <foreignObject>, <iframe>,
// <image> or <use> of an outside document, no on* event attributes and no
// href/src pointing anywhere but a fragment ("#id") of the same document.
func CheckSVG(b []byte) error {
	_, err := inlineSVG(b)
	return err
}

// inlineSVG checks b and returns it from the root element on (an XML
// declaration, doctype or comments before it are dropped).
func inlineSVG(b []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	start := int64(-1)
	depth := 0
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("svg not well-formed: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if start < 0 {
				if t.Name.Local != "svg" {
					return nil, fmt.Errorf("svg: root element is <%s>", t.Name.Local)
				}
				start = off
			} else if depth == 0 {
				return nil, fmt.Errorf("svg: more than one root element")
			}
			depth++
			switch strings.ToLower(t.Name.Local) {
			case "script", "foreignobject", "iframe", "embed", "object", "audio", "video":
				return nil, fmt.Errorf("svg: <%s> is not allowed", t.Name.Local)
			}
			for _, a := range t.Attr {
				n := strings.ToLower(a.Name.Local)
				if strings.HasPrefix(n, "on") {
					return nil, fmt.Errorf("svg: event attribute %s is not allowed", a.Name.Local)
				}
				if (n == "href" || n == "src") && !strings.HasPrefix(strings.TrimSpace(a.Value), "#") {
					return nil, fmt.Errorf("svg: %s=%q points outside the document", a.Name.Local, a.Value)
				}
				if strings.Contains(strings.ToLower(a.Value), "url(") && !regexp.MustCompile(`^\s*url\(#[^)]*\)\s*$`).MatchString(a.Value) {
					return nil, fmt.Errorf("svg: %s=%q refers to an outside resource", a.Name.Local, a.Value)
				}
			}
			if strings.ToLower(t.Name.Local) == "style" {
				return nil, fmt.Errorf("svg: <style> is not allowed (it would style the whole page)")
			}
		case xml.EndElement:
			depth--
		case xml.ProcInst:
			if start >= 0 {
				return nil, fmt.Errorf("svg: processing instruction inside the document")
			}
		case xml.Directive:
			if start >= 0 {
				return nil, fmt.Errorf("svg: directive inside the document")
			}
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("svg: no root element")
	}
	return bytes.TrimSpace(b[start:]), nil
}
