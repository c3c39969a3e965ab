package parquet

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Row is one region instance as stored in the file.
type Row struct {
	Kernel        string   `parquet:"kernel,dict"`
	Warp          uint32   `parquet:"warp"`
	CTAX          uint32   `parquet:"cta_x"`
	CTAY          uint32   `parquet:"cta_y"`
	CTAZ          uint32   `parquet:"cta_z"`
	WarpInCTA     uint32   `parquet:"warp_in_cta"`
	SM            uint32   `parquet:"sm"`
	Region        int32    `parquet:"region"`
	RegionKind    string   `parquet:"region_kind,dict"`
	Space         string   `parquet:"space,dict,optional"` // null when unknown (user regions)
	Mode          string   `parquet:"mode,dict"`
	Instance      uint32   `parquet:"instance"`
	Depth         uint32   `parquet:"depth"`
	BeginRecord   uint32   `parquet:"begin_record"`
	EndRecord     uint32   `parquet:"end_record"`
	EndProbe      uint32   `parquet:"end_probe"`
	Start         uint64   `parquet:"start"`
	End           uint64   `parquet:"end"`
	Cycles        uint64   `parquet:"cycles"`
	StartNs       *float64 `parquet:"start_ns,optional"`
	EndNs         *float64 `parquet:"end_ns,optional"`
	DurNs         *float64 `parquet:"dur_ns,optional"`
	PTXLine       int32    `parquet:"ptx_line"`
	LocFile       string   `parquet:"loc_file,dict,optional"` // null without .loc
	LocLine       int32    `parquet:"loc_line,optional"`      // null without .loc
	TruthIssue    *uint64  `parquet:"truth_issue,optional"`
	TruthComplete *uint64  `parquet:"truth_complete,optional"`
}

// Metadata keys written to the file's key/value metadata.
const (
	KeyFormat   = "ptxtrace.format" // "regions/1"
	KeyKernel   = "ptxtrace.kernel" // kernel name
	KeyRun      = "ptxtrace.run"    // RunMeta as JSON
	KeyTimer    = "ptxtrace.timer"  // clock, clock64, globaltimer
	KeyID       = "ptxtrace.instrumentation_id"
	KeyManifest = "ptxtrace.manifest" // the manifest JSON
	FormatValue = "regions/1"
)

// DefaultRowGroupRows is the default row group size.
const DefaultRowGroupRows = 1 << 20

// Options adjust the output.
type Options struct {
	RowGroupRows int64             // rows per row group; 0 = DefaultRowGroupRows
	Metadata     map[string]string // extra key/value metadata
}

// flatRow is what the exporter hands to parquet-go: Row with the nullable
// columns as plain values. parquet-go writes an "optional" non-pointer field
// as null when it holds its zero value, in bulk (64 rows at a time), where
// *T fields cost one call per row and column. Its schema is Row's (same
// names, types, encodings, repetition; TestFlatRowSchema checks it). A batch
// with a present nullable value that is exactly zero (which flatRow would
// turn into null) is written as pq.Row values instead (writeValues).
type flatRow struct {
	Kernel        string  `parquet:"kernel,dict"`
	Warp          uint32  `parquet:"warp"`
	CTAX          uint32  `parquet:"cta_x"`
	CTAY          uint32  `parquet:"cta_y"`
	CTAZ          uint32  `parquet:"cta_z"`
	WarpInCTA     uint32  `parquet:"warp_in_cta"`
	SM            uint32  `parquet:"sm"`
	Region        int32   `parquet:"region"`
	RegionKind    string  `parquet:"region_kind,dict"`
	Space         string  `parquet:"space,dict,optional"`
	Mode          string  `parquet:"mode,dict"`
	Instance      uint32  `parquet:"instance"`
	Depth         uint32  `parquet:"depth"`
	BeginRecord   uint32  `parquet:"begin_record"`
	EndRecord     uint32  `parquet:"end_record"`
	EndProbe      uint32  `parquet:"end_probe"`
	Start         uint64  `parquet:"start"`
	End           uint64  `parquet:"end"`
	Cycles        uint64  `parquet:"cycles"`
	StartNs       float64 `parquet:"start_ns,optional"`
	EndNs         float64 `parquet:"end_ns,optional"`
	DurNs         float64 `parquet:"dur_ns,optional"`
	PTXLine       int32   `parquet:"ptx_line"`
	LocFile       string  `parquet:"loc_file,dict,optional"`
	LocLine       int32   `parquet:"loc_line,optional"`
	TruthIssue    uint64  `parquet:"truth_issue,optional"`
	TruthComplete uint64  `parquet:"truth_complete,optional"`
}

