package sweep

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/experiments/vr"
	"github.com/ptxtrace/ptxtrace/exporters/formats"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/internal/par"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/model/specfile"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Files of an entry's directory DIR/ID.
const (
	ResultFile  = "result.json"  // Record
	SummaryFile = "summary.json" // the plan entry and the tool
	BundleFile  = "run.bundle"   // instrumented runs
	ParquetFile = "part-0.parquet"
	ErrorSuffix = ".error" // DIR/ID.error: why the entry failed
	tmpDir      = ".tmp"
)

// RunOptions say which entries Run executes and how.
type RunOptions struct {
	Out   string // output directory
	Shard Shard  // zero value: Whole()
	Jobs  int    // entries in parallel (≤ 0: GOMAXPROCS); outputs do not depend on it
	Tool  string // this tool's version; must be the plan's
	// Convert is "" or "parquet": also write the bundle as a Parquet
	// partition in the entry's directory.
	Convert string
	// NoBundles leaves run.bundle (and Convert's Parquet) out of the entry
	// directories: for callers that only merge (sweep vr).
	NoBundles bool
	// Progress, if set, is called once before the first entry with
	// (0, total) and after each with the entries done so far, one call at
	// a time.
	Progress func(done, total int)
	// Entry, if set, receives each entry's progress: while it simulates,
	// its cycle and CTAs dispatched (model.Options.Progress: from the
	// entry's goroutine, every 64 quanta), then one call with Ended once
	// it is over (run, skipped or failed), before Progress counts it. i is
	// the entry's index among the shard's entries.
	Entry func(i int, p EntryProgress)
}

// EntryProgress is a running entry's progress (RunOptions.Entry).
type EntryProgress struct {
	Cycle            model.Time // simulated cycle
	Dispatched, CTAs int        // CTAs dispatched of the kernel's
	Ended            bool       // the entry is over
}

// Report is what Run did.
type Report struct {
	Owned   int      // entries of the shard
	Ran     int      // entries simulated and written by this process
	Skipped int      // entries already finished
	Failed  []string // ids of failed entries, in plan order
	Errors  []error  // their errors
}

