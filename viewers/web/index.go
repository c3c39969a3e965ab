package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxtrace/ptxtrace/trace"
)

// HistBins is the number of level-0 bins of a GPU or SM node's pyramid.
const HistBins = 4096

// noTruth marks a region without ground truth.
const noTruth = math.MaxUint32

// Row is one warp of the run.
type Row struct {
	Segment uint32    `json:"segment"`
	SM      uint32    `json:"sm"`
	CTA     [3]uint32 `json:"cta"`
	Warp    uint32    `json:"warp"`
	Regions int       `json:"regions"`
}

// Node is one node of the GPU → SM → CTA → warp tree: rows [Lo, Hi).
type Node struct {
	ID     int    `json:"id"`
	Parent int    `json:"parent"` // -1 for the GPU node
	Level  string `json:"level"`  // "gpu", "sm", "cta", "warp"
	Label  string `json:"label"`
	Lo     int    `json:"lo"`
	Hi     int    `json:"hi"`
	// Activity rows (Level "act", activity.go): Track "power", "unit",
	// "issue" or "stall", the unit kind (stall: the reason), and the SM
	// (−1 for the GPU).
	Track string `json:"track,omitempty"`
	Unit  string `json:"unit,omitempty"`
	SM    int    `json:"sm"`
	hist  *pyramid
}

// rowData is one row's regions in start order.
type rowData struct {
	start, end []int64
	rid        []int32  // index into Index.Regions
	truth      []uint32 // ground-truth latency in cycles, noTruth if none
	durPre     []int64  // durPre[i] = Σ durations of regions < i (len n+1)
	memPre     []uint32 // memPre[i] = memory regions among < i (len n+1)
	maxEnd     []int64  // maxEnd[i] = max end of regions ≤ i
}

// Index is the in-memory index of one run.
type Index struct {
	Name    string
	Kernel  string
	Timer   string
	ClockHz float64
	T0, T1  int64 // first start, last end (T1 > T0 when any region)
	Regions []trace.RegionInfo
	Rows    []Row
	Nodes   []Node
	Total   int64 // regions
	// Origin is the ruler's zero: the kernel's start (0) for model runs,
	// else the first region's start.
	Origin int64
	// Transfers of the launch (tracks.go); TransferNote says why they are
	// not placed on the axis when it is not empty.
	Transfers    []TransferSpan
	TransferNote string
	// ActivityNote says why the run's recorded activity is not drawn.
	ActivityNote string
	act          *actData
	rows         []rowData
}

