package instrument

import (
	"crypto/sha256"
	"fmt"
	"go/token"
	"io"
	"maps"
	"runtime"
	"sync"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// Stream's second pass in parallel. The segments are cut into batches of
// consecutive segments (about batchBytes of input each); workers parse,
// collect and transform one batch at a time, and the calling goroutine
// prints the batches strictly in order into the output, its hash and the
// manifest, while the workers go on with the next ones. At most window
// batches (twice the workers) are in flight, so that memory stays that
// of a few batches' trees.
//
// Everything that numbers the output is fixed as when done one segment
// after another: the functions' ids come from the first pass's counts
// (streamSeg.funcID); the kernels' ids from the kernel sites of the
// batches before, which each batch counts (collect) before it numbers
// its own (transform) and passes on to the next (segBatch.seeded); the
// output lines are counted by the one printer. The caches that generated
// code comes from (templates, shared prologues, decoded opcodes, facts)
// are each worker's own: a cache gives the same code whichever worker
// fills it, so the output does not depend on which worker took a batch,
// nor on how many there are (TestStreamWorkers).

// streamSeg is one segment of the second pass: the pieces p0 to p1.
type streamSeg struct {
	p0, p1 int
	// funcID and funcReg are where its functions' ids and regions
	// start (the first pass counted every function's sites).
	funcID, funcReg uint32
	firstPass       int  // its kernels' sites counted by the first pass
	anyLater        bool // it holds a kernel whose sites the first pass left (later, countLater)
}

// segBatch is consecutive segments that one worker instruments.
type segBatch struct {
	segs []streamSeg
	prev *segBatch // the batch before, whose kernel ids come first; nil for the first

	// What the worker leaves for the printer, per segment.
	mods   []*module
	owners []map[*ptx.Instruction]*kernel
	later  [][]ptx.Decl // its later pieces' kernels' names, for the module's Checker
	err    error

	// next is where the kernel ids after the batch start, set before
	// seeded is closed.
	next   seed
	seeded chan struct{}

	arena *ptx.Arena // its trees' memory, used again once printed
}

// workerCache holds the caches of one worker's modules (module fields of
// the same names).
type workerCache struct {
	parsed, opcodes map[string]*ptx.Opcode
	insts           map[string]*ptx.Instruction // the batch's, emptied for each
	tpls            map[tplKey]*siteTpl
	laid, shared    map[codeKey][2]code
	fx              map[*ptx.Opcode]ptx.Facts
	// check checks the later pieces' kernels (all but their names);
	// made for the first.
	check *ptx.Checker
	arena *ptx.Arena // the batch's (segBatch.arena)
}

// batchBytes is the input a batch holds at least (unless the module ends).
const batchBytes = 16 << 10

// streamSegs lists the segments of the second pass in order.
func streamSegs(cuts []int, fns []fnInfo, pl streamPlan) []streamSeg {
	var segs []streamSeg
	var funcID, funcReg uint32
	first, fi := 0, 0
	for pi := range cuts {
		if pl.join[pi] {
			continue
		}
		s := streamSeg{p0: first, p1: pi, funcID: funcID, funcReg: funcReg}
		for ; fi < len(fns) && fns[fi].piece <= pi; fi++ {
			switch {
			case fns[fi].later || fns[fi].countLater:
				s.anyLater = true
			case fns[fi].entry:
				s.firstPass += fns[fi].sites
			default:
				funcID += 2 * uint32(fns[fi].sites)
				funcReg += uint32(fns[fi].sites)
			}
		}
		segs = append(segs, s)
		first = pi + 1
	}
	return segs
}

// batchSegs groups segments into batches of at least size bytes of input.
func batchSegs(segs []streamSeg, cuts []int, size int) []*segBatch {
	var bs []*segBatch
	var prev *segBatch
	for i := 0; i < len(segs); {
		lo := pieceStart(cuts, segs[i].p0)
		j := i + 1
		for j < len(segs) && cuts[segs[j-1].p1]-lo < size {
			j++
		}
		b := &segBatch{segs: segs[i:j:j], prev: prev, seeded: make(chan struct{})}
		bs = append(bs, b)
		prev = b
		i = j
	}
	return bs
}

func pieceStart(cuts []int, p int) int {
	if p == 0 {
		return 0
	}
	return cuts[p-1]
}

// streamPass is what the workers of the second pass share (read-only).
type streamPass struct {
	name      string
	g         *module // the module-level facts and options
	facts     *ptx.File
	tf        *token.File
	src       []byte
	cuts      []int
	later     []bool // pieces the first pass left
	traced    map[string]bool
	kernStart seed            // the first kernel id and region (after the functions')
	arenas    chan *ptx.Arena // printed batches' arenas, for the next ones
}

// run instruments batch b with the worker's caches wc; it closes b.seeded
// (after b.next is set, or on failure). quit stops it early.
func (sp *streamPass) run(b *segBatch, wc *workerCache, quit <-chan struct{}) {
	seeded := false
	defer func() {
		if !seeded {
			close(b.seeded)
		}
	}()
	if len(wc.insts) > 1<<12 {
		wc.insts = map[string]*ptx.Instruction{} // a large batch's table goes with it
	}
	clear(wc.insts) // the previous batch's (transformed)
	select {
	case b.arena = <-sp.arenas:
		b.arena.Reset()
	default:
		b.arena = new(ptx.Arena)
	}
	wc.arena = b.arena
	n := len(b.segs)
	b.mods, b.owners, b.later = make([]*module, n), make([]map[*ptx.Instruction]*kernel, n), make([][]ptx.Decl, n)
	kernSites := make([]int, n)
	for i, s := range b.segs {
		m, later, ks, err := sp.collect(s, wc)
		if err != nil {
			b.err = err
			return
		}
		b.mods[i], b.later[i], kernSites[i] = m, later, ks
	}
	// The kernel ids start after the batch before's.
	next := sp.kernStart
	if b.prev != nil {
		select {
		case <-b.prev.seeded:
		case <-quit:
			b.err = errStopped
			return
		}
		next = b.prev.next
	}
	seeds := make([]seed, n)
	for i, s := range b.segs {
		seeds[i] = seed{funcID: s.funcID, funcReg: s.funcReg, kernID: next.kernID, kernReg: next.kernReg}
		next.kernID += 2 * uint32(kernSites[i])
		next.kernReg += uint32(kernSites[i])
	}
	b.next = next
	seeded = true
	close(b.seeded)
	for i, m := range b.mods {
		m.seed = &seeds[i]
		owner, err := sp.transform(m)
		if err != nil {
			b.err = err
			return
		}
		b.owners[i] = owner
	}
}

// errStopped is a worker's error when the printer stopped first.
var errStopped = fmt.Errorf("%w: stopped", ErrNotStreamed)

// collect parses segment s and finds its sites; it returns its module,
// the declarations of its later pieces and the number of its kernels'
// sites.
func (sp *streamPass) collect(s streamSeg, wc *workerCache) (*module, []ptx.Decl, int, error) {
	g := sp.g
	seg := &ptx.File{Name: sp.name, Src: sp.src, Tok: sp.tf, CRLF: sp.facts.CRLF}
	var later []ptx.Decl
	for p := s.p0; p <= s.p1; p++ {
		f, err := ptx.ParseRangeIn(wc.arena, sp.tf, sp.src, pieceStart(sp.cuts, p), sp.cuts[p], 0, wc.parsed)
		if err != nil {
			return nil, nil, 0, notStreamed("parse: %v", err)
		}
		if sp.later[p] {
			if err := laterShape(f.Decls); err != nil {
				return nil, nil, 0, err
			}
			// The Checker checks the kernel itself here, before
			// it changes; the module's Checker its name, in order.
			if wc.check == nil {
				wc.check = ptx.NewChecker(g.fset, sp.facts)
				for _, d := range []string{".version", ".target"} {
					if dir := sp.facts.Directive(d); dir != nil {
						wc.check.Decl(dir)
					}
				}
			}
			for _, d := range f.Decls {
				wc.check.Decl(d)
				if fn, ok := d.(*ptx.Function); ok {
					later = append(later, &ptx.Function{Kind: fn.Kind, Name: fn.Name, NamePos: fn.NamePos, Body: &ptx.Block{}})
				}
			}
			if err := wc.check.Err(); err != nil {
				return nil, nil, 0, notStreamed("check: %v", err)
			}
		}
		seg.Decls = append(seg.Decls, f.Decls...)
	}
	m := &module{fset: g.fset, f: seg, facts: sp.facts, opts: g.opts, sm: g.sm, target: g.target,
		ptxMajor: g.ptxMajor, ptxMinor: g.ptxMinor, addr64: g.addr64, fence: g.fence, files: g.files,
		spaces: g.spaces, firstPos: g.firstPos,
		// The prologues and exit blocks are read-only once inserted and
		// shared by the worker's segments, as by a whole module's
		// functions; the interned instructions (which hold every site's
		// id) are the batch's own.
		shared: wc.shared, insts: wc.insts, opcodes: wc.opcodes,
		fast: true, tpls: wc.tpls, laid: wc.laid, fillHook: g.fillHook, fx: wc.fx}
	if err := m.collect(); err != nil && !isNoSites(err) {
		return nil, nil, 0, notStreamed("%v", err)
	}
	if len(m.warnings) > 0 {
		return nil, nil, 0, notStreamed("warnings %q", m.warnings)
	}
	kernSites := 0
	for _, k := range m.kernels {
		kernSites += len(k.sites)
	}
	if !s.anyLater && kernSites != s.firstPass {
		return nil, nil, 0, fmt.Errorf("%s: internal error: %d kernel sites in a segment, %d in the first pass", sp.name, kernSites, s.firstPass)
	}
	return m, later, kernSites, nil
}

// transform instruments m (its seed set) and returns the kernel of each
// probed instruction, whose output lines the printer will tell.
func (sp *streamPass) transform(m *module) (map[*ptx.Instruction]*kernel, error) {
	m.tracedNames = sp.traced
	if _, err := m.transform(); err != nil {
		return nil, notStreamed("%v", err)
	}
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
			for _, pw := range k.pipeWaits { // as kernel.mapLines
				owner[pw.in] = k
				if pw.wait != nil {
					owner[pw.wait] = k
				}
			}
		}
	}
	return owner, nil
}

