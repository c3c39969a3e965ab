package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
)

// Activity is the timing model's recorded activity of one launch, for
// power-gating analyses (docs/power.md): the optional ACTV chunk of a run
// bundle (minor 2), written by `ptxtrace run --activity`. Bundles without
// it read with Bundle.Activity == nil. Package experiments/power produces
// it (power.LaunchActivity) and analyses it (power.FromBundles); this
// package only stores, validates and hands it to exporters (Header.Activity).
//
// Times are model core cycles from the launch's start (cycle 0) to Cycles.
type Activity struct {
	// Format is ActivityFormat.
	Format string `json:"format"`
	// Cycles is the launch's execution cycles: every block's timeline is
	// [0, Cycles).
	Cycles uint64 `json:"cycles"`
	// Model is the model spec the launch ran on, as JSON (model.Spec).
	Model json.RawMessage `json:"model"`
	// Blocks are the gateable blocks: per SM the core, then per unit kind
	// its unit instances and their lanes (power.ActivityRow's order).
	Blocks []ActivityBlock `json:"blocks"`
	// Series are the per-SM, per-unit-kind busy counts over time, in
	// buckets of SeriesWidth cycles (the last one may be partial).
	SeriesWidth uint64           `json:"series_width,omitempty"`
	Series      []ActivitySeries `json:"series,omitempty"`
	// Sched is each SM's issue and stall counts over time, in the same
	// buckets as Series (absent in chunks written before it existed).
	Sched []ActivitySched `json:"sched,omitempty"`
}

// ActivityFormat is Activity.Format.
const ActivityFormat = "ptxtrace-activity/1"

// Activity levels (ActivityBlock.Level).
const (
	LevelCore = "core" // an SM: busy while a CTA is resident
	LevelUnit = "unit" // an execution-unit instance
	LevelLane = "lane" // one lane of a unit instance
)

// ActivityBlock is one gateable block: Busy + Σ Idle = Cycles.
type ActivityBlock struct {
	Level string `json:"level"`
	Unit  string `json:"unit,omitempty"` // unit kind (sp, sfu, ldst, …); "" at core level
	SM    int    `json:"sm"`
	// Index is the unit instance, or instance × lanes + lane; 0 for a core.
	Index int    `json:"index"`
	Busy  uint64 `json:"busy"`
	// Idle is the idle-interval histogram: {length, count} pairs of
	// increasing length > 0, count > 0.
	Idle [][2]uint64 `json:"idle"`
	// Runs are the busy intervals [from, to) in increasing order (core
	// level only).
	Runs [][2]uint64 `json:"runs,omitempty"`
}

// ActivitySeries is one SM's use of one unit kind over time: in bucket i
// (cycles [i·w, (i+1)·w), w = Activity.SeriesWidth), UnitCycles[i] busy
// unit-instance cycles and LaneCycles[i] busy lane cycles (so the mean
// number of busy instances in the bucket is UnitCycles[i]/w, of busy lanes
// LaneCycles[i]/w).
type ActivitySeries struct {
	SM         int      `json:"sm"`
	Unit       string   `json:"unit"`
	Units      int      `json:"units"` // instances of the kind on the SM
	Lanes      int      `json:"lanes"` // lanes of all its instances
	UnitCycles []uint64 `json:"unit_cycles"`
	LaneCycles []uint64 `json:"lane_cycles"`
}

// ActivitySched is one SM's warp schedulers over time: in bucket i,
// Issued[i] warp-instructions issued, Threads[i] their active threads, and
// Stalls[reason][i] scheduler-cycles in which a scheduler with a resident
// CTA issued nothing, by the model's stall reason (model.StallReason
// names). Each scheduler issues at most one instruction per cycle, so
// Issued[i] + Σ Stalls[·][i] ≤ Schedulers × the bucket's width.
type ActivitySched struct {
	SM         int                 `json:"sm"`
	Schedulers int                 `json:"schedulers"`
	Issued     []uint64            `json:"issued"`
	Threads    []uint64            `json:"threads"`
	Stalls     map[string][]uint64 `json:"stalls,omitempty"`
}

// Buckets is the number of series buckets of a: ceil(Cycles/SeriesWidth).
func (a *Activity) Buckets() int {
	if a.SeriesWidth == 0 {
		return 0
	}
	return int((a.Cycles + a.SeriesWidth - 1) / a.SeriesWidth)
}

