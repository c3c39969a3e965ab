package parquet

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

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
	Space         string   `parquet:"space,dict"`
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
	LocFile       string   `parquet:"loc_file,dict"`
	LocLine       int32    `parquet:"loc_line"`
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

// Exporter writes a Parquet file. Create it with New.
type Exporter struct {
	out   io.Writer
	o     Options
	h     *trace.Header
	hasNs bool
	w     *pq.GenericWriter[Row]
	rows  []Row
	// Backing storage for the optional fields of rows.
	f64 []float64
	u64 []uint64
}

var _ exporters.Exporter = (*Exporter)(nil)

// New returns an exporter writing to w. The file is complete after End.
func New(w io.Writer, o Options) *Exporter {
	return &Exporter{out: w, o: o}
}

// Begin starts the file and records the header in its metadata.
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
		pq.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		pq.MaxRowsPerRowGroup(rg),
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
	e.w = pq.NewGenericWriter[Row](e.out, opts...)
	return nil
}

// WriteRegions appends one row per region.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	const batch = 4096
	for len(rs) > 0 {
		n := min(len(rs), batch)
		if err := e.write(rs[:n]); err != nil {
			return err
		}
		rs = rs[n:]
	}
	return nil
}

func (e *Exporter) write(rs []trace.Region) error {
	rows := e.rows[:0]
	f64 := e.f64[:0]
	u64 := e.u64[:0]
	if cap(f64) < 3*len(rs) {
		f64 = make([]float64, 0, 3*len(rs))
	}
	if cap(u64) < 2*len(rs) {
		u64 = make([]uint64, 0, 2*len(rs))
	}
	for i := range rs {
		r := &rs[i]
		row := Row{
			Kernel: e.h.Kernel, Warp: r.Warp, CTAX: r.CTA[0], CTAY: r.CTA[1], CTAZ: r.CTA[2], WarpInCTA: r.WarpInCTA, SM: r.SM,
			Region: int32(r.ID), RegionKind: r.Info.Kind, Space: r.Info.Space, Mode: r.Info.Mode,
			Instance: r.Instance, Depth: r.Depth, BeginRecord: r.BeginRec, EndRecord: r.EndRec, EndProbe: r.EndProbe,
			Start: r.Start, End: r.End, Cycles: r.Cycles,
			PTXLine: int32(r.Info.Line), LocFile: r.Info.LocFile, LocLine: int32(r.Info.LocLine),
		}
		if e.hasNs {
			f64 = append(f64, r.StartNs, r.EndNs, r.DurNs)
			k := len(f64)
			row.StartNs, row.EndNs, row.DurNs = &f64[k-3], &f64[k-2], &f64[k-1]
		}
		if r.HasTruth {
			u64 = append(u64, r.TruthIssue, r.TruthComplete)
			k := len(u64)
			row.TruthIssue, row.TruthComplete = &u64[k-2], &u64[k-1]
		}
		rows = append(rows, row)
	}
	e.rows, e.f64, e.u64 = rows, f64, u64
	_, err := e.w.Write(rows)
	return err
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
	return filepath.Join(dir, "kernel="+hiveEscape(kernel), "run="+hiveEscape(runID), "part-0.parquet")
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
