package instrument

import (
	"bytes"
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// site is one probed load.
type site struct {
	in      *ptx.Instruction
	space   string
	mode    string // naive, fence, dummy, wait_group or mbarrier
	line    int
	text    string
	loc     ptx.Loc
	hasLoc  bool
	elems   []ptx.Operand // destination registers (dummy consumer)
	beginID uint32
	endID   uint32
	region  int
	async   int              // async copy site kind (async.go), asyncNone for a load
	waitAt  *ptx.Instruction // async site: the end probe goes after it
	joined  bool             // async site: other paths join before the wait (flag-guarded record)
}

// userRegion is one --region placed in a kernel.
type userRegion struct {
	r         Region
	beginAt   *ptx.Instruction // begin probe goes before it
	endAt     *ptx.Instruction // end probe goes next to it
	endBefore bool             // before endAt (control transfer) rather than after
	beginText string
	endText   string
	mode      string
	beginID   uint32
	endID     uint32
	region    int
	beginLoc  ptx.Loc
	endLoc    ptx.Loc
	beginHas  bool
	endHas    bool
}

// kernel is the per-.entry state.
type kernel struct {
	m       *module
	fn      *ptx.Function
	regs    *ptx.RegSet
	sites   []*site
	regions []*userRegion
	isFunc  bool      // a .func: probes use the caller's trace context (funcs.go)
	callees []*kernel // functions with sites this kernel reaches (their probes are listed under it)
	// pipeWaits are the cp.async waits of a kernel with run-time paired
	// copies (pipeline.go), nil otherwise.
	pipeWaits []*pipeWait

	// all instructions in textual order with their .loc, for regions
	insts []instLoc
	locs  []ptx.Loc // the .locs the insts point to

	// plan
	staged      bool // records staged in shared memory
	warps       int  // warps per CTA the staging array holds
	slotBytes   int
	useDummy    bool
	paramBuf    int
	paramDummy  int
	paramStage  int // index of __pt_stage_off; __pt_stage_recs follows
	staging     manifest.Staging
	maxnreg     int // .maxnreg added to the instrumented entry (0: none)
	warpsPerCTA int

	outLine map[*ptx.Instruction]int // output lines of the probed instructions
	span    [2]int                   // byte offsets of the function in the input, before rewriting
}

type instLoc struct {
	in   *ptx.Instruction
	line int
	loc  *ptx.Loc // the .loc in force (in kernel.locs), or nil
}

// where returns the .loc in force at the instruction, if any.
func (il instLoc) where() (ptx.Loc, bool) {
	if il.loc == nil {
		return ptx.Loc{}, false
	}
	return *il.loc, true
}

// instAt makes the instLoc of in at line, under loc if has: the
// instructions under one .loc share its copy in k.locs (an instLoc is a
// third of the size it would be holding the Loc).
func (k *kernel) instAt(in *ptx.Instruction, line int, loc ptx.Loc, has bool) instLoc {
	il := instLoc{in: in, line: line}
	if has {
		if n := len(k.locs); n == 0 || k.locs[n-1] != loc {
			k.locs = append(k.locs, loc)
		}
		// Appending may move k.locs; the Locs the earlier
		// instructions point to stay where they were, unchanged.
		il.loc = &k.locs[len(k.locs)-1]
	}
	return il
}

// walk visits the instructions of b in textual order, tracking .loc.
func (k *kernel) walk(b *ptx.Block, loc *ptx.Loc, has *bool, visit func(in *ptx.Instruction)) {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Directive:
			if l, ok := s.Loc(); ok {
				*loc, *has = l, true
			}
		case *ptx.Block:
			k.walk(s, loc, has, visit)
		case *ptx.Instruction:
			visit(s)
		}
	}
}

