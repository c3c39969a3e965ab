package pprof

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func export(t testing.TB, tr *trace.Trace, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := exporters.Run(context.Background(), tr.Source(), New(&b, opt)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	tr := tracetest.Fixture(6, 3, 40, trace.TimerClock64)
	for _, bySM := range []bool{false, true} {
		b := export(t, tr, Options{BySM: bySM})
		p, err := profile.Parse(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var want [numValues]int64
		for _, r := range tr.Regions {
			if r.Info.Memory() {
				want[MemoryCycles] += int64(r.Cycles)
			} else {
				want[OtherCycles] += int64(r.Cycles)
			}
			want[Regions]++
			if r.HasTruth {
				want[TruthCycles] += int64(r.TruthComplete - r.TruthIssue)
			}
		}
		var got [numValues]int64
		for _, s := range p.Sample {
			for i, v := range s.Value {
				got[i] += v
			}
			if len(s.Label["state_space"]) != 1 || len(s.Label["mode"]) != 1 || len(s.Label["region"]) != 1 {
				t.Errorf("labels %v %v", s.Label, s.NumLabel)
			}
			if bySM != (len(s.Label["sm"]) == 1) {
				t.Errorf("sm label %v with BySM %v", s.NumLabel, bySM)
			}
		}
		if got != want {
			t.Errorf("BySM %v: sums %v, want %v", bySM, got, want)
		}
		wantSamples := len(tr.Header.Regions)
		if bySM {
			wantSamples *= 4
		}
		if len(p.Sample) != wantSamples {
			t.Errorf("BySM %v: %d samples, want %d", bySM, len(p.Sample), wantSamples)
		}
		if p.DefaultSampleType != "memory_cycles" || p.Function[0].Filename != "kern.cu" || p.Location[1].Line[0].Line != 41 {
			t.Errorf("profile %v", p)
		}
		if !bytes.Equal(b, export(t, tr, Options{BySM: bySM})) {
			t.Error("two exports differ")
		}
	}
}

func TestNoLocUsesPTX(t *testing.T) {
	tr := tracetest.Fixture(1, 1, 3, trace.TimerClock)
	for i := range tr.Header.Regions {
		tr.Header.Regions[i].LocFile = ""
	}
	p, err := profile.Parse(bytes.NewReader(export(t, tr, Options{PTXFile: "kern.inst.ptx"})))
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Location[2].Line[0]; f.Function.Filename != "kern.inst.ptx" || f.Line != 12 {
		t.Fatalf("line %+v %+v", f, f.Function)
	}
}

// TestGoToolPprof loads the profile with `go tool pprof` (-top -lines and
// -list with the CUDA source) as a person would. The go command builds the
// pprof tool on first use (a minute or two with a cold build cache).
func TestGoToolPprof(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go tool pprof")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command")
		}
	}
	dir := t.TempDir()
	tr := tracetest.Fixture(4, 2, 20, trace.TimerClock64)
	f := filepath.Join(dir, "kern.pb.gz")
	if err := os.WriteFile(f, export(t, tr, Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for i := 1; i <= 50; i++ {
		src.WriteString("    stmt" + strconv.Itoa(i) + "();\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "kern.cu"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var mem [5]int64
	for _, r := range tr.Regions {
		if r.Info.Memory() {
			mem[r.ID] += int64(r.Cycles)
		}
	}
	pp := func(args ...string) string {
		cmd := exec.Command(goBin, append([]string{"tool", "pprof", "-symbolize=none"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	top := pp("-top", "-lines", f)
	for id := 1; id <= 4; id++ {
		line := 40 + id
		re := regexp.MustCompile(`(?m)^\s*` + strconv.FormatInt(mem[id], 10) + `cycles\s.*kern kern.cu:` + strconv.Itoa(line) + `$`)
		if !re.MatchString(top) {
			t.Errorf("-top -lines lacks %d cycles at kern.cu:%d:\n%s", mem[id], line, top)
		}
	}
	list := pp("-list", "kern", "-source_path", dir, f)
	for id := 1; id <= 4; id++ {
		re := regexp.MustCompile(`(?m)^\s*` + strconv.FormatInt(mem[id], 10) + `\s+` + strconv.FormatInt(mem[id], 10) + `\s+` + strconv.Itoa(40+id) + `:\s+stmt` + strconv.Itoa(40+id))
		if !re.MatchString(list) {
			t.Errorf("-list lacks %d cycles on line %d:\n%s", mem[id], 40+id, list)
		}
	}
	if tf := pp("-top", "-tagfocus", "state_space=tex", "-sample_index=regions", f); !strings.Contains(tf, "kern") {
		t.Errorf("-tagfocus: %s", tf)
	}

	// Without .loc, -list shows the input PTX file the manifest names,
	// found under -source_path by its name as given to instrument.
	for i := range tr.Header.Regions {
		tr.Header.Regions[i].LocFile, tr.Header.Regions[i].LocLine = "", 0
	}
	tr.Header.ManifestJSON = []byte(`{"version": 1, "input": "ptx/kern.sm_80.ptx", "kernels": []}`)
	if got := InputFile(&tr.Header); got != "ptx/kern.sm_80.ptx" {
		t.Fatalf("InputFile = %q", got)
	}
	f2 := filepath.Join(dir, "noloc.pb.gz")
	if err := os.WriteFile(f2, export(t, tr, Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	var ptxSrc strings.Builder
	for i := 1; i <= 30; i++ {
		ptxSrc.WriteString("\tinsn" + strconv.Itoa(i) + ";\n")
	}
	os.MkdirAll(filepath.Join(dir, "ptx"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "ptx", "kern.sm_80.ptx"), []byte(ptxSrc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	list = pp("-list", "kern", "-source_path", dir, f2)
	for id := 1; id <= 4; id++ {
		re := regexp.MustCompile(`(?m)^\s*` + strconv.FormatInt(mem[id], 10) + `\s+` + strconv.FormatInt(mem[id], 10) + `\s+` + strconv.Itoa(10+id) + `:\s+insn` + strconv.Itoa(10+id))
		if !re.MatchString(list) {
			t.Errorf("-list lacks %d cycles on PTX line %d:\n%s", mem[id], 10+id, list)
		}
	}
}