// Run executes the shard's entries of p, writing each to Out/ID (see the
// package doc). Entries whose directory exists are skipped. A failing
// entry writes Out/ID.error and does not stop the others; its id is in
// Report.Failed. The error is for what stops the whole run (the output
// directory, a plan made by another tool version, the context).
func Run(ctx context.Context, p *Plan, o RunOptions) (*Report, error) {
	if o.Shard.N == 0 {
		o.Shard = Whole()
	}
	if p.Tool != o.Tool {
		return nil, fmt.Errorf("sweep: the plan was made by %q, this is %q: its ids would not describe these results; make the plan again", p.Tool, o.Tool)
	}
	if o.Convert != "" && o.Convert != "parquet" {
		return nil, fmt.Errorf("sweep: --convert %q: want parquet", o.Convert)
	}
	if err := os.MkdirAll(filepath.Join(o.Out, tmpDir), 0o755); err != nil {
		return nil, err
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	owned := p.ShardEntries(o.Shard)
	rep := &Report{Owned: len(owned)}
	ex := &executor{codes: map[string]*vr.Code{}, inputs: &vr.Inputs{}, tool: o.Tool, convert: o.Convert, noBundles: o.NoBundles}
	errs := make([]error, len(owned))
	ran := make([]bool, len(owned))
	var mu sync.Mutex
	done := 0
	if o.Progress != nil {
		o.Progress(0, len(owned))
	}
	par.Do(ctx, len(owned), jobs, func(i int) {
		e := &p.Entries[owned[i]]
		var prog model.ProgressFunc
		if o.Entry != nil {
			prog = func(c model.Time, d, t int) { o.Entry(i, EntryProgress{Cycle: c, Dispatched: d, CTAs: t}) }
		}
		ran[i], errs[i] = runEntry(ctx, ex, o.Out, e, prog)
		if o.Entry != nil {
			o.Entry(i, EntryProgress{Ended: true})
		}
		mu.Lock()
		done++
		if o.Progress != nil {
			o.Progress(done, len(owned))
		}
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	for i, k := range owned {
		switch {
		case errs[i] != nil:
			rep.Failed = append(rep.Failed, p.Entries[k].ID)
			rep.Errors = append(rep.Errors, errs[i])
		case ran[i]:
			rep.Ran++
		default:
			rep.Skipped++
		}
	}
	return rep, nil
}

// ShardEntries returns the plan indexes s owns, ascending.
func (p *Plan) ShardEntries(s Shard) []int {
	var out []int
	for k := s.I; k < len(p.Entries); k += s.N {
		out = append(out, k)
	}
	return out
}

// runEntry runs e unless finished; ran reports whether it simulated.
func runEntry(ctx context.Context, ex *executor, out string, e *Entry, prog model.ProgressFunc) (ran bool, err error) {
	final := filepath.Join(out, e.ID)
	errFile := final + ErrorSuffix
	if fi, err := os.Stat(final); err == nil && fi.IsDir() {
		return false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
		if err != nil && ctx.Err() == nil {
			msg := []byte(err.Error() + "\n")
			if werr := atomicfile.WriteFile(errFile, 0o644, func(w io.Writer) error { _, e := w.Write(msg); return e }); werr != nil {
				err = fmt.Errorf("%w (and writing %s: %v)", err, errFile, werr)
			}
		}
	}()
	files, err := ex.exec(ctx, e, prog)
	if err != nil {
		return true, err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(out, tmpDir, e.ID+"-"+hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return true, err
	}
	defer os.RemoveAll(tmp) // nothing left once renamed
	for _, f := range files {
		if err := writeSynced(filepath.Join(tmp, f.name), f.data); err != nil {
			return true, err
		}
	}
	syncDir(tmp)
	if err := os.Rename(tmp, final); err != nil {
		if fi, serr := os.Stat(final); serr == nil && fi.IsDir() {
			return true, nil // another process finished it first, with the same bytes
		}
		return true, err
	}
	syncDir(out)
	if err := os.Remove(errFile); err != nil && !os.IsNotExist(err) {
		return true, err
	}
	return true, nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

type file struct {
	name string
	data []byte
}

// executor runs entries; it caches the instrumented codes per mode.
type executor struct {
	mu        sync.Mutex
	codes     map[string]*vr.Code
	inputs    *vr.Inputs // generated inputs (volumes) shared read-only by the entries
	tool      string
	convert   string
	noBundles bool
}

func (ex *executor) code(mode string) (*vr.Code, error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if c, ok := ex.codes[mode]; ok {
		return c, nil
	}
	c, err := vr.Instrument(mode, vr.Capacity(), ex.tool)
	if err != nil {
		return nil, err
	}
	ex.codes[mode] = c
	return c, nil
}

// loadModel loads the entry's model, checking a model file against the
// digest planned.
func loadModel(e *Entry) (*model.Spec, error) {
	name := e.Config.Model
	if name == "file" {
		in, ok := e.Inputs["model"]
		if !ok {
			return nil, errors.New("model \"file\" without a model input")
		}
		data, err := os.ReadFile(in.Path)
		if err != nil {
			return nil, err
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != in.SHA256 {
			return nil, fmt.Errorf("%s changed since the plan was made (SHA-256 differs); make the plan again", in.Path)
		}
		name = in.Path
	} else if _, ok := model.Preset(name); !ok {
		return nil, fmt.Errorf("unknown model preset %q", name)
	}
	ms, err := specfile.Load(name)
	if err != nil {
		return nil, err
	}
	if err := ms.Validate(); err != nil {
		return nil, err
	}
	return &ms, nil
}

// exec simulates e and returns its directory's files.
func (ex *executor) exec(ctx context.Context, e *Entry, prog model.ProgressFunc) ([]file, error) {
	ms, err := loadModel(e)
	if err != nil {
		return nil, err
	}
	var rec *Record
	var bundle []byte
	switch c := e.Config; {
	case c.Kind == "vr" && c.VR != nil:
		rec, bundle, err = ex.execVR(ctx, e, ms, prog)
	case c.Kind == "kernel" && c.Kernel != nil:
		rec, bundle, err = ex.execKernel(ctx, e, ms, prog)
	default:
		return nil, fmt.Errorf("unknown config kind %q", c.Kind)
	}
	if err != nil {
		return nil, err
	}
	res, err := json.MarshalIndent(rec, "", "\t")
	if err != nil {
		return nil, err
	}
	sum, err := json.MarshalIndent(struct {
		Tool string `json:"tool"`
		Entry
	}{ex.tool, *e}, "", "\t")
	if err != nil {
		return nil, err
	}
	files := []file{{ResultFile, append(res, '\n')}, {SummaryFile, append(sum, '\n')}}
	if bundle != nil && !ex.noBundles {
		files = append(files, file{BundleFile, bundle})
		if ex.convert == "parquet" {
			pq, err := toParquet(ctx, bundle)
			if err != nil {
				return nil, fmt.Errorf("--convert parquet: %w", err)
			}
			files = append(files, file{ParquetFile, pq})
		}
	}
	return files, nil
}

func (ex *executor) execVR(ctx context.Context, e *Entry, ms *model.Spec, prog model.ProgressFunc) (*Record, []byte, error) {
	c := e.Config.VR
	mode := e.Config.Mode
	if mode == "app" {
		mode = ""
	}
	code, err := ex.code(mode)
	if err != nil {
		return nil, nil, err
	}
	view, shape := vr.View{A: c.View[0], B: c.View[1], G: c.View[2]}, vr.Shape{X: c.Block[0], Y: c.Block[1]}
	r, err := vr.Run(ctx, vr.RunOptions{Code: code, Model: ms, Scene: vr.Scene{Image: c.Image, Volume: c.Volume, Kind: c.Scene},
		View: view, Shape: shape, KeepBundle: true, Inputs: ex.inputs, Progress: prog})
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s %s: %w", e.Config.Mode, view, shape, err)
	}
	return recordOf(e.ID, r), r.Bundle, nil
}

func toParquet(ctx context.Context, bundle []byte) ([]byte, error) {
	f, ok := formats.Formats(formats.NetOptions{})["parquet"]
	if !ok {
		return nil, errors.New("no parquet exporter")
	}
	b, err := trace.OpenBundle(bytes.NewReader(bundle), int64(len(bundle)))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := f.Export(ctx, &buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ErrorText reads the error recorded for id in dir ("" when none).
func ErrorText(dir, id string) string {
	b, err := os.ReadFile(filepath.Join(dir, id+ErrorSuffix))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
