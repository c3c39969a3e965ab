package frames

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/ptxtrace/ptxtrace/viewers/svg"
	"google.golang.org/protobuf/encoding/protowire"
)

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
func msStr(ns int64) string {
	return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64)
}

// WriteText prints the report's tables.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRACE\tFRAMES\tIDLE\tPERIOD ms\tDRAWS\tLAYERS\tFRAMES FROM\tDRAWS FROM\tGPU BUSY FROM")
	for _, t := range r.Traces {
		idle, draws := 0, 0
		for i := range t.Frames {
			if t.Frames[i].Idle {
				idle++
			}
			draws += t.Frames[i].Count()
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\n", t.Name, len(t.Frames), idle, msStr(t.Period), draws,
			len(t.Layers), t.FrameSource, t.CompletionSource, t.BusySource)
	}
	for _, t := range r.Traces {
		fmt.Fprintf(tw, "%s markers:", t.Name)
		for _, m := range FrameMarkers {
			if n := t.Markers[m]; n > 0 {
				fmt.Fprintf(tw, " %s %d", m, n)
			}
		}
		fmt.Fprintf(tw, "; gpu_frequency events %d\n", t.GPUFreqEvents)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "RANK\tESTIMATOR\tINDEX\tMEAN SCORE\tMIN HIT %\tMAX RISK %")
	for i, k := range r.Ranking {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", i+1, k.Estimator.Name(), f1(k.Index), f1(k.Mean), f1(k.MinHit), f1(k.MaxRisk))
	}
	fmt.Fprintln(tw)
	c := r.Control
	fmt.Fprintf(tw, "CONTROL %s, fluctuation n=%d m=%d end=%d, NDK frames %d, threshold %s ms, break-even %s ms\n",
		c.Estimator.Name(), c.FluctN, c.FluctM, c.EndHits, c.NDKFrames, msStr(c.Threshold), msStr(c.Power.BreakEven()))
	fmt.Fprintln(tw, "TRACE\tSCORED\tHIT %\tRISK %\tFLUCT\tNDK\tSLEEP %\tTRANSITIONS\tWOKEN\tLATE\tNET µJ")
	for i, x := range r.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%s\n", r.Traces[i].Name, x.Scored, f1(x.HitRate()), f1(x.RiskRate()),
			x.Fluctuating, x.NDK, f1(x.SleepRatio()), x.Transitions, x.Woken, x.Late, f1(x.EnergyUJ))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "THRESHOLD ms\tSLEEP %\tTRANSITIONS\tWOKEN\tLATE\tNET µJ")
	for _, x := range r.Thresholds {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", msStr(x.Threshold), f1(x.SleepRatio()), x.Transitions, x.Woken, x.Late, f1(x.EnergyUJ))
	}
	if b := r.BestFluct; b != nil {
		fmt.Fprintf(tw, "\nfluctuation sweep: %d settings; lowest risk n=%d m=%d (hit %s %%, risk %s %%)\n", len(r.Fluct), b.FluctN, b.FluctM, f1(b.HitRate()), f1(b.RiskRate()))
	}
	return tw.Flush()
}

