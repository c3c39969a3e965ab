package perfetto

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
)

// jsonEvent is the subset of a Chrome JSON trace event CheckJSON reads.
type jsonEvent struct {
	Ph   string         `json:"ph"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Pid  *int64         `json:"pid"`
	Tid  *int64         `json:"tid"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Args map[string]any `json:"args"`
}

// CheckJSON parses a Chrome JSON trace and checks what JSONExporter
// promises: a {"traceEvents":[…]} object; every event has ph, name and
// pid; X events have ts and dur ≥ 0 and nest strictly per (pid, tid)
// (each one inside or after the previous open ones); counter events carry
// a finite value. It returns per-name slice counts, duration sums (ns,
// from the µs values rounded to ns) and argument sums.
func CheckJSON(r io.Reader) (*Summary, error) {
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("perfetto: JSON: %w", err)
	}
	if doc.TraceEvents == nil {
		return nil, fmt.Errorf("perfetto: JSON has no traceEvents array")
	}
	type xev struct {
		name        string
		start, end  uint64
		cycles, reg uint64
		idx         int
	}
	threads := map[[2]int64][]xev{}
	s := &Summary{Slices: map[string]*SliceStats{}}
	named := map[[2]int64]bool{}
	for i, raw := range doc.TraceEvents {
		var ev jsonEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, fmt.Errorf("perfetto: JSON event %d: %w", i, err)
		}
		if ev.Ph == "" || ev.Name == "" || ev.Pid == nil {
			return nil, fmt.Errorf("perfetto: JSON event %d lacks ph, name or pid", i)
		}
		s.Packets++
		switch ev.Ph {
		case "M":
			if ev.Name == "thread_name" && ev.Tid != nil {
				named[[2]int64{*ev.Pid, *ev.Tid}] = true
			}
		case "X":
			if ev.Ts == nil || ev.Dur == nil || ev.Tid == nil || *ev.Dur < 0 || *ev.Ts < 0 {
				return nil, fmt.Errorf("perfetto: JSON X event %d lacks tid/ts/dur or has negative ones", i)
			}
			st := uint64(math.Round(*ev.Ts * 1000))
			d := uint64(math.Round(*ev.Dur * 1000))
			k := [2]int64{*ev.Pid, *ev.Tid}
			threads[k] = append(threads[k], xev{name: ev.Name, start: st, end: st + d,
				cycles: argUint(ev.Args, "cycles"), reg: argUint(ev.Args, "regions"), idx: i})
		case "C":
			v, ok := ev.Args["value"].(float64)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) || ev.Ts == nil {
				return nil, fmt.Errorf("perfetto: JSON counter event %d without a finite value or ts", i)
			}
			s.Counters++
		case "B", "E", "i", "I", "s", "t", "f":
		default:
			return nil, fmt.Errorf("perfetto: JSON event %d has unknown phase %q", i, ev.Ph)
		}
	}
	keys := make([][2]int64, 0, len(threads))
	for k := range threads {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		xs := threads[k]
		if !named[k] {
			return nil, fmt.Errorf("perfetto: JSON thread %v has slices but no thread_name", k)
		}
		s.Tracks++
		// Sort as a viewer would: by start, longer first, then file order.
		sort.SliceStable(xs, func(i, j int) bool {
			if xs[i].start != xs[j].start {
				return xs[i].start < xs[j].start
			}
			return xs[i].end > xs[j].end
		})
		var stack []uint64
		for _, x := range xs {
			for len(stack) > 0 && stack[len(stack)-1] <= x.start {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && x.end > stack[len(stack)-1] {
				return nil, fmt.Errorf("perfetto: JSON X event %d (%q) on pid %d tid %d overlaps an open slice without nesting in it", x.idx, x.name, k[0], k[1])
			}
			stack = append(stack, x.end)
			s.MaxDepth = max(s.MaxDepth, len(stack))
			st := s.Slices[x.name]
			if st == nil {
				st = &SliceStats{}
				s.Slices[x.name] = st
			}
			st.Count++
			st.DurNs += x.end - x.start
			st.Cycles += x.cycles
			st.Regions += x.reg
		}
	}
	return s, nil
}

// argUint returns a numeric argument as uint64 (0 if absent).
func argUint(args map[string]any, k string) uint64 {
	if v, ok := args[k].(float64); ok && v >= 0 {
		return uint64(v)
	}
	return 0
}
