package instrument

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/token"
	"hash"
	"io"
	"sync"

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
// counted from the start of the output. Both passes run on workers, a
// batch of pieces or segments each, and join their results strictly in
// order (streampar.go): the output does not depend on the number of
// workers. Memory is the input, the manifest and a few batches' trees
// and output (written in chunks of streamChunk bytes).
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
	// Workers is how many goroutines instrument segments at once
	// (streampar.go); 0: GOMAXPROCS. The output is the same whatever
	// the number.
	Workers int
	// Manifest, when set, receives the manifest as the kernels are
	// printed, byte for byte as WriteManifest writes Result.Manifest
	// (which is then nil; Result.Summary describes it), so that the
	// probes of a large module are never held whole. On an error it may
	// hold part of a manifest, which the caller must discard.
	Manifest ManifestSink
	// batch (tests): the input bytes of a batch of segments; 0:
	// batchBytes.
	batch int
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
	// countLater: a kernel after the first function that the first pass
	// parsed but whose sites it left to the second pass (they only
	// advance the kernel ids, which the second pass counts as it goes);
	// sites is 0.
	countLater bool
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
	// Two scans of the whole text, one beside the other.
	var cuts []int
	split := make(chan struct{})
	go func() {
		defer close(split)
		cuts = ptx.Split(src)
	}()
	tf := ptx.NewFile(fset, name, src)
	<-split
	facts := &ptx.File{Name: name, Src: src, Tok: tf}
	m, err := newModule(fset, facts, opts)
	if err != nil {
		return nil, notStreamed("%v", err)
	}
	m.parsed = map[string]*ptx.Opcode{}
	fns, badCall, check, err := streamScan(fset, m, facts, tf, src, cuts, so)
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
	if h := so.fillHook; h != nil {
		var mu sync.Mutex // the workers lay sites out at once
		m.fillHook = func(ids []int64) {
			mu.Lock()
			defer mu.Unlock()
			h(ids)
		}
	}
	return streamWrite(w, name, m, facts, tf, src, cuts, fns, pl, check, so)
}

// streamScan is Stream's first pass: it parses and checks one piece at a
// time, keeps the module-level declarations in facts and returns each
// function's sites and calls, whether a call goes through a register or
// a prototype, and the Checker, which the second pass gives the pieces
// the first one leaves to it (fnInfo.later). The pieces up to the first
// function with a body are scanned here; those after it, by workers
// (scanRest).
func streamScan(fset *token.FileSet, m *module, facts *ptx.File, tf *token.File, src []byte, cuts []int, so StreamOptions) ([]fnInfo, bool, *ptx.Checker, error) {
	check := ptx.NewChecker(fset, facts)
	var fns []fnInfo
	headerDone, badCall := false, false
	lo, pi := 0, 0
	for ; pi < len(cuts) && !headerDone; pi++ {
		hi := cuts[pi]
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
				fi, bad := scanFunc(m, d, pi, true) // so that a module without sites is refused before any output
				badCall = badCall || bad
				fns = append(fns, fi)
			}
		}
		lo = hi
	}
	if pi < len(cuts) {
		rest, bad, err := scanRest(m, facts, check, tf, src, cuts, pi, so)
		if err != nil {
			return nil, false, nil, err
		}
		fns, badCall = append(fns, rest...), badCall || bad
	}
	if err := check.Err(); err != nil {
		return nil, false, nil, notStreamed("check: %v", err)
	}
	if !headerDone {
		return nil, false, nil, notStreamed("no functions")
	}
	return fns, badCall, check, nil
}

// scanFunc notes function d's sites (counted with module m's options;
// a kernel's only when kernels is set, else countLater) and direct
// callees; bad: it calls through a register or a prototype.
func scanFunc(m *module, d *ptx.Function, piece int, kernels bool) (fi fnInfo, bad bool) {
	fi = fnInfo{name: d.Name, entry: d.Kind == ptx.Entry, piece: piece}
	fi.countLater = fi.entry && !kernels
	if fi.entry && kernels || !fi.entry && !m.opts.NoLoads {
		k := &kernel{m: m, fn: d, regs: ptx.FunctionRegs(d), isFunc: !fi.entry}
		k.collect()
		fi.sites = len(k.sites)
	}
	for _, in := range flatten(d.Body, nil) {
		if !isCall(in) {
			continue
		}
		callee, direct := callTarget(in)
		if !direct {
			bad = true
			continue
		}
		fi.calls = append(fi.calls, callee)
	}
	return fi, bad
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
	// The bytes the scan stops at; it runs over the rest.
	stop := [256]bool{'/': true, '"': true, ';': true, '{': true, '}': true}
	depth := 0
	for i += 6; i < len(piece); i++ {
		for i < len(piece) && !stop[piece[i]] {
			i++
		}
		if i == len(piece) {
			break
		}
		switch c := piece[i]; {
		case c == '/' && i+1 < len(piece) && (piece[i+1] == '/' || piece[i+1] == '*'):
			j := skipBlank(piece, i)
			if j == i {
				return false // a comment that does not end
			}
			i = j - 1 // the comment and the blanks after it
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
			if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(b)
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
		laterKernels = laterKernels || fi.later || fi.countLater
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

// streamChunk is how much output streamWrite gathers (whole segments)
// before handing it to the writer and the hash: a write per segment
// would cost a system call per function.
const streamChunk = 256 << 10

// streamState is the second pass's state across segments, kept by the
// goroutine that prints them in order (streampar.go).
type streamState struct {
	m         *module // module-level facts and options
	facts     *ptx.File
	stage     bool // declare the staging array before the first function
	staged    bool // declared
	dp        *ptx.DeclPrinter
	kernels   []manifest.Kernel // not yet handed to ms
	nkernels  int               // every kernel's entry made
	unchanged []named
	ms        *manifestStream // nil: the manifest is collected
}

// laterShape refuses the declarations of a piece the first pass left to
// the second (plainKernel) unless they are what plainKernel promised:
// comments and one kernel with a body that calls nothing. (The Checker
// sees them in order when the segment is printed.)
func laterShape(decls []ptx.Decl) error {
	kernels := 0
	for _, d := range decls {
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
		st.nkernels++
		if m.probed(fn) == nil {
			st.unchanged = append(st.unchanged, named{fn.Name, m.pos(fn.NamePos)})
		}
	}
	return nil
}

// manifest is the manifest of the whole output, whose hash is sum.
func (st *streamState) manifest(sum hash.Hash) *manifest.Manifest {
	inSum := sha256.Sum256(st.m.f.Src)
	return st.m.manifestOf(sum.Sum(nil), inSum[:], st.kernels)
}