// CSV returns the report's tables as CSV files by name: ranking.csv,
// control.csv, thresholds.csv, fluctuation.csv, frames.csv.
func (r *Report) CSV() (map[string][]byte, error) {
	out := map[string][]byte{}
	put := func(name string, rows [][]string) error {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.WriteAll(rows); err != nil {
			return err
		}
		out[name] = b.Bytes()
		return nil
	}
	rows := [][]string{{"rank", "estimator", "index", "mean_score", "spread", "min_hit_pct", "max_risk_pct"}}
	for _, t := range r.Traces {
		rows[0] = append(rows[0], t.Name+":hit_pct", t.Name+":risk_pct", t.Name+":score")
	}
	for i, k := range r.Ranking {
		row := []string{strconv.Itoa(i + 1), k.Estimator.Name(), f1(k.Index), f1(k.Mean), f1(k.Spread), f1(k.MinHit), f1(k.MaxRisk)}
		for _, s := range k.Scores {
			row = append(row, f1(s.Hit()), f1(s.Risk()), f1(s.Value()))
		}
		rows = append(rows, row)
	}
	if err := put("ranking.csv", rows); err != nil {
		return nil, err
	}
	res := func(x *Result) []string {
		return []string{strconv.Itoa(x.Scored), f1(x.HitRate()), f1(x.RiskRate()), strconv.Itoa(x.Fluctuating), strconv.Itoa(x.NDK),
			f1(x.SleepRatio()), strconv.Itoa(x.Transitions), strconv.Itoa(x.Woken), strconv.Itoa(x.Late), f1(x.EnergyUJ)}
	}
	head := []string{"scored", "hit_pct", "risk_pct", "fluctuating", "ndk", "sleep_pct", "transitions", "woken", "late", "net_uj"}
	rows = [][]string{append([]string{"trace"}, head...)}
	for i, x := range r.Runs {
		rows = append(rows, append([]string{r.Traces[i].Name}, res(x)...))
	}
	if err := put("control.csv", rows); err != nil {
		return nil, err
	}
	rows = [][]string{append([]string{"threshold_ms"}, head...)}
	for i := range r.Thresholds {
		rows = append(rows, append([]string{msStr(r.Thresholds[i].Threshold)}, res(&r.Thresholds[i])...))
	}
	if err := put("thresholds.csv", rows); err != nil {
		return nil, err
	}
	rows = [][]string{append([]string{"n", "m"}, head...)}
	for i := range r.Fluct {
		x := &r.Fluct[i]
		rows = append(rows, append([]string{strconv.Itoa(x.FluctN), strconv.Itoa(x.FluctM)}, res(x)...))
	}
	if err := put("fluctuation.csv", rows); err != nil {
		return nil, err
	}
	rows = [][]string{{"trace", "frame", "start_ns", "end_ns", "idle", "extrapolated", "actual", "estimate", "fluctuating", "ndk", "hit", "risk", "decision_ns", "sleep_ns", "woken", "late"}}
	for ti, t := range r.Traces {
		for i := range t.Frames {
			f, x := &t.Frames[i], &r.Runs[ti].Frames[i]
			var sl int64
			for _, s := range x.Sleeps {
				sl += s.End - s.Start
			}
			rows = append(rows, []string{t.Name, strconv.Itoa(i), strconv.FormatInt(f.Start, 10), strconv.FormatInt(f.End, 10),
				strconv.FormatBool(f.Idle), strconv.FormatBool(f.Extrapolated), strconv.Itoa(x.Actual), strconv.Itoa(x.Estimate),
				strconv.FormatBool(x.Fluctuating), strconv.FormatBool(x.NDK), strconv.FormatBool(x.Hit), strconv.FormatBool(x.Risk),
				strconv.FormatInt(x.Decision, 10), strconv.FormatInt(sl, 10), strconv.FormatBool(x.Woken), strconv.FormatBool(x.Late)})
		}
	}
	if err := put("frames.csv", rows); err != nil {
		return nil, err
	}
	return out, nil
}

type jsonScore struct {
	Estimator string    `json:"estimator"`
	Index     float64   `json:"index"`
	Mean      float64   `json:"mean_score"`
	MinHit    float64   `json:"min_hit_pct"`
	MaxRisk   float64   `json:"max_risk_pct"`
	Hit       []float64 `json:"hit_pct"`
	Risk      []float64 `json:"risk_pct"`
}

type jsonResult struct {
	Trace       string  `json:"trace,omitempty"`
	ThresholdMS float64 `json:"threshold_ms"`
	N           int     `json:"fluct_n"`
	M           int     `json:"fluct_m"`
	Scored      int     `json:"scored"`
	Hit         float64 `json:"hit_pct"`
	Risk        float64 `json:"risk_pct"`
	Fluct       int     `json:"fluctuating"`
	NDK         int     `json:"ndk"`
	Sleep       float64 `json:"sleep_pct"`
	Transitions int     `json:"transitions"`
	Woken       int     `json:"woken"`
	Late        int     `json:"late"`
	EnergyUJ    float64 `json:"net_uj"`
}

type jsonTrace struct {
	Name       string         `json:"name"`
	Frames     int            `json:"frames"`
	Idle       int            `json:"idle_frames"`
	PeriodMS   float64        `json:"period_ms"`
	FrameSrc   string         `json:"frame_source"`
	DrawSrc    string         `json:"draw_source"`
	BusySrc    string         `json:"busy_source"`
	BusyProxy  bool           `json:"busy_proxy"`
	Layers     []Layer        `json:"layers"`
	Counts     []int          `json:"counts"`
	GPUFreqEvs int            `json:"gpu_frequency_events"`
	Markers    map[string]int `json:"markers"`
}

func jres(name string, x *Result) jsonResult {
	return jsonResult{Trace: name, ThresholdMS: float64(x.Threshold) / 1e6, N: x.FluctN, M: x.FluctM, Scored: x.Scored,
		Hit: x.HitRate(), Risk: x.RiskRate(), Fluct: x.Fluctuating, NDK: x.NDK, Sleep: x.SleepRatio(),
		Transitions: x.Transitions, Woken: x.Woken, Late: x.Late, EnergyUJ: x.EnergyUJ}
}