func (k *kernel) collect() {
	m := k.m
	var loc ptx.Loc
	has := false
	async := false // an async copy seen (collectAsync has work)
	lines := m.lineCursor()
	k.insts = make([]instLoc, 0, countInsts(k.fn.Body))
	k.walk(k.fn.Body, &loc, &has, func(in *ptx.Instruction) {
		line := lines.lineOf(in.Pos())
		k.insts = append(k.insts, k.instAt(in, line, loc, has))
		if m.opts.NoLoads {
			return
		}
		fx := m.factsOf(in)
		if !async && asyncKind(in, fx) != asyncNone {
			async = true
		}
		if !isSiteOp(in, fx) {
			return
		}
		sp := spaceName(fx)
		if !k.selected(sp, line, loc, has) {
			return
		}
		s := &site{in: in, space: sp, line: line, text: m.text(in), loc: loc, hasLoc: has}
		s.mode = m.opts.Mode
		if s.mode == "auto" {
			// Every load whose value can be read gets the dependent
			// consumer, whatever its space: it waits for this access
			// only, while a fence would also wait for the warp's older
			// in-flight stores and atomics (docs/instrument.md, "What
			// each probe waits for").
			s.mode = manifest.ModeDummy
		}
		if s.mode == manifest.ModeDummy {
			s.elems = k.consumable(in.Args[0])
			if len(s.elems) == 0 {
				// Nothing the consumer can read (a 128-bit or
				// undeclared destination): wait with the fence.
				s.mode = manifest.ModeFence
			}
		}
		k.sites = append(k.sites, s)
	})
	if m.opts.NoLoads {
		return
	}
	// The instructions' lines and locations, made when an async access
	// or a wait asks for them.
	var at map[*ptx.Instruction]instLoc
	atOf := func() map[*ptx.Instruction]instLoc {
		if at == nil {
			at = make(map[*ptx.Instruction]instLoc, len(k.insts))
			for _, il := range k.insts {
				at[il.in] = il
			}
		}
		return at
	}
	if !async {
		// collectAsync would find no site; without async copies
		// there are no waits to collect either.
		slices.SortStableFunc(k.sites, func(a, b *site) int { return cmp.Compare(a.line, b.line) })
		return
	}
	k.collectAsync(func(in *ptx.Instruction, sp string) (site, bool) {
		il := atOf()[in]
		l, has := il.where()
		if !k.selected(sp, il.line, l, has) {
			return site{}, false
		}
		return site{in: in, space: sp, line: il.line, text: m.text(in), loc: l, hasLoc: has}, true
	})
	for _, s := range k.sites {
		if s.async == asyncGroupSeq {
			k.collectWaits(flatStmts(k.fn.Body, nil), atOf())
			break
		}
	}
	for _, s := range k.sites {
		if s.async == asyncPhaseSeq {
			k.collectPhaseWaits(flatStmts(k.fn.Body, nil), atOf())
			break
		}
	}
	// sites in textual order (ids, manifest and records follow it)
	slices.SortStableFunc(k.sites, func(a, b *site) int { return cmp.Compare(a.line, b.line) })
}

// selected applies the site selection options (spaces, lines, source
// range) to an access of space sp on input line line.
func (k *kernel) selected(sp string, line int, loc ptx.Loc, has bool) bool {
	m := k.m
	if !m.spaces[sp] {
		return false
	}
	if m.opts.Lines != nil && !m.opts.Lines.Contains(line) {
		return false
	}
	if src := m.opts.Src; src != nil {
		if !has || !src.Lines.Contains(loc.Line) || !matchFile(m.files[loc.File], src.File) {
			return false
		}
	}
	return true
}

// consumable returns the destination registers of a load that the dummy
// consumer can read: declared registers of 8, 16, 32 or 64 bits.
func (k *kernel) consumable(dst ptx.Operand) []ptx.Operand {
	var regs []ptx.Operand
	add := func(name string) {
		if name == "" || name == "_" {
			return
		}
		t, ok := k.regs.Declared(name)
		if !ok {
			return
		}
		switch t.Size() {
		case 1, 2, 4, 8:
			if t == ptx.Pred {
				return
			}
			regs = append(regs, ptx.Operand{Kind: ptx.OpReg, Name: name})
		}
	}
	switch dst.Kind {
	case ptx.OpReg:
		add(dst.Name)
	case ptx.OpPair:
		add(dst.Name)
	case ptx.OpVec:
		for _, e := range dst.Elems {
			if e.Kind == ptx.OpReg {
				add(e.Name)
			}
		}
	}
	return regs
}

