package launch

import (
	"fmt"
	"math"
	"os"
)

// CheckResult is the outcome of one check.
type CheckResult struct {
	Buffer     string
	Against    string
	OK         bool
	Mismatches int
	First      int     // first mismatching element, -1 when none
	MaxAbs     float64 // largest absolute difference
	Msg        string
}

// Check runs the spec's checks against the buffers' current contents.
// Reference names are looked up in reg.
func (p *Prepared) Check(reg Registry, baseDir string) []CheckResult {
	var out []CheckResult
	for _, c := range p.Spec.Checks {
		r := CheckResult{Buffer: c.Buffer, First: -1}
		b := p.byName[c.Buffer]
		if b == nil {
			r.Msg = "no buffer named " + c.Buffer
			out = append(out, r)
			continue
		}
		var want []byte
		var err error
		if c.File != "" {
			r.Against = c.File
			want, err = os.ReadFile(resolvePath(baseDir, c.File))
		} else {
			r.Against = "reference " + c.Reference
			in := p.RefInput()
			if v := reg.Verify[c.Reference]; v != nil {
				if err := v(in, b.Alloc.Data); err != nil {
					r.Msg = err.Error()
					r.Mismatches = 1
				} else {
					r.OK = true
					r.Msg = "matches the reference within its tolerance"
				}
				out = append(out, r)
				continue
			}
			f := reg.Refs[c.Reference]
			if f == nil {
				err = fmt.Errorf("no reference %q registered", c.Reference)
			} else {
				want, err = f(in)
			}
		}
		if err != nil {
			r.Msg = err.Error()
			out = append(out, r)
			continue
		}
		compareBuf(&r, b.Alloc.Data, want, b.Type, c.Abs, c.Rel)
		out = append(out, r)
	}
	return out
}

func compareBuf(r *CheckResult, got, want []byte, t string, abs, rel float64) {
	es, _ := elemSize(t)
	if len(want) != len(got) {
		r.Msg = fmt.Sprintf("size differs: buffer %d bytes, expected %d", len(got), len(want))
		return
	}
	n := len(got) / es
	for i := 0; i < n; i++ {
		g := decodeElem(got[i*es:], t)
		w := decodeElem(want[i*es:], t)
		d := math.Abs(g - w)
		if g != g && w != w {
			d = 0
		}
		ok := d == 0
		if !ok && isFloatElem(t) {
			ok = d <= abs || d <= rel*math.Abs(w)
		}
		if d > r.MaxAbs || d != d {
			r.MaxAbs = d
		}
		if !ok {
			if r.Mismatches == 0 {
				r.First = i
				r.Msg = fmt.Sprintf("element %d: got %v, want %v", i, g, w)
			}
			r.Mismatches++
		}
	}
	r.OK = r.Mismatches == 0
	if r.OK {
		r.Msg = fmt.Sprintf("%d elements match", n)
	}
}
