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
// manifest and one segment's tree and output.
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
	fns, badCall, err := streamScan(fset, m, facts, tf, src, cuts)
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
	return streamWrite(w, name, m, facts, tf, src, cuts, fns, pl)
}

// streamScan is Stream's first pass: it parses and checks one piece at a
// time, keeps the module-level declarations in facts and returns each
// function's sites and calls, and whether a call goes through a register
// or a prototype.
func streamScan(fset *token.FileSet, m *module, facts *ptx.File, tf *token.File, src []byte, cuts []int) ([]fnInfo, bool, error) {
	check := ptx.NewChecker(fset, facts)
	var fns []fnInfo
	headerDone, badCall := false, false
	lo := 0
	for pi, hi := range cuts {
		f, err := ptx.ParseRange(tf, src, lo, hi, 0)
		if err != nil {
			return nil, false, notStreamed("parse: %v", err)
		}
		facts.CRLF = f.CRLF
		for _, d := range f.Decls {
			check.Decl(d)
			switch d := d.(type) {
			case *ptx.Directive:
				switch d.Name {
				case ".version", ".target", ".address_size", ".file":
					if headerDone {
						return nil, false, notStreamed("%s after the first function", d.Name)
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
						return nil, false, notStreamed("%v", err)
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
		return nil, false, notStreamed("check: %v", err)
	}
	if !headerDone {
		return nil, false, notStreamed("no functions")
	}

	if err := check.Err(); err != nil {
		return nil, false, notStreamed("check: %v", err)
	}
	if !headerDone {
		return nil, false, notStreamed("no functions")
	}
	return fns, badCall, nil
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
	probedKernels := 0
	for _, fi := range fns {
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
	if probedKernels == 0 {
		return streamPlan{}, notStreamed("no sites")
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
func streamWrite(w io.Writer, name string, m *module, facts *ptx.File, tf *token.File, src []byte, cuts []int, fns []fnInfo, pl streamPlan) (*Result, error) {
	m.shared = map[codeKey][2]code{}
	m.opcodes = map[string]*ptx.Opcode{}
	sum := sha256.New()
	hw := io.MultiWriter(w, sum)
	var buf bytes.Buffer
	dp := ptx.NewDeclPrinter(&buf, facts)
	st := &streamState{m: m, facts: facts, seed: seed{kernID: 2 * pl.totalFunc, kernReg: pl.totalFunc},
		stage: m.opts.Staging != "global", dp: dp, buf: &buf}
	lo, first := 0, 0
	fi := 0
	for pi, hi := range cuts {
		if pl.join[pi] {
			continue
		}
		seg := &ptx.File{Name: name, Src: src, Tok: tf, CRLF: facts.CRLF}
		for l := lo; first <= pi; first++ {
			h := cuts[first]
			f, err := ptx.ParseRange(tf, src, l, h, 0)
			if err != nil {
				return nil, notStreamed("parse: %v", err)
			}
			seg.Decls = append(seg.Decls, f.Decls...)
			l = h
		}
		// The segment's functions advance the ids.
		next := st.seed
		for ; fi < len(fns) && fns[fi].piece <= pi; fi++ {
			if fns[fi].entry {
				next.kernID += 2 * uint32(fns[fi].sites)
				next.kernReg += uint32(fns[fi].sites)
			} else {
				next.funcID += 2 * uint32(fns[fi].sites)
				next.funcReg += uint32(fns[fi].sites)
			}
		}
		if err := st.segment(seg, pl.traced); err != nil {
			return nil, notStreamed("%v", err)
		}
		st.seed = next
		if _, err := hw.Write(buf.Bytes()); err != nil {
			return nil, err
		}
		buf.Reset()
		lo = hi
	}
	if err := dp.Close(); err != nil {
		return nil, err
	}
	if _, err := hw.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	man := st.manifest(sum)
	if err := man.Validate(); err != nil {
		return nil, fmt.Errorf("%s: internal error: invalid manifest: %w", name, err)
	}
	return &Result{Manifest: man, Warnings: unchangedWarnings(st.unchanged, "no sites")}, nil
}

// streamState is the second pass's state across segments.
type streamState struct {
	m         *module // module-level facts and options
	facts     *ptx.File
	seed      seed
	stage     bool // declare the staging array before the first function
	staged    bool // declared
	dp        *ptx.DeclPrinter
	buf       *bytes.Buffer // the segment's output
	kernels   []manifest.Kernel
	unchanged []named
}

// segment instruments, prints and maps one segment.
func (st *streamState) segment(seg *ptx.File, traced map[string]bool) error {
	g := st.m
	m := &module{fset: g.fset, f: seg, facts: st.facts, opts: g.opts, sm: g.sm, target: g.target,
		ptxMajor: g.ptxMajor, ptxMinor: g.ptxMinor, addr64: g.addr64, fence: g.fence, files: g.files,
		spaces: g.spaces, firstPos: g.firstPos,
		// The prologues and exit blocks are read-only once inserted and
		// shared by the whole module, as when instrumented whole; the
		// interned instructions (which hold every site's id) are the
		// segment's own, so that they go with it.
		shared: g.shared, insts: map[string]*ptx.Instruction{}, opcodes: g.opcodes}
	s := st.seed
	m.seed = &s
	if err := m.collect(); err != nil && !isNoSites(err) {
		return err
	}
	if len(m.warnings) > 0 {
		return fmt.Errorf("warnings %q", m.warnings)
	}
	m.tracedNames = traced
	if _, err := m.transform(); err != nil {
		return err
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
		return err
	}
	return st.mapSegment(m, owner)
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
