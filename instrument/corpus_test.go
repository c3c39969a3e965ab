package instrument

import (
	"context"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// inputFiles lists the third-party corpus (if present) and the samples.
func inputFiles(t testing.TB) []string {
	var files []string
	// The corpus lies next to the checkout (../shared from the main
	// checkout, ../../shared from a worktree under wt/).
	corpus := ""
	for _, dir := range []string{os.Getenv("PTXTRACE_CORPUS"), "../../shared/corpus/ptx", "../../../shared/corpus/ptx"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "*.ptx")); dir != "" && len(m) > 0 {
			corpus = dir
			files = append(files, m...)
			break
		}
	}
	if corpus == "" {
		t.Logf("corpus ../shared/corpus/ptx absent: testing the samples only")
	}
	for _, g := range []string{"../samples/*/*.ptx", "../ptx/testdata/gen/*.ptx"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	sort.Strings(files)
	return files
}

func parse(t testing.TB, name string, src []byte) (*token.FileSet, *ptx.File) {
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fset, f
}

// ptxasCache remembers whether ptxas accepts an unmodified input.
type ptxasCache struct {
	mu sync.Mutex
	ok map[string]bool
}

func (c *ptxasCache) accepts(tools cudatool.Tools, name string, src []byte, arch string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, found := c.ok[name]; found {
		return v
	}
	_, _, err := tools.Compile(context.Background(), name, src, arch)
	c.ok[name] = err == nil
	return err == nil
}

// oldISA reports whether a module is of PTX ISA < 2.0 or for sm_1x, read
// from its header (the modules Instrument refuses when they have sites).
func oldISA(f *ptx.File) bool {
	if d := f.Directive(".version"); d != nil {
		if maj, _, ok := d.Version(); ok && maj < 2 {
			return true
		}
	}
	if d := f.Directive(".target"); d != nil {
		if sm, _ := d.SM(); sm > 0 && sm < 20 {
			return true
		}
	}
	return false
}

// archFor returns the -arch to assemble a module for: its own target when
// ptxas accepts the input for it, else sm_52 (ptxas 11.8 assembles PTX
// written for sm_1x…sm_30 for sm_52); "" when ptxas rejects the input for
// both.
func archFor(tools cudatool.Tools, cache *ptxasCache, name string, src []byte, target string) string {
	for _, arch := range []string{target, "sm_52"} {
		if cache.accepts(tools, name+"@"+arch, src, arch) {
			return arch
		}
	}
	return ""
}

// TestCorpusAllModes instruments every corpus file and sample in every
// mode and, when ptxas is installed, checks that ptxas accepts the output
// whenever it accepts the input (for the file's target, else sm_52). A
// module of PTX ISA < 2.0 or for sm_1x with sites must be refused with an
// error that says why; every other module must instrument.
func TestCorpusAllModes(t *testing.T) {
	tools := cudatool.Find()
	if testing.Short() {
		t.Skip("short")
	}
	cache := &ptxasCache{ok: map[string]bool{}}
	var mu sync.Mutex
	// mode → instrumented, refused (old ISA), ptxas accepted the output,
	// input not assembled (ptxas reads neither it nor its version)
	counts := map[string][4]int{}
	add := func(mode string, i int) {
		mu.Lock()
		c := counts[mode]
		c[i]++
		counts[mode] = c
		mu.Unlock()
	}
	for _, name := range inputFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			for _, mode := range Modes() {
				fset, f := parse(t, name, src)
				old := oldISA(f)
				res, err := Instrument(fset, f, Options{Mode: mode})
				if err == nil && len(res.Warnings) > 0 {
					t.Logf("mode %s: %s (output unchanged)", mode, res.Warnings[0])
				}
				if err != nil && old && strings.Contains(err.Error(), "cannot instrument PTX ISA") &&
					strings.Contains(err.Error(), "PTX ISA 2.0 and sm_20") {
					add(mode, 1)
					continue
				}
				if err != nil {
					t.Fatalf("mode %s: %v", mode, err)
				}
				if old && len(res.Manifest.Kernels) > 0 && res.Manifest.Kernels[0].Staging.Where != "none" {
					t.Errorf("mode %s: a PTX ISA < 2.0 / sm_1x module was instrumented", mode)
				}
				checkOutLines(t, res)
				add(mode, 0)
				if tools.Ptxas == "" {
					continue
				}
				maj, min := 0, 0
				if d := f.Directive(".version"); d != nil {
					maj, min, _ = d.Version()
				}
				if !cudatool.SupportsVersion(maj, min) {
					t.Logf("ptxas 11.8 does not read .version %d.%d: output not compiled", maj, min)
					add(mode, 3)
					continue
				}
				arch := archFor(tools, cache, name, src, res.Manifest.Target)
				if arch == "" {
					t.Logf("ptxas rejects the input for %s and sm_52: output not compiled", res.Manifest.Target)
					add(mode, 3)
					continue
				}
				if _, _, err := tools.Compile(context.Background(), name, res.PTX, arch); err != nil {
					t.Errorf("mode %s: ptxas -arch=%s rejects the instrumented output: %v", mode, arch, err)
					continue
				}
				add(mode, 2)
			}
		})
	}
	t.Cleanup(func() {
		for _, mode := range Modes() {
			c := counts[mode]
			t.Logf("mode %-5s: %d files instrumented (%d accepted by ptxas, %d inputs ptxas does not assemble), %d refused (PTX ISA < 2.0 or sm_1x)",
				mode, c[0], c[2], c[3], c[1])
		}
	})
}

// checkOutLines: every load probe's out_line is the line of the output
// where its instruction starts (the probe's text, a whitespace-normalized
// copy of the input instruction, starts with that line's words).
func checkOutLines(t *testing.T, res *Result) {
	t.Helper()
	lines := strings.Split(string(res.PTX), "\n")
	for _, k := range res.Manifest.Kernels {
		for _, p := range k.Probes {
			if p.OutLine < 1 || p.OutLine > len(lines) {
				t.Fatalf("probe %d: out_line %d of %d", p.ID, p.OutLine, len(lines))
			}
			got := strings.Join(strings.Fields(lines[p.OutLine-1]), " ")
			if p.RegionKind == "load" && (got == "" || !strings.HasPrefix(p.Text, got)) {
				t.Errorf("probe %d: out_line %d is %q, want the start of %q", p.ID, p.OutLine, got, p.Text)
			}
		}
	}
}
