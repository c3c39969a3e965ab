package otlp

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Granularity is the deepest span level exported.
type Granularity int

// Granularities, from coarse to fine.
const (
	Launch Granularity = iota // run and launch spans only
	CTA                       // + one span per CTA
	Warp                      // + one span per warp under its CTA
	Region                    // + one span per region instance under its warp
)

// ParseGranularity parses "launch", "cta", "warp" or "region".
func ParseGranularity(s string) (Granularity, error) {
	switch strings.ToLower(s) {
	case "launch", "kernel":
		return Launch, nil
	case "cta":
		return CTA, nil
	case "warp":
		return Warp, nil
	case "region":
		return Region, nil
	}
	return 0, fmt.Errorf("otlp: granularity %q: want launch, cta, warp or region", s)
}

func (g Granularity) String() string {
	return [...]string{"launch", "cta", "warp", "region"}[min(max(int(g), 0), 3)]
}

// DefaultMaxSpans is the span cap when Options.MaxSpans is 0.
const DefaultMaxSpans = 10000

// Options tunes the exporter.
type Options struct {
	Granularity Granularity
	// MaxSpans caps the spans of one export (run and launch included); 0
	// means DefaultMaxSpans. Spans are granted level by level — CTAs, then
	// warps, then regions, each in trace order — and what does not fit is
	// counted in the parent's ptxtrace.spans.dropped attribute.
	MaxSpans int
	// BaseTime anchors timestamps when the run metadata has no
	// StartUnixNs (model runs): it is the wall-clock time of the origin
	// (kernel start). Zero means the Unix epoch; the CLI defaults to the
	// time of the export.
	BaseTime time.Time
	// RunSalt, when not empty, is mixed into the trace and span ids, so
	// that exporting the same trace again with another salt gives new ids
	// (a backend keeps both copies instead of merging them). The same salt
	// gives the same ids.
	RunSalt string
	// ServiceName is the resource's service.name; default "ptxtrace".
	ServiceName string
}

// Exporter sends a trace as OpenTelemetry spans through an SDK span
// exporter (OTLP gRPC, OTLP HTTP, stdout). It implements
// exporters.Exporter and exporters.WarpWriter. It keeps per-warp
// aggregates and at most MaxSpans region records; spans are created at End,
// when the time origin (the earliest region begin) is known, so every
// child lies inside its parent.
type Exporter struct {
	exp  sdktrace.SpanExporter
	opt  Options
	h    *trace.Header
	ctx  context.Context
	warp map[uint32]*warpAgg
	wseq []uint32 // warps in order of appearance
	regs []trace.Region
	drop int64 // regions not kept (over the cap)

	began, ended bool
}

type warpAgg struct {
	seg        uint32
	cta        [3]uint32
	inCTA, sm  uint32
	start, end uint64
	n, memN    int64
	cyc, memC  uint64
	dropped    int64
}

// New returns an exporter sending spans through exp. ctx bounds the
// export at End.
func New(ctx context.Context, exp sdktrace.SpanExporter, opt Options) *Exporter {
	if ctx == nil {
		ctx = context.Background()
	}
	if opt.MaxSpans <= 0 {
		opt.MaxSpans = DefaultMaxSpans
	}
	if opt.ServiceName == "" {
		opt.ServiceName = "ptxtrace"
	}
	return &Exporter{exp: exp, opt: opt, ctx: ctx}
}

// NewGRPC returns an exporter sending OTLP over gRPC to endpoint
// ("host:port", or a URL; "http://" means no TLS).
func NewGRPC(ctx context.Context, endpoint string, opt Options) (*Exporter, error) {
	var o []otlptracegrpc.Option
	if strings.Contains(endpoint, "://") {
		o = append(o, otlptracegrpc.WithEndpointURL(endpoint))
	} else if endpoint != "" {
		o = append(o, otlptracegrpc.WithEndpoint(endpoint), otlptracegrpc.WithInsecure())
	}
	exp, err := otlptracegrpc.New(ctx, o...)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return New(ctx, exp, opt), nil
}