// rowSchema is the file's schema, built on first use (not at package init:
// ptxtrace's quick commands link this package without writing Parquet).
var rowSchema = sync.OnceValue(func() *pq.Schema { return pq.SchemaOf(Row{}) })

// numColumns is the number of leaf columns; colIndex maps Row's columns, in
// field order, to their leaf column indexes.
const numColumns = 27

var colIndex = sync.OnceValue(func() (ix [numColumns]int) {
	names := [numColumns]string{"kernel", "warp", "cta_x", "cta_y", "cta_z", "warp_in_cta", "sm", "region",
		"region_kind", "space", "mode", "instance", "depth", "begin_record", "end_record", "end_probe",
		"start", "end", "cycles", "start_ns", "end_ns", "dur_ns", "ptx_line", "loc_file", "loc_line",
		"truth_issue", "truth_complete"}
	if n := len(rowSchema().Columns()); n != numColumns {
		panic(fmt.Sprintf("parquet: Row has %d columns, want %d", n, numColumns))
	}
	for i, n := range names {
		leaf, ok := rowSchema().Lookup(n)
		if !ok {
			panic("parquet: Row has no column " + n)
		}
		ix[i] = leaf.ColumnIndex
	}
	return ix
})

// zstdCodec is shared by all exporters so that its pooled zstd encoders
// (hundreds of KiB of tables and history each) are reused from file to file.
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

// Exporter writes a Parquet file. Create it with New.
type Exporter struct {
	out   io.Writer
	o     Options
	h     *trace.Header
	hasNs bool
	w     *pq.GenericWriter[flatRow]
	rows  []flatRow  // batch buffer, reused
	vals  []pq.Value // one column of a batch for writeValues, reused
	// Rows in the current row group and the most it may hold.
	rgRows, rgMax int64
	// wrote is set by the first flatRow write. parquet-go (v0.32) replaces
	// the column buffers on a GenericWriter's first Write, dropping values
	// that WriteRows buffered before it: pending says that such values must
	// be flushed to pages first.
	wrote, pending bool
}

var _ exporters.Exporter = (*Exporter)(nil)

// New returns an exporter writing to w. The file is complete after End.
func New(w io.Writer, o Options) *Exporter {
	return &Exporter{out: w, o: o}
}

// Begin starts the file and records the header in its metadata.
//
// Encodings (chosen for speed; the schema and values do not depend on them):
// integer columns DELTA_BINARY_PACKED (ids and counters collapse to almost
// nothing before zstd sees them), strings RLE_DICTIONARY, doubles PLAIN; zstd
// at its fastest level; no statistics in data page headers (the column
// index and the column chunk statistics carry the same min/max).
func (e *Exporter) Begin(h *trace.Header) error {
	rg := e.o.RowGroupRows
	if rg <= 0 {
		rg = DefaultRowGroupRows
	}
	run, err := json.Marshal(h.Meta)
	if err != nil {
		return err
	}
	opts := []pq.WriterOption{
		pq.Compression(zstdCodec),
		pq.MaxRowsPerRowGroup(rg),
		pq.DefaultEncodingFor(pq.Int32, &pq.DeltaBinaryPacked),
		pq.DefaultEncodingFor(pq.Int64, &pq.DeltaBinaryPacked),
		pq.DataPageStatistics(false),
		pq.CreatedBy("ptxtrace", "", ""),
		pq.KeyValueMetadata(KeyFormat, FormatValue),
		pq.KeyValueMetadata(KeyKernel, h.Kernel),
		pq.KeyValueMetadata(KeyRun, string(run)),
		pq.KeyValueMetadata(KeyTimer, h.Timer.String()),
		pq.KeyValueMetadata(KeyID, h.IDHex()),
	}
	if h.ManifestJSON != nil {
		opts = append(opts, pq.KeyValueMetadata(KeyManifest, string(h.ManifestJSON)))
	}
	for k, v := range e.o.Metadata {
		opts = append(opts, pq.KeyValueMetadata(k, v))
	}
	e.h, e.hasNs = h, h.HasNs()
	e.rgRows, e.rgMax = 0, rg
	opts = append(opts, rowSchema())
	e.w = pq.NewGenericWriter[flatRow](e.out, opts...)
	return nil
}

