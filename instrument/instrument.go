package instrument

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Result is an instrumented module.
type Result struct {
	PTX      []byte             // the instrumented PTX text
	Manifest *manifest.Manifest // its manifest (validated); nil when Stream wrote it to StreamOptions.Manifest
	Summary  *Summary           // that streamed manifest's summary, else nil
	// Warnings are positioned notes that did not stop instrumentation,
	// e.g. "no sites" for a module whose kernels have no loads under the
	// default selection (its output is then the input, unchanged).
	Warnings []string
}

// Names the instrumentation adds to a kernel. The prefix is reserved: an
// input that already uses it is rejected.
const (
	Prefix     = "__pt_"
	ParamBuf   = "__pt_buf"
	ParamDummy = "__pt_dummy"
	StageVar   = "__pt_stage"
	// Staging parameters of a kernel with shared staging (PlanStaging).
	ParamStageOff  = "__pt_stage_off"
	ParamStageRecs = "__pt_stage_recs"
)

// errAt makes a positioned error list with one entry.
func errAt(pos token.Position, format string, args ...any) error {
	if pos.Line == 0 {
		pos.Line, pos.Column = 1, 1
	}
	return scanner.ErrorList{&scanner.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}}
}

// module is the per-file state of one Instrument call.
type module struct {
	fset *token.FileSet
	f    *ptx.File // the module, or the piece of it being instrumented (stream.go)
	// facts holds the module-level declarations: the header directives,
	// .file entries and variables (f itself unless streaming).
	facts    *ptx.File
	seed     *seed // where the piece's ids and regions start (streaming), or nil
	opts     Options
	sm       int // target compute capability (52 for sm_52), 0 if unknown
	target   string
	ptxMajor int
	ptxMinor int
	addr64   bool
	fence    string // fence instruction for this target
	files    map[int]string
	spaces   map[string]bool
	nextID   uint32
	nextReg  int
	kernels  []*kernel
	entries  []*ptx.Function // every .entry with a body, in file order
	funcs    []*kernel       // .funcs with sites or calling them (funcs.go)
	traced   map[*ptx.Function]bool
	// tracedNames are the names of the traced functions (declarations
	// without a body included by name).
	tracedNames map[string]bool
	// byFn indexes kernels by function (probed); rebuilt when kernels
	// changes length (kernels is only appended to, or reset to nil).
	byFn map[*ptx.Function]*kernel
	// shared holds the prologue and exit block per codeKey (sharedCode);
	// opcodes the decoded opcode per spelling of generated instructions,
	// insts the generated instruction per text (intern).
	shared  map[codeKey][2]code
	opcodes map[string]*ptx.Opcode
	parsed  map[string]*ptx.Opcode // Stream: the opcodes its parses decoded (ptx.ParseRangeShared)
	insts   map[string]*ptx.Instruction
	// fast: lay out load sites' probe code and the shared code from
	// templates (fastpath.go; Stream), made once per shape in tpls and
	// per codeKey in laid.
	fast     bool
	tpls     map[tplKey]*siteTpl
	laid     map[codeKey][2]code
	fillHook func(ids []int64)         // tests: sees (and may change) each laid site's ids
	fx       map[*ptx.Opcode]ptx.Facts // factsOf's cache
	warnings []string
	firstPos token.Position
}