// Build reads src to the end and indexes it.
func Build(ctx context.Context, name string, src trace.RegionSource) (*Index, error) {
	h := src.Header()
	ix := &Index{Name: name, Kernel: h.Kernel, Timer: h.Timer.String(), ClockHz: h.Meta.ClockHz,
		Regions: append([]trace.RegionInfo(nil), h.Regions...), T0: math.MaxInt64, T1: math.MinInt64}
	ix.Transfers, ix.TransferNote = placeTransfers(h)
	ix.act, ix.ActivityNote = placeActivity(h)
	pos := map[int]int32{}
	for i := range ix.Regions {
		pos[ix.Regions[i].ID] = int32(i)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wr, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		w := wr.Warp
		n := len(wr.Regions)
		d := rowData{start: make([]int64, n), end: make([]int64, n), rid: make([]int32, n), truth: make([]uint32, n),
			durPre: make([]int64, n+1), memPre: make([]uint32, n+1), maxEnd: make([]int64, n)}
		for i := range wr.Regions {
			r := &wr.Regions[i]
			if r.Start > math.MaxInt64/2 || r.End > math.MaxInt64/2 {
				return nil, fmt.Errorf("web: %s: warp %d region %d: timestamp beyond 2^62 cannot be indexed", name, w.Segment, r.ID)
			}
			if i > 0 && int64(r.Start) < d.start[i-1] {
				return nil, fmt.Errorf("web: %s: warp %d region %d: starts before the previous region (trace invariant broken)", name, w.Segment, r.ID)
			}
			p, ok := pos[r.ID]
			if !ok {
				return nil, fmt.Errorf("web: %s: warp %d: region id %d not in the header", name, w.Segment, r.ID)
			}
			d.start[i], d.end[i], d.rid[i] = int64(r.Start), int64(r.End), p
			d.truth[i] = noTruth
			if r.HasTruth && r.TruthComplete >= r.TruthIssue && r.TruthComplete-r.TruthIssue < noTruth {
				d.truth[i] = uint32(r.TruthComplete - r.TruthIssue)
			}
			d.durPre[i+1] = d.durPre[i] + (d.end[i] - d.start[i])
			d.memPre[i+1] = d.memPre[i]
			if ix.Regions[p].Memory() {
				d.memPre[i+1]++
			}
			d.maxEnd[i] = d.end[i]
			if i > 0 && d.maxEnd[i-1] > d.maxEnd[i] {
				d.maxEnd[i] = d.maxEnd[i-1]
			}
			ix.T0, ix.T1 = min(ix.T0, d.start[i]), max(ix.T1, d.end[i])
		}
		ix.Total += int64(n)
		ix.Rows = append(ix.Rows, Row{Segment: w.Segment, SM: w.SM, CTA: w.CTA, Warp: w.WarpInCTA, Regions: n})
		ix.rows = append(ix.rows, d)
	}
	if ix.Total == 0 {
		ix.T0, ix.T1 = 0, 1
	}
	if ix.T1 <= ix.T0 {
		ix.T1 = ix.T0 + 1
	}
	ix.Origin = ix.T0
	if h.Meta.Source == "model" {
		ix.Origin = 0
	}
	// Sort rows by (SM, CTA z, y, x, warp) so every tree node is a range.
	perm := make([]int, len(ix.Rows))
	for i := range perm {
		perm[i] = i
	}
	key := func(r Row) [5]uint32 { return [5]uint32{r.SM, r.CTA[2], r.CTA[1], r.CTA[0], r.Warp} }
	sort.SliceStable(perm, func(a, b int) bool {
		ka, kb := key(ix.Rows[perm[a]]), key(ix.Rows[perm[b]])
		for i := range ka {
			if ka[i] != kb[i] {
				return ka[i] < kb[i]
			}
		}
		return false
	})
	rows, data := make([]Row, len(perm)), make([]rowData, len(perm))
	for i, p := range perm {
		rows[i], data[i] = ix.Rows[p], ix.rows[p]
	}
	ix.Rows, ix.rows = rows, data
	ix.buildTree()
	return ix, nil
}

func (ix *Index) buildTree() {
	gpu := Node{ID: 0, Parent: -1, Level: "gpu", Label: "GPU · kernel " + ix.Kernel, Lo: 0, Hi: len(ix.Rows), SM: -1}
	ix.Nodes = []Node{gpu}
	ix.actNodes(0, -1)
	// SMs with warps, and those with only recorded activity (no CTA ran
	// there: their rows show the power state alone).
	var sms []int
	if ix.act != nil {
		sms = append(sms, ix.act.sms...)
	}
	for _, r := range ix.Rows {
		sms = append(sms, int(r.SM))
	}
	sort.Ints(sms)
	lo := 0
	for i, sm := range sms {
		if i > 0 && sms[i-1] == sm {
			continue
		}
		hi := lo
		for hi < len(ix.Rows) && int(ix.Rows[hi].SM) == sm {
			hi++
		}
		smID := len(ix.Nodes)
		ix.Nodes = append(ix.Nodes, Node{ID: smID, Parent: 0, Level: "sm", Label: fmt.Sprintf("SM %d", sm), Lo: lo, Hi: hi, SM: sm})
		ix.actNodes(smID, sm)
		for clo := lo; clo < hi; {
			cta := ix.Rows[clo].CTA
			chi := clo
			for chi < hi && ix.Rows[chi].CTA == cta {
				chi++
			}
			ctaID := len(ix.Nodes)
			ix.Nodes = append(ix.Nodes, Node{ID: ctaID, Parent: smID, Level: "cta", Label: fmt.Sprintf("CTA %d,%d,%d", cta[0], cta[1], cta[2]), Lo: clo, Hi: chi, SM: sm})
			for r := clo; r < chi; r++ {
				ix.Nodes = append(ix.Nodes, Node{ID: len(ix.Nodes), Parent: ctaID, Level: "warp", Label: fmt.Sprintf("warp %d", ix.Rows[r].Warp), Lo: r, Hi: r + 1, SM: sm})
			}
			clo = chi
		}
		lo = hi
	}
	for i := range ix.Nodes {
		if n := &ix.Nodes[i]; n.Level == "gpu" || n.Level == "sm" {
			n.hist = ix.newPyramid(n.Lo, n.Hi)
		}
	}
}

