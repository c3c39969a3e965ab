package csv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"strconv"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Columns returns the CSV column names, in order.
func Columns() []string { return append([]string(nil), columns[:]...) }

var columns = [...]string{
	"kernel", "warp", "cta_x", "cta_y", "cta_z", "warp_in_cta", "sm",
	"region", "region_kind", "space", "mode", "instance", "depth",
	"begin_record", "end_record", "end_probe",
	"start", "end", "cycles", "start_ns", "end_ns", "dur_ns",
	"ptx_line", "loc_file", "loc_line", "truth_issue", "truth_complete",
}

// Options adjust the output.
type Options struct {
	NoHeader bool // omit the header row
	// LaunchColumn adds a leading column "launch" holding Launch on every
	// row: several launches of one run written into one table (ptxtrace
	// export of a multi-launch run directory).
	LaunchColumn bool
	Launch       int
}

// Exporter writes CSV rows. Create it with New.
//
// Text fields are quoted by encoding/csv once per region (they repeat on
// every row of the region) and numeric fields, which never need quoting,
// are appended directly; the rows are byte for byte what encoding/csv's
// Writer would produce, several times faster.
type Exporter struct {
	w     *bufio.Writer
	o     Options
	h     *trace.Header
	line  []byte
	hasNs bool

	kernel []byte                        // quoted kernel name + ","
	pre    map[*trace.RegionInfo]*quoted // per region
}

// quoted holds a region's pre-quoted text fields.
type quoted struct {
	kindSpaceMode []byte // "kind,space,mode,"
	locFile       []byte // "loc_file,"
}

var _ exporters.Exporter = (*Exporter)(nil)

// New returns an exporter writing to w.
func New(w io.Writer, o Options) *Exporter {
	return &Exporter{w: bufio.NewWriterSize(w, 1<<16), o: o, pre: map[*trace.RegionInfo]*quoted{}}
}

// quote encodes fields as one CSV record with encoding/csv and returns it
// with a trailing comma instead of the line end.
func quote(fields ...string) []byte {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write(fields)
	cw.Flush()
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if len(fields) == 1 && fields[0] == "" {
		out = out[:0] // encoding/csv writes a lone empty field as ""
	}
	return append(out, ',')
}

// Begin writes the header row.
func (e *Exporter) Begin(h *trace.Header) error {
	e.h = h
	e.hasNs = h.HasNs()
	e.kernel = quote(h.Kernel)
	cols := columns[:]
	if e.o.LaunchColumn {
		e.kernel = append(strconv.AppendInt(nil, int64(e.o.Launch), 10), append([]byte{','}, e.kernel...)...)
		cols = append([]string{"launch"}, cols...)
	}
	if e.o.NoHeader {
		return nil
	}
	cw := csv.NewWriter(e.w)
	cw.Write(cols)
	cw.Flush()
	return cw.Error()
}

func (e *Exporter) quoted(info *trace.RegionInfo) *quoted {
	q := e.pre[info]
	if q == nil {
		q = &quoted{kindSpaceMode: quote(info.Kind, info.Space, info.Mode), locFile: quote(info.LocFile)}
		e.pre[info] = q
	}
	return q
}

// WriteRegions writes one row per region.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	var last *trace.RegionInfo
	var q *quoted
	for i := range rs {
		r := &rs[i]
		if r.Info != last {
			last, q = r.Info, e.quoted(r.Info)
		}
		b := append(e.line[:0], e.kernel...)
		b = appendU(b, uint64(r.Warp))
		b = appendU(b, uint64(r.CTA[0]))
		b = appendU(b, uint64(r.CTA[1]))
		b = appendU(b, uint64(r.CTA[2]))
		b = appendU(b, uint64(r.WarpInCTA))
		b = appendU(b, uint64(r.SM))
		b = append(strconv.AppendInt(b, int64(r.ID), 10), ',')
		b = append(b, q.kindSpaceMode...)
		b = appendU(b, uint64(r.Instance))
		b = appendU(b, uint64(r.Depth))
		b = appendU(b, uint64(r.BeginRec))
		b = appendU(b, uint64(r.EndRec))
		b = appendU(b, uint64(r.EndProbe))
		b = appendU(b, r.Start)
		b = appendU(b, r.End)
		b = appendU(b, r.Cycles)
		if e.hasNs {
			b = append(strconv.AppendFloat(b, r.StartNs, 'f', -1, 64), ',')
			b = append(strconv.AppendFloat(b, r.EndNs, 'f', -1, 64), ',')
			b = append(strconv.AppendFloat(b, r.DurNs, 'f', -1, 64), ',')
		} else {
			b = append(b, ",,,"...)
		}
		b = append(strconv.AppendInt(b, int64(r.Info.Line), 10), ',')
		b = append(b, q.locFile...)
		if r.Info.LocLine > 0 {
			b = strconv.AppendInt(b, int64(r.Info.LocLine), 10)
		}
		b = append(b, ',')
		if r.HasTruth {
			b = appendU(b, r.TruthIssue)
			b = strconv.AppendUint(b, r.TruthComplete, 10)
		} else {
			b = append(b, ',')
		}
		b = append(b, '\n')
		e.line = b
		if _, err := e.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func appendU(b []byte, v uint64) []byte { return append(strconv.AppendUint(b, v, 10), ',') }

// End flushes the output.
func (e *Exporter) End() error { return e.w.Flush() }
