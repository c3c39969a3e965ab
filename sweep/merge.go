package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/experiments/vr"
)

// File is one output of Merge.
type File struct {
	Name string
	Data []byte
}

// Gap is a plan entry without a result.
type Gap struct {
	Index int    // plan index (0-based, header excluded)
	ID    string // entry id
	Err   string // the recorded error; "" when the entry is missing
}

// Merged is the result of Merge.
type Merged struct {
	Plan    *Plan
	Records []*Record // in plan order; nil for a gap
	Gaps    []Gap     // in plan order
}

// Merge reads the results of every plan entry from dir.
func Merge(p *Plan, dir string) (*Merged, error) {
	m := &Merged{Plan: p, Records: make([]*Record, len(p.Entries))}
	for k, e := range p.Entries {
		data, err := os.ReadFile(filepath.Join(dir, e.ID, ResultFile))
		if errors.Is(err, os.ErrNotExist) {
			m.Gaps = append(m.Gaps, Gap{Index: k, ID: e.ID, Err: ErrorText(dir, e.ID)})
			continue
		}
		if err != nil {
			return nil, err
		}
		var rec Record
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.ID, ResultFile), err)
		}
		if rec.ID != e.ID || rec.Mode != e.Config.Mode {
			return nil, fmt.Errorf("%s: result of %s %s, want %s %s", filepath.Join(dir, e.ID, ResultFile), rec.ID, rec.Mode, e.ID, e.Config.Mode)
		}
		m.Records[k] = &rec
	}
	return m, nil
}

// ResultsCSV is results.csv: one row per plan entry with a result, in plan
// order. Columns that do not apply to an entry's kind are empty.
func (m *Merged) ResultsCSV() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"id", "kind", "kernel", "model", "mode", "block", "view", "image", "volume", "scene", "kernel_cycles", "frame_rate",
		"tex_hit_rate", "mean_mem_cycles_per_access", "mem_ref_frequency_per_kcycle", "memory_share", "memory_cycles", "other_cycles", "accesses"})
	for k, rec := range m.Records {
		if rec == nil {
			continue
		}
		e := m.Plan.Entries[k]
		c := e.Config
		model := c.Model
		if model == "file" {
			model = e.Inputs["model"].Path
		}
		f := func(v num) string {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return "" // undefined, as in sweep.csv
			}
			return strconv.FormatFloat(float64(v), 'g', -1, 64)
		}
		mem, oth, acc := "", "", ""
		if rec.Probed {
			mem, oth, acc = fmt.Sprint(rec.Memory), fmt.Sprint(rec.Other), fmt.Sprint(rec.Access)
		}
		var kernel, block, view, image, volume, scene string
		switch {
		case c.VR != nil:
			v := c.VR
			kernel, block, view = vr.Kernel, fmt.Sprintf("%dx%d", v.Block[0], v.Block[1]), fmt.Sprintf("%g,%g,%g", v.View[0], v.View[1], v.View[2])
			image, volume, scene = fmt.Sprint(v.Image), fmt.Sprint(v.Volume), v.Scene
		case c.Kernel != nil:
			kernel, block = c.Kernel.Name, blockString(c.Kernel.Block)
		}
		w.Write([]string{rec.ID, c.Kind, kernel, model, c.Mode, block, view, image, volume, scene,
			f(rec.Cycles), f(rec.FPS), f(rec.TexHit), f(rec.MeanAcc), f(rec.Freq), f(rec.Share), mem, oth, acc})
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// blockString is "XxYxZ" of the dimensions given ("" for none).
func blockString(b []int) string {
	s := make([]string, len(b))
	for i, d := range b {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "x")
}

// VRTable builds the vr table of a complete plan with a vr section, rows
// in the section's order (views, blocks, app/naive/auto), and returns it
// with the model's name.
func (m *Merged) VRTable() (*vr.Table, error) {
	ax := m.Plan.VR
	if ax == nil {
		return nil, errors.New("sweep: the plan has no vr section")
	}
	if len(m.Gaps) > 0 {
		return nil, fmt.Errorf("sweep: %d of %d entries have no result", len(m.Gaps), len(m.Records))
	}
	first := slices.IndexFunc(m.Plan.Entries, func(e Entry) bool { return e.Config.VR != nil })
	if first < 0 {
		return nil, errors.New("sweep: the plan has no vr entry")
	}
	ms, err := loadModel(&m.Plan.Entries[first])
	if err != nil {
		return nil, err
	}
	modelName := ms.Name
	type key struct {
		view  [3]float64
		block [2]int
		mode  string
	}
	byKey := map[key]int{}
	for k, e := range m.Plan.Entries {
		if e.Config.VR != nil {
			byKey[key{e.Config.VR.View, e.Config.VR.Block, e.Config.Mode}] = k
		}
	}
	t := &vr.Table{Model: modelName, Scene: vr.Scene{Image: ax.Image, Volume: ax.Volume, Kind: ax.Scene}}
	for _, bs := range ax.Blocks {
		s, err := ParseBlock(bs)
		if err != nil {
			return nil, err
		}
		t.Shapes = append(t.Shapes, s)
	}
	for _, vs := range ax.Views {
		v, err := ParseView(vs)
		if err != nil {
			return nil, err
		}
		t.Views = append(t.Views, v)
		for _, s := range t.Shapes {
			var app *Record
			for _, mode := range vr.SweepModes() {
				k, ok := byKey[key{[3]float64{v.A, v.B, v.G}, [2]int{s.X, s.Y}, vr.ModeName(mode)}]
				if !ok {
					return nil, fmt.Errorf("sweep: the plan lacks %s %s %s", vr.ModeName(mode), v, s)
				}
				rec := m.Records[k]
				if mode == "" {
					app = rec
				}
				t.Rows = append(t.Rows, rec.row(m.Plan.Entries[k].Config, app))
			}
		}
	}
	return t, nil
}

// VRFiles are sweep vr's outputs for t: sweep.csv, correlations.csv, the
// charts and report.html (generated is the report's "generated by" line).
func VRFiles(t *vr.Table, generated string) ([]File, error) {
	var csvBuf, corrBuf bytes.Buffer
	if err := t.CSV(&csvBuf); err != nil {
		return nil, err
	}
	corrs := t.Correlations()
	if err := vr.CorrelationsCSV(&corrBuf, corrs); err != nil {
		return nil, err
	}
	files := []File{{"sweep.csv", csvBuf.Bytes()}, {"correlations.csv", corrBuf.Bytes()}}
	charts, err := t.Charts()
	if err != nil {
		return nil, err
	}
	for _, c := range charts {
		files = append(files, File{c.Name, c.SVG})
	}
	var rb bytes.Buffer
	if err := t.Report(corrs, charts, generated).Render(&rb); err != nil {
		return nil, err
	}
	return append(files, File{"report.html", rb.Bytes()}), nil
}
