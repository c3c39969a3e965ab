package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/experiments/vr"
)

// num is a float64 that survives JSON exactly: the shortest decimal that
// reads back to the same bits, and "NaN", "+Inf", "-Inf" as strings.
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

func (n *num) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "NaN", "+Inf", "-Inf":
		default:
			return fmt.Errorf("number %q", s)
		}
	} else {
		s = string(b)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*n = num(f)
	return nil
}

// warpRec is analysis.WarpStats with every field, MeanAccess included.
type warpRec struct {
	Warp        uint32    `json:"warp"`
	CTA         [3]uint32 `json:"cta"`
	WarpInCTA   uint32    `json:"warp_in_cta"`
	SM          uint32    `json:"sm"`
	Memory      uint64    `json:"memory_cycles"`
	Total       uint64    `json:"total_cycles"`
	Other       uint64    `json:"other_cycles"`
	Accesses    int       `json:"accesses"`
	MemoryShare num       `json:"memory_share"`
	MeanAccess  num       `json:"mean_access"`
}

// Record is one finished entry's result.json: what Merge needs.
type Record struct {
	ID      string    `json:"id"`
	Mode    string    `json:"mode"`
	Cycles  num       `json:"kernel_cycles"`
	FPS     num       `json:"frame_rate"`
	TexHit  num       `json:"tex_hit_rate"`
	Probed  bool      `json:"probed"` // the analysis fields below are set
	MeanAcc num       `json:"mean_access"`
	Freq    num       `json:"frequency"`
	Share   num       `json:"memory_share"`
	Memory  uint64    `json:"memory_cycles"`
	Other   uint64    `json:"other_cycles"`
	Total   uint64    `json:"total_cycles"`
	Access  int       `json:"accesses"`
	Warps   []warpRec `json:"warps,omitempty"`
	Series  []num     `json:"series,omitempty"`
	SeriesW uint32    `json:"series_warp"`
}

func recordOf(id string, r *vr.Result) *Record {
	rec := &Record{ID: id, Mode: vr.ModeName(r.Mode), Cycles: num(r.Cycles), FPS: num(r.FPS), TexHit: num(r.Model.TexHitRate),
		MeanAcc: num(math.NaN()), Freq: num(math.NaN()), Share: num(math.NaN())}
	if a := r.Analysis; a != nil {
		rec.Probed = true
		rec.MeanAcc, rec.Freq, rec.Share = num(a.MeanAccess), num(a.Frequency), num(a.Overall.MemoryShare)
		rec.Memory, rec.Other, rec.Total, rec.Access = a.Overall.Memory, a.Overall.Other, a.Overall.Total, a.Overall.Accesses
		for _, w := range a.Warps {
			rec.Warps = append(rec.Warps, warpRec{w.Warp, w.CTA, w.WarpInCTA, w.SM, w.Memory, w.Total, w.Other, w.Accesses,
				num(w.MemoryShare), num(w.MeanAccess)})
		}
		for _, s := range r.Series {
			rec.Series = append(rec.Series, num(s))
		}
		rec.SeriesW = r.SeriesWarp
	}
	return rec
}

// row is the vr table row of the record; app is the same view and
// block's app record.
func (rec *Record) row(cfg Config, app *Record) vr.Row {
	c := cfg.VR
	r := vr.Row{View: vr.View{A: c.View[0], B: c.View[1], G: c.View[2]}, Shape: vr.Shape{X: c.Block[0], Y: c.Block[1]},
		Mode: rec.Mode, Cycles: float64(rec.Cycles), FPS: float64(rec.FPS), HitRate: float64(rec.TexHit),
		AppFPS: float64(app.FPS), AppHit: float64(app.TexHit),
		MeanAcc: float64(rec.MeanAcc), Freq: float64(rec.Freq), Share: float64(rec.Share)}
	if rec.Probed {
		r.Memory, r.Other, r.Total, r.Accesses = rec.Memory, rec.Other, rec.Total, rec.Access
		for _, w := range rec.Warps {
			r.Warps = append(r.Warps, analysis.WarpStats{Warp: w.Warp, CTA: w.CTA, WarpInCTA: w.WarpInCTA, SM: w.SM,
				Share: analysis.Share{Memory: w.Memory, Total: w.Total, Other: w.Other, Accesses: w.Accesses,
					MemoryShare: float64(w.MemoryShare), MeanAccess: float64(w.MeanAccess)}})
		}
		for _, s := range rec.Series {
			r.Series = append(r.Series, float64(s))
		}
		r.SeriesW = rec.SeriesW
	}
	return r
}