// WriteRegions appends one row per region.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	const batch = 4096
	for len(rs) > 0 {
		// Row groups are cut here, not by parquet-go: writeValues bypasses
		// its row count.
		n := int(min(int64(len(rs)), batch, e.rgMax-e.rgRows))
		if err := e.write(rs[:n]); err != nil {
			return err
		}
		rs = rs[n:]
		if e.rgRows += int64(n); e.rgRows == e.rgMax {
			if err := e.w.Flush(); err != nil {
				return err
			}
			e.rgRows = 0
		}
	}
	return nil
}

// needsSlow reports whether r has a present nullable value that flatRow
// would write as null (a zero; -0.0 too, to be safe on every platform).
func (e *Exporter) needsSlow(r *trace.Region) bool {
	return e.hasNs && (r.StartNs == 0 || r.EndNs == 0 || r.DurNs == 0) ||
		r.HasTruth && (r.TruthIssue == 0 || r.TruthComplete == 0)
}

func (e *Exporter) write(rs []trace.Region) error {
	for i := range rs {
		if e.needsSlow(&rs[i]) {
			return e.writeValues(rs)
		}
	}
	if cap(e.rows) < len(rs) {
		e.rows = make([]flatRow, 0, len(rs))
	}
	rows := e.rows[:0]
	kernel, hasNs := e.h.Kernel, e.hasNs
	for i := range rs {
		r := &rs[i]
		info := r.Info
		row := flatRow{
			Kernel: kernel, Warp: r.Warp, CTAX: r.CTA[0], CTAY: r.CTA[1], CTAZ: r.CTA[2], WarpInCTA: r.WarpInCTA, SM: r.SM,
			Region: int32(r.ID), RegionKind: info.Kind, Space: info.Space, Mode: info.Mode,
			Instance: r.Instance, Depth: r.Depth, BeginRecord: r.BeginRec, EndRecord: r.EndRec, EndProbe: r.EndProbe,
			Start: r.Start, End: r.End, Cycles: r.Cycles,
			PTXLine: int32(info.Line), LocFile: info.LocFile, LocLine: int32(info.LocLine),
		}
		if hasNs {
			row.StartNs, row.EndNs, row.DurNs = r.StartNs, r.EndNs, r.DurNs
		}
		if r.HasTruth {
			row.TruthIssue, row.TruthComplete = r.TruthIssue, r.TruthComplete
		}
		rows = append(rows, row)
	}
	e.rows = rows[:0]
	if e.pending {
		for _, c := range e.w.ColumnWriters() {
			if err := c.Flush(); err != nil {
				return err
			}
		}
		e.pending = false
	}
	e.wrote = true
	_, err := e.w.Write(rows)
	return err
}

