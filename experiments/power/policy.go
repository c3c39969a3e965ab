package power

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Consolidation is the seed's CTA consolidation (§3.1.1, Fig. 15) on one
// workload: the run as given (round robin) and with SM.CTAPlacement =
// "consolidate".
type Consolidation struct {
	Normal, Consolidated *Result
}

// RunConsolidation runs in twice, round robin and consolidated, and
// refuses a difference in any output buffer's bytes.
func RunConsolidation(ctx context.Context, in Input, cfg Config) (*Consolidation, error) {
	if in.Model.SM.CTAPlacement != "" {
		return nil, fmt.Errorf("power: model %s already sets cta_placement %q", in.Model.Name, in.Model.SM.CTAPlacement)
	}
	normal, nout, _, err := run(ctx, in, cfg, nil, []bool{false})
	if err != nil {
		return nil, err
	}
	in.Model.SM.CTAPlacement = "consolidate"
	cons, cout, _, err := run(ctx, in, cfg, nil, []bool{false})
	if err != nil {
		return nil, err
	}
	if err := sameOutputs(nout, cout, "round-robin and consolidated placement"); err != nil {
		return nil, err
	}
	return &Consolidation{normal[0], cons[0]}, nil
}

// sameOutputs refuses a difference in any output buffer's bytes.
func sameOutputs(a, b map[string][]byte, what string) error {
	names := make([]string, 0, len(a))
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !bytes.Equal(a[n], b[n]) {
			return fmt.Errorf("power: output %s differs between %s", n, what)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("power: output buffers differ between %s", what)
	}
	return nil
}

// ActiveReduction is 1 − consolidated/normal Σ SM active cycles.
func (c *Consolidation) ActiveReduction() float64 {
	return 1 - ratio(c.Consolidated.ActiveCycles, c.Normal.ActiveCycles)
}

// Slowdown is consolidated/normal execution cycles − 1.
func (c *Consolidation) Slowdown() float64 {
	return ratio(c.Consolidated.Cycles, c.Normal.Cycles) - 1
}

// WriteSummary writes one line: active cycles and cycles of both runs,
// the active-cycle reduction and the slowdown.
func (c *Consolidation) WriteSummary(w io.Writer) error {
	_, err := fmt.Fprintf(w, "consolidation %s: active cycles %d → %d (%+.2f%%), cycles %d → %d (slowdown %+.2f%%)\n",
		c.Normal.Kernel, c.Normal.ActiveCycles, c.Consolidated.ActiveCycles, -100*c.ActiveReduction(),
		c.Normal.Cycles, c.Consolidated.Cycles, 100*c.Slowdown())
	return err
}

// WriteJSON writes both runs (with their curves) and the comparison.
func (c *Consolidation) WriteJSON(w io.Writer) error {
	v := struct {
		Normal          JSON    `json:"normal"`
		Consolidated    JSON    `json:"consolidated"`
		ActiveReduction float64 `json:"active_reduction"`
		Slowdown        float64 `json:"slowdown"`
	}{JSON{c.Normal, c.Normal.Curves(CurveBETs())}, JSON{c.Consolidated, c.Consolidated.Curves(CurveBETs())},
		c.ActiveReduction(), c.Slowdown()}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