// NewHTTP returns an exporter sending OTLP/HTTP (protobuf) to endpoint
// ("host:port" without TLS, or a URL such as http://127.0.0.1:4318; a URL
// without a path gets /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT does).
func NewHTTP(ctx context.Context, endpoint string, opt Options) (*Exporter, error) {
	var o []otlptracehttp.Option
	if strings.Contains(endpoint, "://") {
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, fmt.Errorf("otlp: endpoint: %w", err)
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		o = append(o, otlptracehttp.WithEndpointURL(u.String()))
	} else if endpoint != "" {
		o = append(o, otlptracehttp.WithEndpoint(endpoint), otlptracehttp.WithInsecure())
	}
	exp, err := otlptracehttp.New(ctx, o...)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return New(ctx, exp, opt), nil
}

// NewStdout returns an exporter printing spans as JSON to w.
func NewStdout(w io.Writer, opt Options) (*Exporter, error) {
	exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return New(context.Background(), exp, opt), nil
}

// Begin implements exporters.Exporter.
func (e *Exporter) Begin(h *trace.Header) error {
	if e.began {
		return errors.New("otlp: Begin called twice")
	}
	e.began = true
	e.h = h
	e.warp = map[uint32]*warpAgg{}
	return nil
}

// WriteWarp implements exporters.WarpWriter.
func (e *Exporter) WriteWarp(w *trace.Warp, _ []trace.Issue) error {
	e.agg(w.Segment, w.CTA, w.WarpInCTA, w.SM)
	return nil
}

func (e *Exporter) agg(seg uint32, cta [3]uint32, inCTA, sm uint32) *warpAgg {
	a := e.warp[seg]
	if a == nil {
		a = &warpAgg{seg: seg, cta: cta, inCTA: inCTA, sm: sm}
		e.warp[seg] = a
		e.wseq = append(e.wseq, seg)
	}
	return a
}

// WriteRegions implements exporters.Exporter.
func (e *Exporter) WriteRegions(rs []trace.Region) error {
	if !e.began || e.ended {
		return errors.New("otlp: WriteRegions outside Begin/End")
	}
	for i := range rs {
		r := &rs[i]
		if r.End < r.Start {
			return fmt.Errorf("otlp: region %d of warp %d ends before it starts", r.ID, r.Warp)
		}
		a := e.agg(r.Warp, r.CTA, r.WarpInCTA, r.SM)
		if a.n == 0 {
			a.start, a.end = r.Start, r.End
		}
		a.start, a.end = min(a.start, r.Start), max(a.end, r.End)
		a.n++
		a.cyc += r.Cycles
		if r.Info != nil && r.Info.Memory() {
			a.memN++
			a.memC += r.Cycles
		}
		if e.opt.Granularity >= Region {
			if len(e.regs) < e.opt.MaxSpans {
				e.regs = append(e.regs, *r)
			} else {
				e.drop++
				a.dropped++
			}
		}
	}
	return nil
}

// ctaAgg aggregates a CTA's warps.
type ctaAgg struct {
	linear     uint32
	cta        [3]uint32
	sm         uint32
	start, end uint64
	n, memN    int64
	cyc, memC  uint64
	warps      []*warpAgg
}

