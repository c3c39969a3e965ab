package instrument

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/token"
	"hash"
	"io"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Large modules are instrumented one piece at a time (Stream): ptx.Split
// cuts the text after function bodies; a first pass parses each piece,
// checks it (ptx.Checker), keeps the module-level declarations other than
// functions (header directives, .file entries, variables) and notes each
// function's sites and calls, then drops the piece. The call graph
// decides which pieces must be instrumented together: a function with
// sites and each of its callers (its trace context is passed through
// them, and its probes are listed under the kernels reaching it) fall in
// one segment. A second pass parses, instruments, prints and writes one
// segment at a time, with ids numbered as Instrument numbers them over
// the whole module (functions' first, then kernels', in file order), the
// staging declaration before the first function and every output line
// counted from the start of the output. Memory is the input, the
// manifest and one segment's tree and output (written in chunks of
// streamChunk bytes).
//
// Stream refuses (ErrNotStreamed, before or after writing part of the
// output) what it does not handle the way Instrument does, so that the
// caller instruments the module whole and gets Instrument's output,
// warnings and errors: a module that does not parse or check, user
// regions, --kernel, a module without sites, calls through a register or
// prototype with sites in functions, header directives after the first
// function, and any error while instrumenting.

// ErrNotStreamed is Stream's refusal: instrument the module whole.
var ErrNotStreamed = errors.New("module not instrumented as a stream")

// StreamOptions are Stream's options beyond Options.
type StreamOptions struct {
	// Resources, when set, is called after the first pass with the
	// module-level declarations (header directives, .file entries,
	// variables) and returns Options.Resources.
	Resources func(header *ptx.File) map[string]Resources
	// fillHook (tests) is called with the ids of every site laid out
	// from a template, which it may change (fastpath.go).
	fillHook func(ids []int64)
}

// notStreamed wraps ErrNotStreamed with the reason.
func notStreamed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNotStreamed}, args...)...)
}

// fnInfo is what the first pass keeps of a function with a body.
type fnInfo struct {
	name  string
	entry bool
	sites int
	calls []string // direct callees
	piece int
	// later: a kernel alone in its piece and calling nothing
	// (plainKernel), which the first pass does not parse: the second
	// pass checks it and counts its sites (name and sites unknown here).
	later bool
}

// Stream instruments the module src (named name) one segment at a time
// and writes the instrumented text to w. Its Result has no PTX (it went
// to w); its output, manifest and warnings are those of Instrument on
// the whole module. On ErrNotStreamed w may hold part of an output that
// the caller must discard.
func Stream(w io.Writer, name string, src []byte, opts Options, so StreamOptions) (*Result, error) {
	if len(opts.Regions) > 0 || opts.Kernel != "" {
		return nil, notStreamed("user regions or --kernel")
	}
	fset := token.NewFileSet()
	tf := ptx.NewFile(fset, name, src)
	cuts := ptx.Split(src)
	facts := &ptx.File{Name: name, Src: src, Tok: tf}
	m, err := newModule(fset, facts, opts)
	if err != nil {
		return nil, notStreamed("%v", err)
	}
	m.parsed = map[string]*ptx.Opcode{}
	fns, badCall, check, err := streamScan(fset, m, facts, tf, src, cuts)
	if err != nil {
		return nil, err
	}
	pl, err := planSegments(fns, badCall, len(cuts))
	if err != nil {
		return nil, err
	}
	if err := m.checkISA(); err != nil {
		return nil, notStreamed("%v", err)
	}
	if so.Resources != nil {
		m.opts.Resources = so.Resources(facts)
	}
	m.fillHook = so.fillHook
	return streamWrite(w, name, m, facts, tf, src, cuts, fns, pl, check)
}