// writeValues writes a batch column by column as pq.Values with explicit
// definition levels (a present zero stays a zero). Values of required
// columns carry no levels: parquet-go's required column buffers read only
// the value.
func (e *Exporter) writeValues(rs []trace.Region) error {
	if cap(e.vals) < len(rs) {
		e.vals = make([]pq.Value, len(rs))
	}
	vals := e.vals[:len(rs)]
	cws := e.w.ColumnWriters()
	str := func(s string) pq.Value { return pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s))) }
	colIx := colIndex()
	for j := range numColumns {
		col := colIx[j]
		switch j {
		case 0:
			k := str(e.h.Kernel)
			for i := range rs {
				vals[i] = k
			}
		case 8, 10:
			for i := range rs {
				info := rs[i].Info
				vals[i] = str([...]string{8: info.Kind, 10: info.Mode}[j])
			}
		case 9, 23: // optional: "" (unknown) is null
			for i := range rs {
				info := rs[i].Info
				if v := [...]string{9: info.Space, 23: info.LocFile}[j]; v != "" {
					vals[i] = str(v).Level(0, 1, col)
				} else {
					vals[i] = pq.Value{}
				}
			}
		case 24: // optional: 0 (no .loc) is null
			for i := range rs {
				if l := rs[i].Info.LocLine; l != 0 {
					vals[i] = pq.Int32Value(int32(l)).Level(0, 1, col)
				} else {
					vals[i] = pq.Value{}
				}
			}
		case 16, 17, 18:
			for i := range rs {
				r := &rs[i]
				vals[i] = pq.Int64Value(int64([3]uint64{r.Start, r.End, r.Cycles}[j-16]))
			}
		case 19, 20, 21:
			for i := range rs {
				r := &rs[i]
				if e.hasNs {
					vals[i] = pq.DoubleValue([3]float64{r.StartNs, r.EndNs, r.DurNs}[j-19]).Level(0, 1, col)
				} else {
					vals[i] = pq.Value{}
				}
			}
		case 25, 26:
			for i := range rs {
				r := &rs[i]
				if r.HasTruth {
					vals[i] = pq.Int64Value(int64([2]uint64{r.TruthIssue, r.TruthComplete}[j-25])).Level(0, 1, col)
				} else {
					vals[i] = pq.Value{}
				}
			}
		default: // 32-bit integers
			for i := range rs {
				r := &rs[i]
				vals[i] = pq.Int32Value([...]int32{
					1: int32(r.Warp), 2: int32(r.CTA[0]), 3: int32(r.CTA[1]), 4: int32(r.CTA[2]),
					5: int32(r.WarpInCTA), 6: int32(r.SM), 7: int32(r.ID),
					11: int32(r.Instance), 12: int32(r.Depth), 13: int32(r.BeginRec), 14: int32(r.EndRec), 15: int32(r.EndProbe),
					22: int32(r.Info.Line),
				}[j])
			}
		}
		if _, err := cws[col].WriteRowValues(vals); err != nil {
			return err
		}
	}
	clear(vals) // drop references to strings
	if !e.wrote {
		e.pending = true
	}
	return nil
}

// End finishes the file (footer with metadata).
func (e *Exporter) End() error {
	if e.w == nil {
		return fmt.Errorf("parquet: End without Begin")
	}
	return e.w.Close()
}

// DatasetPath is the Hive-style location of a run's file inside a dataset
// directory: DIR/kernel=NAME/run=ID/part-0.parquet, with NAME and ID
// escaped as Hive does (%XX for characters unsafe in paths).
func DatasetPath(dir, kernel, runID string) string {
	return DatasetPartPath(dir, kernel, runID, 0, false, ".parquet")
}

// DatasetPartPath is DatasetPath for one traced launch of a run, in any
// format (ext, e.g. ".parquet" or ".csv"): part-0 for a run with one traced
// launch (multi false), part-NNN for launch index NNN (at least three
// digits) of a run with several.
func DatasetPartPath(dir, kernel, runID string, launch int, multi bool, ext string) string {
	part := "part-0"
	if multi {
		part = fmt.Sprintf("part-%03d", launch)
	}
	return filepath.Join(dir, "kernel="+hiveEscape(kernel), "run="+hiveEscape(runID), part+ext)
}

// hiveEscape escapes the characters Hive escapes in partition values.
func hiveEscape(s string) string {
	if s == "" {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
