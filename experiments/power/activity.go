package power

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/ptxtrace/ptxtrace/model"
)

// Activity is the recorded activity of every launch of one run: what the
// analysis (Summarise) needs, and what WriteParquet and WriteCSV export.
type Activity struct {
	Kernel   string
	Model    model.Spec
	Launches []*Launch
}

// RecordActivity runs in (as Run) and returns its activity.
func RecordActivity(ctx context.Context, in Input) (*Activity, error) {
	var act *Activity
	_, _, _, err := runWith(ctx, in, DefaultConfig(), nil, []bool{false}, func(kernel string, ls [][]*Launch) {
		act = &Activity{Kernel: kernel, Model: in.Model, Launches: ls[0]}
	}, nil)
	return act, err
}

// Summarise is Summarise on a's launches.
func (a *Activity) Summarise(cfg Config) (*Result, error) {
	return Summarise(a.Kernel, &a.Model, a.Launches, cfg)
}

// ActivityRow is one row of the exported activity: for every block of
// every launch (launch, level, unit kind, SM, index), first its busy
// cycles (Row "busy", Len), then its idle-interval histogram (Row "idle":
// Count intervals of Len cycles), then at core level its busy intervals
// (Row "run": [From, To)). Blocks come in the order of Launch: per launch
// the cores by SM, then per unit kind its units and its lanes, SM-major.
type ActivityRow struct {
	Launch uint32 `parquet:"launch"`
	Cycles uint64 `parquet:"cycles"` // the launch's execution cycles
	Level  string `parquet:"level,dict"`
	Unit   string `parquet:"unit,dict"` // unit kind; "" at core level
	SM     uint32 `parquet:"sm"`
	Index  uint32 `parquet:"index"`
	Row    string `parquet:"row,dict"`
	Len    uint64 `parquet:"len"`
	Count  uint64 `parquet:"count"`
	From   uint64 `parquet:"from"`
	To     uint64 `parquet:"to"`
}

// Parquet key-value metadata of an activity file.
const (
	KeyFormat    = "ptxtrace.format" // ActivityFormat
	KeyKernel    = "ptxtrace.kernel"
	KeyModel     = "ptxtrace.model" // the model spec as JSON
	ActivityFmt  = "power-activity/1"
	activityRows = 4096 // rows per write batch
)

// Rows returns a's rows in the order ActivityRow states.
func (a *Activity) Rows() []ActivityRow {
	var out []ActivityRow
	for li, l := range a.Launches {
		block := func(level, unit string, b *Block) {
			base := ActivityRow{Launch: uint32(li), Cycles: uint64(l.Cycles), Level: level, Unit: unit, SM: uint32(b.SM), Index: uint32(b.Index)}
			r := base
			r.Row, r.Len = "busy", uint64(b.Busy)
			out = append(out, r)
			for _, bin := range b.Idle {
				r := base
				r.Row, r.Len, r.Count = "idle", uint64(bin.Len), bin.Count
				out = append(out, r)
			}
			for _, iv := range b.Runs {
				r := base
				r.Row, r.From, r.To = "run", uint64(iv.From), uint64(iv.To)
				out = append(out, r)
			}
		}
		for i := range l.Core {
			block("core", "", &l.Core[i])
		}
		for k := range l.Units {
			name := model.UnitKind(k).String()
			for i := range l.Units[k] {
				block("unit", name, &l.Units[k][i])
			}
			for i := range l.Lanes[k] {
				block("lane", name, &l.Lanes[k][i])
			}
		}
	}
	return out
}

