package sweep

import (
	"bytes"
	"fmt"
	"math"

	pq "github.com/parquet-go/parquet-go"
	"github.com/ptxtrace/ptxtrace/experiments/vr"
)

// resultRow is a row of results.parquet: results.csv's columns, typed; an
// undefined value (NaN, or a column that does not apply) is null.
type resultRow struct {
	ID        string   `parquet:"id"`
	Kind      string   `parquet:"kind,dict"`
	Kernel    string   `parquet:"kernel,dict"`
	Model     string   `parquet:"model,dict"`
	Mode      string   `parquet:"mode,dict"`
	Block     string   `parquet:"block,dict"`
	View      *string  `parquet:"view,optional"`
	Image     *int64   `parquet:"image,optional"`
	Volume    *int64   `parquet:"volume,optional"`
	Scene     *string  `parquet:"scene,optional"`
	Cycles    *float64 `parquet:"kernel_cycles,optional"`
	FPS       *float64 `parquet:"frame_rate,optional"`
	TexHit    *float64 `parquet:"tex_hit_rate,optional"`
	MeanAcc   *float64 `parquet:"mean_mem_cycles_per_access,optional"`
	Freq      *float64 `parquet:"mem_ref_frequency_per_kcycle,optional"`
	Share     *float64 `parquet:"memory_share,optional"`
	MemCycles *int64   `parquet:"memory_cycles,optional"`
	Other     *int64   `parquet:"other_cycles,optional"`
	Accesses  *int64   `parquet:"accesses,optional"`
}

// ResultsParquet is results.parquet: the rows of ResultsCSV.
func (m *Merged) ResultsParquet() ([]byte, error) {
	f := func(v num) *float64 {
		x := float64(v)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	i := func(v int64) *int64 { return &v }
	s := func(v string) *string { return &v }
	var rows []resultRow
	for k, rec := range m.Records {
		if rec == nil {
			continue
		}
		e := m.Plan.Entries[k]
		c := e.Config
		r := resultRow{ID: rec.ID, Kind: c.Kind, Model: c.Model, Mode: c.Mode,
			Cycles: f(rec.Cycles), FPS: f(rec.FPS), TexHit: f(rec.TexHit), MeanAcc: f(rec.MeanAcc), Freq: f(rec.Freq), Share: f(rec.Share)}
		if r.Model == "file" {
			r.Model = e.Inputs["model"].Path
		}
		if rec.Probed {
			r.MemCycles, r.Other, r.Accesses = i(int64(rec.Memory)), i(int64(rec.Other)), i(int64(rec.Access))
		}
		switch {
		case c.VR != nil:
			v := c.VR
			r.Kernel, r.Block = vr.Kernel, fmt.Sprintf("%dx%d", v.Block[0], v.Block[1])
			r.View, r.Image, r.Volume, r.Scene = s(fmt.Sprintf("%g,%g,%g", v.View[0], v.View[1], v.View[2])), i(int64(v.Image)), i(int64(v.Volume)), s(v.Scene)
		case c.Kernel != nil:
			r.Kernel, r.Block = c.Kernel.Name, blockString(c.Kernel.Block)
		}
		rows = append(rows, r)
	}
	var b bytes.Buffer
	w := pq.NewGenericWriter[resultRow](&b, pq.CreatedBy("ptxtrace", "", ""))
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