// Bucket is the aggregate of the regions starting in [T0, T1).
type Bucket struct {
	T0     int64 `json:"t0"`
	T1     int64 `json:"t1"`
	Count  int64 `json:"n"`
	Busy   int64 `json:"busy"` // summed durations
	Memory int64 `json:"mem"`  // memory (load) regions among Count
}

// Span is one region answered at full detail.
type Span struct {
	Row   int    `json:"row"`
	I     int    `json:"i"`
	Start int64  `json:"s"`
	End   int64  `json:"e"`
	Class string `json:"c"`
	Mode  string `json:"m,omitempty"` // probe mode of a load region
}

// Tile is the answer for one node.
type Tile struct {
	Node int `json:"node"`
	// Mode: "spans" (regions at full detail), "buckets" (px buckets at
	// exact edges) or "bins" (pyramid bins with their own edges).
	Mode    string   `json:"mode"`
	Buckets []Bucket `json:"buckets,omitempty"`
	Spans   []Span   `json:"spans,omitempty"`
	// Activity rows: "activity" (Act buckets) or "states" (an SM's power
	// states).
	Act    []ActBucket `json:"act,omitempty"`
	States []State     `json:"states,omitempty"`
}

// Class is the colour class of region info r: the state space of a load
// region, "user" or the region's kind.
func Class(r *trace.RegionInfo) string {
	if r.Memory() {
		if r.Space != "" {
			return r.Space
		}
		return "memory"
	}
	return r.Kind
}

// edge returns t0 + ⌊(t1−t0)·k/px⌋ without overflow.
func edge(t0, t1 int64, k, px int) int64 {
	hi, lo := bits.Mul64(uint64(t1-t0), uint64(k))
	q, _ := bits.Div64(hi, lo, uint64(px))
	return t0 + int64(q)
}

func lowerBound(a []int64, t int64) int {
	return sort.Search(len(a), func(i int) bool { return a[i] >= t })
}

// DetailLimit: a warp row whose range [t0, t1) holds at most px/DetailLimit
// regions starting in it is answered with spans.
const DetailLimit = 3

// Tiles answers node ids over [t0, t1) at px pixels (1 ≤ px ≤ 8192),
// power rows at DefaultBET.
func (ix *Index) Tiles(nodes []int, t0, t1 int64, px int) ([]Tile, error) {
	return ix.TilesBET(nodes, t0, t1, px, DefaultBET)
}

// TilesBET is Tiles with the power rows' break-even time bet (cycles ≥ 0).
func (ix *Index) TilesBET(nodes []int, t0, t1 int64, px int, bet int64) ([]Tile, error) {
	if bet < 0 {
		return nil, fmt.Errorf("bet %d is negative", bet)
	}
	if t1 <= t0 {
		return nil, fmt.Errorf("t1 (%d) must exceed t0 (%d)", t1, t0)
	}
	if px < 1 || px > 8192 {
		return nil, fmt.Errorf("px %d outside 1…8192", px)
	}
	out := make([]Tile, 0, len(nodes))
	for _, id := range nodes {
		if id < 0 || id >= len(ix.Nodes) {
			return nil, fmt.Errorf("no node %d", id)
		}
		n := &ix.Nodes[id]
		t := Tile{Node: id}
		switch {
		case n.Level == "act":
			t = ix.actTile(n, t0, t1, px, bet)
		case n.Level == "warp":
			d := &ix.rows[n.Lo]
			if c := lowerBound(d.start, t1) - lowerBound(d.start, t0); c <= px/DetailLimit {
				t.Mode, t.Spans = "spans", ix.spans(n.Lo, t0, t1)
			} else {
				t.Mode, t.Buckets = "buckets", ix.rowBuckets(n.Lo, n.Lo+1, t0, t1, px)
			}
		case n.hist != nil && (t1-t0)/int64(px) >= n.hist.w0:
			t.Mode, t.Buckets = "bins", n.hist.query(t0, t1, px)
		case n.hist != nil && n.Hi-n.Lo > 64:
			t.Mode, t.Buckets = "bins", n.hist.level0(t0, t1)
		default:
			t.Mode, t.Buckets = "buckets", ix.rowBuckets(n.Lo, n.Hi, t0, t1, px)
		}
		out = append(out, t)
	}
	return out, nil
}

