package instrument

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/manifest"
)

var reTarget = regexp.MustCompile(`(?m)^\.target\s+sm_\d+[a-z]?`)

// compileVerify instruments src (retargeted to arch), compiles and
// disassembles it, and returns the probe checks.
func compileVerify(t testing.TB, tools cudatool.Tools, name string, src []byte, arch string, opts Options) ([]ProbeCheck, *manifest.Manifest, error) {
	src = reTarget.ReplaceAll(src, []byte(".target "+arch))
	fset, f := parse(t, name, src)
	res, err := Instrument(fset, f, opts)
	if err != nil {
		return nil, nil, err
	}
	return verifyOutput(t, tools, name, res.PTX, res.Manifest, arch)
}

func verifyOutput(t testing.TB, tools cudatool.Tools, name string, out []byte, man *manifest.Manifest, arch string) ([]ProbeCheck, *manifest.Manifest, error) {
	cubin, _, err := tools.Compile(context.Background(), name, out, arch)
	if err != nil {
		return nil, nil, err
	}
	sass, err := tools.Disassemble(context.Background(), cubin)
	if err != nil {
		return nil, nil, err
	}
	of, err := ParseOutput(name, out)
	if err != nil {
		return nil, nil, err
	}
	checks, err := VerifySASS(of, man, sass)
	return checks, man, err
}

// TestVerifySamples: every probe of every sample is in order at sm_52,
// sm_70, sm_80 and sm_90 in fence, dummy and auto modes. Samples are
// retargeted to the architecture checked; those ptxas cannot compile as
// they are (they call libdevice functions left unresolved) are skipped.
// By default the generated variants of ptx/testdata/gen (nvcc/clang builds,
// -G, -lineinfo) are checked at sm_80 only, which keeps the test inside go
// test's per-package time on two cores; PTXTRACE_VERIFY_ALL=1 checks them
// at every architecture too (the full matrix, ~1,400 ptxas runs).
func TestVerifySamples(t *testing.T) {
	tools := cudatool.Find()
	if !tools.CanDisassemble() {
		t.Skip("ptxas and nvdisasm/cuobjdump not installed")
	}
	if testing.Short() {
		t.Skip("short")
	}
	var files []string
	for _, g := range []string{"../samples/*/*.ptx", "../ptx/testdata/gen/*.ptx"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	sort.Strings(files)
	all := os.Getenv("PTXTRACE_VERIFY_ALL") == "1"
	var mu sync.Mutex
	summary := map[string][2]int{} // arch/mode → probes checked, files
	for _, arch := range []string{"sm_52", "sm_70", "sm_80", "sm_90"} {
		for _, name := range files {
			if !all && arch != "sm_80" && strings.Contains(name, "testdata/gen") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(arch+"/"+filepath.Base(name), func(t *testing.T) {
				t.Parallel()
				retargeted := reTarget.ReplaceAll(src, []byte(".target "+arch))
				if _, _, err := tools.Compile(context.Background(), name, retargeted, arch); err != nil {
					t.Skipf("ptxas rejects the input: %v", firstLine(err.Error()))
				}
				for _, mode := range []string{"fence", "dummy", "auto"} {
					checks, _, err := compileVerify(t, tools, name, src, arch, Options{Mode: mode})
					if err != nil {
						t.Fatalf("%s: %v", mode, err)
					}
					for _, c := range checks {
						if !c.OK {
							t.Errorf("%s %s probe %d (%s): %s", mode, c.Kernel, c.Probe, c.Mode, c.Detail)
						}
					}
					mu.Lock()
					s := summary[arch+" "+mode]
					s[0] += len(checks)
					s[1]++
					summary[arch+" "+mode] = s
					mu.Unlock()
				}
			})
		}
	}
	t.Cleanup(func() {
		var keys []string
		for k := range summary {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%s: %d files, %d end probes in order", k, summary[k][1], summary[k][0])
		}
	})
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestVerifyDetectsMisorder: a hand-made misordering (the end clock read
// moved above the fence) is reported, for each architecture.
func TestVerifyDetectsMisorder(t *testing.T) {
	tools := cudatool.Find()
	if !tools.CanDisassemble() {
		t.Skip("ptxas and nvdisasm/cuobjdump not installed")
	}
	src, err := os.ReadFile("testdata/small.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_52", "sm_70", "sm_80", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			in := reTarget.ReplaceAll(src, []byte(".target "+arch))
			fset, f := parse(t, "small.ptx", in)
			res, err := Instrument(fset, f, Options{Mode: "fence"})
			if err != nil {
				t.Fatal(err)
			}
			// Good output passes.
			checks, _, err := verifyOutput(t, tools, "small.ptx", res.PTX, res.Manifest, arch)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range checks {
				if !c.OK {
					t.Fatalf("unmodified output: probe %d: %s", c.Probe, c.Detail)
				}
			}
			// Swap the first "fence; end read" pair.
			lines := strings.Split(string(res.PTX), "\n")
			swapped := false
			for i := 0; i+1 < len(lines); i++ {
				if strings.HasPrefix(strings.TrimSpace(lines[i]), "membar.cta;") || strings.HasPrefix(strings.TrimSpace(lines[i]), "fence.acq_rel.cta;") {
					if strings.Contains(lines[i+1], "%__pt_rd2, %clock64") {
						lines[i], lines[i+1] = lines[i+1], lines[i]
						swapped = true
						break
					}
				}
			}
			if !swapped {
				t.Fatal("no fence followed by an end read in the output")
			}
			bad := []byte(strings.Join(lines, "\n"))
			checks, _, err = verifyOutput(t, tools, "bad.ptx", bad, res.Manifest, arch)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, c := range checks {
				if !c.OK {
					failed++
				}
			}
			if failed != 1 {
				var b bytes.Buffer
				for _, c := range checks {
					fmt.Fprintf(&b, "%d %v %s\n", c.Probe, c.OK, c.Detail)
				}
				t.Errorf("want exactly 1 failing probe, got %d:\n%s", failed, b.String())
			}
		})
	}
}