// Check reports the first violation of Activity's invariants.
func (a *Activity) Check() error {
	if a.Format != ActivityFormat {
		return fmt.Errorf("trace: activity: format %q, want %q", a.Format, ActivityFormat)
	}
	if len(a.Model) == 0 {
		return fmt.Errorf("trace: activity: no model spec")
	}
	for i := range a.Blocks {
		if err := a.Blocks[i].check(a.Cycles); err != nil {
			return fmt.Errorf("trace: activity: block %d (%s %s SM %d #%d): %w", i, a.Blocks[i].Level, a.Blocks[i].Unit,
				a.Blocks[i].SM, a.Blocks[i].Index, err)
		}
	}
	if len(a.Series) > 0 && a.SeriesWidth == 0 {
		return fmt.Errorf("trace: activity: series without a bucket width")
	}
	nb := a.Buckets()
	for i, s := range a.Series {
		if len(s.UnitCycles) != nb || len(s.LaneCycles) != nb {
			return fmt.Errorf("trace: activity: series %d (SM %d %s): %d and %d buckets, want %d", i, s.SM, s.Unit,
				len(s.UnitCycles), len(s.LaneCycles), nb)
		}
		for j := range nb {
			w := min(a.SeriesWidth, a.Cycles-uint64(j)*a.SeriesWidth)
			if s.UnitCycles[j] > uint64(s.Units)*w || s.LaneCycles[j] > uint64(s.Lanes)*w {
				return fmt.Errorf("trace: activity: series %d (SM %d %s) bucket %d: more busy cycles than %d units, %d lanes × %d cycles",
					i, s.SM, s.Unit, j, s.Units, s.Lanes, w)
			}
		}
	}
	for i := range a.Sched {
		if err := a.Sched[i].check(a, nb); err != nil {
			return fmt.Errorf("trace: activity: sched %d (SM %d): %w", i, a.Sched[i].SM, err)
		}
	}
	return nil
}

func (s *ActivitySched) check(a *Activity, nb int) error {
	if a.SeriesWidth == 0 {
		return fmt.Errorf("no bucket width")
	}
	if s.SM < 0 || s.Schedulers <= 0 {
		return fmt.Errorf("SM %d with %d schedulers", s.SM, s.Schedulers)
	}
	if len(s.Issued) != nb || len(s.Threads) != nb {
		return fmt.Errorf("%d and %d buckets, want %d", len(s.Issued), len(s.Threads), nb)
	}
	for r, v := range s.Stalls {
		if len(v) != nb {
			return fmt.Errorf("stall %s: %d buckets, want %d", r, len(v), nb)
		}
	}
	for j := range nb {
		w := min(a.SeriesWidth, a.Cycles-uint64(j)*a.SeriesWidth)
		used := s.Issued[j]
		for _, v := range s.Stalls {
			used += v[j]
		}
		if slots := uint64(s.Schedulers) * w; used > slots || s.Threads[j] > 32*s.Issued[j] {
			return fmt.Errorf("bucket %d: %d issued + stalled scheduler-cycles (%d threads) in %d slots", j, used, s.Threads[j], slots)
		}
	}
	return nil
}

func (b *ActivityBlock) check(cycles uint64) error {
	switch b.Level {
	case LevelCore, LevelUnit, LevelLane:
	default:
		return fmt.Errorf("unknown level %q", b.Level)
	}
	if (b.Level == LevelCore) != (b.Unit == "") {
		return fmt.Errorf("unit kind %q at level %s", b.Unit, b.Level)
	}
	if b.SM < 0 || b.Index < 0 {
		return fmt.Errorf("negative SM or index")
	}
	sum := b.Busy
	var last uint64
	for _, bin := range b.Idle {
		if bin[0] <= last || bin[1] == 0 {
			return fmt.Errorf("idle bins must have increasing lengths > 0 and counts > 0")
		}
		last = bin[0]
		if bin[0] > cycles || bin[1] > cycles {
			return fmt.Errorf("idle bin {%d, %d} exceeds the launch's %d cycles", bin[0], bin[1], cycles)
		}
		sum += bin[0] * bin[1]
	}
	if sum != cycles {
		return fmt.Errorf("busy %d + idle cycles = %d, want the launch's %d cycles", b.Busy, sum, cycles)
	}
	if len(b.Runs) > 0 {
		if b.Level != LevelCore {
			return fmt.Errorf("busy runs at level %s", b.Level)
		}
		var busy, end uint64
		for i, r := range b.Runs {
			if r[0] >= r[1] || r[1] > cycles || (i > 0 && r[0] <= end) {
				return fmt.Errorf("busy run %d [%d, %d) is empty, out of order or past the end", i, r[0], r[1])
			}
			busy += r[1] - r[0]
			end = r[1]
		}
		if busy != b.Busy {
			return fmt.Errorf("busy runs sum to %d cycles, busy is %d", busy, b.Busy)
		}
	}
	return nil
}

// maxActivityJSON bounds the decompressed ACTV payload.
const maxActivityJSON = 1 << 30

// encodeActivity is the ACTV payload: a's JSON, gzip-compressed (no name,
// no time: the bytes depend only on a).
func encodeActivity(a *Activity) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if err := json.NewEncoder(zw).Encode(a); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeActivity reads and checks an ACTV payload.
func decodeActivity(p []byte) (*Activity, error) {
	zr, err := gzip.NewReader(bytes.NewReader(p))
	if err != nil {
		return nil, err
	}
	js, err := io.ReadAll(io.LimitReader(zr, maxActivityJSON+1))
	if err != nil {
		return nil, err
	}
	if len(js) > maxActivityJSON {
		return nil, fmt.Errorf("more than %d bytes of JSON", maxActivityJSON)
	}
	a := &Activity{}
	if err := json.Unmarshal(js, a); err != nil {
		return nil, err
	}
	return a, a.Check()
}