// spans lists the regions of row with start < t1 and end > t0, in start
// order.
func (ix *Index) spans(row int, t0, t1 int64) []Span {
	d := &ix.rows[row]
	lo, hi := lowerBound(d.start, t0), lowerBound(d.start, t1)
	first := lo
	for first > 0 && d.maxEnd[first-1] > t0 {
		first--
	}
	var out []Span
	for i := first; i < hi; i++ {
		if i < lo && d.end[i] <= t0 {
			continue
		}
		in := &ix.Regions[d.rid[i]]
		sp := Span{Row: row, I: i, Start: d.start[i], End: d.end[i], Class: Class(in)}
		if in.Memory() {
			sp.Mode = in.Mode
		}
		out = append(out, sp)
	}
	return out
}

// rowBuckets sums the exact buckets of rows [lo, hi).
func (ix *Index) rowBuckets(lo, hi int, t0, t1 int64, px int) []Bucket {
	bs := make([]Bucket, px)
	for k := range bs {
		bs[k].T0, bs[k].T1 = edge(t0, t1, k, px), edge(t0, t1, k+1, px)
	}
	for r := lo; r < hi; r++ {
		d := &ix.rows[r]
		prev := lowerBound(d.start, t0)
		for k := range bs {
			next := prev + lowerBound(d.start[prev:], bs[k].T1)
			bs[k].Count += int64(next - prev)
			bs[k].Busy += d.durPre[next] - d.durPre[prev]
			bs[k].Memory += int64(d.memPre[next] - d.memPre[prev])
			prev = next
		}
	}
	return bs
}

// pyramid is a histogram of region starts over [base, base+w0·HistBins) with
// coarser levels.
type pyramid struct {
	base, w0 int64
	levels   [][]Bucket
}

func (ix *Index) newPyramid(lo, hi int) *pyramid {
	w0 := (ix.T1 - ix.T0 + HistBins) / HistBins
	p := &pyramid{base: ix.T0, w0: w0}
	l0 := make([]Bucket, HistBins)
	for k := range l0 {
		l0[k].T0, l0[k].T1 = p.base+int64(k)*w0, p.base+int64(k+1)*w0
	}
	for r := lo; r < hi; r++ {
		d := &ix.rows[r]
		for i, s := range d.start {
			b := &l0[(s-p.base)/w0]
			b.Count++
			b.Busy += d.end[i] - s
			if d.memPre[i+1] != d.memPre[i] {
				b.Memory++
			}
		}
	}
	p.levels = [][]Bucket{l0}
	for cur := l0; len(cur) > 1; {
		next := make([]Bucket, len(cur)/2)
		for k := range next {
			a, b := cur[2*k], cur[2*k+1]
			next[k] = Bucket{T0: a.T0, T1: b.T1, Count: a.Count + b.Count, Busy: a.Busy + b.Busy, Memory: a.Memory + b.Memory}
		}
		p.levels = append(p.levels, next)
		cur = next
	}
	return p
}

// query returns the bins of the finest level at least (t1−t0)/px wide that
// overlap [t0, t1).
func (p *pyramid) query(t0, t1 int64, px int) []Bucket {
	want := (t1 - t0) / int64(px)
	lv := 0
	for lv+1 < len(p.levels) && p.w0<<lv < want {
		lv++
	}
	return p.cut(lv, t0, t1)
}