// End implements exporters.Exporter: it creates the spans and exports
// them (flush and shutdown of the SDK pipeline).
func (e *Exporter) End() (err error) {
	if !e.began || e.ended {
		return errors.New("otlp: End without Begin, or twice")
	}
	e.ended = true
	res, rerr := resource.Merge(resource.Empty(), resource.NewSchemaless(e.resourceAttrs()...))
	if rerr != nil {
		return fmt.Errorf("otlp: %w", rerr)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(newIDGen(e.h, e.opt.RunSalt)),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(sdktrace.NewBatchSpanProcessor(e.exp,
			sdktrace.WithMaxQueueSize(max(2048, e.opt.MaxSpans+16)), sdktrace.WithBlocking(),
			sdktrace.WithMaxExportBatchSize(512))),
	)
	defer func() {
		if serr := tp.Shutdown(e.ctx); err == nil && serr != nil {
			err = fmt.Errorf("otlp: %w", serr)
		}
	}()
	s := &spanner{
		tracer: tp.Tracer("github.com/ptxtrace/ptxtrace/exporters/otlp"),
		clk:    e.clock(),
		budget: e.opt.MaxSpans - 2,
	}
	shift, err := transferShift(e.h)
	if err != nil {
		return err
	}
	s.clk.base = s.clk.base.Add(shift)
	ctas, total := e.ctaAggs()
	launch := e.startTop(s, total)
	runEnd := launch.end
	if t := e.emitTransfers(s, launch); t.After(runEnd) {
		runEnd = t
	}
	ctaSpans := e.startCTAs(s, ctas, launch.ctx)
	warpSpans := e.startWarps(s, ctas, ctaSpans)
	e.emitRegions(s, warpSpans)
	endAll(warpSpans)
	endAll(ctaSpans)
	if d := s.dropped + e.drop; d > 0 {
		launch.span.SetAttributes(attribute.Int64("ptxtrace.spans.dropped", d))
	}
	launch.span.End(oteltrace.WithTimestamp(launch.end))
	launch.run.SetStatus(codes.Ok, "")
	launch.run.End(oteltrace.WithTimestamp(runEnd))
	if ferr := tp.ForceFlush(e.ctx); ferr != nil {
		return fmt.Errorf("otlp: %w", ferr)
	}
	return nil
}

// clock maps timer ticks to wall-clock times.
type clock struct {
	h      *trace.Header
	origin uint64    // ticks shown at base
	base   time.Time // wall-clock time of origin
}

// at returns the wall-clock time of ticks (origin when earlier).
func (c *clock) at(ticks uint64) time.Time {
	d := ticks - min(ticks, c.origin)
	ns := float64(d) // 1 cycle shown as 1 ns when the rate is unknown
	if c.h.HasNs() {
		ns = c.h.Ns(d)
	}
	return c.base.Add(time.Duration(math.Round(ns)))
}

// clock picks the time origin and its wall-clock anchor. The origin is
// kernel start (tick 0) when the timer counts from kernel start — model
// runs, which also know TotalCycles — and else the earliest region begin.
// The anchor is the run's StartUnixNs, else Options.BaseTime, else the
// Unix epoch.
func (e *Exporter) clock() *clock {
	h := e.h
	c := &clock{h: h, base: e.opt.BaseTime}
	if !fromKernelStart(h) {
		have := false
		for _, a := range e.warp {
			if a.n > 0 && (!have || a.start < c.origin) {
				c.origin, have = a.start, true
			}
		}
	}
	if h.Meta.StartUnixNs != 0 {
		c.base = time.Unix(0, h.Meta.StartUnixNs)
	} else if c.base.IsZero() {
		c.base = time.Unix(0, 0)
	}
	return c
}

// fromKernelStart reports whether the trace's timestamps count from the
// kernel's start: the model's clocks do (cycle 0 and %globaltimer 0 are the
// launch).
func fromKernelStart(h *trace.Header) bool {
	return h.Meta.Source == "model" || h.Meta.TotalCycles > 0
}

// ctaAggs groups the warps into CTAs, in order of their first warp, and
// sums everything into total.
func (e *Exporter) ctaAggs() (ctas []*ctaAgg, total ctaAgg) {
	byCTA := map[uint32]*ctaAgg{}
	for _, seg := range e.wseq {
		a := e.warp[seg]
		lin := seg
		if e.h.WarpsPerCTA > 0 {
			lin = seg / e.h.WarpsPerCTA
		}
		c := byCTA[lin]
		if c == nil {
			c = &ctaAgg{linear: lin, cta: a.cta, sm: a.sm}
			byCTA[lin] = c
			ctas = append(ctas, c)
		}
		c.warps = append(c.warps, a)
		c.add(a.n, a.start, a.end, a.memN, a.cyc, a.memC)
	}
	for _, c := range ctas {
		total.add(c.n, c.start, c.end, c.memN, c.cyc, c.memC)
	}
	return ctas, total
}

