package sweep

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ptxtrace/ptxtrace/internal/readcap"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/experiments/vr"
	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/model"
	"gopkg.in/yaml.v3"
)

// PlanFormat is the plan file's format version (its header's "plan").
const PlanFormat = 1

// Config is one run, canonical: every field that changes the result, no
// path (files are Plan inputs, by role). Its JSON is what ids hash.
type Config struct {
	// Kind is "vr" (the embedded volume renderer, experiments/vr) or
	// "kernel" (a PTX file and a launch spec, inputs "ptx" and "launch").
	Kind string `json:"kind"`
	// Model is a preset name, or "file" for the spec file of input "model".
	Model string `json:"model"`
	// Mode is "app" (uninstrumented) or a probe mode (naive, fence,
	// dummy, auto).
	Mode   string        `json:"mode"`
	VR     *VRConfig     `json:"vr,omitempty"`
	Kernel *KernelConfig `json:"kernel,omitempty"`
}

// VRConfig is a vr run: block shape, view and scene.
type VRConfig struct {
	Block  [2]int     `json:"block"`
	View   [3]float64 `json:"view"`
	Image  int        `json:"image"`
	Volume int        `json:"volume"`
	Scene  string     `json:"scene"`
}

// KernelConfig is a kernel run: the launch spec's kernel, with its block
// shape replaced by Block when set.
type KernelConfig struct {
	Name  string `json:"name"`
	Block []int  `json:"block,omitempty"`
}

// Input is an input file of an entry: its path (absolute, as planned) and
// the SHA-256 of its bytes when planned.
type Input struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Entry is one plan line.
type Entry struct {
	ID     string           `json:"id"`
	Config Config           `json:"config"`
	Inputs map[string]Input `json:"inputs,omitempty"`
}

// VRAxes are the axes of a vr section, in the order its tables and
// charts use (views, then blocks, then app, naive, auto).
type VRAxes struct {
	Model  string   `json:"model"`
	Views  []string `json:"views"`  // "A,B,G"
	Blocks []string `json:"blocks"` // "XxY"
	Image  int      `json:"image"`
	Volume int      `json:"volume"`
	Scene  string   `json:"scene"`
}

// Header is the plan's first line.
type Header struct {
	Plan    int     `json:"plan"`
	Tool    string  `json:"tool"`
	Entries int     `json:"entries"`
	VR      *VRAxes `json:"vr,omitempty"`
}

// Plan is a header and its entries sorted by id.
type Plan struct {
	Header
	Entries []Entry
}

// Spec is a sweep spec (YAML): a vr section, kernels, or both.
type Spec struct {
	VR *VRSpec `yaml:"vr"`
	// Kernels run on every model of Models (default gtx480) in every mode
	// of Modes (default app): "app" uninstrumented, or a probe mode.
	Kernels []KernelSpec `yaml:"kernels"`
	Models  []string     `yaml:"models"`
	Modes   []string     `yaml:"modes"`
}

// VRSpec sweeps the embedded volume renderer: every view × block ×
// {app, naive, auto} on one model.
type VRSpec struct {
	Model  string   `yaml:"model"`  // preset name or spec file (relative to the spec file)
	Views  []string `yaml:"views"`  // "A,B,G" in degrees
	Blocks []string `yaml:"blocks"` // "XxY"
	Image  int      `yaml:"image"`
	Volume int      `yaml:"volume"`
	Scene  string   `yaml:"scene"` // volume kind; default sphere
}

// MaxEntries bounds a plan's entries (each one a full simulation).
const MaxEntries = 100_000

// MaxSpecBytes bounds a sweep spec file.
const MaxSpecBytes = 16 << 20

// ReadSpec reads a spec file; errors name file:line.
func ReadSpec(path string) (*Spec, error) {
	data, err := readcap.ReadFile(path, "sweep spec", MaxSpecBytes)
	if err != nil {
		return nil, err
	}
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty spec", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.VR == nil && len(s.Kernels) == 0 {
		return nil, fmt.Errorf("%s: the spec names no workload (want a vr: section or kernels:)", path)
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(path), p)
	}
	relModel := func(m string) string {
		if _, ok := model.Preset(m); ok {
			return m
		}
		return rel(m)
	}
	if s.VR != nil && s.VR.Model != "" {
		s.VR.Model = relModel(s.VR.Model)
	}
	for i := range s.Models {
		s.Models[i] = relModel(s.Models[i])
	}
	for i := range s.Kernels {
		s.Kernels[i].PTX, s.Kernels[i].Launch = rel(s.Kernels[i].PTX), rel(s.Kernels[i].Launch)
	}
	return &s, nil
}

