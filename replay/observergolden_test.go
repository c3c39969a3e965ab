package replay_test

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"hash"
	"path/filepath"
	"sort"
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
	var lines []string
	for _, name := range sampleSpecNames(t) {
		for _, preset := range model.PresetNames() {
			lines = append(lines, observerGoldenLine(t, name, preset))
		}
	}
	checkGolden(t, filepath.Join("testdata", "observergolden.txt"), lines, *updateObserverGolden, "observed events")
}

// observerGoldenLine is "sample preset events=N sms=H mem=H".
func observerGoldenLine(t *testing.T, name, preset string) string {
	t.Helper()
	prep, ms := preparedSample(t, name, preset)
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
