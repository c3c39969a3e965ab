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
// MEMBAR, and that of every dummy probe after an instruction that reads the
// load's destination register (the consumer: the predicated-off store, or
// the program's own use), both placed after the previous clock read (the
// probe's begin). A warp issues its instructions in order and an
// instruction that reads a load's destination waits for the load's
// completion before it issues (its scoreboard), so a timer read that
// follows such an instruction in SASS order cannot be taken before the
// load completed. A predicated-off store that does not read the register
// proves nothing and is not accepted.
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

// timerItem is a timer read, or a call of a function (whose reads are
// spliced in when ptxas inlined it).
type timerItem struct {
	read TimerRead
	call string
}

// ptxTimerItems lists, per function with a body (kernels and .funcs), the
// timer reads of an instrumented PTX file and its calls in textual order,
// attributing the probe reads to probe ids from the record stores that
// follow them.
func ptxTimerItems(f *ptx.File, man *manifest.Manifest) map[string][]timerItem {
	out := map[string][]timerItem{}
	for _, fn := range f.Functions() {
		if fn.Body == nil {
			continue
		}
		var items []timerItem
		var pending []int  // indices of probe reads waiting for their ids
		tagID := int64(-1) // a tagged record's id (or.b64 %__pt_qd0, %__pt_qd0, ID: pipeline.go)
		for _, in := range flatten(fn.Body, nil) {
			if in.Op == nil {
				continue
			}
			if isCall(in) {
				if name, direct := callTarget(in); direct {
					items = append(items, timerItem{call: name})
				}
				continue
			}
			if isTimerRead(in) {
				id := int64(-1)
				if strings.HasPrefix(in.Args[0].Name, "%__pt_") {
					pending = append(pending, len(items))
					id = -2
				}
				items = append(items, timerItem{read: TimerRead{Probe: id}})
				continue
			}
			if in.Op.Name == "or" && len(in.Args) == 3 && in.Args[0].Name == "%__pt_qd0" && in.Args[2].Kind == ptx.OpImm {
				tagID, _ = strconv.ParseInt(in.Args[2].Name, 0, 64)
				continue
			}
			if in.Op.Name == "st" && len(in.Args) == 2 && strings.HasPrefix(in.Args[0].Name, "%__pt_a") &&
				in.Args[1].Kind == ptx.OpVec && (len(in.Args[1].Elems) == 2 || len(in.Args[1].Elems) == 4) &&
				(in.Args[1].Elems[0].Kind == ptx.OpImm || in.Args[1].Elems[0].Name == "%__pt_qd0" && tagID >= 0) && len(pending) > 0 {
				// A record store: st.v2.u64 {id, ts} or st.v4.u32 {id, 0, ts, 0},
				// or a tagged one: st.v2.u64 {id | tag<<32, ts}, st.v4.u32 {id, tag, ts, 0}.
				id, err := tagID, error(nil)
				if in.Args[1].Elems[0].Kind == ptx.OpImm {
					id, err = strconv.ParseInt(in.Args[1].Elems[0].Name, 0, 64)
				}
				tagID = -1
				if err != nil {
					continue
				}
				i := pending[0]
				pending = pending[1:]
				items[i].read.Probe = id
				if p, _ := man.ProbeByID(uint32(id)); p != nil {
					items[i].read.Kind, items[i].read.Mode, items[i].read.Region = p.Kind, p.Mode, p.Region
				}
			}
		}
		out[fn.Name] = items
	}
	return out
}