// ParseView parses "A,B,G" (degrees).
func ParseView(s string) (vr.View, error) {
	f := strings.Split(strings.TrimSpace(s), ",")
	if len(f) != 3 {
		return vr.View{}, fmt.Errorf("%q: want A,B,G", s)
	}
	var v [3]float64
	for i := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
		if err != nil {
			return vr.View{}, fmt.Errorf("%q: %v", s, err)
		}
		v[i] = x
	}
	return vr.View{A: v[0], B: v[1], G: v[2]}, nil
}

// ParseBlock parses "XxY" (or "X×Y") with X·Y ≤ 1024.
func ParseBlock(s string) (vr.Shape, error) {
	xs, ys, ok := strings.Cut(strings.TrimSpace(strings.ReplaceAll(s, "×", "x")), "x")
	x, err1 := strconv.Atoi(xs)
	y, err2 := strconv.Atoi(ys)
	if !ok || err1 != nil || err2 != nil || x <= 0 || y <= 0 || x*y > 1024 {
		return vr.Shape{}, fmt.Errorf("%q: want XxY with X·Y ≤ 1024", s)
	}
	return vr.Shape{X: x, Y: y}, nil
}

// FormatView is the spec form of v, "A,B,G" (degrees), which ParseView
// reads back.
func FormatView(v vr.View) string { return fmt.Sprintf("%g,%g,%g", v.A, v.B, v.G) }

// MakePlan expands the spec for tool (the version string recorded in ids
// and checked by Run).
func MakePlan(s *Spec, tool string) (*Plan, error) {
	if s == nil || s.VR == nil && len(s.Kernels) == 0 {
		return nil, errors.New("sweep: the spec names no workload")
	}
	p := &Plan{Header: Header{Plan: PlanFormat, Tool: tool}}
	if s.VR != nil {
		if err := vrEntries(p, *s.VR, tool); err != nil {
			return nil, err
		}
	}
	models, modes := s.Models, s.Modes
	if len(models) == 0 {
		models = []string{"gtx480"}
	}
	if len(modes) == 0 {
		modes = []string{"app"}
	}
	for _, m := range modes {
		if m != "app" && !slices.Contains(instrument.Modes(), m) {
			return nil, fmt.Errorf("sweep: modes: unknown mode %q (want app or one of %s)", m, strings.Join(instrument.Modes(), ", "))
		}
	}
	for i, k := range s.Kernels {
		if n := max(len(k.Blocks), 1) * len(models) * len(modes); len(p.Entries)+n > MaxEntries {
			return nil, fmt.Errorf("sweep: kernels[%d]: %d blocks × %d models × %d modes make the plan exceed the limit of %d entries", i, max(len(k.Blocks), 1), len(models), len(modes), MaxEntries)
		}
		es, err := kernelEntries(k, models, modes, tool)
		if err != nil {
			return nil, fmt.Errorf("sweep: kernels[%d]: %w", i, err)
		}
		p.Entries = append(p.Entries, es...)
	}
	seen := map[string]bool{}
	for _, e := range p.Entries {
		if seen[e.ID] {
			return nil, fmt.Errorf("sweep: two entries with the same config (%s %s %s): remove the duplicate", e.Config.Kind, e.Config.Mode, e.Config.Model)
		}
		seen[e.ID] = true
	}
	sort.Slice(p.Entries, func(i, j int) bool { return p.Entries[i].ID < p.Entries[j].ID })
	p.Header.Entries = len(p.Entries)
	return p, nil
}