// FromRows rebuilds the activity of rows (in Rows' order) on spec.
func FromRows(kernel string, spec model.Spec, rows []ActivityRow) (*Activity, error) {
	kinds := map[string]int{}
	for k := range model.NumUnitKinds {
		kinds[k.String()] = int(k)
	}
	a := &Activity{Kernel: kernel, Model: spec}
	var cur *Block
	var curLevel, curUnit string
	for i, r := range rows {
		bad := func(msg string) error { return fmt.Errorf("power: activity row %d: %s", i, msg) }
		switch {
		case int(r.Launch) == len(a.Launches):
			a.Launches = append(a.Launches, &Launch{Cycles: model.Time(r.Cycles), NumSMs: spec.NumSMs})
		case int(r.Launch) != len(a.Launches)-1:
			return nil, bad(fmt.Sprintf("launch %d out of order", r.Launch))
		}
		l := a.Launches[r.Launch]
		if uint64(l.Cycles) != r.Cycles {
			return nil, bad("cycles differ within a launch")
		}
		if r.Row == "busy" {
			var list *[]Block
			switch r.Level {
			case "core":
				list = &l.Core
			case "unit", "lane":
				k, ok := kinds[r.Unit]
				if !ok {
					return nil, bad(fmt.Sprintf("unknown unit kind %q", r.Unit))
				}
				list = &l.Units[k]
				if r.Level == "lane" {
					list = &l.Lanes[k]
				}
			default:
				return nil, bad(fmt.Sprintf("unknown level %q", r.Level))
			}
			*list = append(*list, Block{SM: int(r.SM), Index: int(r.Index), Busy: model.Time(r.Len), Idle: Hist{}})
			cur, curLevel, curUnit = &(*list)[len(*list)-1], r.Level, r.Unit
			continue
		}
		if cur == nil || cur.SM != int(r.SM) || cur.Index != int(r.Index) || curLevel != r.Level || curUnit != r.Unit {
			return nil, bad("idle or run row before its block's busy row")
		}
		switch r.Row {
		case "idle":
			if n := len(cur.Idle); r.Len == 0 || r.Count == 0 || n > 0 && cur.Idle[n-1].Len >= model.Time(r.Len) {
				return nil, bad("idle bins must have increasing lengths > 0 and counts > 0")
			}
			cur.Idle = append(cur.Idle, Bin{model.Time(r.Len), r.Count})
		case "run":
			cur.Runs = append(cur.Runs, Interval{model.Time(r.From), model.Time(r.To)})
		default:
			return nil, bad(fmt.Sprintf("unknown row kind %q", r.Row))
		}
	}
	return a, nil
}

// WriteParquet writes a as one Parquet file of ActivityRows with the
// kernel and model spec in its key-value metadata.
func (a *Activity) WriteParquet(w io.Writer) error {
	spec, err := json.Marshal(a.Model)
	if err != nil {
		return err
	}
	pw := pq.NewGenericWriter[ActivityRow](w, pq.Compression(&zstd.Codec{}),
		pq.KeyValueMetadata(KeyFormat, ActivityFmt), pq.KeyValueMetadata(KeyKernel, a.Kernel),
		pq.KeyValueMetadata(KeyModel, string(spec)))
	rows := a.Rows()
	for len(rows) > 0 {
		n := min(len(rows), activityRows)
		if _, err := pw.Write(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return pw.Close()
}

// ReadParquet reads an activity file written by WriteParquet.
func ReadParquet(r io.ReaderAt, size int64) (*Activity, error) {
	f, err := pq.OpenFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("power: activity: %w", err)
	}
	if v, _ := f.Lookup(KeyFormat); v != ActivityFmt {
		return nil, fmt.Errorf("power: not an activity file (format %q, want %q)", v, ActivityFmt)
	}
	kernel, _ := f.Lookup(KeyKernel)
	sj, _ := f.Lookup(KeyModel)
	var spec model.Spec
	dec := json.NewDecoder(bytes.NewReader([]byte(sj)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("power: activity model spec: %w", err)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("power: activity model spec: %w", err)
	}
	pr := pq.NewGenericReader[ActivityRow](r)
	defer pr.Close()
	rows := make([]ActivityRow, pr.NumRows())
	n, err := pr.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("power: activity: %w", err)
	}
	if n != len(rows) {
		return nil, fmt.Errorf("power: activity: read %d of %d rows", n, len(rows))
	}
	return FromRows(kernel, spec, rows)
}

// ActivityCSVHeader is the header of WriteCSV's rows.
var ActivityCSVHeader = []string{"launch", "cycles", "level", "unit", "sm", "index", "row", "len", "count", "from", "to"}

// WriteCSV writes a's rows as CSV with a header.
func (a *Activity) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(ActivityCSVHeader)
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, r := range a.Rows() {
		cw.Write([]string{u(uint64(r.Launch)), u(r.Cycles), r.Level, r.Unit, u(uint64(r.SM)), u(uint64(r.Index)), r.Row,
			u(r.Len), u(r.Count), u(r.From), u(r.To)})
	}
	cw.Flush()
	return cw.Error()
}
