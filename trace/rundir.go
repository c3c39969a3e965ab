package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
)

// Run-directory layout (docs/launch.md, "Run directory"). A run directory
// is what `ptxtrace run` writes: the final contents of every output buffer
// as NAME.bin, printf.txt, summary.json and, per traced (instrumented)
// launch, its raw buffer and its bundle. A run with one traced launch names
// them trace.bin and run.bundle; a run with several names them
// trace.NNN.bin and run.NNN.bundle, NNN the launch index (at least three
// digits). RunDirWriter is the one writer and RunBundles/OpenRunDir the one
// reader of this layout.
const (
	RunSummaryFile = "summary.json"
	RunPrintfFile  = "printf.txt"
)

// RunTraceName is the raw-buffer file of launch index of a run with one
// traced launch (multi false) or several (multi true).
func RunTraceName(index int, multi bool) string {
	if !multi {
		return "trace.bin"
	}
	return fmt.Sprintf("trace.%03d.bin", index)
}

// RunBundleName is the bundle file of launch index (see RunTraceName).
func RunBundleName(index int, multi bool) string {
	if !multi {
		return "run.bundle"
	}
	return fmt.Sprintf("run.%03d.bundle", index)
}

var runFileRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:run\.([0-9]{3,})\.bundle|trace\.([0-9]{3,})\.bin|run\.bundle|trace\.bin)$`)
})

// RunDirWriter writes a run directory. Every file is replaced atomically
// (a reader never sees a partial file); Outputs lists what was written in
// order. Close removes the trace and bundle files of an earlier run in the
// same directory that this run did not write, so the reader never mixes
// launches of two runs.
type RunDirWriter struct {
	dir     string
	outputs []string
	bundles []string
	written map[string]bool
}

// CreateRunDir creates dir (and its parents) for writing.
func CreateRunDir(dir string) (*RunDirWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &RunDirWriter{dir: dir, written: map[string]bool{}}, nil
}

// Dir is the directory written.
func (w *RunDirWriter) Dir() string { return w.dir }

// WriteFile writes one file of the run directory.
func (w *RunDirWriter) WriteFile(name string, data []byte) error {
	if name == "" || filepath.Base(name) != name {
		return fmt.Errorf("trace: run directory file %q is not a plain file name", name)
	}
	w.outputs = append(w.outputs, name)
	w.written[name] = true
	return atomicfile.WriteFile(filepath.Join(w.dir, name), 0o644, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteBuffer writes the final contents of output buffer name as NAME.bin.
func (w *RunDirWriter) WriteBuffer(name string, data []byte) error {
	return w.WriteFile(name+".bin", data)
}

// WriteTrace writes one traced launch: its raw buffer (in.Raw) as
// RunTraceName and its bundle as RunBundleName. multi says whether the run
// has more than one traced launch; it must be the same for every call.
func (w *RunDirWriter) WriteTrace(index int, multi bool, in *BundleInput) (traceName, bundleName string, err error) {
	if in.Raw == nil {
		return "", "", fmt.Errorf("trace: launch %d: no raw buffer in memory", index)
	}
	traceName, bundleName = RunTraceName(index, multi), RunBundleName(index, multi)
	if err := w.WriteFile(traceName, in.Raw); err != nil {
		return "", "", err
	}
	w.outputs = append(w.outputs, bundleName)
	w.bundles = append(w.bundles, bundleName)
	w.written[bundleName] = true
	if err := WriteBundleFile(filepath.Join(w.dir, bundleName), in); err != nil {
		return "", "", err
	}
	return traceName, bundleName, nil
}

// WriteSummary writes v as indented JSON to summary.json.
func (w *RunDirWriter) WriteSummary(v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return w.WriteFile(RunSummaryFile, append(js, '\n'))
}

// Outputs lists the files written so far, in order (summary.json included
// once written).
func (w *RunDirWriter) Outputs() []string { return append([]string(nil), w.outputs...) }

// Bundles lists the bundle files written so far, in launch order.
func (w *RunDirWriter) Bundles() []string { return append([]string(nil), w.bundles...) }

// Close removes trace[.NNN].bin and run[.NNN].bundle files that an earlier
// run left in the directory and this one did not write.
func (w *RunDirWriter) Close() error {
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() && runFileRE().MatchString(e.Name()) && !w.written[e.Name()] {
			if err := os.Remove(filepath.Join(w.dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// RunBundle names one traced launch's bundle file.
type RunBundle struct {
	Launch int    // launch index in the run (0 for a lone run.bundle or another file name)
	Multi  bool   // one of several launches: named run.NNN.bundle
	Path   string // the bundle file
}

// RunBundles lists the bundles of a run: path itself when it is a file
// (with its launch index when it is named run.NNN.bundle);
// for a run directory its run.bundle, or else every run.NNN.bundle in
// launch order. A directory with no bundle, or with both forms, is an
// error.
func RunBundles(path string) ([]RunBundle, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		rb := RunBundle{Launch: 0, Path: path}
		if m := runFileRE().FindStringSubmatch(filepath.Base(path)); m != nil && m[1] != "" {
			if n, err := strconv.Atoi(m[1]); err == nil {
				rb.Launch, rb.Multi = n, true
			}
		}
		return []RunBundle{rb}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []RunBundle
	single := false
	for _, e := range ents {
		m := runFileRE().FindStringSubmatch(e.Name())
		switch {
		case m == nil || !e.Type().IsRegular():
		case e.Name() == "run.bundle":
			single = true
		case m[1] != "":
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s: bundle %s: launch index out of range", path, e.Name())
			}
			out = append(out, RunBundle{Launch: n, Multi: true, Path: filepath.Join(path, e.Name())})
		}
	}
	switch {
	case single && len(out) > 0:
		return nil, fmt.Errorf("%s: run directory has both run.bundle and %d run.NNN.bundle files (from different runs?)", path, len(out))
	case single:
		return []RunBundle{{Launch: 0, Path: filepath.Join(path, "run.bundle")}}, nil
	case len(out) == 0:
		return nil, fmt.Errorf("%s: run directory has no run.bundle or run.NNN.bundle (was the kernel instrumented?)", path)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Launch < out[j].Launch })
	for i := 1; i < len(out); i++ {
		if out[i].Launch == out[i-1].Launch {
			return nil, fmt.Errorf("%s: two bundles of launch %d", path, out[i].Launch)
		}
	}
	return out, nil
}

// OpenRunDir opens every bundle of a run (RunBundles), in launch order.
// Close each when done; on error none is left open.
func OpenRunDir(path string) ([]*Bundle, error) {
	rbs, err := RunBundles(path)
	if err != nil {
		return nil, err
	}
	var out []*Bundle
	for _, rb := range rbs {
		b, err := OpenBundleFile(rb.Path)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