// expandReads returns the timer reads of function name in SASS order:
// the reads of a called function that has no SASS of its own (ptxas
// inlined it) are spliced in at the call; a function with its own SASS
// is checked on its own.
func expandReads(items map[string][]timerItem, sass map[string][]SASSInst, name string, depth int) []TimerRead {
	var out []TimerRead
	for _, it := range items[name] {
		if it.call == "" {
			out = append(out, it.read)
			continue
		}
		if _, own := sass[it.call]; own || depth > 64 {
			continue
		}
		out = append(out, expandReads(items, sass, it.call, depth+1)...)
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
	Label string // the label just before it, e.g. ".L_x_610", or ""
}

// backward reports whether branch s targets an instruction at or before
// it in insts (a loop, e.g. the waterfall over bindless texture handles).
func (s SASSInst) backward(insts []SASSInst) bool {
	i := strings.Index(s.Text, "(.L")
	if i < 0 {
		return false
	}
	target, _, _ := strings.Cut(s.Text[i+1:], ")")
	for _, x := range insts[:s.Index+1] {
		if x.Label == target {
			return true
		}
	}
	return false
}

// reSASSLine matches one instruction line; the last instruction of a
// dual-issue pair ("{ A ;" / "B }") has no ';'.
var reSASSLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/\*[0-9a-f]{4,}\*/\s*(.*?)\s*(?:;|\}\s*$)`) })

// ParseSASS splits nvdisasm/cuobjdump output into per-function
// instruction lists.
func ParseSASS(text string) map[string][]SASSInst {
	out := map[string][]SASSInst{}
	cur, label := "", ""
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
		if strings.HasPrefix(t, ".L") && strings.HasSuffix(t, ":") {
			label = strings.TrimSuffix(t, ":")
			continue
		}
		m := reSASSLine().FindStringSubmatch(t)
		if m == nil {
			continue
		}
		s := strings.TrimSpace(strings.Trim(strings.TrimSpace(m[1]), "{}"))
		inst := SASSInst{Index: len(out[cur]), Label: label}
		label = ""
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

// dest returns the first operand of s (a load's destination register).
func (s SASSInst) dest() string {
	_, rest, _ := strings.Cut(s.Text, " ")
	d, _, _ := strings.Cut(rest, ",")
	d = strings.TrimSpace(d)
	if m := reSASSReg().FindString(d); m != "" {
		return m
	}
	return ""
}

var reSASSReg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bR[0-9]+\b`) })

// reads reports whether s reads register reg (a source operand; every
// operand of a store).
func (s SASSInst) reads(reg string) bool {
	_, rest, _ := strings.Cut(s.Text, " ")
	ops := strings.Split(rest, ",")
	if !s.isStore() && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range ops {
		for _, m := range reSASSReg().FindAllString(o, -1) {
			if m == reg {
				return true
			}
		}
	}
	return false
}

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
	items := ptxTimerItems(f, man)
	funcs := ParseSASS(sass)
	// Units: every kernel, and every function with probes compiled on its
	// own (not inlined).
	type unit struct {
		name   string
		probes []manifest.Probe
	}
	var units []unit
	fprobes := map[string][]manifest.Probe{}
	for _, mk := range man.Kernels {
		units = append(units, unit{mk.Name, mk.Probes})
		for _, p := range mk.Probes {
			if p.Function != "" && p.Kind == manifest.KindEnd {
				fprobes[p.Function] = append(fprobes[p.Function], p)
			}
		}
	}
	for _, fn := range f.Functions() {
		if _, own := funcs[fn.Name]; own && fn.Kind != ptx.Entry && len(fprobes[fn.Name]) > 0 {
			units = append(units, unit{fn.Name, fprobes[fn.Name]})
		}
	}
	var checks []ProbeCheck
	for _, u := range units {
		mk := manifest.Kernel{Name: u.name, Probes: u.probes}
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
		pr := expandReads(items, funcs, mk.Name, 0)
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
			case manifest.ModeWaitGroup, manifest.ModeMbarrier, manifest.ModeGroupSeq, manifest.ModePhaseSeq:
				// the program's own wait: DEPBAR for cp.async.wait_group/
				// wait_all, SYNCS (sm_90 mbarrier wait) for a try_wait loop
				want := "DEPBAR"
				if r.Mode == manifest.ModeMbarrier || r.Mode == manifest.ModePhaseSeq {
					want = "SYNCS"
				}
				c.Detail = fmt.Sprintf("no %s wait between the previous timer read (#%d) and the end read (#%d)", want, start, end)
				for _, s := range between {
					if strings.HasPrefix(s.Op, want) {
						c.OK, c.Detail = true, fmt.Sprintf("%s at #%d before the end read at #%d", s.Text, s.Index, end)
					}
				}
			case manifest.ModeDummy:
				c.OK, c.Detail = dummyOrder(insts, between, end)
			}
			checks = append(checks, c)
		}
	}
	// Every end probe must have been found: a probe no timer read was
	// attributed to (its record store not recognised) is a failure, never a
	// silent pass with nothing checked.
	seen := map[uint32]bool{}
	for _, c := range checks {
		seen[c.Probe] = true
	}
	for _, mk := range man.Kernels {
		for _, p := range mk.Probes {
			if p.Kind == manifest.KindEnd && !seen[p.ID] {
				seen[p.ID] = true
				checks = append(checks, ProbeCheck{Kernel: mk.Name, Probe: p.ID, Region: p.Region, Mode: p.Mode,
					Detail: "no timer read of the PTX was attributed to this end probe (its record store was not recognised)"})
			}
		}
	}
	return checks, nil
}