// Instrument inserts probes into f (which it modifies) and returns the
// printed result and its manifest. Errors are scanner.ErrorList values
// positioned in the input.
func Instrument(fset *token.FileSet, f *ptx.File, opts Options) (*Result, error) {
	m, err := newModule(fset, f, opts)
	if err != nil {
		return nil, err
	}
	if err := m.header(); err != nil {
		return nil, err
	}
	var warnings []string
	if err := m.collect(); err != nil {
		// Under the default selection a module without loads in
		// kernels (only .funcs, wmma fragments, no .entry at all) is
		// not an error: it is left unchanged, with an empty manifest.
		// An explicit selection that matches nothing is an error.
		if !isNoSites(err) || !m.opts.defaultSelection() {
			return nil, err
		}
		warnings = append(warnings, err.Error())
		m.kernels = nil
	}
	if len(m.kernels) > 0 {
		if err := m.checkISA(); err != nil {
			return nil, err
		}
	}
	var unchanged [2][]named // no sites, not selected
	for _, fn := range m.entries {
		if m.probed(fn) == nil {
			i := 0
			if m.opts.Kernel != "" && fn.Name != m.opts.Kernel {
				i = 1
			}
			unchanged[i] = append(unchanged[i], named{fn.Name, m.pos(fn.NamePos)})
		}
	}
	for i, why := range []string{"no sites", "not selected (--kernel " + m.opts.Kernel + ")"} {
		warnings = append(warnings, unchangedWarnings(unchanged[i], why)...)
	}
	warnings = append(warnings, collapse(m.warnings)...)
	staged, err := m.transform()
	if err != nil {
		return nil, err
	}
	if staged {
		m.declareStage()
	}
	var out bytes.Buffer
	if err := ptx.Fprint(&out, f); err != nil {
		return nil, fmt.Errorf("%s: printing: %w", f.Name, err)
	}
	if err := m.mapOutLines(out.Bytes(), 0); err != nil {
		return nil, err
	}
	man := m.manifest(out.Bytes())
	if err := man.Validate(); err != nil {
		return nil, fmt.Errorf("%s: internal error: invalid manifest: %w", f.Name, err)
	}
	return &Result{PTX: out.Bytes(), Manifest: man, Warnings: warnings}, nil
}

// newModule starts the instrumentation of f (the module, or a piece of
// it whose facts the caller sets).
func newModule(fset *token.FileSet, f *ptx.File, opts Options) (*module, error) {
	m := &module{fset: fset, f: f, facts: f, opts: opts, files: map[int]string{}, spaces: map[string]bool{}}
	m.firstPos = fset.Position(f.Pos())
	m.firstPos.Offset = 0
	if err := m.opts.normalize(); err != nil {
		return nil, errAt(m.firstPos, "%v", err)
	}
	for _, s := range m.opts.Spaces {
		m.spaces[s] = true
	}
	return m, nil
}

// seed is where a piece's probe ids and regions start: its functions'
// after those of the functions before it, its kernels' after all the
// functions' and those of the kernels before it (as numbered whole).
type seed struct {
	funcID, funcReg uint32
	kernID, kernReg uint32
}

// transform plans and rewrites the functions and kernels; it reports
// whether a kernel stages records in shared memory.
func (m *module) transform() (staged bool, err error) {
	if m.seed != nil {
		m.nextID, m.nextReg = m.seed.funcID, int(m.seed.funcReg)
	}
	for _, k := range m.funcs {
		if err := k.plan(); err != nil {
			return false, err
		}
	}
	if m.seed != nil {
		m.nextID, m.nextReg = m.seed.kernID, int(m.seed.kernReg)
	}
	for _, k := range m.kernels {
		if err := k.plan(); err != nil {
			return false, err
		}
	}
	for _, k := range m.funcs {
		k.span = m.span(k.fn)
	}
	for _, k := range m.kernels {
		k.span = m.span(k.fn)
	}
	for _, k := range m.funcs {
		k.rewrite()
	}
	m.declareFuncParams()
	for _, k := range m.kernels {
		k.rewrite()
		staged = staged || k.staged
	}
	return staged, nil
}

// named is a kernel left unchanged, for its warning.
type named struct {
	name string
	pos  token.Position
}

// maxListed is how many kernels of one kind of warning are named one per
// line; the others are counted in one more line.
const maxListed = 3

// unchangedWarnings names the kernels left unchanged for reason why, the
// first maxListed one per line and the others in one counted line.
func unchangedWarnings(fns []named, why string) []string {
	var ws []string
	for i, fn := range fns {
		if i == maxListed && len(fns) > maxListed+1 {
			ws = append(ws, fmt.Sprintf("%s: %d more kernels (%s … %s): %s: left unchanged (empty manifest entries)",
				fn.pos, len(fns)-maxListed, fn.name, fns[len(fns)-1].name, why))
			break
		}
		ws = append(ws, fmt.Sprintf("%s: kernel %s: %s: left unchanged (empty manifest entry)", fn.pos, fn.name, why))
	}
	return ws
}

