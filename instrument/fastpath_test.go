package instrument

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// fastVariants are every mode × staging × timer.
func fastVariants() []Options {
	var vs []Options
	for _, mode := range []string{"naive", "fence", "dummy", "auto"} {
		for _, st := range []string{"auto", "shared", "global"} {
			for _, tm := range []string{"clock", "clock64", "globaltimer"} {
				vs = append(vs, Options{Mode: mode, Staging: st, Timer: tm, Tool: "test"})
			}
		}
	}
	return vs
}

// treeVsFast instruments src with Instrument (the tree path: statements
// generated per site and printed) and Stream (the fast path: sites laid
// out from templates), and describes the first difference in output,
// manifest (with its output lines) or warnings; "" when they agree or
// Stream refused. laid counts the sites Stream laid out.
func treeVsFast(name string, src []byte, opts Options, hook func(ids []int64)) (diff string, streamed bool, err error) {
	fset := token.NewFileSet()
	f, perr := ptx.ParseFile(fset, name, src, 0)
	if perr == nil {
		perr = ptx.Check(fset, f)
	}
	var want *Result
	if perr == nil {
		want, perr = Instrument(fset, f, opts)
	}
	var out bytes.Buffer
	got, serr := Stream(&out, name, src, opts, StreamOptions{fillHook: hook})
	if serr != nil {
		if !errors.Is(serr, ErrNotStreamed) {
			return "", false, fmt.Errorf("Stream: %v", serr)
		}
		return "", false, nil
	}
	if perr != nil {
		return "", true, fmt.Errorf("Stream took a module Instrument rejects (%v)", perr)
	}
	if !bytes.Equal(out.Bytes(), want.PTX) {
		i := firstDiff(out.Bytes(), want.PTX)
		return fmt.Sprintf("output differs at byte %d: %q vs %q", i, around(out.Bytes(), i), around(want.PTX, i)), true, nil
	}
	var a, b bytes.Buffer
	if err := want.Manifest.Write(&a); err != nil {
		return "", true, err
	}
	if err := got.Manifest.Write(&b); err != nil {
		return "", true, err
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		return fmt.Sprintf("manifest differs at byte %d", firstDiff(a.Bytes(), b.Bytes())), true, nil
	}
	if w, g := strings.Join(want.Warnings, "\n"), strings.Join(got.Warnings, "\n"); w != g {
		return fmt.Sprintf("warnings\n%s\nfast\n%s", w, g), true, nil
	}
	return "", true, nil
}

func around(b []byte, i int) string {
	return string(b[max(0, i-40):min(len(b), i+40)])
}

// fastInputs are the samples, the held-out kernels, the golden input and
// (PTXTRACE_CORPUS, else next to the checkout) the shared corpus with the
// generated parser tests.
func fastInputs(t *testing.T) (every, some []string) {
	for _, g := range []string{"../samples/*/*.ptx", "../samples/heldout/*/*.ptx"} {
		m, _ := filepath.Glob(g)
		every = append(every, m...)
	}
	every = append(every, "testdata/small.ptx")
	sort.Strings(every)
	for _, name := range inputFiles(t) {
		if !strings.HasPrefix(name, "../samples/") {
			some = append(some, name)
		}
	}
	return every, some
}

// TestFastSameAsTree: over the samples, the held-out kernels, the corpus
// and generated modules, in every mode × staging × timer, Stream's fast
// path gives Instrument's output, manifest and warnings, and lays out
// sites from templates. The generated modules take every variant, the
// samples and held-out kernels six each in turn, the corpus files three
// (PTXTRACE_FAST_ALL=1: every file every variant).
func TestFastSameAsTree(t *testing.T) {
	every, some := fastInputs(t)
	if testing.Short() {
		every, some = nil, nil // the generated modules only
	}
	all := os.Getenv("PTXTRACE_FAST_ALL") != ""
	vs := fastVariants()
	type input struct {
		name string
		src  []byte
		n    int // variants taken in turn (0: all)
	}
	var ins []input
	for _, name := range every {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{name, src, 6})
	}
	for _, name := range some {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{name, src, 3})
	}
	if all {
		for i := range ins {
			ins[i].n = 0
		}
	}
	ins = append(ins, input{"gen.ptx", genModule(128 << 10), 0}, input{"calls.ptx", []byte(callsModule), 0})
	laid, streamed := 0, 0
	for i, in := range ins {
		for j, opts := range vs {
			// File i takes variants n·i … n·i+n−1 (mod 36): the samples
			// and held-out kernels meet every variant several times.
			if in.n > 0 && (j-in.n*i%len(vs)+len(vs))%len(vs) >= in.n {
				continue
			}
			diff, ok, err := treeVsFast(in.name, in.src, opts, func([]int64) { laid++ })
			if err != nil {
				t.Errorf("%s %s/%s/%s: %v", in.name, opts.Mode, opts.Staging, opts.Timer, err)
			}
			if diff != "" {
				t.Errorf("%s %s/%s/%s: %s", in.name, opts.Mode, opts.Staging, opts.Timer, diff)
			}
			if ok {
				streamed++
			}
		}
	}
	t.Logf("%d runs streamed, %d sites laid out", streamed, laid)
	if laid == 0 {
		t.Errorf("no site was laid out from a template")
	}
}

// TestFastWrongHoleFails: a laid-out site whose id is filled wrongly (one
// id changed by the hook) gives an output that treeVsFast tells from the
// tree path's, in every timer and staging; and the unchanged run agrees.
func TestFastWrongHoleFails(t *testing.T) {
	src := genModule(32 << 10)
	for _, opts := range fastVariants() {
		diff, _, err := treeVsFast("gen.ptx", src, opts, nil)
		if err != nil || diff != "" {
			t.Fatalf("%+v: unchanged run: %v %s", opts, err, diff)
		}
		for _, which := range []int{0, 1} {
			n := 0
			diff, ok, err := treeVsFast("gen.ptx", src, opts, func(ids []int64) {
				if n++; n == 5 {
					ids[which]++
				}
			})
			if err != nil || !ok {
				t.Fatalf("%+v: %v (streamed %v)", opts, err, ok)
			}
			if n < 5 {
				t.Fatalf("%+v: only %d sites laid out", opts, n)
			}
			if diff == "" {
				t.Errorf("%+v: id %d of the 5th site changed, output unchanged", opts, which)
			}
		}
	}
}