func isTransfer(in *ptx.Instruction) bool {
	fx := ptx.FactsOf(in)
	return fx.Branch || fx.Return || fx.Exit || fx.Call && strings.HasPrefix(in.Op.Text, "ret")
}

// addRegion places a user region on the kernel's instructions.
func (k *kernel) addRegion(r Region) error {
	m := k.m
	if k.insts == nil {
		var loc ptx.Loc
		has := false
		k.walk(k.fn.Body, &loc, &has, func(in *ptx.Instruction) {
			k.insts = append(k.insts, k.instAt(in, m.line(in.Pos()), loc, has))
		})
	}
	u := &userRegion{r: r, mode: m.opts.Mode}
	for _, il := range k.insts {
		if il.line >= r.Begin && u.beginAt == nil {
			u.beginAt = il.in
			u.beginLoc, u.beginHas = il.where()
		}
		if il.line <= r.End {
			u.endAt = il.in
			u.endLoc, u.endHas = il.where()
		}
	}
	pos := token.Position{Filename: m.f.Name, Line: r.Begin, Column: 1}
	if u.beginAt == nil || u.endAt == nil || m.line(u.endAt.Pos()) < m.line(u.beginAt.Pos()) {
		return errAt(pos, "region %d:%d of kernel %s holds no instruction", r.Begin, r.End, k.fn.Name)
	}
	u.beginText, u.endText = m.text(u.beginAt), m.text(u.endAt)
	u.endBefore = isTransfer(u.endAt)
	if u.endBefore && u.endAt == u.beginAt {
		u.endBefore = false // a region of one branch: time the branch itself
	}
	switch u.mode {
	case "auto", "dummy":
		// A region has no single loaded value to consume: its end waits
		// with the fence for every memory operation in the region.
		u.mode = manifest.ModeFence
	}
	k.regions = append(k.regions, u)
	return nil
}

// blockSize returns the threads per block used for occupancy and staging,
// and where it came from.
func (k *kernel) blockSize() (int, string) {
	for _, name := range []string{".reqntid", ".maxntid"} {
		for _, d := range k.fn.Perf {
			if d.Name != name {
				continue
			}
			if ns, ok := d.Ints(); ok && len(ns) > 0 {
				n := 1
				for _, x := range ns {
					n *= x
				}
				if n > 0 && n <= 1024 {
					return n, strings.TrimPrefix(name, ".")
				}
			}
		}
	}
	if k.m.opts.Block != DefaultBlock {
		return k.m.opts.Block, "flag"
	}
	return DefaultBlock, "default"
}

// staticShared counts the static shared memory of the kernel: .shared
// declarations in its body and module-level .shared variables it names.
func (k *kernel) staticShared() int {
	total := 0
	ptx.Inspect(k.fn.Body, func(n ptx.Node) bool {
		if s, ok := n.(*ptx.VarDecl); ok && s.Space == ptx.SpaceShared && s.Linkage&ptx.Extern == 0 {
			for i := range s.Names {
				total = alignUp(total, max(s.Align, 1)) + s.Size(i)
			}
		}
		return true
	})
	// The module-level .shared variables (usually none) the kernel names.
	used := map[string]bool{}
	for _, d := range k.m.facts.Decls {
		if v, ok := d.(*ptx.VarDecl); ok && v.Space == ptx.SpaceShared && v.Linkage&ptx.Extern == 0 {
			for _, n := range v.Names {
				used[n.Name] = false
			}
		}
	}
	if len(used) == 0 {
		return total
	}
	var names func(ops []ptx.Operand)
	names = func(ops []ptx.Operand) {
		for _, o := range ops {
			if _, ok := used[o.Name]; ok && o.Name != "" {
				used[o.Name] = true
			}
			names(o.Elems)
		}
	}
	for _, il := range k.insts {
		names(il.in.Args)
	}
	for _, d := range k.m.facts.Decls {
		v, ok := d.(*ptx.VarDecl)
		if !ok || v.Space != ptx.SpaceShared || v.Linkage&ptx.Extern != 0 {
			continue
		}
		for i, n := range v.Names {
			if used[n.Name] {
				total = alignUp(total, max(v.Align, 1)) + v.Size(i)
			}
		}
	}
	return total
}