// dummyOrder checks a dummy probe's end read at insts[end], between
// holding the instructions after the previous timer read: the last load
// before the end read (the probed access) must be followed, before the end
// read, by an instruction that reads its destination register, with no
// write of that register in between and no forward conditional branch
// before it (a branch could skip it). When ptxas removed the load (a
// local load forwarded from an earlier store) there is nothing to order and
// the predicated consumer store must be there. A constant load ptxas folded into
// its consumer (an operand of constant bank ≥ 1; bank 0 holds the
// kernel's parameters) is its own consumer.
func dummyOrder(insts, between []SASSInst, end int) (bool, string) {
	lastLoad := -1
	for _, s := range between {
		if s.isLoad() {
			lastLoad = s.Index
		}
	}
	if lastLoad < 0 {
		for _, s := range between {
			if reConstBank().MatchString(s.Text) {
				return true, fmt.Sprintf("%s at #%d reads constant memory itself (the load folded into its consumer), before the end read at #%d", s.Text, s.Index, end)
			}
		}
		// No load left: ptxas removed the access (e.g. a local load
		// forwarded from the store before it). There is nothing whose
		// completion the end read could precede; the consumer store must
		// still be there (as it is when the load exists).
		for _, s := range between {
			if s.isStore() && s.guarded() {
				return true, fmt.Sprintf("no load between the previous timer read and the end read at #%d (ptxas removed the access); the consumer %s %s at #%d is in place",
					end, s.Guard, s.Text, s.Index)
			}
		}
		return false, fmt.Sprintf("no load between the previous timer read and the end read (#%d)", end)
	}
	dsts := insts[lastLoad].loadDests()
	if len(dsts) == 0 {
		return false, fmt.Sprintf("load #%d (%s) has no destination register to consume", lastLoad, insts[lastLoad].Text)
	}
	dst := strings.Join(dsts, "/")
	for _, s := range between {
		if s.Index <= lastLoad {
			continue
		}
		for _, d := range dsts {
			if s.reads(d) {
				return true, fmt.Sprintf("%s %s at #%d reads %s of load #%d before the end read at #%d",
					s.Guard, s.Text, s.Index, d, lastLoad, end)
			}
		}
		if (s.Op == "BRA" || s.Op == "SYNC" || s.Op == "BRK") && s.guarded() && !s.backward(insts) { // SYNC: -G code on sm_5x
			return false, fmt.Sprintf("%s %s at #%d may skip the consumer: nothing before it reads %s of load #%d", s.Guard, s.Op, s.Index, dst, lastLoad)
		}
		if !s.isStore() && len(dsts) == 1 && s.dest() == dst {
			return false, fmt.Sprintf("%s at #%d overwrites %s of load #%d before anything reads it", s.Text, s.Index, dst, lastLoad)
		}
	}
	return false, fmt.Sprintf("nothing between load #%d and the end read at #%d reads its %s", lastLoad, end, dst)
}

// loadDests returns the destination registers of load s: its first
// operand's register; a texture instruction (TEX…, TLD…) has two
// destination operands (the first RZ when only the second is written,
// e.g. sm_80 "TEX.LL RZ, R12, R8, R13, …", sm_52 "TEXS.P RZ, R14, R8, R14, …").
func (s SASSInst) loadDests() []string {
	_, rest, _ := strings.Cut(s.Text, " ")
	ops := strings.Split(rest, ",")
	n := 1
	if strings.HasPrefix(s.Op, "TEX") || strings.HasPrefix(s.Op, "TLD") || s.Op == "TMML" || s.Op == "TXD" {
		n = 2
	}
	var out []string
	for i := 0; i < n && i < len(ops); i++ {
		if r := reSASSReg().FindString(strings.TrimSpace(ops[i])); r != "" && strings.HasPrefix(strings.TrimSpace(ops[i]), r) {
			out = append(out, r)
		}
	}
	return out
}

var reConstBank = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bc\[0x[1-9a-f][0-9a-f]*\]`) })

// ParseOutput parses instrumented PTX for VerifySASS.
func ParseOutput(name string, src []byte) (*ptx.File, error) {
	return ptx.ParseFile(token.NewFileSet(), name, src, 0)
}
