package instrument

import (
	"fmt"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// SASS verification.
//
// ptxas may move instructions across a clock read. Verify checks in the
// final SASS that the end clock read of every fence probe comes after a
// MEMBAR and that of every dummy probe after the predicated consumer's
// store, both placed after the previous clock read (the probe's begin).
//
// Probes are found by the order of clock reads: ptxas keeps reads of
// SR_CLOCKLO / SR_GLOBALTIMERLO (S2R, CS2R) in program order relative to
// each other and to memory operations, so the k-th timer read of a kernel
// in SASS text order is the k-th timer read of the PTX (the program's own
// reads included). A kernel whose counts differ is reported as unmappable
// and fails.

// TimerRead is one timer read in the instrumented PTX.
type TimerRead struct {
	Probe  int64 // probe id, or -1 for the program's own reads
	Kind   string
	Mode   string
	Region int
}

// ptxTimerReads lists, per kernel, the timer reads of an instrumented PTX
// file in textual order, attributing the probe reads to probe ids from the
// record stores that follow them.
func ptxTimerReads(f *ptx.File, man *manifest.Manifest) map[string][]TimerRead {
	out := map[string][]TimerRead{}
	for _, fn := range f.Functions() {
		if fn.Kind != ptx.Entry || fn.Body == nil {
			continue
		}
		mk := man.Kernel(fn.Name)
		var reads []TimerRead
		var pending []int // indices of probe reads waiting for their ids
		for _, in := range flatten(fn.Body, nil) {
			if in.Op == nil {
				continue
			}
			if isTimerRead(in) {
				id := int64(-1)
				if strings.HasPrefix(in.Args[0].Name, "%__pt_") {
					pending = append(pending, len(reads))
					id = -2
				}
				reads = append(reads, TimerRead{Probe: id})
				continue
			}
			if in.Op.Name == "st" && len(in.Args) == 2 && strings.HasPrefix(in.Args[0].Name, "%__pt_a") &&
				in.Args[1].Kind == ptx.OpVec && len(in.Args[1].Elems) == 4 && in.Args[1].Elems[0].Kind == ptx.OpImm && len(pending) > 0 {
				id, err := strconv.ParseInt(in.Args[1].Elems[0].Name, 0, 64)
				if err != nil {
					continue
				}
				i := pending[0]
				pending = pending[1:]
				reads[i].Probe = id
				if mk != nil {
					for _, p := range mk.Probes {
						if int64(p.ID) == id {
							reads[i].Kind, reads[i].Mode, reads[i].Region = p.Kind, p.Mode, p.Region
						}
					}
				}
			}
		}
		out[fn.Name] = reads
	}
	return out
}

func isTimerRead(in *ptx.Instruction) bool {
	if in.Op.Name != "mov" || len(in.Args) != 2 || in.Args[1].Kind != ptx.OpReg {
		return false
	}
	switch in.Args[1].Name {
	case "%clock", "%clock64", "%globaltimer", "%globaltimer_lo":
		return true
	}
	return false
}

// SASSInst is one SASS instruction.
type SASSInst struct {
	Index int
	Text  string // without address, guard and trailing ';'
	Guard string // "@P0", "@!P1", or ""
	Op    string // "CS2R", "MEMBAR", "LDG", ...
}

// reSASSLine matches one instruction line; the last instruction of a
// dual-issue pair ("{ A ;" / "B }") has no ';'.
var reSASSLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/\*[0-9a-f]{4,}\*/\s*(.*?)\s*(?:;|\}\s*$)`) })

// ParseSASS splits nvdisasm/cuobjdump output into per-function
// instruction lists.
func ParseSASS(text string) map[string][]SASSInst {
	out := map[string][]SASSInst{}
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if i := strings.Index(t, ".text."); i >= 0 && (strings.HasPrefix(t, ".section") || strings.Contains(t, "Function :")) {
			name := t[i+len(".text."):]
			if j := strings.IndexAny(name, ",\" \t"); j >= 0 {
				name = name[:j]
			}
			cur = name
			continue
		}
		if strings.HasPrefix(t, "Function : ") { // cuobjdump
			cur = strings.TrimSpace(strings.TrimPrefix(t, "Function : "))
			continue
		}
		if cur == "" {
			continue
		}
		m := reSASSLine().FindStringSubmatch(t)
		if m == nil {
			continue
		}
		s := strings.TrimSpace(strings.Trim(strings.TrimSpace(m[1]), "{}"))
		inst := SASSInst{Index: len(out[cur])}
		if strings.HasPrefix(s, "@") {
			g, rest, _ := strings.Cut(s, " ")
			inst.Guard, s = g, strings.TrimSpace(rest)
		}
		inst.Text = s
		op, _, _ := strings.Cut(s, " ")
		inst.Op, _, _ = strings.Cut(op, ".")
		out[cur] = append(out[cur], inst)
	}
	return out
}

func (s SASSInst) isTimerRead() bool {
	return (s.Op == "S2R" || s.Op == "CS2R" || s.Op == "S2UR") &&
		(strings.Contains(s.Text, "SR_CLOCKLO") || strings.Contains(s.Text, "SR_GLOBALTIMERLO"))
}

func (s SASSInst) guarded() bool { return s.Guard != "" && s.Guard != "@PT" && s.Guard != "@!PT" }

func (s SASSInst) isStore() bool {
	switch s.Op {
	case "ST", "STG", "STS", "STL":
		return true
	}
	return false
}

func (s SASSInst) isLoad() bool {
	switch s.Op {
	case "LD", "LDG", "LDS", "LDL", "LDSM", "TEX", "TLD", "TLD4", "TLDS", "TLD4S", "TEXS", "TMML", "TXD":
		return true
	case "LDC", "ULDC":
		return !strings.Contains(s.Text, "c[0x0]") // c[0x0] holds the kernel parameters
	}
	return false
}

// ProbeCheck is the verdict on one end probe.
type ProbeCheck struct {
	Kernel string
	Probe  uint32
	Region int
	Mode   string
	OK     bool
	Detail string
}

// VerifySASS checks the order of the end clock reads in sass (the
// disassembly of the compiled instrumented PTX f described by man).
func VerifySASS(f *ptx.File, man *manifest.Manifest, sass string) ([]ProbeCheck, error) {
	ptxReads := ptxTimerReads(f, man)
	funcs := ParseSASS(sass)
	var checks []ProbeCheck
	for _, mk := range man.Kernels {
		insts, ok := funcs[mk.Name]
		if !ok {
			return nil, fmt.Errorf("kernel %s not found in the SASS", mk.Name)
		}
		var sassReads []int
		for i, s := range insts {
			if s.isTimerRead() {
				sassReads = append(sassReads, i)
			}
		}
		pr := ptxReads[mk.Name]
		if len(pr) != len(sassReads) {
			for _, p := range mk.Probes {
				if p.Kind == manifest.KindEnd {
					checks = append(checks, ProbeCheck{Kernel: mk.Name, Probe: p.ID, Region: p.Region, Mode: p.Mode,
						Detail: fmt.Sprintf("cannot map probes: %d timer reads in the PTX, %d in the SASS", len(pr), len(sassReads))})
				}
			}
			continue
		}
		for k, r := range pr {
			if r.Probe < 0 || r.Kind != manifest.KindEnd {
				continue
			}
			c := ProbeCheck{Kernel: mk.Name, Probe: uint32(r.Probe), Region: r.Region, Mode: r.Mode}
			end := sassReads[k]
			start := -1
			if k > 0 {
				start = sassReads[k-1]
			}
			between := insts[start+1 : end]
			switch r.Mode {
			case manifest.ModeNaive:
				c.OK, c.Detail = true, "naive probe: nothing to order"
			case manifest.ModeFence:
				c.Detail = fmt.Sprintf("no MEMBAR between the previous timer read (#%d) and the end read (#%d)", start, end)
				for _, s := range between {
					if s.Op == "MEMBAR" {
						c.OK, c.Detail = true, fmt.Sprintf("%s at #%d before the end read at #%d", s.Text, s.Index, end)
					}
				}
			case manifest.ModeDummy:
				lastLoad := -1
				for _, s := range between {
					if s.isLoad() {
						lastLoad = s.Index
					}
				}
				c.Detail = fmt.Sprintf("no predicated consumer store between the load (#%d) and the end read (#%d)", lastLoad, end)
				// The consumer's store is predicated, or ptxas made the
				// predicate a guarded branch around it.
				branch := ""
				for _, s := range between {
					if s.Index <= lastLoad {
						continue
					}
					if s.Op == "BRA" && s.guarded() {
						branch = fmt.Sprintf(" (skipped by %s BRA at #%d)", s.Guard, s.Index)
					}
					if s.isStore() && (s.guarded() || branch != "") {
						c.OK, c.Detail = true, fmt.Sprintf("%s %s at #%d%s after load #%d, before the end read at #%d",
							s.Guard, s.Text, s.Index, branch, lastLoad, end)
					}
				}
			}
			checks = append(checks, c)
		}
	}
	return checks, nil
}

// ParseOutput parses instrumented PTX for VerifySASS.
func ParseOutput(name string, src []byte) (*ptx.File, error) {
	return ptx.ParseFile(token.NewFileSet(), name, src, 0)
}