func (p *pyramid) level0(t0, t1 int64) []Bucket { return p.cut(0, t0, t1) }

func (p *pyramid) cut(lv int, t0, t1 int64) []Bucket {
	bins, w := p.levels[lv], p.w0<<lv
	a := max(0, (t0-p.base)/w)
	if t0 < p.base {
		a = 0
	}
	b := min(int64(len(bins)), (t1-p.base+w-1)/w)
	if a >= b {
		return nil
	}
	return bins[a:b:b] // shared, read-only
}

// Detail describes one region instance.
type Detail struct {
	Row      Row     `json:"row"`
	RowIndex int     `json:"row_index"`
	I        int     `json:"i"`
	Region   int     `json:"region"`
	Kind     string  `json:"kind"`
	Class    string  `json:"class"`
	Mode     string  `json:"mode,omitempty"`
	Space    string  `json:"space,omitempty"`
	Line     int     `json:"ptx_line"`
	Text     string  `json:"ptx_text"`
	Source   string  `json:"source,omitempty"` // CUDA file:line:col
	Start    int64   `json:"start"`
	End      int64   `json:"end"`
	Measured int64   `json:"measured"`        // End − Start in timer units
	Ns       float64 `json:"ns,omitempty"`    // when the clock rate is known
	Truth    *uint32 `json:"truth,omitempty"` // ground-truth latency, cycles
}

// Detail returns region i of row.
func (ix *Index) Detail(row, i int) (*Detail, error) {
	if row < 0 || row >= len(ix.rows) || i < 0 || i >= len(ix.rows[row].start) {
		return nil, fmt.Errorf("no region %d in row %d", i, row)
	}
	d := &ix.rows[row]
	in := &ix.Regions[d.rid[i]]
	out := &Detail{Row: ix.Rows[row], RowIndex: row, I: i, Region: in.ID, Kind: in.Kind, Class: Class(in), Mode: in.Mode, Space: in.Space,
		Line: in.Line, Text: in.Text, Start: d.start[i], End: d.end[i], Measured: d.end[i] - d.start[i]}
	if in.LocFile != "" {
		out.Source = fmt.Sprintf("%s:%d:%d", in.LocFile, in.LocLine, in.LocCol)
	}
	if ix.ClockHz > 0 && ix.Timer != trace.TimerGlobaltimer.String() {
		out.Ns = float64(out.Measured) * 1e9 / ix.ClockHz
	}
	if t := d.truth[i]; t != noTruth {
		out.Truth = &t
	}
	return out, nil
}

// LineStat is the time spent at one probed PTX line.
type LineStat struct {
	Line    int      `json:"ptx_line"`
	Text    string   `json:"ptx_text"`
	Source  string   `json:"source,omitempty"`
	Classes []string `json:"classes"`
	Regions []int    `json:"regions"`
	Count   int64    `json:"count"`
	Busy    int64    `json:"busy"`
}

// Lines sums the regions by PTX line, in line order.
func (ix *Index) Lines() []LineStat {
	count, busy := make([]int64, len(ix.Regions)), make([]int64, len(ix.Regions))
	for r := range ix.rows {
		d := &ix.rows[r]
		for i, p := range d.rid {
			count[p]++
			busy[p] += d.end[i] - d.start[i]
		}
	}
	by := map[int]*LineStat{}
	var order []int
	for p := range ix.Regions {
		in := &ix.Regions[p]
		l := by[in.Line]
		if l == nil {
			l = &LineStat{Line: in.Line, Text: in.Text}
			if in.LocFile != "" {
				l.Source = fmt.Sprintf("%s:%d:%d", in.LocFile, in.LocLine, in.LocCol)
			}
			by[in.Line] = l
			order = append(order, in.Line)
		}
		l.Classes = append(l.Classes, Class(in))
		l.Regions = append(l.Regions, in.ID)
		l.Count += count[p]
		l.Busy += busy[p]
	}
	sort.Ints(order)
	out := make([]LineStat, len(order))
	for i, k := range order {
		out[i] = *by[k]
	}
	return out
}

