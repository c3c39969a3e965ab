package frames

import (
	"fmt"
	"sort"
	"strings"
)

// Interval is a half-open time interval [Start, End) in nanoseconds.
type Interval struct{ Start, End int64 }

// Completion is one app-level draw completion: the end of an
// eglSwapBuffers (or queueBuffer) slice of a drawing thread (a layer).
type Completion struct {
	Start, End int64 // the slice; End is the completion time
	TGID, TID  int32
}

// Layer is one drawing thread and its number of completions.
type Layer struct {
	TGID, TID int32
	Comm      string
	Count     int
}

// Frame is one display frame.
type Frame struct {
	Start, End int64
	// Extrapolated frames lie in a gap of the VSYNC counter (or the trace
	// has none): their bounds continue the median period.
	Extrapolated bool
	// Idle frames are extrapolated frames with no draw and no GPU work:
	// the display was idle (no VSYNC traced, no SurfaceFlinger frame), so
	// the analysis skips them like the seed's driver, which counts only
	// frames SurfaceFlinger starts.
	Idle        bool
	Completions []int64 // completion times in the frame, sorted
	PerLayer    []int   // completions per Trace.Layers entry
	Busy        []Interval
}

// Count is the frame's number of draw completions (all layers).
func (f *Frame) Count() int { return len(f.Completions) }

// Trace is a trace folded into display frames.
type Trace struct {
	Name   string
	Frames []Frame
	Period int64 // median VSYNC period (or the fixed period)
	// FrameSource says where frame bounds come from, e.g. `VSYNC counter
	// "VSYNC" (190 samples)` or "fixed period".
	FrameSource      string
	CompletionSource string // "eglSwapBuffers", "queueBuffer" or "model launches"
	BusySource       string
	BusyProxy        bool // busy intervals are a proxy, not GPU state
	SurfaceFlinger   int32
	Layers           []Layer
	GPUFreqEvents    int
	Unterminated     int // completion slices with no end (not counted)
	// Markers counts the slices (begins) of the frame markers in
	// FrameMarkers, all processes, by name.
	Markers map[string]int
}

// FrameMarkers are the per-frame slice names the Builder counts: app
// side (Choreographer#doFrame, DrawFrame, eglSwapBuffers, queueBuffer)
// and SurfaceFlinger's per-frame markers, which differ by Android version
// (onMessageReceived in the Android 4.x trace, handleMessageRefresh /
// onMessageRefresh in later releases, vsyncCallback → commit / composite
// in the Android 13 trace). A name matches up to its first space
// (Choreographer#doFrame 123 counts as Choreographer#doFrame).
var FrameMarkers = []string{"Choreographer#doFrame", "DrawFrame", "eglSwapBuffers", "queueBuffer",
	"handleMessageRefresh", "onMessageRefresh", "onMessageReceived", "vsyncCallback", "commit", "composite"}

func markerName(n string) string {
	if i := strings.IndexByte(n, ' '); i >= 0 {
		n = n[:i]
	}
	for _, m := range FrameMarkers {
		if n == m {
			return m
		}
	}
	return ""
}

// MaxFrames bounds the number of frames a trace may span (about 4.8 hours
// at 60 Hz); longer spans are refused rather than allocated.
const MaxFrames = 1 << 20

// BuildOptions configure Build.
type BuildOptions struct {
	// Period is the frame period used when the trace has no VSYNC counter
	// (default 16 666 667 ns, 60 Hz).
	Period int64
}

// Builder folds an event stream into a Trace; use Add per event then
// Finish. Memory grows with the number of frames and completions, not
// with the number of events.
type Builder struct {
	stacks  map[int32][]open
	comms   map[int32]string
	egl     []Completion
	queue   []Completion
	proxy   []proxySlice
	vsync   map[string][]int64
	vsyncTG map[string]int32
	sfComm  int32
	gpuOpen map[int32]int64 // "GPU completion" counter: open interval start per tgid
	gpuBusy []Interval
	freq    int
	unterm  int
	markers map[string]int
}

type open struct {
	name  string
	start int64
	tgid  int32
}

type proxySlice struct {
	Interval
	tgid int32
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{stacks: map[int32][]open{}, comms: map[int32]string{}, vsync: map[string][]int64{},
		vsyncTG: map[string]int32{}, gpuOpen: map[int32]int64{}, markers: map[string]int{}}
}

