package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
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

// IsRunBundleName reports whether base is the name of a bundle inside a
// run directory (run.bundle, or run.NNN.bundle with 3 or more digits).
func IsRunBundleName(base string) bool {
	m := runFileRE().FindStringSubmatch(base)
	return m != nil && strings.HasSuffix(base, ".bundle")
}

var runFileRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:run\.([0-9]{3,})\.bundle|trace\.([0-9]{3,})\.bin|run\.bundle|trace\.bin)$`)
})

// RunDirWriter writes a run directory as a whole: every file goes into a
// temporary sibling directory (.NAME.new-*), and Close replaces the old
// directory with it in one rename (an exchange of the two directories on
// Linux), so a reader sees either the old run or the new one, never a mix,
// and a run that fails before Close (Abort) leaves the old run intact.
// Entries of the old directory that are not part of a run's layout (a
// user's notes, say) are carried over; run files (trace/bundle files,
// summary.json, printf.txt, *.bin) of the old run are not. An existing
// directory that holds other entries but no summary.json or trace/bundle
// file is not a run
// directory and is refused rather than replaced.
type RunDirWriter struct {
	dir     string // as given
	abs     string // absolute path of dir
	tmp     string // the temporary sibling being written ("" once committed or aborted)
	outputs []string
	bundles []string
	written map[string]bool
}

// CreateRunDir prepares dir (its parents are created) for writing.
func CreateRunDir(dir string) (*RunDirWriter, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err == nil {
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s: exists and is not a directory", dir)
		}
		if err := checkRunDir(dir, abs); err != nil {
			return nil, err
		}
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".new-")
	if err != nil {
		return nil, fmt.Errorf("%s: cannot create the run directory: %w", dir, errors.Unwrap(err))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &RunDirWriter{dir: dir, abs: abs, tmp: tmp, written: map[string]bool{}}, nil
}

// checkRunDir refuses to replace a non-empty directory that does not look
// like a run directory (no summary.json).
func checkRunDir(dir, abs string) error {
	ents, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	for _, e := range ents {
		if e.Name() == RunSummaryFile || runFileRE().MatchString(e.Name()) {
			return nil
		}
	}
	return fmt.Errorf("%s: directory exists and is not a run directory (no %s, run.bundle or trace.bin); refusing to replace it (choose another -o)", dir, RunSummaryFile)
}

// isRunFile reports whether name belongs to a run's layout (replaced, not
// carried over, by a new run).
func isRunFile(name string) bool {
	return runFileRE().MatchString(name) || name == RunSummaryFile || name == RunPrintfFile || filepath.Ext(name) == ".bin"
}

// Dir is the directory written.
func (w *RunDirWriter) Dir() string { return w.dir }

// WriteFile writes one file of the run directory.
func (w *RunDirWriter) WriteFile(name string, data []byte) error {
	if name == "" || filepath.Base(name) != name {
		return fmt.Errorf("trace: run directory file %q is not a plain file name", name)
	}
	if w.tmp == "" {
		return fmt.Errorf("trace: run directory %s already closed", w.dir)
	}
	w.outputs = append(w.outputs, name)
	w.written[name] = true
	err := atomicfile.WriteFile(filepath.Join(w.tmp, name), 0o644, func(f io.Writer) error {
		_, err := f.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(w.dir, name), rootCause(err))
	}
	return nil
}

// rootCause strips path wrappers that name temporary files.
func rootCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
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
	if err := WriteBundleFile(filepath.Join(w.tmp, bundleName), in); err != nil {
		return "", "", fmt.Errorf("%s: %w", filepath.Join(w.dir, bundleName), rootCause(err))
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

// Abort discards what was written; the old run directory, if any, is left
// as it was. Abort after Close does nothing.
func (w *RunDirWriter) Abort() {
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
		w.tmp = ""
	}
}

// Close commits the run: the old directory's non-run entries are carried
// over, then the new directory replaces the old one.
func (w *RunDirWriter) Close() (err error) {
	if w.tmp == "" {
		return fmt.Errorf("trace: run directory %s already closed", w.dir)
	}
	defer w.Abort()
	var carryDirs []string // non-regular entries, moved after the swap
	if ents, err := os.ReadDir(w.abs); err == nil {
		if err := checkRunDir(w.dir, w.abs); err != nil {
			return err
		}
		for _, e := range ents {
			if w.written[e.Name()] || e.Type().IsRegular() && isRunFile(e.Name()) {
				continue
			}
			if !e.Type().IsRegular() {
				carryDirs = append(carryDirs, e.Name())
				continue
			}
			if err := os.Link(filepath.Join(w.abs, e.Name()), filepath.Join(w.tmp, e.Name())); err != nil {
				return fmt.Errorf("%s: cannot carry over %s: %w", w.dir, e.Name(), rootCause(err))
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, err := os.Lstat(w.abs); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(w.tmp, w.abs); err != nil {
			return fmt.Errorf("%s: %w", w.dir, rootCause(err))
		}
		w.tmp = ""
		return nil
	}
	old := w.tmp // after the exchange the temporary directory holds the old run
	if err := exchangeDirs(w.tmp, w.abs); err != nil {
		// No atomic exchange: move the old run aside, the new one in.
		aside, err := os.MkdirTemp(filepath.Dir(w.abs), "."+filepath.Base(w.abs)+".old-")
		if err != nil {
			return fmt.Errorf("%s: %w", w.dir, rootCause(err))
		}
		os.Remove(aside)
		if err := os.Rename(w.abs, aside); err != nil {
			return fmt.Errorf("%s: %w", w.dir, rootCause(err))
		}
		if err := os.Rename(w.tmp, w.abs); err != nil {
			os.Rename(aside, w.abs)
			return fmt.Errorf("%s: %w", w.dir, rootCause(err))
		}
		old = aside
	}
	w.tmp = ""
	for _, name := range carryDirs {
		os.Rename(filepath.Join(old, name), filepath.Join(w.abs, name))
	}
	return os.RemoveAll(old)
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