// Hit is one search result.
type Hit struct {
	Row   int   `json:"row"`
	I     int   `json:"i"`
	Start int64 `json:"s"`
	End   int64 `json:"e"`
}

// Search returns up to limit instances of the regions at PTX line line
// (line > 0) or whose text, source position or kernel contains q, in row
// order, and the total number of matches.
func (ix *Index) Search(line int, q string, limit int) ([]Hit, int64) {
	match := make([]bool, len(ix.Regions))
	kernel := q != "" && strings.Contains(strings.ToLower(ix.Kernel), strings.ToLower(q))
	for p := range ix.Regions {
		in := &ix.Regions[p]
		switch {
		case line > 0:
			match[p] = in.Line == line
		case q != "":
			lq := strings.ToLower(q)
			match[p] = kernel || strings.Contains(strings.ToLower(in.Text), lq) ||
				strings.Contains(strings.ToLower(fmt.Sprintf("%s:%d", in.LocFile, in.LocLine)), lq)
		}
	}
	var hits []Hit
	var total int64
	for r := range ix.rows {
		d := &ix.rows[r]
		for i, p := range d.rid {
			if match[p] {
				total++
				if len(hits) < limit {
					hits = append(hits, Hit{Row: r, I: i, Start: d.start[i], End: d.end[i]})
				}
			}
		}
	}
	return hits, total
}

// MarshalJSON writes a tile compactly: {"node":N,"mode":M} plus, for
// buckets, the columns "t0", "t1", "n", "busy", "mem" of the non-empty
// buckets, and for spans, rows of [row, i, start, end, class] with the
// probe mode appended for load regions.
func (t Tile) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64+len(t.Buckets)*40+len(t.Spans)*48)
	b = append(b, `{"node":`...)
	b = strconv.AppendInt(b, int64(t.Node), 10)
	b = append(b, `,"mode":`...)
	b = strconv.AppendQuote(b, t.Mode)
	col := func(name string, f func(*Bucket) int64) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":[`...)
		first := true
		for i := range t.Buckets {
			if t.Buckets[i].Count == 0 {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendInt(b, f(&t.Buckets[i]), 10)
		}
		b = append(b, ']')
	}
	switch t.Mode {
	case "activity":
		acol := func(name string, f func(*ActBucket) int64) {
			b = append(b, `,"`...)
			b = append(b, name...)
			b = append(b, `":[`...)
			for i := range t.Act {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, f(&t.Act[i]), 10)
			}
			b = append(b, ']')
		}
		acol("t0", func(x *ActBucket) int64 { return x.T0 })
		acol("t1", func(x *ActBucket) int64 { return x.T1 })
		acol("busy", func(x *ActBucket) int64 { return x.Busy })
		acol("cap", func(x *ActBucket) int64 { return x.Cap })
		acol("lanes", func(x *ActBucket) int64 { return x.Lanes })
		acol("lanecap", func(x *ActBucket) int64 { return x.LaneCap })
	case "states":
		b = append(b, `,"states":[`...)
		for i, s := range t.States {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, s.Start, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, s.End, 10)
			b = append(b, ',')
			b = strconv.AppendQuote(b, s.State)
			b = append(b, ']')
		}
		b = append(b, ']')
	case "buckets", "bins":
		col("t0", func(x *Bucket) int64 { return x.T0 })
		col("t1", func(x *Bucket) int64 { return x.T1 })
		col("n", func(x *Bucket) int64 { return x.Count })
		col("busy", func(x *Bucket) int64 { return x.Busy })
		col("mem", func(x *Bucket) int64 { return x.Memory })
	default:
		b = append(b, `,"spans":[`...)
		for i, s := range t.Spans {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.Row), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(s.I), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, s.Start, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, s.End, 10)
			b = append(b, ',')
			b = strconv.AppendQuote(b, s.Class)
			if s.Mode != "" {
				b = append(b, ',')
				b = strconv.AppendQuote(b, s.Mode)
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}
