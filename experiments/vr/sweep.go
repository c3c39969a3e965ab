package vr

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/internal/par"
	"github.com/ptxtrace/ptxtrace/model"
)

// SweepModes are the kernels of every (view, shape): the application
// itself ("" = app, uninstrumented) and the two probe modes.
func SweepModes() []string { return []string{"", "naive", "auto"} }

// SweepOptions say what Sweep runs.
type SweepOptions struct {
	Model  *model.Spec // validated timing model
	Scene  Scene
	Views  []View
	Shapes []Shape
	// Jobs is the number of runs in parallel (≤ 0: GOMAXPROCS). Results do
	// not depend on it.
	Jobs int
	// Tool is recorded in the instrumented kernels' manifests.
	Tool string
	// Progress, if set, is called with (0, total) before the first run and
	// after each finished run with the number of finished runs and the
	// total, one call at a time.
	Progress func(done, total int)
}

type job struct {
	i     int
	code  *Code
	view  View
	shape Shape
}

// Sweep renders every view × shape × SweepModes on the model, Jobs runs at
// a time, and returns the table in job order (views, then shapes, then
// app, naive, auto). The first failing run cancels the others and is
// returned with its mode, view and shape.
func Sweep(ctx context.Context, o SweepOptions) (*Table, error) {
	if o.Model == nil || len(o.Views) == 0 || len(o.Shapes) == 0 {
		return nil, errors.New("vr: Sweep needs a model, views and shapes")
	}
	if err := o.Scene.Validate(); err != nil {
		return nil, err
	}
	codes := map[string]*Code{}
	for _, m := range SweepModes() {
		c, err := Instrument(m, Capacity(), o.Tool)
		if err != nil {
			return nil, err
		}
		codes[m] = c
	}
	var jobs []job
	for _, v := range o.Views {
		for _, s := range o.Shapes {
			for _, m := range SweepModes() {
				jobs = append(jobs, job{i: len(jobs), code: codes[m], view: v, shape: s})
			}
		}
	}
	results, err := runJobs(ctx, o, jobs)
	if err != nil {
		return nil, err
	}
	return newTable(o, results), nil
}

// runJobs runs the jobs on a bounded pool of workers; results[i] is job i's.
func runJobs(ctx context.Context, o SweepOptions, jobs []job) ([]*Result, error) {
	workers := o.Jobs
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]*Result, len(jobs))
	errs := make([]error, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	done := 0
	if o.Progress != nil {
		o.Progress(0, len(jobs))
	}
	inputs := &Inputs{} // one volume for every run
	par.Do(ctx, len(jobs), workers, func(i int) {
		j := jobs[i]
		r, err := Run(ctx, RunOptions{Code: j.code, Model: o.Model, Scene: o.Scene, View: j.view, Shape: j.shape, Inputs: inputs})
		if r != nil && r.Analysis != nil {
			r.Analysis.Regions = nil // keep memory small
		}
		mu.Lock()
		results[j.i], errs[j.i] = r, err
		if err != nil {
			cancel()
		}
		done++
		if o.Progress != nil {
			o.Progress(done, len(jobs))
		}
		mu.Unlock()
	})
	for i, err := range errs {
		if err != nil {
			j := jobs[i]
			return nil, fmt.Errorf("%s %s %s: %w", ModeName(j.code.Mode), j.view, j.shape, err)
		}
	}
	// All jobs ran unless the caller's context ended.
	for _, r := range results {
		if r == nil {
			return nil, context.Cause(ctx)
		}
	}
	return results, nil
}

// Row is one (view, shape, mode) run with its application baseline. The
// memory columns are NaN / zero for the app run (no probes).
type Row struct {
	View   View
	Shape  Shape
	Mode   string // app, naive, auto
	Cycles float64
	FPS    float64
	// HitRate is the run's texture-cache hit rate; AppFPS and AppHit are
	// the uninstrumented kernel's for the same view and shape.
	HitRate, AppFPS, AppHit float64
	// From the run's analysis.Result: MeanAccess, Frequency and
	// Overall.{MemoryShare, Memory, Other, Total, Accesses}.
	MeanAcc  float64
	Freq     float64
	Share    float64
	Memory   uint64
	Other    uint64
	Total    uint64
	Accesses int
	Warps    []analysis.WarpStats
	// Series and SeriesWarp are Result's Fig. 11 series.
	Series  []float64
	SeriesW uint32
}

// Table is a sweep's result.
type Table struct {
	Model  string // model preset name
	Scene  Scene
	Rows   []Row
	Views  []View
	Shapes []Shape
}