// streamScan is Stream's first pass: it parses and checks one piece at a
// time, keeps the module-level declarations in facts and returns each
// function's sites and calls, whether a call goes through a register or
// a prototype, and the Checker, which the second pass gives the pieces
// the first one leaves to it (fnInfo.later).
func streamScan(fset *token.FileSet, m *module, facts *ptx.File, tf *token.File, src []byte, cuts []int) ([]fnInfo, bool, *ptx.Checker, error) {
	check := ptx.NewChecker(fset, facts)
	var fns []fnInfo
	headerDone, badCall := false, false
	lo := 0
	for pi, hi := range cuts {
		if headerDone && plainKernel(src[lo:hi]) {
			// Nothing the plan needs but the kernel's sites, which only
			// advance the kernel ids: the second pass counts them.
			fns = append(fns, fnInfo{entry: true, piece: pi, later: true})
			lo = hi
			continue
		}
		f, err := ptx.ParseRangeShared(tf, src, lo, hi, 0, m.parsed)
		if err != nil {
			return nil, false, nil, notStreamed("parse: %v", err)
		}
		facts.CRLF = f.CRLF
		for _, d := range f.Decls {
			check.Decl(d)
			switch d := d.(type) {
			case *ptx.Directive:
				switch d.Name {
				case ".version", ".target", ".address_size", ".file":
					if headerDone {
						return nil, false, nil, notStreamed("%s after the first function", d.Name)
					}
				}
				facts.Decls = append(facts.Decls, d)
			case *ptx.VarDecl:
				facts.Decls = append(facts.Decls, d)
			case *ptx.Function:
				if d.Body == nil {
					continue
				}
				if !headerDone {
					if err := m.header(); err != nil {
						return nil, false, nil, notStreamed("%v", err)
					}
					headerDone = true
				}
				fi := fnInfo{name: d.Name, entry: d.Kind == ptx.Entry, piece: pi}
				k := &kernel{m: m, fn: d, regs: ptx.FunctionRegs(d), isFunc: !fi.entry}
				if fi.entry || !m.opts.NoLoads {
					k.collect()
					fi.sites = len(k.sites)
				}
				for _, in := range flatten(d.Body, nil) {
					if !isCall(in) {
						continue
					}
					callee, direct := callTarget(in)
					if !direct {
						badCall = true
						continue
					}
					fi.calls = append(fi.calls, callee)
				}
				fns = append(fns, fi)
			}
		}
		lo = hi
	}
	if err := check.Err(); err != nil {
		return nil, false, nil, notStreamed("check: %v", err)
	}
	if !headerDone {
		return nil, false, nil, notStreamed("no functions")
	}
	return fns, badCall, check, nil
}

// plainKernel reports whether piece (one of Split's) holds only comments
// and one kernel definition that calls nothing: blanks and comments,
// ".entry" (after ".visible" or ".weak"), no ';' before the body's '{',
// the body's matching '}', then blanks and comments only; and no "call"
// anywhere. It may say no to such a piece (the first pass then parses
// it), never yes to another.
func plainKernel(piece []byte) bool {
	if bytes.Contains(piece, []byte("call")) {
		return false
	}
	i := skipBlank(piece, 0)
	for _, w := range []string{".visible", ".weak"} {
		if bytes.HasPrefix(piece[i:], []byte(w)) && i+len(w) < len(piece) && isBlank(piece[i+len(w)]) {
			i = skipBlank(piece, i+len(w))
			break
		}
	}
	if !bytes.HasPrefix(piece[i:], []byte(".entry")) || i+6 >= len(piece) || !isBlank(piece[i+6]) {
		return false
	}
	depth := 0
	for i += 6; i < len(piece); i++ {
		switch c := piece[i]; {
		case c == '/' && i+1 < len(piece) && (piece[i+1] == '/' || piece[i+1] == '*'):
			i = skipBlank(piece, i) - 1 // the comment and the blanks after it
		case c == '"':
			return false
		case c == ';' && depth == 0:
			return false // a prototype, or something else before the body
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return skipBlank(piece, i+1) == len(piece)
			}
		}
	}
	return false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipBlank returns the offset of the first byte of b[i:] that is not a