// Add folds one event.
func (b *Builder) Add(e Event) error {
	if e.Comm != "" {
		if _, ok := b.comms[e.TID]; !ok {
			b.comms[e.TID] = e.Comm
		}
		if b.sfComm == 0 && (e.Comm == "surfaceflinger" || e.Comm == "SurfaceFlinger") && e.TGID != 0 {
			b.sfComm = e.TGID
		}
	}
	switch e.Kind {
	case Begin:
		b.stacks[e.TID] = append(b.stacks[e.TID], open{e.Name, e.TS, e.TGID})
		if m := markerName(e.Name); m != "" {
			b.markers[m]++
		}
	case End:
		st := b.stacks[e.TID]
		if len(st) == 0 {
			return nil // an end whose begin precedes the trace
		}
		o := st[len(st)-1]
		b.stacks[e.TID] = st[:len(st)-1]
		c := Completion{Start: o.start, End: e.TS, TGID: o.tgid, TID: e.TID}
		switch {
		case strings.HasPrefix(o.name, "eglSwapBuffers"):
			b.egl = append(b.egl, c)
		case o.name == "queueBuffer":
			b.queue = append(b.queue, c)
		}
		if strings.HasPrefix(o.name, "DrawFrame") || strings.HasPrefix(o.name, "eglSwapBuffers") || o.name == "queueBuffer" {
			b.proxy = append(b.proxy, proxySlice{Interval{o.start, e.TS}, o.tgid})
		}
	case Counter:
		if isVsyncName(e.Name) {
			b.vsync[e.Name] = append(b.vsync[e.Name], e.TS)
			if _, ok := b.vsyncTG[e.Name]; !ok {
				b.vsyncTG[e.Name] = e.TGID
			}
		}
		if e.Name == "GPU completion" {
			if e.Value > 0 {
				if _, ok := b.gpuOpen[e.TGID]; !ok {
					b.gpuOpen[e.TGID] = e.TS
				}
			} else if s, ok := b.gpuOpen[e.TGID]; ok {
				b.gpuBusy = append(b.gpuBusy, Interval{s, e.TS})
				delete(b.gpuOpen, e.TGID)
			}
		}
	case GPUFreq:
		b.freq++
	}
	return nil
}