// newTable builds the rows; results are in job order, so every view and
// shape starts with its app run.
func newTable(o SweepOptions, results []*Result) *Table {
	t := &Table{Model: o.Model.Name, Scene: o.Scene, Views: o.Views, Shapes: o.Shapes}
	var app *Result
	for _, r := range results {
		if r.Mode == "" {
			app = r
		}
		row := Row{View: r.View, Shape: r.Shape, Mode: ModeName(r.Mode), Cycles: r.Cycles, FPS: r.FPS,
			HitRate: r.Model.TexHitRate, AppFPS: app.FPS, AppHit: app.Model.TexHitRate,
			MeanAcc: math.NaN(), Freq: math.NaN(), Share: math.NaN()}
		if a := r.Analysis; a != nil {
			row.MeanAcc, row.Freq, row.Share = a.MeanAccess, a.Frequency, a.Overall.MemoryShare
			row.Memory, row.Other, row.Total, row.Accesses = a.Overall.Memory, a.Overall.Other, a.Overall.Total, a.Overall.Accesses
			row.Warps, row.Series, row.SeriesW = a.Warps, r.Series, r.SeriesWarp
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Row returns the row of (v, s, mode), mode "app", "naive" or "auto"; nil
// when the sweep has none.
func (t *Table) Row(v View, s Shape, mode string) *Row {
	for i := range t.Rows {
		if r := &t.Rows[i]; r.View == v && r.Shape == s && r.Mode == mode {
			return r
		}
	}
	return nil
}

// FormatFloat formats v with prec decimals, "" for NaN or ±Inf (the CSV
// and table form of an undefined value).
func FormatFloat(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// CSV writes sweep.csv: a header and one row per run.
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"view", "block", "mode", "kernel_cycles", "frame_rate", "tex_hit_rate", "app_frame_rate", "app_tex_hit_rate",
		"mean_mem_cycles_per_access", "mem_ref_frequency_per_kcycle", "memory_share", "memory_cycles", "other_cycles", "accesses"})
	for _, r := range t.Rows {
		mem, oth, acc := "", "", ""
		if r.Mode != "app" {
			mem, oth, acc = fmt.Sprint(r.Memory), fmt.Sprint(r.Other), fmt.Sprint(r.Accesses)
		}
		f := FormatFloat
		cw.Write([]string{r.View.String(), r.Shape.String(), r.Mode, f(r.Cycles, 0), f(r.FPS, 1), f(r.HitRate, 4),
			f(r.AppFPS, 1), f(r.AppHit, 4), f(r.MeanAcc, 2), f(r.Freq, 3), f(r.Share, 4), mem, oth, acc})
	}
	cw.Flush()
	return cw.Error()
}

// Corr is the correlation of one mode's memory-reference frequency with
// the application's hit rate and frame rate over the block shapes of one
// view. HitOK / FPSOK are false when analysis.Pearson is undefined.
type Corr struct {
	View         View
	Mode         string
	N            int
	RHit, RFPS   float64
	HitOK, FPSOK bool
}

// Correlations returns one Corr per view and probe mode (naive, auto).
func (t *Table) Correlations() []Corr {
	var out []Corr
	for _, v := range t.Views {
		for _, m := range []string{"naive", "auto"} {
			var f, h, fps []float64
			for _, r := range t.Rows {
				if r.View == v && r.Mode == m {
					f, h, fps = append(f, r.Freq), append(h, r.AppHit), append(fps, r.AppFPS)
				}
			}
			c := Corr{View: v, Mode: m, N: len(f)}
			c.RHit, c.HitOK = analysis.Pearson(f, h)
			c.RFPS, c.FPSOK = analysis.Pearson(f, fps)
			out = append(out, c)
		}
	}
	return out
}

// FormatPct formats a share in percent with one decimal, "n/a" for NaN
// (tables and charts of the demo and the sweep).
func FormatPct(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// FormatR formats a correlation coefficient with three decimals, "n/a"
// when undefined.
func FormatR(r float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

// CorrelationsCSV writes correlations.csv (an undefined r is empty).
func CorrelationsCSV(w io.Writer, cs []Corr) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"view", "mode", "n", "r_frequency_vs_tex_hit_rate", "r_frequency_vs_frame_rate"})
	for _, c := range cs {
		rh, rf := "", ""
		if c.HitOK {
			rh = FormatR(c.RHit, true)
		}
		if c.FPSOK {
			rf = FormatR(c.RFPS, true)
		}
		cw.Write([]string{c.View.String(), c.Mode, fmt.Sprint(c.N), rh, rf})
	}
	cw.Flush()
	return cw.Error()
}