// blank or in a comment.
func skipBlank(b []byte, i int) int {
	for i < len(b) {
		switch {
		case isBlank(b[i]):
			i++
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			j := bytes.Index(b[i+2:], []byte("*/"))
			if j < 0 {
				return i
			}
			i += 2 + j + 2
		default:
			return i
		}
	}
	return i
}

// streamPlan is what Stream's second pass needs from the first: the
// traced functions (with sites, and their callers), which pieces are
// joined to the next one, and the number of function sites (kernel ids
// follow them).
type streamPlan struct {
	traced    map[string]bool
	join      []bool
	totalFunc uint32
}

// planSegments groups the pieces into segments: a call of a traced
// function joins the pieces from the caller's to the callee's.
func planSegments(fns []fnInfo, badCall bool, pieces int) (streamPlan, error) {
	// The traced functions (with sites, and their callers) by name, the
	// kernels probed, and the segments.
	byName := map[string]int{}
	for i, fi := range fns {
		byName[fi.name] = i
	}
	traced := map[string]bool{}
	funcSites := false
	for _, fi := range fns {
		if !fi.entry && fi.sites > 0 {
			traced[fi.name] = true
			funcSites = true
		}
	}
	if funcSites && badCall {
		return streamPlan{}, notStreamed("a call through a register or a prototype")
	}
	for changed := true; changed; {
		changed = false
		for _, fi := range fns {
			if fi.entry || traced[fi.name] {
				continue
			}
			for _, c := range fi.calls {
				if j, ok := byName[c]; ok && traced[fns[j].name] {
					traced[fi.name], changed = true, true
					break
				}
			}
		}
	}
	// Pieces joined to the next one: a call of a traced function joins
	// the pieces from the caller's to the callee's.
	join := make([]bool, pieces)
	probedKernels, laterKernels := 0, false
	for _, fi := range fns {
		laterKernels = laterKernels || fi.later
		probed := fi.sites > 0
		for _, c := range fi.calls {
			j, ok := byName[c]
			if !ok || !traced[c] {
				continue
			}
			if fi.entry {
				probed = true
			}
			a, b := min(fi.piece, fns[j].piece), max(fi.piece, fns[j].piece)
			for p := a; p < b; p++ {
				join[p] = true
			}
		}
		if fi.entry && probed {
			probedKernels++
		}
	}
	if probedKernels == 0 && !laterKernels {
		return streamPlan{}, notStreamed("no sites") // streamWrite checks again with the later kernels
	}
	// Ids: every function's sites first, then every kernel's.
	var totalFunc uint32
	for _, fi := range fns {
		if !fi.entry {
			totalFunc += uint32(fi.sites)
		}
	}
	return streamPlan{traced: traced, join: join, totalFunc: totalFunc}, nil
}