func alignUp(x, a int) int { return (x + a - 1) / a * a }

// plan decides staging and assigns ids.
func (k *kernel) plan() error {
	m := k.m
	if k.insts == nil {
		k.collectInsts()
	}
	for _, s := range k.sites {
		if s.mode == manifest.ModeDummy {
			k.useDummy = true
		}
	}
	for _, c := range k.callees {
		k.useDummy = k.useDummy || c.useDummy
	}
	if k.isFunc {
		k.staged = m.opts.Staging != "global"
		k.assignIDs()
		return nil
	}
	block, bsrc := k.blockSize()
	k.warps = (block + 31) / 32
	if bsrc == "reqntid" {
		k.warpsPerCTA = k.warps
	}
	k.slotBytes = manifest.SegmentHeaderBytes + m.opts.Capacity*manifest.RecordBytes

	st := manifest.Staging{Requested: m.opts.Staging, ThreadsPerBlock: block, BlockSource: bsrc}
	regs, rsrc := m.opts.Regs, "flag"
	shared := k.staticShared()
	if res, ok := m.opts.Resources[k.fn.Name]; ok {
		regs, rsrc = res.Regs, "ptxas"
		shared = res.SharedBytes
	} else if regs == 0 {
		rsrc = "unknown"
	}
	st.RegsPerThread, st.RegsSource, st.SharedBytesBase = regs, rsrc, shared
	if arch, ok := LookupArch(m.sm); ok {
		if before, err := arch.Compute(block, regs, shared); err == nil {
			st.OccupancyBefore, st.WarpsBefore = before.Ratio, before.ActiveWarps
			st.OccupancyAfter, st.WarpsAfter = before.Ratio, before.ActiveWarps
		}
	}
	// Shared staging is sized at launch time, for the launch's block and
	// dynamic shared memory and the GPU's limits (PlanStaging): the kernel
	// stages in dynamic shared memory when the host passes a non-zero
	// record count, else in its global segment.
	switch m.opts.Staging {
	case "global":
		k.staged = false
		st.Where, st.Reason = manifest.StagingGlobal, "requested"
	case "shared":
		k.staged = true
		st.Where, st.Reason = manifest.StagingDynamic, "requested: the host stages as many records per warp as one block's shared memory holds (PlanStaging without keepOccupancy)"
	default:
		k.staged = true
		st.Where, st.Reason = manifest.StagingDynamic, "sized at launch: the most records per warp that keep the launch's blocks per SM (PlanStaging); 0 = global staging"
	}
	k.staging = st
	k.maxnreg = k.regBound(block, bsrc, regs, shared)
	k.assignIDs()
	return nil
}