// collapse replaces repeated identical warnings by the first with a count.
func collapse(ws []string) []string {
	count := map[string]int{}
	var out []string
	for _, w := range ws {
		if count[w] == 0 {
			out = append(out, w)
		}
		count[w]++
	}
	for i, w := range out {
		if n := count[w]; n > 1 {
			out[i] = fmt.Sprintf("%s (%d times)", w, n)
		}
	}
	return out
}

// isNoSites reports whether err is collect's "no sites" error.
func isNoSites(err error) bool {
	var list scanner.ErrorList
	return errors.As(err, &list) && len(list) == 1 && strings.HasPrefix(list[0].Msg, "no sites")
}

// header reads .version, .target and .address_size.
func (m *module) header() error {
	if d := m.facts.Directive(".version"); d != nil {
		m.ptxMajor, m.ptxMinor, _ = d.Version()
	}
	m.addr64 = false
	if d := m.facts.Directive(".address_size"); d != nil {
		if n, ok := d.AddressSize(); ok && n == 64 {
			m.addr64 = true
		}
	}
	if d := m.facts.Directive(".target"); d != nil {
		m.sm, _ = d.SM()
		if ts := d.Targets(); len(ts) > 0 {
			m.target = ts[0]
		}
	}
	if m.target == "" {
		m.target = "unknown"
	}
	m.fence = "membar.cta"
	if m.sm >= 70 && m.ptxAtLeast(6, 0) {
		m.fence = "fence.acq_rel.cta"
	}
	for _, d := range m.facts.Decls {
		if dir, ok := d.(*ptx.Directive); ok && dir.Name == ".file" {
			if fe, ok := dir.FileEntry(); ok {
				m.files[fe.Index] = fe.Name
			}
		}
	}
	if bytes.Contains(m.f.Src, []byte(Prefix)) {
		return errAt(m.posOfText(Prefix), "the input already uses the reserved prefix %q (instrumented twice?)", Prefix)
	}
	return nil
}

// checkISA refuses a module the probes cannot be written for. They
// address the trace buffer generically (cvta, generic ld/st/atom), elect
// the warp's leader with vote.ballot or activemask and %lanemask_lt, and
// read %clock64: all need PTX ISA 2.0 and sm_20 (ptxas rejects them in a
// module for sm_1x or of ISA 1.x, whatever -arch). %globaltimer needs PTX
// ISA 3.1 and sm_30. A module without sites is not refused (its output is
// its input).
func (m *module) checkISA() error {
	pos := m.firstPos
	if d := m.facts.Directive(".version"); d != nil {
		pos = m.pos(d.Pos())
	}
	if m.ptxMajor > 0 && !m.ptxAtLeast(2, 0) || m.sm > 0 && m.sm < 20 {
		return errAt(pos, "cannot instrument PTX ISA %d.%d for %s: the probes need generic addressing, vote.ballot, %%lanemask_lt and %%clock64, which ptxas accepts only from PTX ISA 2.0 and sm_20; regenerate the PTX for sm_20 or later",
			m.ptxMajor, m.ptxMinor, m.target)
	}
	if m.opts.Timer == manifest.TimerGlobaltimer && (m.ptxMajor > 0 && !m.ptxAtLeast(3, 1) || m.sm > 0 && m.sm < 30) {
		return errAt(pos, "cannot read %%globaltimer in PTX ISA %d.%d for %s: it needs PTX ISA 3.1 and sm_30; use --timer clock64",
			m.ptxMajor, m.ptxMinor, m.target)
	}
	return nil
}

func (m *module) ptxAtLeast(major, minor int) bool {
	return m.ptxMajor > major || m.ptxMajor == major && m.ptxMinor >= minor
}