// streamWrite is Stream's second pass: it parses, instruments and prints
// one segment at a time into w and returns the result with the manifest.
func streamWrite(w io.Writer, name string, m *module, facts *ptx.File, tf *token.File, src []byte, cuts []int, fns []fnInfo, pl streamPlan, check *ptx.Checker) (*Result, error) {
	m.shared = map[codeKey][2]code{}
	m.opcodes = map[string]*ptx.Opcode{}
	m.fast, m.tpls, m.laid = true, map[tplKey]*siteTpl{}, map[codeKey][2]code{}
	m.fx = map[*ptx.Opcode]ptx.Facts{}
	sum := sha256.New()
	hw := io.MultiWriter(w, sum)
	var buf bytes.Buffer
	dp := ptx.NewDeclPrinter(&buf, facts)
	dp.FrozenUnchanged() // generated code is read-only once inserted (intern)
	st := &streamState{m: m, facts: facts, seed: seed{kernID: 2 * pl.totalFunc, kernReg: pl.totalFunc},
		stage: m.opts.Staging != "global", dp: dp, buf: &buf, insts: map[string]*ptx.Instruction{}}
	later := make([]bool, len(cuts))
	entries := 0
	for _, fi := range fns {
		if fi.later {
			later[fi.piece] = true
		}
		if fi.entry {
			entries++
		}
	}
	st.kernels = make([]manifest.Kernel, 0, entries) // one per kernel with a body (a hint)
	lo, first := 0, 0
	fi := 0
	for pi, hi := range cuts {
		if pl.join[pi] {
			continue
		}
		seg := &ptx.File{Name: name, Src: src, Tok: tf, CRLF: facts.CRLF}
		for l := lo; first <= pi; first++ {
			h := cuts[first]
			f, err := ptx.ParseRangeShared(tf, src, l, h, 0, m.parsed)
			if err != nil {
				return nil, notStreamed("parse: %v", err)
			}
			if later[first] {
				if err := checkLater(check, f.Decls); err != nil {
					return nil, err
				}
			}
			seg.Decls = append(seg.Decls, f.Decls...)
			l = h
		}
		// The segment's functions advance the ids: the functions' by
		// their sites the first pass counted, the kernels' by those the
		// segment counts (the same, and the only count for later ones).
		next := st.seed
		firstPass, anyLater := 0, false
		for ; fi < len(fns) && fns[fi].piece <= pi; fi++ {
			switch {
			case fns[fi].later:
				anyLater = true
			case fns[fi].entry:
				firstPass += fns[fi].sites
			default:
				next.funcID += 2 * uint32(fns[fi].sites)
				next.funcReg += uint32(fns[fi].sites)
			}
		}
		kernSites, err := st.segment(seg, pl.traced)
		if err != nil {
			return nil, notStreamed("%v", err)
		}
		if !anyLater && kernSites != firstPass {
			return nil, fmt.Errorf("%s: internal error: %d kernel sites in a segment, %d in the first pass", name, kernSites, firstPass)
		}
		next.kernID += 2 * uint32(kernSites)
		next.kernReg += uint32(kernSites)
		st.seed = next
		if buf.Len() >= streamChunk {
			if _, err := hw.Write(buf.Bytes()); err != nil {
				return nil, err
			}
			buf.Reset()
		}
		lo = hi
	}
	if err := dp.Close(); err != nil {
		return nil, err
	}
	if _, err := hw.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	if err := check.Err(); err != nil {
		return nil, notStreamed("check: %v", err)
	}
	if len(st.unchanged) == len(st.kernels) {
		return nil, notStreamed("no sites")
	}
	man := st.manifest(sum)
	if err := man.Validate(); err != nil {
		return nil, fmt.Errorf("%s: internal error: invalid manifest: %w", name, err)
	}
	return &Result{Manifest: man, Warnings: unchangedWarnings(st.unchanged, "no sites")}, nil
}

// streamChunk is how much output streamWrite gathers (whole segments)
// before handing it to the writer and the hash: a write per segment
// would cost a system call per function.
const streamChunk = 256 << 10

// streamState is the second pass's state across segments.
type streamState struct {
	m         *module // module-level facts and options
	facts     *ptx.File
	seed      seed
	stage     bool // declare the staging array before the first function
	staged    bool // declared
	dp        *ptx.DeclPrinter
	buf       *bytes.Buffer               // the segment's output
	insts     map[string]*ptx.Instruction // the segment's interned instructions (module.insts), emptied for each
	kernels   []manifest.Kernel
	unchanged []named
}

// checkLater checks the declarations of a piece the first pass left to
// the second (plainKernel), and refuses it unless it is what plainKernel
// promised: comments and one kernel with a body that calls nothing.
func checkLater(check *ptx.Checker, decls []ptx.Decl) error {
	kernels := 0
	for _, d := range decls {
		check.Decl(d)
		switch d := d.(type) {
		case *ptx.Comment:
		case *ptx.Function:
			if d.Kind != ptx.Entry || d.Body == nil {
				return notStreamed("internal error: a piece taken for one kernel holds %s", d.Name)
			}
			for _, in := range flatten(d.Body, nil) {
				if isCall(in) {
					return notStreamed("internal error: kernel %s, taken for calling nothing, calls", d.Name)
				}
			}
			kernels++
		default:
			return notStreamed("internal error: a piece taken for one kernel holds a %T", d)
		}
	}
	if kernels != 1 {
		return notStreamed("internal error: a piece taken for one kernel holds %d", kernels)
	}
	return nil
}