// regBound is the .maxnreg bound of the instrumented kernel, 0 for none:
// with the original's register count regs known (ptxas -v or --regs) and
// no launch-bound directive of the kernel's own (.maxnreg, .maxntid,
// .minnctapersm), the most registers per thread that keep the original's
// blocks per SM for a block size fixed by .reqntid or --block, else regs
// rounded up to the register allocation unit (at least 16). ptxas then spills the
// probes' registers rather than lower the occupancy.
func (k *kernel) regBound(block int, bsrc string, regs, shared int) int {
	if regs <= 0 {
		return 0
	}
	for _, d := range k.fn.Perf {
		switch d.Name {
		case ".maxnreg", ".maxntid", ".minnctapersm":
			return 0
		}
	}
	arch, ok := LookupArch(k.m.sm)
	if !ok {
		return regs
	}
	if regs > arch.MaxRegsPerThread {
		return 0
	}
	unit := max(arch.RegAllocUnit/32, 1)
	// ptxas raises a smaller bound to 16 with a warning; 16 registers
	// never limit occupancy (64 warps × 32 × 16 fit every register file).
	n := min(max((regs+unit-1)/unit*unit, 16), arch.MaxRegsPerThread)
	if bsrc != "reqntid" && bsrc != "flag" {
		return n
	}
	before, err := arch.Compute(block, regs, shared)
	if err != nil {
		return n
	}
	for n < arch.MaxRegsPerThread {
		o, err := arch.Compute(block, n+1, shared)
		if err != nil || o.Blocks < before.Blocks {
			break
		}
		n++
	}
	return n
}

// assignIDs numbers regions first in file order of their anchors, then
// loads.
func (k *kernel) assignIDs() {
	m := k.m
	for _, u := range k.regions {
		u.region = m.nextReg
		m.nextReg++
		u.beginID, u.endID = m.nextID, m.nextID+1
		m.nextID += 2
	}
	for _, s := range k.sites {
		s.region = m.nextReg
		m.nextReg++
		if seqSite(s.async) {
			// its end probes are the waits' (below)
			s.beginID = m.nextID
			m.nextID++
			continue
		}
		s.beginID, s.endID = m.nextID, m.nextID+1
		m.nextID += 2
	}
	for _, pw := range k.pipeWaits {
		pw.id = m.nextID
		m.nextID++
	}
}

// countInsts counts the instructions of b (nested blocks included).
func countInsts(b *ptx.Block) int {
	n := 0
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			n += countInsts(s)
		case *ptx.Instruction:
			n++
		}
	}
	return n
}

func (k *kernel) collectInsts() {
	var loc ptx.Loc
	has := false
	k.walk(k.fn.Body, &loc, &has, func(in *ptx.Instruction) {
		k.insts = append(k.insts, k.instAt(in, k.m.line(in.Pos()), loc, has))
	})
}

func (k *kernel) locOf(p *manifest.Probe, l ptx.Loc, has bool) {
	if !has {
		return
	}
	p.LocFile = k.m.files[l.File]
	if p.LocFile == "" {
		p.LocFile = fmt.Sprint(l.File)
	}
	p.LocLine, p.LocCol = l.Line, l.Col
}

func (k *kernel) manifestKernel() manifest.Kernel {
	mk := manifest.Kernel{Name: k.fn.Name, WarpsPerCTA: k.warpsPerCTA, Staging: k.staging, MaxNReg: k.maxnreg}
	mk.ParamsAdded = append(mk.ParamsAdded, manifest.Param{Index: k.paramBuf, Name: ParamBuf, Type: ".u64", Host: manifest.HostTraceBuffer})
	if !k.m.addr64 {
		mk.ParamsAdded[0].Type = ".u32"
	}
	if k.useDummy {
		mk.ParamsAdded = append(mk.ParamsAdded, manifest.Param{Index: k.paramDummy, Name: ParamDummy, Type: ".u32", Host: manifest.HostZero})
	}
	if k.staged {
		mk.ParamsAdded = append(mk.ParamsAdded,
			manifest.Param{Index: k.paramStage, Name: ParamStageOff, Type: ".u32", Host: manifest.HostStageOffset},
			manifest.Param{Index: k.paramStage + 1, Name: ParamStageRecs, Type: ".u32", Host: manifest.HostStageRecords})
	}
	n := 2 * (len(k.regions) + len(k.sites) + len(k.pipeWaits)) // at most, in all
	for _, c := range k.callees {
		n += 2 * len(c.sites)
	}
	mk.Probes = make([]manifest.Probe, 0, n)
	for _, u := range k.regions {
		for i, id := range []uint32{u.beginID, u.endID} {
			p := manifest.Probe{ID: id, Kernel: k.fn.Name, Region: u.region, RegionKind: manifest.RegionUser, Mode: u.mode}
			at, l, has, text := u.beginAt, u.beginLoc, u.beginHas, u.beginText
			p.Kind, p.Line = manifest.KindBegin, u.r.Begin
			if i == 1 {
				at, l, has, text = u.endAt, u.endLoc, u.endHas, u.endText
				p.Kind, p.Line = manifest.KindEnd, u.r.End
				if u.mode == manifest.ModeNaive {
					p.Mode = manifest.ModeNaive
				}
			}
			p.Text = text
			p.OutLine = k.outLine[at]
			k.locOf(&p, l, has)
			mk.Probes = append(mk.Probes, p)
		}
	}
	mk.Probes = k.siteProbes(mk.Probes, k.fn.Name)
	mk.Probes = k.pipeProbes(mk.Probes)
	for _, c := range k.callees {
		mk.Probes = c.siteProbes(mk.Probes, k.fn.Name)
	}
	return mk
}

