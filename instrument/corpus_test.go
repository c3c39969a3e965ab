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
	corpus := filepath.Join("..", "..", "shared", "corpus", "ptx")
	if m, _ := filepath.Glob(filepath.Join(corpus, "*.ptx")); len(m) > 0 {
		files = append(files, m...)
	} else {
		t.Logf("corpus %s absent: testing the samples only", corpus)
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

// TestCorpusAllModes instruments every corpus file and sample in every
// mode and, when ptxas is installed, checks that ptxas accepts the output
// for the file's target whenever it accepts the input.
func TestCorpusAllModes(t *testing.T) {
	tools := cudatool.Find()
	if testing.Short() {
		t.Skip("short")
	}
	cache := &ptxasCache{ok: map[string]bool{}}
	var mu sync.Mutex
	counts := map[string][3]int{} // mode → instrumented, ptxas checked, ptxas accepted
	for _, name := range inputFiles(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			for _, mode := range Modes() {
				fset, f := parse(t, name, src)
				res, err := Instrument(fset, f, Options{Mode: mode})
				if err == nil && len(res.Warnings) > 0 {
					t.Logf("mode %s: %s (output unchanged)", mode, res.Warnings[0])
				}
				if err != nil {
					t.Fatalf("mode %s: %v", mode, err)
				}
				checkOutLines(t, res)
				mu.Lock()
				c := counts[mode]
				c[0]++
				counts[mode] = c
				mu.Unlock()
				if tools.Ptxas == "" {
					continue
				}
				arch := res.Manifest.Target
				maj, min := 0, 0
				if d := f.Directive(".version"); d != nil {
					maj, min, _ = d.Version()
				}
				if !cudatool.SupportsVersion(maj, min) {
					t.Logf("ptxas 11.8 does not read .version %d.%d: output not compiled", maj, min)
					continue
				}
				if !cache.accepts(tools, name, src, arch) {
					t.Logf("ptxas rejects the input for %s: output not compiled", arch)
					continue
				}
				if _, _, err := tools.Compile(context.Background(), name, res.PTX, arch); err != nil {
					t.Errorf("mode %s: ptxas rejects the instrumented output: %v", mode, err)
					continue
				}
				mu.Lock()
				c = counts[mode]
				c[1]++
				c[2]++
				counts[mode] = c
				mu.Unlock()
			}
		})
	}
	t.Cleanup(func() {
		for _, mode := range Modes() {
			c := counts[mode]
			t.Logf("mode %-5s: %d files instrumented, %d compiled by ptxas", mode, c[0], c[2])
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