func (c *ctaAgg) add(n int64, start, end uint64, memN int64, cyc, memC uint64) {
	if n > 0 {
		if c.n == 0 {
			c.start, c.end = start, end
		}
		c.start, c.end = min(c.start, start), max(c.end, end)
	}
	c.n += n
	c.memN += memN
	c.cyc += cyc
	c.memC += memC
}

// spanner creates spans under the span budget.
type spanner struct {
	tracer  oteltrace.Tracer
	clk     *clock
	budget  int
	dropped int64 // spans refused for the budget with no open parent to count them
}

func (s *spanner) grant() bool {
	if s.budget > 0 {
		s.budget--
		return true
	}
	s.dropped++
	return false
}

// open is a started span that ends after its children.
type open struct {
	ctx  context.Context
	span oteltrace.Span
	end  time.Time
	drop int64
}

// top is the run span and the launch span under it.
type top struct {
	open
	run    oteltrace.Span
	runCtx context.Context
}

// startTop starts the run and launch spans. Both span the kernel: from
// the origin to TotalCycles when known, else to the last region end.
func (e *Exporter) startTop(s *spanner, total ctaAgg) *top {
	h := e.h
	start := s.clk.base
	end := s.clk.at(total.end)
	if h.Meta.TotalCycles > 0 && fromKernelStart(h) {
		if t := s.clk.at(h.Meta.TotalCycles); t.After(end) {
			end = t
		}
	}
	// the run starts with the first copy-in (transfers.go)
	runCtx, run := s.tracer.Start(e.ctx, "ptxtrace.run", oteltrace.WithTimestamp(start.Add(-time.Duration(h.Meta.TransferShiftNs()))),
		oteltrace.WithSpanKind(oteltrace.SpanKindInternal), oteltrace.WithAttributes(e.runAttrs()...))
	lctx, launch := s.tracer.Start(runCtx, h.Kernel, oteltrace.WithTimestamp(start),
		oteltrace.WithAttributes(append(e.launchAttrs(), aggAttrs(total.n, total.memN, total.cyc, total.memC)...)...))
	return &top{open: open{ctx: lctx, span: launch, end: end}, run: run, runCtx: runCtx}
}

func (e *Exporter) startCTAs(s *spanner, ctas []*ctaAgg, parent context.Context) map[uint32]*open {
	spans := map[uint32]*open{}
	if e.opt.Granularity < CTA {
		return spans
	}
	for _, c := range ctas {
		if c.n == 0 || !s.grant() {
			continue
		}
		ctx, sp := s.tracer.Start(parent, "cta", oteltrace.WithTimestamp(s.clk.at(c.start)), oteltrace.WithAttributes(
			append([]attribute.KeyValue{
				attribute.Int64("gpu.cta.x", int64(c.cta[0])), attribute.Int64("gpu.cta.y", int64(c.cta[1])),
				attribute.Int64("gpu.cta.z", int64(c.cta[2])), attribute.Int64("gpu.cta.linear", int64(c.linear)),
				attribute.Int64("gpu.sm", int64(c.sm)), attribute.Int("ptxtrace.warps", len(c.warps)),
			}, aggAttrs(c.n, c.memN, c.cyc, c.memC)...)...))
		spans[c.linear] = &open{ctx: ctx, span: sp, end: s.clk.at(c.end)}
	}
	return spans
}