// JSON is the report as one JSON document (without per-frame records;
// frames.csv has those).
func (r *Report) JSON() ([]byte, error) {
	var doc struct {
		Traces     []jsonTrace  `json:"traces"`
		Ranking    []jsonScore  `json:"ranking"`
		Control    jsonResult   `json:"control_setting"`
		Runs       []jsonResult `json:"runs"`
		Thresholds []jsonResult `json:"threshold_sweep"`
		BestFluct  *jsonResult  `json:"lowest_risk_fluctuation,omitempty"`
	}
	for _, t := range r.Traces {
		jt := jsonTrace{Name: t.Name, Frames: len(t.Frames), PeriodMS: float64(t.Period) / 1e6, FrameSrc: t.FrameSource,
			DrawSrc: t.CompletionSource, BusySrc: t.BusySource, BusyProxy: t.BusyProxy, Layers: t.Layers, Counts: t.Counts(), GPUFreqEvs: t.GPUFreqEvents, Markers: t.Markers}
		for i := range t.Frames {
			if t.Frames[i].Idle {
				jt.Idle++
			}
		}
		doc.Traces = append(doc.Traces, jt)
	}
	for _, k := range r.Ranking {
		s := jsonScore{Estimator: k.Estimator.Name(), Index: k.Index, Mean: k.Mean, MinHit: k.MinHit, MaxRisk: k.MaxRisk}
		for _, x := range k.Scores {
			s.Hit, s.Risk = append(s.Hit, x.Hit()), append(s.Risk, x.Risk())
		}
		doc.Ranking = append(doc.Ranking, s)
	}
	c := r.Control
	doc.Control = jsonResult{Trace: c.Estimator.Name(), ThresholdMS: float64(c.Threshold) / 1e6, N: c.FluctN, M: c.FluctM}
	for i, x := range r.Runs {
		doc.Runs = append(doc.Runs, jres(r.Traces[i].Name, x))
	}
	for i := range r.Thresholds {
		doc.Thresholds = append(doc.Thresholds, jres("", &r.Thresholds[i]))
	}
	if r.BestFluct != nil {
		b := jres("", r.BestFluct)
		doc.BestFluct = &b
	}
	return json.MarshalIndent(doc, "", "  ")
}

// Chart is one rendered SVG chart.
type Chart struct {
	Name string // file name, e.g. "ranking.svg"
	SVG  []byte
}

