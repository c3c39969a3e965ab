package exporters_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/exporters/clog2"
	"github.com/ptxtrace/ptxtrace/exporters/otlp"
	"github.com/ptxtrace/ptxtrace/exporters/perfetto"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// span is one transfer as a format shows it: ns from the first copy-in's
// start (CLOG2's seconds converted), and its duration.
type span struct {
	name       string
	start, dur float64
}

// xferTrace is a synthetic %globaltimer trace (ticks are ns from the
// kernel's start) with two copy-ins before the kernel and one copy-out
// 100 ns after its last region end, all whole ns.
func xferTrace(t *testing.T) (*trace.Trace, []byte, tracetest.Synth, []span) {
	t.Helper()
	s := tracetest.Synth{Warps: 8, WarpsPerCTA: 2, Iters: 3, Loads: 2, NumSMs: 2, Timer: 2}
	var raw bytes.Buffer
	if _, err := s.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Decode(raw.Bytes(), s.Manifest(), tracetest.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	var end uint64
	for _, r := range tr.Regions {
		end = max(end, r.End)
	}
	out := int64(end+100) * 1000
	xs := []trace.Transfer{
		{Buffer: "a", Dir: "h2d", Method: "iorw", Bytes: 4096, StartPs: -5_000_000, EndPs: -2_000_000},
		{Buffer: "b", Dir: "h2d", Method: "hub", Bytes: 512, StartPs: -2_000_000, EndPs: 0},
		{Buffer: "c", Dir: "d2h", Method: "dma", Bytes: 1 << 20, StartPs: out, EndPs: out + 7_000_000},
	}
	tr.Header.Meta = trace.RunMeta{Source: "model", StartUnixNs: 1_700_000_000_000_000_000, Transfers: xs}
	// expected, by hand: the first copy-in at 0, the second 3000 ns later,
	// the copy-out 5000 ns + the kernel's end + 100 ns after it.
	want := []span{
		{"h2d a (iorw, 4096 B)", 0, 3000},
		{"h2d b (hub, 512 B)", 3000, 2000},
		{"d2h c (dma, 1048576 B)", 5000 + float64(end) + 100, 7000},
	}
	return tr, raw.Bytes(), s, want
}

func checkSpans(t *testing.T, format string, got, want []span, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d transfer spans %+v, want %d", format, len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.name != w.name || math.Abs(g.start-w.start) > tol || math.Abs(g.dur-w.dur) > tol {
			t.Errorf("%s: transfer %d = %+v, want %+v", format, i, g, w)
		}
	}
}