func (e *Exporter) startWarps(s *spanner, ctas []*ctaAgg, ctaSpans map[uint32]*open) map[uint32]*open {
	spans := map[uint32]*open{}
	if e.opt.Granularity < Warp {
		return spans
	}
	for _, c := range ctas {
		p := ctaSpans[c.linear]
		for _, a := range c.warps {
			if a.n == 0 {
				continue
			}
			if p == nil || !s.grant() {
				if p != nil {
					p.drop++
				}
				continue
			}
			ctx, sp := s.tracer.Start(p.ctx, "warp", oteltrace.WithTimestamp(s.clk.at(a.start)), oteltrace.WithAttributes(
				append([]attribute.KeyValue{
					attribute.Int64("gpu.warp", int64(a.inCTA)), attribute.Int64("gpu.warp.segment", int64(a.seg)),
					attribute.Int64("gpu.sm", int64(a.sm)),
				}, aggAttrs(a.n, a.memN, a.cyc, a.memC)...)...))
			spans[a.seg] = &open{ctx: ctx, span: sp, end: s.clk.at(a.end), drop: a.dropped}
		}
	}
	return spans
}

func (e *Exporter) emitRegions(s *spanner, warpSpans map[uint32]*open) {
	if e.opt.Granularity < Region {
		return
	}
	for i := range e.regs {
		r := &e.regs[i]
		p := warpSpans[r.Warp]
		if p == nil || !s.grant() {
			if p != nil {
				p.drop++
			}
			continue
		}
		ri := e.h.Region(r.ID)
		_, sp := s.tracer.Start(p.ctx, regionSpanName(ri), oteltrace.WithTimestamp(s.clk.at(r.Start)),
			oteltrace.WithAttributes(regionAttrs(r, ri)...))
		sp.End(oteltrace.WithTimestamp(s.clk.at(r.End)))
	}
}

// endAll ends the spans of m in key order, recording what they lost.
func endAll(m map[uint32]*open) {
	keys := make([]uint32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		o := m[k]
		if o.drop > 0 {
			o.span.SetAttributes(attribute.Int64("ptxtrace.spans.dropped", o.drop))
		}
		o.span.End(oteltrace.WithTimestamp(o.end))
	}
}

func aggAttrs(n, memN int64, cyc, memC uint64) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Int64("ptxtrace.regions", n),
		attribute.Int64("ptxtrace.cycles", int64(min(cyc, math.MaxInt64))),
		attribute.Int64("ptxtrace.memory.regions", memN),
		attribute.Int64("ptxtrace.memory.cycles", int64(min(memC, math.MaxInt64))),
	}
}

// regionSpanName is low-cardinality: the region's kind and state space.
func regionSpanName(ri *trace.RegionInfo) string {
	if ri == nil {
		return "region"
	}
	if ri.Memory() {
		sp := ri.Space
		if sp == "" {
			sp = "memory"
		}
		return sp + " load"
	}
	return "user region"
}

func regionAttrs(r *trace.Region, ri *trace.RegionInfo) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.Int("ptxtrace.region.id", r.ID),
		attribute.Int64("ptxtrace.region.instance", int64(r.Instance)),
		attribute.Int64("ptxtrace.region.depth", int64(r.Depth)),
		attribute.Int64("ptxtrace.cycles", int64(min(r.Cycles, math.MaxInt64))),
		attribute.Int64("ptxtrace.probe.end", int64(r.EndProbe)),
		attribute.Int64("gpu.sm", int64(r.SM)),
		attribute.Int64("gpu.warp", int64(r.WarpInCTA)),
	}
	if ri != nil {
		kv = append(kv,
			attribute.String("ptxtrace.region.kind", ri.Kind),
			attribute.String("ptxtrace.probe.mode", ri.Mode),
			attribute.Int64("ptxtrace.probe.begin", int64(ri.BeginProbe)),
			attribute.Int("ptx.line", ri.Line))
		if ri.Space != "" {
			kv = append(kv, attribute.String("ptx.state_space", ri.Space))
		}
		if ri.LocFile != "" {
			kv = append(kv, attribute.String("code.filepath", ri.LocFile), attribute.Int("code.lineno", ri.LocLine))
		}
	}
	if r.HasTruth && r.TruthComplete >= r.TruthIssue {
		kv = append(kv, attribute.Int64("ptxtrace.truth.cycles", int64(r.TruthComplete-r.TruthIssue)))
	}
	return kv
}

