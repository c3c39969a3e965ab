package replay_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
)

var updateObserverGolden = flag.Bool("update-observer-golden", false, "rewrite testdata/observergolden.txt from the current model")

// digestObserver hashes every event it receives, in order (an IssueEvent's
// Inst by its PC).
type digestObserver struct {
	h hash.Hash
	n int
}

func (d *digestObserver) Issue(e model.IssueEvent) {
	pc := -1
	if e.Inst != nil {
		pc = e.Inst.PC
	}
	e.Inst = nil
	fmt.Fprintf(d.h, "I%d%+v\n", pc, e)
	d.n++
}
func (d *digestObserver) UnitBusy(e model.UnitEvent) { fmt.Fprintf(d.h, "U%+v\n", e); d.n++ }
func (d *digestObserver) Stall(e model.StallEvent)   { fmt.Fprintf(d.h, "S%+v\n", e); d.n++ }
func (d *digestObserver) CTAStart(e model.CTAEvent)  { fmt.Fprintf(d.h, "C%+v\n", e); d.n++ }
func (d *digestObserver) CTAFinish(e model.CTAEvent) { fmt.Fprintf(d.h, "F%+v\n", e); d.n++ }
func (d *digestObserver) Mem(e model.MemEvent)       { fmt.Fprintf(d.h, "M%+v\n", e); d.n++ }

// TestObserverGolden: the events an observer attached to every SM and to
// the memory side receives for every sample on every preset (hashed per
// part, in the order received) are those of testdata/observergolden.txt,
// which the model recorded before its speed changes of the fourth round
// (docs/performance.md): a change that only makes the model faster must
// leave them alone, cycle for cycle.
func TestObserverGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every sample on every preset")
	}
	names, err := filepath.Glob(filepath.Join("..", "launch", "testdata", "samples", "*", "launch.yaml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no sample specs: %v", err)
	}
	var lines []string
	for _, n := range names {
		name := filepath.Base(filepath.Dir(n))
		for _, preset := range model.PresetNames() {
			lines = append(lines, observerGoldenLine(t, name, preset))
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "observergolden.txt")
	if *updateObserverGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		wl := strings.Split(strings.TrimSpace(string(want)), "\n")
		for i, l := range lines {
			if i >= len(wl) || wl[i] != l {
				w := ""
				if i < len(wl) {
					w = wl[i]
				}
				t.Errorf("observed events changed:\n got %s\nwant %s", l, w)
			}
		}
		if len(wl) != len(lines) {
			t.Errorf("%d lines, golden has %d", len(lines), len(wl))
		}
	}
}

// observerGoldenLine is "sample preset events=N sms=H mem=H".
func observerGoldenLine(t *testing.T, name, preset string) string {
	t.Helper()
	spec, dir := loadSampleSpec(t, name)
	prog := progFromSrc(t, name+".ptx", mustRead(t, filepath.Join("..", "samples", name, name+".sm_52.ptx")))
	prep, err := spec.Prepare(prog, launch.PrepareOptions{BaseDir: dir, Registry: launch.SampleRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	ms, ok := model.Preset(preset)
	if !ok {
		t.Fatalf("no preset %s", preset)
	}
	obs := map[int]*digestObserver{}
	observe := func(part int) model.Observer {
		d := &digestObserver{h: sha256.New()}
		obs[part] = d
		return d
	}
	if _, err := prep.Run(t.Context(), launch.ExecOptions{Model: &ms, ModelOpt: model.Options{Workers: 2, Observe: observe}}); err != nil {
		t.Fatalf("%s on %s: %v", name, preset, err)
	}
	parts := make([]int, 0, len(obs))
	for p := range obs {
		parts = append(parts, p)
	}
	sort.Ints(parts)
	sh, n := sha256.New(), 0
	var mem string
	for _, p := range parts {
		d := obs[p]
		n += d.n
		if p == model.MemorySide {
			mem = fmt.Sprintf("%x", d.h.Sum(nil)[:12])
			continue
		}
		fmt.Fprintf(sh, "%d:%x;", p, d.h.Sum(nil))
	}
	return fmt.Sprintf("%s %s events=%d sms=%x mem=%s", name, preset, n, sh.Sum(nil)[:12], mem)
}