// TestTransferSpansAcrossExporters: Perfetto protobuf, Chrome JSON, CLOG2
// (in memory and spooled) and OTLP show the same transfer spans on the
// copy-engine track — names, durations and offsets from the first
// copy-in — and place the kernel's regions after the copy-ins by the same
// shift.
func TestTransferSpansAcrossExporters(t *testing.T) {
	tr, raw, s, want := xferTrace(t)
	var minStart uint64 = math.MaxUint64
	for _, r := range tr.Regions {
		minStart = min(minStart, r.Start)
	}
	kernel0 := 5000.0 // ns from the first copy-in to the kernel's start

	{ // Perfetto protobuf: slices by name; MinTs is the first copy-in.
		var b bytes.Buffer
		if err := exporters.Run(context.Background(), tr.Source(), perfetto.New(&b, perfetto.Options{})); err != nil {
			t.Fatal(err)
		}
		sum, err := perfetto.Check(&b)
		if err != nil {
			t.Fatal(err)
		}
		var got []span
		for _, w := range want {
			st := sum.Slices[w.name]
			if st == nil || st.Count != 1 {
				t.Fatalf("perfetto: no slice %q: %v", w.name, sum.Slices)
			}
			got = append(got, span{w.name, w.start, float64(st.DurNs)})
		}
		checkSpans(t, "perfetto", got, want, 0)
		if sum.MinTs != 0 || float64(sum.MaxTs) != want[2].start+want[2].dur {
			t.Errorf("perfetto: timestamps %d … %d, want 0 … %g", sum.MinTs, sum.MaxTs, want[2].start+want[2].dur)
		}
	}
	{ // Chrome JSON: X events of the copy engine process, ts in µs.
		var b bytes.Buffer
		if err := exporters.Run(context.Background(), tr.Source(), perfetto.NewJSON(&b, perfetto.Options{})); err != nil {
			t.Fatal(err)
		}
		if _, err := perfetto.CheckJSON(bytes.NewReader(b.Bytes())); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []struct {
				Ph, Name, Cat string
				Pid           int64
				Ts, Dur       float64
				Args          map[string]any
			} `json:"traceEvents"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var got []span
		procName := ""
		regionMin := math.Inf(1)
		for _, ev := range doc.TraceEvents {
			switch {
			case ev.Ph == "X" && ev.Cat == "transfer":
				got = append(got, span{ev.Name, math.Round(ev.Ts * 1000), math.Round(ev.Dur * 1000)})
			case ev.Ph == "X":
				regionMin = math.Min(regionMin, math.Round(ev.Ts*1000))
			case ev.Ph == "M" && ev.Name == "process_name" && ev.Args["name"] == trace.TransferTrack:
				procName = trace.TransferTrack
			}
		}
		checkSpans(t, "chrome-json", got, want, 0)
		if procName == "" {
			t.Error("chrome-json: no copy engine process")
		}
		if regionMin != kernel0+float64(minStart) {
			t.Errorf("chrome-json: first region at %g ns, want %g", regionMin, kernel0+float64(minStart))
		}
	}
	clog := func(name string, src trace.RegionSource) {
		var b bytes.Buffer
		if err := exporters.Run(context.Background(), src, clog2.New(&b, clog2.Options{TempDir: t.TempDir()})); err != nil {
			t.Fatal(err)
		}
		var got []span
		regionMin := math.Inf(1)
		_, err := clog2.Check(&b, &clog2.CheckOptions{OnInstance: func(in *clog2.Instance) {
			if strings.HasSuffix(in.State.Name, " transfer") {
				got = append(got, span{in.State.Name, in.Start * 1e9, (in.End - in.Start) * 1e9})
			} else {
				regionMin = math.Min(regionMin, in.Start*1e9)
			}
		}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// CLOG2 names states, not instances: compare by direction.
		w := append([]span(nil), want...)
		for i := range w {
			w[i].name = w[i].name[:3] + " transfer"
		}
		checkSpans(t, name, got, w, 1e-3)
		if math.Abs(regionMin-(kernel0+float64(minStart))) > 1e-3 {
			t.Errorf("%s: first region at %g ns, want %g", name, regionMin, kernel0+float64(minStart))
		}
	}
	clog("clog2", tr.Source())
	d, err := trace.NewDecoder(bytes.NewReader(raw), int64(len(raw)), s.Manifest(), tracetest.Kernel, trace.Options{Meta: tr.Header.Meta})
	if err != nil {
		t.Fatal(err)
	}
	clog("clog2 (spooled)", d)

	{ // OTLP/JSON: spans on the copy engine track, from the run's start.
		var b bytes.Buffer
		if err := exporters.Run(context.Background(), tr.Source(), otlp.NewFile(&b, otlp.Options{Granularity: otlp.Region, MaxSpans: 1 << 16})); err != nil {
			t.Fatal(err)
		}
		type kv struct {
			Key   string
			Value struct{ StringValue *string }
		}
		type jspan struct {
			Name                               string
			StartTimeUnixNano, EndTimeUnixNano string
			Attributes                         []kv
		}
		var all []jspan
		sc := bufio.NewScanner(&b)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var req struct {
				ResourceSpans []struct {
					ScopeSpans []struct{ Spans []jspan }
				}
			}
			if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
				t.Fatal(err)
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					all = append(all, ss.Spans...)
				}
			}
		}
		var run int64
		for _, sp := range all {
			if sp.Name == "ptxtrace.run" {
				run, _ = strconv.ParseInt(sp.StartTimeUnixNano, 10, 64)
			}
		}
		// ns from the run's start, exact (int64 before float: unix ns exceed 2^53)
		ns := func(s string) float64 { v, _ := strconv.ParseInt(s, 10, 64); return float64(v - run) }
		regionMin := math.Inf(1)
		var got []span
		for _, sp := range all {
			track := ""
			region := false
			for _, a := range sp.Attributes {
				if a.Key == "ptxtrace.track" && a.Value.StringValue != nil {
					track = *a.Value.StringValue
				}
				region = region || a.Key == "ptxtrace.region.id"
			}
			switch {
			case track == trace.TransferTrack:
				got = append(got, span{sp.Name, ns(sp.StartTimeUnixNano), ns(sp.EndTimeUnixNano) - ns(sp.StartTimeUnixNano)})
			case region:
				regionMin = math.Min(regionMin, ns(sp.StartTimeUnixNano))
			}
		}
		if run != tr.Header.Meta.StartUnixNs {
			t.Errorf("otlp: run starts at %d, want the anchor %d", run, tr.Header.Meta.StartUnixNs)
		}
		// spans arrive in end order from the SDK; sort by start
		for i := 1; i < len(got); i++ {
			for j := i; j > 0 && got[j].start < got[j-1].start; j-- {
				got[j], got[j-1] = got[j-1], got[j]
			}
		}
		checkSpans(t, "otlp", got, want, 0)
		if regionMin != kernel0+float64(minStart) {
			t.Errorf("otlp: first region at %g ns, want %g", regionMin, kernel0+float64(minStart))
		}
	}
}

// TestTransferExportsUnchangedWithout: without transfers no format shows
// a copy engine, and a launch with transfers but no ns clock is refused.
func TestTransferExportsUnchangedWithout(t *testing.T) {
	tr, _, _, _ := xferTrace(t)
	xs := tr.Header.Meta.Transfers
	tr.Header.Meta.Transfers = nil
	mk := map[string]func(*bytes.Buffer) exporters.Exporter{
		"perfetto":    func(b *bytes.Buffer) exporters.Exporter { return perfetto.New(b, perfetto.Options{}) },
		"chrome-json": func(b *bytes.Buffer) exporters.Exporter { return perfetto.NewJSON(b, perfetto.Options{}) },
		"clog2":       func(b *bytes.Buffer) exporters.Exporter { return clog2.New(b, clog2.Options{}) },
		"otlp":        func(b *bytes.Buffer) exporters.Exporter { return otlp.NewFile(b, otlp.Options{}) },
	}
	for name, f := range mk {
		var b bytes.Buffer
		if err := exporters.Run(context.Background(), tr.Source(), f(&b)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), trace.TransferTrack) || strings.Contains(b.String(), " transfer") {
			t.Errorf("%s: copy engine without transfers", name)
		}
	}
	tr.Header.Meta.Transfers = xs
	tr.Header.Timer = trace.TimerClock64 // cycles at an unknown clock: no ns axis
	for name, f := range mk {
		if err := exporters.Run(context.Background(), tr.Source(), f(&bytes.Buffer{})); err == nil {
			t.Errorf("%s: transfers on a cycles-only time axis accepted", name)
		}
	}
}