func (e *Exporter) resourceAttrs() []attribute.KeyValue {
	m := &e.h.Meta
	kv := []attribute.KeyValue{attribute.String("service.name", e.opt.ServiceName)}
	if m.Device != "" {
		kv = append(kv, attribute.String("gpu.device", m.Device))
	}
	if m.Arch != "" {
		kv = append(kv, attribute.String("gpu.arch", m.Arch))
	}
	if m.Source != "" {
		kv = append(kv, attribute.String("ptxtrace.source", m.Source))
	}
	return kv
}

func (e *Exporter) runAttrs() []attribute.KeyValue {
	m := &e.h.Meta
	kv := []attribute.KeyValue{
		attribute.String("ptxtrace.instrumentation_id", e.h.IDHex()),
		attribute.String("ptxtrace.granularity", e.opt.Granularity.String()),
	}
	if m.RunID != "" {
		kv = append(kv, attribute.String("ptxtrace.run_id", m.RunID))
	}
	keys := make([]string, 0, len(m.Labels))
	for k := range m.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv = append(kv, attribute.String("ptxtrace.label."+k, m.Labels[k]))
	}
	return kv
}

func (e *Exporter) launchAttrs() []attribute.KeyValue {
	h := e.h
	m := &h.Meta
	dims := func(d [3]uint32) string {
		return strconv.Itoa(int(d[0])) + "," + strconv.Itoa(int(d[1])) + "," + strconv.Itoa(int(d[2]))
	}
	kv := []attribute.KeyValue{
		attribute.String("ptxtrace.kernel", h.Kernel),
		attribute.String("ptxtrace.timer", h.Timer.String()),
		attribute.Int64("ptxtrace.warps_per_cta", int64(h.WarpsPerCTA)),
		attribute.Int64("ptxtrace.segments", int64(h.Segments)),
	}
	if m.Grid != [3]uint32{} {
		kv = append(kv, attribute.String("gpu.grid", dims(m.Grid)), attribute.String("gpu.block", dims(m.Block)))
	}
	if m.ClockHz > 0 {
		kv = append(kv, attribute.Float64("gpu.clock_hz", m.ClockHz))
	}
	if m.TotalCycles > 0 {
		kv = append(kv, attribute.Int64("ptxtrace.total_cycles", int64(min(m.TotalCycles, math.MaxInt64))))
	}
	return kv
}

// idGen derives trace and span ids from the trace's identity, so that
// exporting the same trace twice gives the same ids (backends deduplicate).
type idGen struct {
	seed [32]byte
	n    uint64
}

func newIDGen(h *trace.Header, salt string) *idGen {
	s := sha256.New()
	s.Write(h.InstrumentationID[:])
	s.Write([]byte(h.Kernel))
	s.Write([]byte(h.Meta.RunID))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(h.Meta.StartUnixNs))
	s.Write(b[:])
	if salt != "" {
		s.Write([]byte("\x00salt\x00" + salt))
	}
	g := &idGen{}
	copy(g.seed[:], s.Sum(nil))
	return g
}

func (g *idGen) next() [32]byte {
	g.n++
	var b [40]byte
	copy(b[:], g.seed[:])
	binary.BigEndian.PutUint64(b[32:], g.n)
	return sha256.Sum256(b[:])
}

// NewIDs implements sdktrace.IDGenerator. The SDK calls it from one
// goroutine here (spans are created sequentially in End).
func (g *idGen) NewIDs(context.Context) (oteltrace.TraceID, oteltrace.SpanID) {
	var tid oteltrace.TraceID
	copy(tid[:], g.seed[:16])
	return tid, g.NewSpanID(context.Background(), tid)
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *idGen) NewSpanID(context.Context, oteltrace.TraceID) oteltrace.SpanID {
	var sid oteltrace.SpanID
	for sid == (oteltrace.SpanID{}) {
		h := g.next()
		copy(sid[:], h[:8])
	}
	return sid
}