// siteProbes appends the probes of k's load sites, listed under kernel.
func (k *kernel) siteProbes(dst []manifest.Probe, kernel string) []manifest.Probe {
	for _, s := range k.sites {
		for i, id := range []uint32{s.beginID, s.endID} {
			p := manifest.Probe{ID: id, Kernel: kernel, Kind: manifest.KindBegin, Region: s.region, RegionKind: manifest.RegionLoad,
				Mode: s.mode, Space: s.space, Line: s.line, Text: s.text, OutLine: k.outLine[s.in]}
			if k.isFunc {
				p.Function = k.fn.Name
			}
			if i == 1 {
				if seqSite(s.async) {
					break // the waits' end probes (pipeProbes)
				}
				p.Kind = manifest.KindEnd
			}
			k.locOf(&p, s.loc, s.hasLoc)
			dst = append(dst, p)
		}
	}
	return dst
}

// mapOutLines finds the output line of every probed instruction. Each
// rewritten function is printed alone (in Preserve mode, from the slice of
// the input it was parsed from, so that it prints exactly as in the whole
// output), found in the output after the previous one, and parsed back:
// its instructions, walked in step with the rewritten tree, give the lines.
// Memory stays proportional to the largest function rather than to the
// output. If a function's text is not found (the printer laid it out
// differently alone), the whole output is parsed instead (mapOutLinesWhole).
func (m *module) mapOutLines(out []byte, lineBase int) error {
	byFn := map[*ptx.Function]*kernel{}
	for _, k := range m.kernels {
		byFn[k.fn] = k
	}
	for _, k := range m.funcs {
		byFn[k.fn] = k
	}
	cursor, line := 0, 1+lineBase
	var buf bytes.Buffer
	for _, d := range m.f.Decls {
		fn, ok := d.(*ptx.Function)
		if !ok || byFn[fn] == nil {
			continue
		}
		k := byFn[fn]
		buf.Reset()
		if !m.printAlone(&buf, fn, k.span) {
			return m.mapOutLinesWhole(out, lineBase)
		}
		text := bytes.TrimRight(buf.Bytes(), " \t\r\n")
		i := bytes.Index(out[cursor:], text)
		if i < 0 {
			return m.mapOutLinesWhole(out, lineBase)
		}
		line += bytes.Count(out[cursor:cursor+i], []byte{'\n'})
		cursor += i
		fset := token.NewFileSet()
		of, err := ptx.ParseFile(fset, m.f.Name, text, 0)
		if err != nil {
			return fmt.Errorf("%s: internal error: instrumented %s does not parse: %w", m.f.Name, fn.Name, err)
		}
		fns := of.Functions()
		if len(fns) != 1 || fns[0].Body == nil {
			return fmt.Errorf("%s: internal error: kernel %s missing from the output", m.f.Name, fn.Name)
		}
		if err := k.mapLines(fns[0], fset, line-1); err != nil {
			return err
		}
		line += bytes.Count(text, []byte{'\n'})
		cursor += len(text)
	}
	return nil
}