func (m *module) posOfText(s string) token.Position {
	i := bytes.Index(m.f.Src, []byte(s))
	if i < 0 || m.f.Tok == nil {
		return m.firstPos
	}
	return m.fset.Position(token.Pos(m.f.Tok.Base() + i))
}

func (m *module) pos(p token.Pos) token.Position {
	if !p.IsValid() {
		return m.firstPos
	}
	return m.fset.Position(p)
}

func (m *module) line(p token.Pos) int {
	if !p.IsValid() {
		return 0
	}
	return m.fset.Position(p).Line
}

// lineCursor gives the lines of positions in m.f met in increasing
// order (a walk over a function's instructions): it counts the line
// breaks of the source from the previous position to the next rather
// than searching the file's line table each time. A position before the
// previous one, or a file without its text, asks m.line.
type lineCursor struct {
	m    *module
	off  int // offset in m.f.Src of the previous position, -1: none
	line int // its line
}

func (m *module) lineCursor() lineCursor { return lineCursor{m: m, off: -1} }

func (c *lineCursor) lineOf(p token.Pos) int {
	m := c.m
	tf := m.f.Tok
	if !p.IsValid() || tf == nil || tf.Size() != len(m.f.Src) {
		return m.line(p)
	}
	off := int(p) - tf.Base()
	if off < 0 || off >= len(m.f.Src) {
		return m.line(p)
	}
	if c.off < 0 || off < c.off {
		c.off, c.line = off, m.line(p)
		return c.line
	}
	c.line += bytes.Count(m.f.Src[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// text returns the input text of a node, trimmed.
func (m *module) text(n ptx.Node) string {
	if !n.Pos().IsValid() || !n.End().IsValid() {
		return ptx.Format(n)
	}
	a, b := m.fset.Position(n.Pos()).Offset, m.fset.Position(n.End()).Offset
	if a < 0 || b > len(m.f.Src) || a > b {
		return ptx.Format(n)
	}
	return strings.Join(strings.Fields(string(m.f.Src[a:b])), " ")
}

// spaceName is the manifest name of a load's state space.
func spaceName(fx ptx.Facts) string {
	switch fx.Space {
	case ptx.SpaceGlobal:
		return "global"
	case ptx.SpaceShared, ptx.SpaceSharedCluster:
		return "shared"
	case ptx.SpaceLocal:
		return "local"
	case ptx.SpaceConst:
		return "const"
	case ptx.SpaceParam:
		return "param"
	case ptx.SpaceTex:
		return "tex"
	case ptx.SpaceGeneric:
		return "generic"
	}
	return ""
}

// isSiteOp reports whether an instruction is a load ptxtrace probes.
func isSiteOp(in *ptx.Instruction, fx ptx.Facts) bool {
	if in.Op == nil {
		return false
	}
	switch fx.Name {
	case "ld", "ldu":
		return fx.Mem == ptx.MemLoad && len(in.Args) >= 2
	case "tex", "tld4":
		return fx.Mem == ptx.MemTexture && len(in.Args) >= 2
	}
	return false
}

// collect finds the kernels and their sites.
func (m *module) collect() error {
	var names []string
	found := false
	for _, fn := range m.f.Functions() {
		if fn.Kind != ptx.Entry || fn.Body == nil {
			continue
		}
		names = append(names, fn.Name)
		m.entries = append(m.entries, fn)
		if m.opts.Kernel != "" && fn.Name != m.opts.Kernel {
			continue
		}
		found = true
		k := &kernel{m: m, fn: fn, regs: ptx.FunctionRegs(fn)}
		k.collect()
		if len(k.sites) > 0 || len(k.regions) > 0 {
			m.kernels = append(m.kernels, k)
		}
	}
	if m.opts.Kernel != "" && !found {
		if len(names) == 0 {
			return errAt(m.firstPos, "no kernel named %q: the file has no kernels (.entry with a body)", m.opts.Kernel)
		}
		return errAt(m.firstPos, "no kernel named %q (kernels: %s)", m.opts.Kernel, strings.Join(names, ", "))
	}
	nlines := m.f.Tok.LineCount()
	if l := m.opts.Lines; l != nil && l.From > nlines {
		return errAt(m.firstPos, "bad line range %d-%d: the file has %d lines", l.From, l.To, nlines)
	}
	for _, r := range m.opts.Regions {
		if r.End > nlines {
			return errAt(m.firstPos, "bad region %d:%d: the file has %d lines", r.Begin, r.End, nlines)
		}
	}
	if err := m.placeRegions(); err != nil {
		return err
	}
	funcSites := map[*ptx.Function]*kernel{}
	if !m.opts.NoLoads {
		for _, fn := range m.f.Functions() {
			if fn.Kind == ptx.Entry || fn.Body == nil {
				continue
			}
			k := &kernel{m: m, fn: fn, regs: ptx.FunctionRegs(fn), isFunc: true}
			k.collect()
			if len(k.sites) > 0 {
				funcSites[fn] = k
			}
		}
	}
	ws, err := m.planFuncs(funcSites)
	if err != nil {
		return err
	}
	m.warnings = append(m.warnings, ws...)
	if len(m.kernels) == 0 {
		var why []string
		if len(names) == 0 {
			why = append(why, "the file has no kernels (.entry with a body)")
		} else {
			why = append(why, "no load matches")
			why = append(why, "spaces "+strings.Join(m.opts.Spaces, ","))
			if m.opts.Kernel != "" {
				why = append(why, "kernel "+m.opts.Kernel)
			}
			if m.opts.Lines != nil {
				why = append(why, fmt.Sprintf("lines %d-%d", m.opts.Lines.From, m.opts.Lines.To))
			}
			if m.opts.Src != nil {
				why = append(why, fmt.Sprintf("source %s:%d-%d", m.opts.Src.File, m.opts.Src.Lines.From, m.opts.Src.Lines.To))
			}
		}
		return errAt(m.firstPos, "no sites: %s", strings.Join(why, "; "))
	}
	return nil
}

// placeRegions attaches each user region to the kernel holding its lines.
func (m *module) placeRegions() error {
	for _, r := range m.opts.Regions {
		placed := false
		for _, fn := range m.f.Functions() {
			if fn.Kind != ptx.Entry || fn.Body == nil {
				continue
			}
			if m.opts.Kernel != "" && fn.Name != m.opts.Kernel {
				continue
			}
			first, last := m.line(fn.Body.Pos()), m.line(fn.Body.End())
			if r.Begin < first || r.Begin > last {
				continue
			}
			if r.End > last {
				return errAt(token.Position{Filename: m.f.Name, Line: r.Begin, Column: 1},
					"region %d:%d: its end is past the end of kernel %s (line %d)", r.Begin, r.End, fn.Name, last)
			}
			var k *kernel
			for _, kk := range m.kernels {
				if kk.fn == fn {
					k = kk
				}
			}
			if k == nil {
				k = &kernel{m: m, fn: fn, regs: ptx.FunctionRegs(fn)}
				m.kernels = append(m.kernels, k)
			}
			if err := k.addRegion(r); err != nil {
				return err
			}
			placed = true
		}
		if !placed {
			return errAt(token.Position{Filename: m.f.Name, Line: r.Begin, Column: 1},
				"region %d:%d: line %d is not inside the body of a selected kernel", r.Begin, r.End, r.Begin)
		}
	}
	// Keep kernels in file order.
	order := map[*ptx.Function]int{}
	for i, fn := range m.f.Functions() {
		order[fn] = i
	}
	sort.SliceStable(m.kernels, func(i, j int) bool { return order[m.kernels[i].fn] < order[m.kernels[j].fn] })
	return nil
}

// matchFile reports whether a .file name matches a --src file.
func matchFile(name, want string) bool {
	if want == "" || name == want {
		return true
	}
	return strings.HasSuffix(name, "/"+want) || strings.HasSuffix(name, `\`+want)
}

// manifest builds the manifest of the printed output.
func (m *module) manifest(out []byte) *manifest.Manifest {
	outSum := sha256.Sum256(out)
	var ks []manifest.Kernel
	for _, fn := range m.entries {
		ks = append(ks, m.manifestEntry(fn))
	}
	inSum := sha256.Sum256(m.f.Src)
	return m.manifestOf(outSum[:], inSum[:], ks)
}

// manifestOf builds the manifest of an output whose SHA-256 is outSum,
// of an input whose SHA-256 is inSum, with the kernels ks.
func (m *module) manifestOf(outSum, inSum []byte, ks []manifest.Kernel) *manifest.Manifest {
	tc := manifest.TimerCode(m.opts.Timer)
	man := &manifest.Manifest{
		Version:           manifest.Version,
		Tool:              m.opts.Tool,
		Input:             m.f.Name,
		InputSHA256:       hex.EncodeToString(inSum),
		Output:            m.opts.Output,
		InstrumentationID: hex.EncodeToString(outSum[:8]),
		Target:            m.target,
		AddressSize:       32,
		Mode:              m.opts.Mode,
		Timer:             m.opts.Timer,
		Fence:             m.fence,
		Buffer: manifest.Buffer{
			LayoutVersion:      manifest.LayoutVersion,
			HeaderBytes:        manifest.HeaderBytes,
			SegmentHeaderBytes: manifest.SegmentHeaderBytes,
			RecordBytes:        manifest.RecordBytes,
			RecordsPerWarp:     m.opts.Capacity,
			SegmentBytes:       manifest.SegmentHeaderBytes + m.opts.Capacity*manifest.RecordBytes,
			TimerCode:          tc,
		},
	}
	if m.addr64 {
		man.AddressSize = 64
	}
	for _, k := range ks {
		for _, p := range k.Probes {
			man.Version = raiseVersion(man.Version, p.Mode)
		}
	}
	if man.Tool == "" {
		man.Tool = "ptxtrace"
	}
	man.Kernels = ks
	return man
}

// manifestEntry is the manifest entry of kernel fn. Every kernel of the
// module has one, so that a launch of any of them finds its (possibly
// empty) description; a kernel without probes is unchanged: no added
// parameters, no trace buffer.
func (m *module) manifestEntry(fn *ptx.Function) manifest.Kernel {
	if k := m.probed(fn); k != nil {
		return k.manifestKernel()
	}
	reason := "no sites"
	if m.opts.Kernel != "" && fn.Name != m.opts.Kernel {
		reason = "not selected"
	}
	return manifest.Kernel{Name: fn.Name, ParamsAdded: []manifest.Param{},
		Staging: manifest.Staging{Where: manifest.StagingNone, Requested: m.opts.Staging, Reason: reason}, Probes: []manifest.Probe{}}
}

// probed returns the instrumented kernel of fn, or nil.
func (m *module) probed(fn *ptx.Function) *kernel {
	if m.byFn == nil || len(m.byFn) != len(m.kernels) {
		m.byFn = make(map[*ptx.Function]*kernel, len(m.kernels))
		for _, k := range m.kernels {
			m.byFn[k.fn] = k
		}
	}
	return m.byFn[fn]
}

// declareStage declares the dynamic shared staging array before the first
// function: ".extern .shared .align 16 .b8 __pt_stage[];". Like every
// extern shared array it starts at the launch's dynamic shared memory; the
// kernels add the host's __pt_stage_off.
func (m *module) declareStage() {
	v := stageDecl()
	i := 0
	for i < len(m.f.Decls) {
		if _, ok := m.f.Decls[i].(*ptx.Function); ok {
			break
		}
		i++
	}
	m.f.Decls = append(m.f.Decls[:i], append([]ptx.Decl{v}, m.f.Decls[i:]...)...)
}

// stageDecl is the declaration of the staging array.
func stageDecl() *ptx.VarDecl {
	return &ptx.VarDecl{Linkage: ptx.Extern, Space: ptx.SpaceShared, Align: 16, Type: ptx.B8, TypeName: ".b8",
		Names: []ptx.Declarator{{Name: StageVar, Range: -1, Dims: []int{0}}}}
}