// streamWrite is Stream's second pass: workers instrument the segments
// batch by batch, and it prints them in order into w and returns the
// result with the manifest.
func streamWrite(w io.Writer, name string, g *module, facts *ptx.File, tf *token.File, src []byte, cuts []int, fns []fnInfo, pl streamPlan, check *ptx.Checker, so StreamOptions) (*Result, error) {
	sp := &streamPass{name: name, g: g, facts: facts, tf: tf, src: src, cuts: cuts,
		later: make([]bool, len(cuts)), traced: pl.traced,
		kernStart: seed{kernID: 2 * pl.totalFunc, kernReg: pl.totalFunc},
		arenas:    make(chan *ptx.Arena, 3*max(so.Workers, runtime.GOMAXPROCS(0)))} // the batches in flight at most
	entries := 0
	for _, fi := range fns {
		if fi.later {
			sp.later[fi.piece] = true
		}
		if fi.entry {
			entries++
		}
	}
	size := so.batch
	if size <= 0 {
		size = batchBytes
	}
	batches := batchSegs(streamSegs(cuts, fns, pl), cuts, size)
	sum := sha256.New()
	cw := newChunkWriter(io.MultiWriter(w, sum))
	defer cw.close()
	dp := ptx.NewDeclPrinter(cw, facts)
	dp.FrozenUnchanged() // generated code is read-only once inserted (intern)
	st := &streamState{m: g, facts: facts, stage: g.opts.Staging != "global", dp: dp}
	var inSum chan []byte
	if so.Manifest != nil {
		// The input's hash beside the second pass, and the head now.
		inSum = make(chan []byte, 1)
		go func() {
			h := sha256.Sum256(src)
			inSum <- h[:]
		}()
		var err error
		if st.ms, err = newManifestStream(so.Manifest, g.manifestOf(make([]byte, 8), make([]byte, sha256.Size), nil)); err != nil {
			return nil, err
		}
		defer st.ms.stop()
	} else {
		st.kernels = make([]manifest.Kernel, 0, entries) // one per kernel with a body (a hint)
	}
	worker := func(int) func(*segBatch, <-chan struct{}) {
		wc := &workerCache{parsed: maps.Clone(g.parsed), opcodes: map[string]*ptx.Opcode{},
			insts: map[string]*ptx.Instruction{}, tpls: map[tplKey]*siteTpl{},
			laid: map[codeKey][2]code{}, shared: map[codeKey][2]code{}, fx: map[*ptx.Opcode]ptx.Facts{}}
		return func(b *segBatch, quit <-chan struct{}) { sp.run(b, wc, quit) }
	}
	err := inOrder(batches, so.Workers, worker, func(b *segBatch) error {
		if b.err != nil {
			return b.err
		}
		for i, m := range b.mods {
			for _, d := range b.later[i] {
				check.Decl(d)
			}
			if err := st.print(m, b.owners[i]); err != nil {
				return err
			}
		}
		b.mods, b.owners, b.later = nil, nil, nil // printed: the trees go
		if st.ms != nil {
			st.ms.add(st.kernels)
			st.kernels = nil
		}
		select {
		case sp.arenas <- b.arena: // and their memory serves a later batch
		default:
		}
		b.arena = nil
		if len(cw.cur) >= streamChunk {
			return cw.handOff()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := dp.Close(); err != nil {
		return nil, err
	}
	if err := cw.close(); err != nil {
		return nil, err
	}
	if err := check.Err(); err != nil {
		return nil, notStreamed("check: %v", err)
	}
	if len(st.unchanged) == st.nkernels {
		return nil, notStreamed("no sites")
	}
	warnings := unchangedWarnings(st.unchanged, "no sites")
	if st.ms != nil {
		s, err := st.ms.finish(sum.Sum(nil), <-inSum)
		if err != nil {
			return nil, err
		}
		return &Result{Summary: s, Warnings: warnings}, nil
	}
	man := st.manifest(sum)
	if err := man.Validate(); err != nil {
		return nil, fmt.Errorf("%s: internal error: invalid manifest: %w", name, err)
	}
	return &Result{Manifest: man, Warnings: warnings}, nil
}

// chunkWriter gathers the printer's output into chunks, which a
// goroutine of its own writes and hashes while the printer goes on: at
// most two chunks wait, and written chunks are used again.
type chunkWriter struct {
	cur    []byte
	out    chan []byte
	free   chan []byte
	done   chan struct{}
	err    error // the writer's first error, read after done or under mu
	mu     sync.Mutex
	closed bool
}

func newChunkWriter(w io.Writer) *chunkWriter {
	c := &chunkWriter{cur: make([]byte, 0, streamChunk+streamChunk/2), out: make(chan []byte, 1),
		free: make(chan []byte, 1), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for b := range c.out {
			c.mu.Lock()
			failed := c.err != nil
			c.mu.Unlock()
			if !failed {
				if _, err := w.Write(b); err != nil {
					c.mu.Lock()
					c.err = err
					c.mu.Unlock()
				}
			}
			select {
			case c.free <- b[:0]:
			default:
			}
		}
	}()
	return c
}

// Write adds b to the current chunk.
func (c *chunkWriter) Write(b []byte) (int, error) {
	c.cur = append(c.cur, b...)
	return len(b), nil
}

// handOff passes the current chunk to the writer and returns its error
// so far.
func (c *chunkWriter) handOff() error {
	c.out <- c.cur
	select {
	case c.cur = <-c.free:
	default:
		c.cur = make([]byte, 0, streamChunk+streamChunk/2)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// close writes the rest and waits for the writer; it returns its first
// error. Once closed, close does nothing more.
func (c *chunkWriter) close() error {
	if !c.closed {
		c.closed = true
		if len(c.cur) > 0 {
			c.out <- c.cur
			c.cur = nil
		}
		close(c.out)
		<-c.done
	}
	return c.err
}

// print prints an instrumented segment, after the staging declaration
// before the first function, and maps it.
func (st *streamState) print(m *module, owner map[*ptx.Instruction]*kernel) error {
	st.dp.OnInstruction(func(in *ptx.Instruction, line int) {
		if k := owner[in]; k != nil {
			k.outLine[in] = line
		}
	})
	for _, d := range m.f.Decls {
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

// scanBatch is consecutive pieces of the first pass that one worker
// scans, and what it found, for the printer-side merge in order.
type scanBatch struct {
	p0, p1  int
	fns     []fnInfo
	facts   []ptx.Decl // module-level declarations (directives, variables)
	checks  []ptx.Decl // for the module's Checker: all but comments, each function with a body as a stand-in (its name)
	badCall bool
	crlf    bool // of its last parsed piece
	parsed  bool // a piece was parsed
	err     error
}

// scanRest is the first pass over the pieces from p0 on, after the first
// function with a body (the header is read): workers scan batches of
// pieces, each function checked by a worker's Checker before it is
// collected (primed with the module's .version and .target), and the
// results join facts, the module's Checker (the other declarations, and
// the functions' names for duplicates) and the function list in order.
func scanRest(g *module, facts *ptx.File, check *ptx.Checker, tf *token.File, src []byte, cuts []int, p0 int, so StreamOptions) ([]fnInfo, bool, error) {
	size := so.batch
	if size <= 0 {
		size = batchBytes
	}
	var batches []*scanBatch
	for p := p0; p < len(cuts); {
		q := p
		for q+1 < len(cuts) && cuts[q]-pieceStart(cuts, p) < size {
			q++
		}
		batches = append(batches, &scanBatch{p0: p, p1: q})
		p = q + 1
	}
	var prime []ptx.Decl
	for _, name := range []string{".version", ".target"} {
		if d := facts.Directive(name); d != nil {
			prime = append(prime, d)
		}
	}
	var parsed []map[string]*ptx.Opcode // per worker
	worker := func(int) func(*scanBatch, <-chan struct{}) {
		mw := *g // its own facts cache
		mw.parsed, mw.fx = maps.Clone(g.parsed), map[*ptx.Opcode]ptx.Facts{}
		parsed = append(parsed, mw.parsed)
		c := ptx.NewChecker(g.fset, facts)
		for _, d := range prime {
			c.Decl(d)
		}
		a := new(ptx.Arena) // each piece's tree dies once scanned
		return func(b *scanBatch, _ <-chan struct{}) { scanBatchRun(&mw, c, a, b, tf, src, cuts) }
	}
	var fns []fnInfo
	badCall := false
	err := inOrder(batches, so.Workers, worker, func(b *scanBatch) error {
		if b.err != nil {
			return b.err
		}
		if b.parsed {
			facts.CRLF = b.crlf
		}
		facts.Decls = append(facts.Decls, b.facts...)
		for _, d := range b.checks {
			check.Decl(d)
		}
		fns = append(fns, b.fns...)
		badCall = badCall || b.badCall
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	for _, p := range parsed { // the opcodes the workers decoded, for the second pass
		for k, v := range p {
			if _, ok := g.parsed[k]; !ok {
				g.parsed[k] = v
			}
		}
	}
	return fns, badCall, nil
}

// scanBatchRun scans batch b with module m (a worker's copy) and Checker
// c (the worker's), parsing each piece into Arena a, which it Resets
// after the piece: what the batch keeps of a tree (module-level
// declarations) is detached from it first.
func scanBatchRun(m *module, c *ptx.Checker, a *ptx.Arena, b *scanBatch, tf *token.File, src []byte, cuts []int) {
	for pi := b.p0; pi <= b.p1; pi++ {
		lo, hi := pieceStart(cuts, pi), cuts[pi]
		if plainKernel(src[lo:hi]) {
			// Nothing the plan needs but the kernel's sites, which only
			// advance the kernel ids: the second pass counts them.
			b.fns = append(b.fns, fnInfo{entry: true, piece: pi, later: true})
			continue
		}
		f, err := ptx.ParseRangeIn(a, tf, src, lo, hi, 0, m.parsed)
		if err != nil {
			b.err = notStreamed("parse: %v", err)
			return
		}
		b.crlf, b.parsed = f.CRLF, true
		if !scanDecls(m, c, b, f.Decls, pi) {
			return
		}
		a.Reset()
	}
}

// scanDecls scans the declarations of piece pi into b; false: it failed
// (b.err). What b keeps of the tree is detached from its Arena.
func scanDecls(m *module, c *ptx.Checker, b *scanBatch, decls []ptx.Decl, pi int) bool {
	for _, d := range decls {
		switch d := d.(type) {
		case *ptx.Comment:
			continue
		case *ptx.Directive:
			switch d.Name {
			case ".version", ".target", ".address_size", ".file":
				b.err = notStreamed("%s after the first function", d.Name)
				return false
			}
		case *ptx.Function:
			if d.Body == nil {
				break // a prototype: kept for the Checker, like the rest
			}
			c.Decl(d)
			if err := c.Err(); err != nil {
				b.err = notStreamed("check: %v", err)
				return false
			}
			b.checks = append(b.checks, &ptx.Function{Kind: d.Kind, Name: d.Name, NamePos: d.NamePos, Body: &ptx.Block{}})
			fi, bad := scanFunc(m, d, pi, false)
			b.badCall = b.badCall || bad
			b.fns = append(b.fns, fi)
			continue
		}
		k, _ := ptx.Detach(d) // every declaration but a function with a body detaches
		b.checks = append(b.checks, k)
		switch k.(type) {
		case *ptx.Directive, *ptx.VarDecl:
			b.facts = append(b.facts, k)
		}
	}
	return true
}

// handOut sends the batch indices 0 … n-1 to jobs in order, each once a
// place in window is free (the join frees it), and closes jobs; it stops
// early when quit is closed.
func handOut(n int, window chan<- struct{}, jobs chan<- int, quit <-chan struct{}) {
	defer close(jobs)
	for b := range n {
		select {
		case window <- struct{}{}:
		case <-quit:
			return
		}
		select {
		case jobs <- b:
		case <-quit:
			return
		}
	}
}

// inOrder runs the batches on workers goroutines (GOMAXPROCS when
// workers < 1, at most one per batch), each calling the function newWorker
// made for it (with the worker's own caches; newWorker runs on the calling
// goroutine, before any batch), and calls join on each batch in order once
// it is done, on the calling goroutine. At most 2 × workers batches are in
// flight (handed out and not yet joined), so memory stays that of a few
// batches. The first error join returns stops the workers (quit is
// closed; work must return soon after) and is returned once every worker
// has returned.
func inOrder[B any](batches []B, workers int, newWorker func(w int) func(b B, quit <-chan struct{}), join func(B) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(batches)))
	quit := make(chan struct{})
	window := make(chan struct{}, 2*workers)
	jobs := make(chan int)
	done := make([]chan struct{}, len(batches))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	defer wg.Wait() // after close(quit): no worker outlives the call
	defer close(quit)
	wg.Add(1 + workers)
	go func() {
		defer wg.Done()
		handOut(len(batches), window, jobs, quit)
	}()
	for w := range workers {
		work := newWorker(w)
		go func() {
			defer wg.Done()
			for i := range jobs {
				work(batches[i], quit)
				close(done[i])
			}
		}()
	}
	for i, b := range batches {
		<-done[i]
		if err := join(b); err != nil {
			return err
		}
		<-window
	}
	return nil
}