// segment instruments, prints and maps one segment; it returns the
// number of its kernels' sites.
func (st *streamState) segment(seg *ptx.File, traced map[string]bool) (int, error) {
	g := st.m
	m := &module{fset: g.fset, f: seg, facts: st.facts, opts: g.opts, sm: g.sm, target: g.target,
		ptxMajor: g.ptxMajor, ptxMinor: g.ptxMinor, addr64: g.addr64, fence: g.fence, files: g.files,
		spaces: g.spaces, firstPos: g.firstPos,
		// The prologues and exit blocks are read-only once inserted and
		// shared by the whole module, as when instrumented whole; the
		// interned instructions (which hold every site's id) are the
		// segment's own, so that they go with it.
		shared: g.shared, insts: st.insts, opcodes: g.opcodes,
		fast: g.fast, tpls: g.tpls, laid: g.laid, fillHook: g.fillHook, fx: g.fx}
	if len(m.insts) > 1<<12 {
		m.insts = map[string]*ptx.Instruction{} // a large segment's table goes with it
	}
	clear(m.insts) // the previous segment's (printed)
	st.insts = m.insts
	s := st.seed
	m.seed = &s
	if err := m.collect(); err != nil && !isNoSites(err) {
		return 0, err
	}
	if len(m.warnings) > 0 {
		return 0, fmt.Errorf("warnings %q", m.warnings)
	}
	kernSites := 0
	for _, k := range m.kernels {
		kernSites += len(k.sites)
	}
	m.tracedNames = traced
	if _, err := m.transform(); err != nil {
		return 0, err
	}
	// The printer tells the output line of each probed instruction.
	owner := map[*ptx.Instruction]*kernel{}
	for _, ks := range [][]*kernel{m.funcs, m.kernels} {
		for _, k := range ks {
			k.outLine = map[*ptx.Instruction]int{}
			for _, s := range k.sites {
				owner[s.in] = k
			}
			for _, u := range k.regions {
				owner[u.beginAt], owner[u.endAt] = k, k
			}
		}
	}
	st.dp.OnInstruction(func(in *ptx.Instruction, line int) {
		if k := owner[in]; k != nil {
			k.outLine[in] = line
		}
	})
	for _, d := range seg.Decls {
		if _, ok := d.(*ptx.Function); ok && st.stage && !st.staged {
			st.dp.Print(stageDecl())
			st.staged = true
		}
		st.dp.Print(d)
	}
	if err := st.dp.Flush(); err != nil {
		return 0, err
	}
	return kernSites, st.mapSegment(m, owner)
}

// mapSegment checks that the printer told the output line of every probed
// instruction of the segment and makes its manifest entries.
func (st *streamState) mapSegment(m *module, owner map[*ptx.Instruction]*kernel) error {
	for in, k := range owner {
		if _, ok := k.outLine[in]; !ok {
			return fmt.Errorf("internal error: a probed instruction of %s was not printed", k.fn.Name)
		}
	}
	for _, fn := range m.entries {
		st.kernels = append(st.kernels, m.manifestEntry(fn))
		if m.probed(fn) == nil {
			st.unchanged = append(st.unchanged, named{fn.Name, m.pos(fn.NamePos)})
		}
	}
	return nil
}

// manifest is the manifest of the whole output, whose hash is sum.
func (st *streamState) manifest(sum hash.Hash) *manifest.Manifest {
	return st.m.manifestOf(sum.Sum(nil), st.kernels)
}