// Charts renders the estimator ranking, hit vs risk, the threshold sweep
// (Fig. 13 style) and, per trace, a strip of estimate vs actual.
func (r *Report) Charts() ([]Chart, error) {
	var out []Chart
	add := func(name string, render func(io.Writer) error) error {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Chart{name, b.Bytes()})
		return nil
	}
	top := r.Top(16)
	bar := &svg.BarChart{Title: "Estimator ranking (index = mean score − spread)", XLabel: "estimator", YLabel: "index"}
	var idx []float64
	for _, k := range top {
		bar.Categories = append(bar.Categories, k.Estimator.Name())
		idx = append(idx, k.Index)
	}
	bar.Series = []svg.BarSeries{{Name: "index", Values: idx}}
	bar.Options.Notes = []string{fmt.Sprintf("top %d of 42 (seed Table 1); seed eq. (1)–(2)", len(top))}
	if err := add("ranking.svg", bar.Render); err != nil {
		return nil, err
	}
	sc := &svg.ScatterChart{Title: "Hit rate vs risk rate per estimator", XLabel: "risk (%)", YLabel: "hit (%)", NoFit: true}
	for ti, t := range r.Traces {
		s := svg.ScatterSeries{Name: t.Name}
		for _, k := range r.Ranking {
			s.Points = append(s.Points, svg.Point{X: k.Scores[ti].Risk(), Y: k.Scores[ti].Hit(), Label: k.Estimator.Name()})
		}
		sc.Series = append(sc.Series, s)
	}
	if err := add("hit-risk.svg", sc.Render); err != nil {
		return nil, err
	}
	line := &svg.LineChart{Title: "Deep-sleep time vs threshold (seed Fig. 13)", XLabel: "threshold (ms)", YLabel: "deep sleep (% of frame time)", Style: svg.LinesMarkers, YZero: true}
	var xs, ys []float64
	for _, x := range r.Thresholds {
		xs, ys = append(xs, float64(x.Threshold)/1e6), append(ys, x.SleepRatio())
	}
	line.Series = []svg.LineSeries{{Name: "all traces", X: xs, Y: ys}}
	line.Options.Notes = []string{fmt.Sprintf("estimator %s; power model break-even %s ms (assumed)", r.Control.Estimator.Name(), msStr(r.Control.Power.BreakEven()))}
	if err := add("thresholds.svg", line.Render); err != nil {
		return nil, err
	}
	for ti, t := range r.Traces {
		st := &svg.LineChart{Title: "Estimate vs actual draws per frame: " + t.Name, XLabel: "frame", YLabel: "draw completions", Style: svg.LinesMarkers, YZero: true}
		var x, a, e []float64
		for i, fr := range r.Runs[ti].Frames {
			if fr.Idle {
				continue
			}
			x = append(x, float64(i))
			a = append(a, float64(fr.Actual))
			e = append(e, float64(fr.Estimate))
		}
		st.Series = []svg.LineSeries{{Name: "actual", X: x, Y: a}, {Name: "estimate (" + r.Control.Estimator.Name() + ")", X: x, Y: e}}
		if err := add(fmt.Sprintf("strip-%d.svg", ti+1), st.Render); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WritePerfetto writes TracePackets overlaying trace ti's frames,
// estimated frame ends (decision points) and deep sleeps as TrackEvents
// on the trace's clock. Appended to a Perfetto trace file (a trace is a
// sequence of packets) it shows on the original timeline. Each of the
// three tracks has its own packet sequence, so timestamps never decrease
// within a sequence (checked by exporters/perfetto.Check).
func (r *Report) WritePerfetto(w io.Writer, ti int) error {
	t, run := r.Traces[ti], r.Runs[ti]
	const seq = 0x7f5e04
	const (
		uFrames = 0x5eed0401 + iota
		uDecide
		uSleep
	)
	var out []byte
	packet := func(body []byte) {
		out = protowire.AppendTag(out, fTracePacket, protowire.BytesType)
		out = protowire.AppendBytes(out, body)
	}
	for i, name := range []string{"seed004 frames (actual/estimate)", "seed004 estimated frame end", "seed004 GPU deep sleep"} {
		var td, p []byte
		td = protowire.AppendTag(td, fTDUUID, protowire.VarintType)
		td = protowire.AppendVarint(td, uint64(uFrames+i))
		td = protowire.AppendTag(td, fTDName, protowire.BytesType)
		td = protowire.AppendString(td, name)
		p = protowire.AppendTag(p, fPktSeqID, protowire.VarintType)
		p = protowire.AppendVarint(p, seq+uint64(i))
		p = protowire.AppendTag(p, fPktTrackDesc, protowire.BytesType)
		p = protowire.AppendBytes(p, td)
		packet(p)
	}
	event := func(ts int64, typ uint64, track uint64, name string) {
		var te, p []byte
		te = protowire.AppendTag(te, fTEType, protowire.VarintType)
		te = protowire.AppendVarint(te, typ)
		te = protowire.AppendTag(te, fTETrackUUID, protowire.VarintType)
		te = protowire.AppendVarint(te, track)
		if name != "" {
			te = protowire.AppendTag(te, fTEName, protowire.BytesType)
			te = protowire.AppendString(te, name)
		}
		p = protowire.AppendTag(p, fPktTimestamp, protowire.VarintType)
		p = protowire.AppendVarint(p, uint64(ts))
		p = protowire.AppendTag(p, fPktSeqID, protowire.VarintType)
		p = protowire.AppendVarint(p, seq+track-uFrames) // one sequence per track: time order per sequence
		p = protowire.AppendTag(p, fPktTrackEvent, protowire.BytesType)
		p = protowire.AppendBytes(p, te)
		packet(p)
	}
	const instant = 3
	for i := range t.Frames {
		f, fr := &t.Frames[i], &run.Frames[i]
		if fr.Idle {
			continue
		}
		state := ""
		switch {
		case fr.NDK:
			state = " NDK"
		case fr.Fluctuating:
			state = " fluctuating"
		case fr.Risk:
			state = " RISK"
		case fr.Hit:
			state = " hit"
		}
		event(f.Start, teSliceBegin, uFrames, fmt.Sprintf("actual %d est %d%s", fr.Actual, fr.Estimate, state))
		event(f.End, teSliceEnd, uFrames, "")
		if fr.Decision >= 0 {
			event(fr.Decision, instant, uDecide, fmt.Sprintf("estimated last draw (%d)", fr.Estimate))
		}
		for _, s := range fr.Sleeps {
			name := "deep sleep"
			if fr.Woken {
				name = "deep sleep (woken)"
			}
			event(s.Start, teSliceBegin, uSleep, name)
			event(s.End, teSliceEnd, uSleep, "")
		}
		if len(out) > 1<<16 {
			if _, err := w.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
	}
	_, err := w.Write(out)
	return err
}