// printAlone prints fn alone in Preserve mode from the input's bytes
// span[0]:span[1] (the function's text before rewriting), so that its
// tokens keep their spacing as in the whole output.
func (m *module) printAlone(w *bytes.Buffer, fn *ptx.Function, span [2]int) bool {
	lo, hi := span[0], span[1]
	if m.f.Tok == nil || lo < 0 || hi > len(m.f.Src) || lo >= hi {
		return false
	}
	fs := token.NewFileSet()
	tf := fs.AddFile(m.f.Name, m.f.Tok.Base()+lo, hi-lo)
	alone := &ptx.File{Name: m.f.Name, Src: m.f.Src[lo:hi], Tok: tf, Decls: []ptx.Decl{fn}, CRLF: m.f.CRLF}
	return ptx.Fprint(w, alone) == nil
}

// span returns the byte offsets of fn's text in the input.
func (m *module) span(fn *ptx.Function) [2]int {
	if !fn.Pos().IsValid() || !fn.End().IsValid() {
		return [2]int{-1, -1}
	}
	return [2]int{m.fset.Position(fn.Pos()).Offset, m.fset.Position(fn.End()).Offset}
}

// mapLines records the output line of k's probed instructions from ofn,
// the rewritten function read back (its lines offset by delta).
func (k *kernel) mapLines(ofn *ptx.Function, fset *token.FileSet, delta int) error {
	want := map[*ptx.Instruction]bool{}
	for _, s := range k.sites {
		want[s.in] = true
	}
	for _, u := range k.regions {
		want[u.beginAt], want[u.endAt] = true, true
	}
	for _, pw := range k.pipeWaits {
		want[pw.in] = true
		if pw.wait != nil {
			want[pw.wait] = true
		}
	}
	a, b := flatten(k.fn.Body, nil), flatten(ofn.Body, nil)
	if len(a) != len(b) {
		return fmt.Errorf("%s: internal error: kernel %s: %d instructions written, %d read back", k.m.f.Name, k.fn.Name, len(a), len(b))
	}
	k.outLine = make(map[*ptx.Instruction]int, len(want))
	for i, in := range a {
		if want[in] {
			k.outLine[in] = fset.Position(b[i].Pos()).Line + delta
		}
	}
	return nil
}

// mapOutLinesWhole finds the output lines by parsing the whole output.
func (m *module) mapOutLinesWhole(out []byte, lineBase int) error {
	fset := token.NewFileSet()
	of, err := ptx.ParseFile(fset, m.f.Name, out, 0)
	if err != nil {
		return fmt.Errorf("%s: internal error: instrumented output does not parse: %w", m.f.Name, err)
	}
	outFns := map[string]*ptx.Function{}
	for _, fn := range of.Functions() {
		if fn.Body != nil {
			outFns[fn.Name] = fn
		}
	}
	for _, k := range append(append([]*kernel(nil), m.kernels...), m.funcs...) {
		ofn := outFns[k.fn.Name]
		if ofn == nil {
			return fmt.Errorf("%s: internal error: kernel %s missing from the output", m.f.Name, k.fn.Name)
		}
		if err := k.mapLines(ofn, fset, lineBase); err != nil {
			return err
		}
	}
	return nil
}

func flatten(b *ptx.Block, dst []*ptx.Instruction) []*ptx.Instruction {
	if dst == nil {
		dst = make([]*ptx.Instruction, 0, countInsts(b))
	}
	return flattenTo(b, dst)
}

func flattenTo(b *ptx.Block, dst []*ptx.Instruction) []*ptx.Instruction {
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *ptx.Block:
			dst = flattenTo(s, dst)
		case *ptx.Instruction:
			dst = append(dst, s)
		}
	}
	return dst
}