// vrEntries adds the entries and axes of a vr section to p.
func vrEntries(p *Plan, v VRSpec, tool string) error {
	if v.Model == "" {
		v.Model = "gtx480"
	}
	if v.Scene == "" {
		v.Scene = "sphere"
	}
	if err := (vr.Scene{Image: v.Image, Volume: v.Volume, Kind: "sphere"}).Validate(); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if len(v.Views) == 0 || len(v.Blocks) == 0 {
		return errors.New("sweep: vr: needs views and blocks")
	}
	ax := &VRAxes{Model: v.Model, Image: v.Image, Volume: v.Volume, Scene: v.Scene}
	base := Config{Kind: "vr", Model: v.Model}
	inputs := map[string]Input{}
	if _, ok := model.Preset(v.Model); !ok {
		in, err := hashInput(v.Model)
		if err != nil {
			return fmt.Errorf("sweep: vr: model: %w", err)
		}
		inputs["model"] = in
		base.Model = "file"
	}
	var views []vr.View
	for _, vs := range v.Views {
		view, err := ParseView(vs)
		if err != nil {
			return fmt.Errorf("sweep: vr: views: %w", err)
		}
		if slices.Contains(views, view) {
			return fmt.Errorf("sweep: vr: view %s twice", vs)
		}
		views = append(views, view)
		ax.Views = append(ax.Views, FormatView(view))
	}
	var shapes []vr.Shape
	for _, bs := range v.Blocks {
		sh, err := ParseBlock(bs)
		if err != nil {
			return fmt.Errorf("sweep: vr: blocks: %w", err)
		}
		if slices.Contains(shapes, sh) {
			return fmt.Errorf("sweep: vr: block %s twice", bs)
		}
		shapes = append(shapes, sh)
		ax.Blocks = append(ax.Blocks, sh.Stem())
	}
	if n := len(views) * len(shapes) * len(vr.SweepModes()); len(p.Entries)+n > MaxEntries {
		return fmt.Errorf("sweep: vr: %d views × %d blocks × %d modes = %d entries exceed the limit of %d", len(views), len(shapes), len(vr.SweepModes()), n, MaxEntries)
	}
	p.VR = ax
	for _, view := range views {
		for _, sh := range shapes {
			for _, m := range vr.SweepModes() {
				c := base
				c.Mode = vr.ModeName(m)
				c.VR = &VRConfig{Block: [2]int{sh.X, sh.Y}, View: [3]float64{view.A, view.B, view.G}, Image: v.Image, Volume: v.Volume, Scene: v.Scene}
				e := Entry{Config: c, Inputs: inputs}
				e.ID = entryID(tool, e)
				p.Entries = append(p.Entries, e)
			}
		}
	}
	return nil
}

func hashInput(path string) (Input, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Input{}, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return Input{}, err
	}
	sum := sha256.Sum256(data)
	return Input{Path: abs, SHA256: hex.EncodeToString(sum[:])}, nil
}

// entryID hashes tool, the config's JSON and the inputs' digests by role.
func entryID(tool string, e Entry) string {
	h := sha256.New()
	cj, _ := json.Marshal(e.Config)
	fmt.Fprintf(h, "ptxtrace-sweep/%d\n%s\n%s\n", PlanFormat, tool, cj)
	roles := make([]string, 0, len(e.Inputs))
	for r := range e.Inputs {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, r := range roles {
		fmt.Fprintf(h, "%s %s\n", r, e.Inputs[r].SHA256)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Write writes the plan as JSON lines: the header, then one entry a line.
func (p *Plan) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	h := p.Header
	h.Entries = len(p.Entries)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, e := range p.Entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadPlan reads a plan file written by Write, checking its ids (a
// hand-edited entry is refused); errors name file:line.
func ReadPlan(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	p := &Plan{}
	line := 0
	for sc.Scan() {
		line++
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if line == 1 {
			if err := dec.Decode(&p.Header); err != nil {
				return nil, fmt.Errorf("%s:1: plan header: %v", path, err)
			}
			if p.Plan != PlanFormat {
				return nil, fmt.Errorf("%s:1: plan format %d, want %d", path, p.Plan, PlanFormat)
			}
			continue
		}
		var e Entry
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if id := entryID(p.Tool, e); e.ID != id {
			return nil, fmt.Errorf("%s:%d: entry id %s does not match its config (want %s)", path, line, e.ID, id)
		}
		if n := len(p.Entries); n > 0 && p.Entries[n-1].ID >= e.ID {
			return nil, fmt.Errorf("%s:%d: entries not sorted by id", path, line)
		}
		p.Entries = append(p.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty plan", path)
	}
	if p.Header.Entries != len(p.Entries) {
		return nil, fmt.Errorf("%s: header says %d entries, file has %d (truncated?)", path, p.Header.Entries, len(p.Entries))
	}
	return p, nil
}