// vsyncPriority orders VSYNC counter names: the display's own first.
func vsyncPriority(names []string) []string {
	rank := func(n string) int {
		switch {
		case n == "VSYNC":
			return 0
		case strings.HasPrefix(n, "HW_VSYNC_"):
			return 1
		case n == "VSYNC-sf":
			return 2
		}
		return 3
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

// Finish builds the Trace.
func (b *Builder) Finish(name string, opt BuildOptions) (*Trace, error) {
	if opt.Period <= 0 {
		opt.Period = 16_666_667
	}
	t := &Trace{Name: name, GPUFreqEvents: b.freq, Markers: b.markers}
	var names []string
	for n := range b.vsync {
		names = append(names, n)
	}
	names = vsyncPriority(names)
	for _, st := range b.stacks {
		for _, o := range st {
			if strings.HasPrefix(o.name, "eglSwapBuffers") || o.name == "queueBuffer" {
				b.unterm++
			}
		}
	}
	t.Unterminated = b.unterm
	t.SurfaceFlinger = b.sfComm
	if len(names) > 0 && b.vsyncTG[names[0]] != 0 {
		t.SurfaceFlinger = b.vsyncTG[names[0]]
	}
	app := func(cs []Completion) []Completion {
		var out []Completion
		for _, c := range cs {
			if c.TGID != t.SurfaceFlinger || t.SurfaceFlinger == 0 {
				out = append(out, c)
			}
		}
		return out
	}
	comps := app(b.egl)
	t.CompletionSource = "eglSwapBuffers"
	if len(comps) == 0 {
		comps, t.CompletionSource = app(b.queue), "queueBuffer"
	}
	if len(comps) == 0 {
		return nil, fmt.Errorf("%s: no app-side eglSwapBuffers or queueBuffer slices: nothing to estimate", name)
	}
	sort.Slice(comps, func(i, j int) bool {
		if comps[i].End != comps[j].End {
			return comps[i].End < comps[j].End
		}
		return comps[i].TID < comps[j].TID
	})
	lo, hi := comps[0].End, comps[len(comps)-1].End

	// Frame bounds.
	var edges []int64
	if len(names) > 0 && len(b.vsync[names[0]]) >= 3 {
		v := append([]int64(nil), b.vsync[names[0]]...)
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		t.Period = medianGap(v)
		if t.Period <= 0 {
			return nil, fmt.Errorf("%s: VSYNC counter %q has no positive period", name, names[0])
		}
		t.FrameSource = fmt.Sprintf("VSYNC counter %q (%d samples)", names[0], len(v))
		edges = v
	} else {
		t.Period = opt.Period
		t.FrameSource = fmt.Sprintf("fixed period %d ns (no VSYNC counter)", opt.Period)
		edges = []int64{lo - lo%opt.Period}
	}
	span := max(hi, edges[len(edges)-1]) - min(lo, edges[0])
	if span/t.Period > MaxFrames {
		return nil, fmt.Errorf("%s: trace spans %d frames of %d ns, more than %d", name, span/t.Period, t.Period, MaxFrames)
	}
	t.Frames = frameBounds(edges, t.Period, lo, hi)

	// Layers.
	layerIdx := map[[2]int32]int{}
	for _, c := range comps {
		k := [2]int32{c.TGID, c.TID}
		if _, ok := layerIdx[k]; !ok {
			layerIdx[k] = len(t.Layers)
			t.Layers = append(t.Layers, Layer{TGID: c.TGID, TID: c.TID, Comm: b.comms[c.TID]})
		}
	}
	sort.Slice(t.Layers, func(i, j int) bool {
		if t.Layers[i].TGID != t.Layers[j].TGID {
			return t.Layers[i].TGID < t.Layers[j].TGID
		}
		return t.Layers[i].TID < t.Layers[j].TID
	})
	for i, l := range t.Layers {
		layerIdx[[2]int32{l.TGID, l.TID}] = i
	}
	for i := range t.Frames {
		t.Frames[i].PerLayer = make([]int, len(t.Layers))
	}
	for _, c := range comps {
		i := frameOf(t.Frames, c.End)
		f := &t.Frames[i]
		f.Completions = append(f.Completions, c.End)
		li := layerIdx[[2]int32{c.TGID, c.TID}]
		f.PerLayer[li]++
		t.Layers[li].Count++
	}

	// GPU busy: the "GPU completion" counter where present, plus the
	// app-side DrawFrame/eglSwapBuffers/queueBuffer slices as a proxy.
	var busy []Interval
	busy = append(busy, b.gpuBusy...)
	for _, p := range b.proxy {
		if p.tgid != t.SurfaceFlinger || t.SurfaceFlinger == 0 {
			busy = append(busy, p.Interval)
		}
	}
	t.BusyProxy = true
	if len(b.gpuBusy) > 0 {
		t.BusySource = fmt.Sprintf("proxy: %d \"GPU completion\" counter intervals ∪ app DrawFrame/eglSwapBuffers/queueBuffer slices", len(b.gpuBusy))
	} else {
		t.BusySource = "proxy: app DrawFrame/eglSwapBuffers/queueBuffer slices (no GPU busy events in trace)"
	}
	assignBusy(t.Frames, union(busy))
	for i := range t.Frames {
		f := &t.Frames[i]
		f.Idle = f.Extrapolated && len(f.Completions) == 0 && len(f.Busy) == 0
	}
	return t, nil
}

// Counts is the per-frame draw-count sequence of the non-idle frames.
func (t *Trace) Counts() []int {
	var c []int
	for i := range t.Frames {
		if !t.Frames[i].Idle {
			c = append(c, t.Frames[i].Count())
		}
	}
	return c
}

func medianGap(v []int64) int64 {
	g := make([]int64, 0, len(v)-1)
	for i := 1; i < len(v); i++ {
		if d := v[i] - v[i-1]; d > 0 {
			g = append(g, d)
		}
	}
	if len(g) == 0 {
		return 0
	}
	sort.Slice(g, func(i, j int) bool { return g[i] < g[j] })
	return g[len(g)/2]
}

// frameBounds turns sorted VSYNC edges into frames covering [lo, hi]:
// consecutive edges closer than 1.5 periods bound one frame; longer gaps
// are split into round(gap/period) equal frames (Extrapolated); frames
// are added before the first and after the last edge at the period until
// lo and hi are covered.
func frameBounds(edges []int64, p, lo, hi int64) []Frame {
	var fs []Frame
	first := edges[0]
	var pre []Frame
	for s := first; s > lo; s -= p {
		pre = append(pre, Frame{Start: s - p, End: s, Extrapolated: true})
	}
	for i := len(pre) - 1; i >= 0; i-- {
		fs = append(fs, pre[i])
	}
	for i := 1; i < len(edges); i++ {
		a, b := edges[i-1], edges[i]
		if b <= a {
			continue
		}
		gap := b - a
		if gap*2 <= 3*p {
			fs = append(fs, Frame{Start: a, End: b})
			continue
		}
		n := (gap + p/2) / p
		for k := int64(0); k < n; k++ {
			fs = append(fs, Frame{Start: a + gap*k/n, End: a + gap*(k+1)/n, Extrapolated: true})
		}
	}
	last := edges[len(edges)-1]
	for s := last; s <= hi; s += p {
		fs = append(fs, Frame{Start: s, End: s + p, Extrapolated: true})
	}
	return fs
}

// frameOf is the index of the frame holding ts (frames are contiguous and
// cover every completion).
func frameOf(fs []Frame, ts int64) int {
	i := sort.Search(len(fs), func(i int) bool { return fs[i].End > ts })
	if i == len(fs) {
		i--
	}
	return i
}

func union(iv []Interval) []Interval {
	sort.Slice(iv, func(i, j int) bool { return iv[i].Start < iv[j].Start })
	var out []Interval
	for _, x := range iv {
		if x.End <= x.Start {
			continue
		}
		if n := len(out); n > 0 && x.Start <= out[n-1].End {
			if x.End > out[n-1].End {
				out[n-1].End = x.End
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// assignBusy clips merged busy intervals to frames.
func assignBusy(fs []Frame, busy []Interval) {
	j := 0
	for i := range fs {
		f := &fs[i]
		for j < len(busy) && busy[j].End <= f.Start {
			j++
		}
		for k := j; k < len(busy) && busy[k].Start < f.End; k++ {
			s, e := max(busy[k].Start, f.Start), min(busy[k].End, f.End)
			if e > s {
				f.Busy = append(f.Busy, Interval{s, e})
			}
		}
	}
}

// surfaceFlingerTGID is the process that emits the VSYNC counters
// (SurfaceFlinger), or, failing that, the process of a thread named
// surfaceflinger; 0 when neither is present.
func surfaceFlingerTGID(evs []Event) int32 {
	for _, e := range evs {
		if e.Kind == Counter && isVsyncName(e.Name) && e.TGID != 0 {
			return e.TGID
		}
	}
	for _, e := range evs {
		if (e.Comm == "surfaceflinger" || e.Comm == "SurfaceFlinger") && e.TGID != 0 {
			return e.TGID
		}
	}
	return 0
}

func isVsyncName(n string) bool {
	return n == "VSYNC" || n == "VSYNC-sf" || n == "VSYNC-app" || strings.HasPrefix(n, "HW_VSYNC_")
}

// ModelTrace builds a Trace from a multi-launch model run: frames of a
// fixed period starting at 0, one draw completion per launch (its end)
// and the launches' busy intervals as the GPU activity (not a proxy).
func ModelTrace(name string, period int64, launches []Interval) (*Trace, error) {
	if period <= 0 {
		return nil, fmt.Errorf("%s: frame period %d ns is not positive", name, period)
	}
	if len(launches) == 0 {
		return nil, fmt.Errorf("%s: no launches", name)
	}
	ls := append([]Interval(nil), launches...)
	sort.Slice(ls, func(i, j int) bool { return ls[i].End < ls[j].End })
	for _, l := range ls {
		if l.Start < 0 || l.End < l.Start {
			return nil, fmt.Errorf("%s: launch [%d, %d) is not a forward interval from 0", name, l.Start, l.End)
		}
	}
	n := ls[len(ls)-1].End/period + 1
	if n > MaxFrames {
		return nil, fmt.Errorf("%s: run spans %d frames, more than %d", name, n, MaxFrames)
	}
	t := &Trace{Name: name, Period: period, FrameSource: fmt.Sprintf("fixed period %d ns (model run)", period),
		CompletionSource: "model launches", BusySource: "model kernel busy intervals",
		Layers: []Layer{{Comm: "model", Count: len(ls)}}}
	for k := int64(0); k < n; k++ {
		t.Frames = append(t.Frames, Frame{Start: k * period, End: (k + 1) * period, PerLayer: []int{0}})
	}
	for _, l := range ls {
		f := &t.Frames[frameOf(t.Frames, l.End)]
		f.Completions = append(f.Completions, l.End)
		f.PerLayer[0]++
	}
	assignBusy(t.Frames, union(ls))
	return t, nil
}

// BuildFrom reads a trace of any format and builds its frames.
func BuildFrom(name string, read func(func(Event) error) error, opt BuildOptions) (*Trace, error) {
	b := NewBuilder()
	if err := read(b.Add); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b.Finish(name, opt)
}

// SequentialFrames builds a Trace from per-frame kernel busy times of a
// model run: frame k starts at k·period and its launches busy[k][0],
// busy[k][1], … (ns each) run back to back from the frame start, the way
// an app starts drawing at vsync. Each launch is one draw completion;
// work that overruns the period completes in a later frame, as on a
// device.
func SequentialFrames(name string, period int64, busy [][]int64) (*Trace, error) {
	var ls []Interval
	for k, fr := range busy {
		at := int64(k) * period
		for j, d := range fr {
			if d < 0 {
				return nil, fmt.Errorf("%s: frame %d launch %d has negative busy time %d", name, k, j, d)
			}
			ls = append(ls, Interval{at, at + d})
			at += d
		}
	}
	t, err := ModelTrace(name, period, ls)
	if err != nil {
		return nil, err
	}
	for len(t.Frames) < len(busy) { // trailing frames without launches
		k := int64(len(t.Frames))
		t.Frames = append(t.Frames, Frame{Start: k * period, End: (k + 1) * period, PerLayer: []int{0}})
	}
	return t, nil
}
