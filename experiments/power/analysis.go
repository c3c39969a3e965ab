package power

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/model"
)

// SeedBET is the break-even time the seed assumes for SIMD units (§4).
const SeedBET = 100

// Config sets the break-even time of each level.
type Config struct {
	// CoreBET is the core level's BET. The seed evaluates cores by their
	// active cycles only (no BET), which is CoreBET = 0.
	CoreBET model.Time `json:"core_bet"`
	// UnitBET and LaneBET are the BETs of unit instances and of lanes, per
	// unit kind (model.UnitKind).
	UnitBET [model.NumUnitKinds]model.Time `json:"unit_bet"`
	LaneBET [model.NumUnitKinds]model.Time `json:"lane_bet"`
}

// DefaultConfig is the seed's setting: cores by active cycles, every unit
// and lane with BET = SeedBET.
func DefaultConfig() Config {
	c := Config{}
	for k := range c.UnitBET {
		c.UnitBET[k], c.LaneBET[k] = SeedBET, SeedBET
	}
	return c
}

// WithBET returns c with every unit and lane BET set to bet.
func (c Config) WithBET(bet model.Time) Config {
	for k := range c.UnitBET {
		c.UnitBET[k], c.LaneBET[k] = bet, bet
	}
	return c
}

// Level is one level (core, or the units or lanes of one kind) summed over
// the SMs and launches of a run.
type Level struct {
	Name   string     `json:"name"`   // "core", "unit sp", "lane sp", …
	Blocks int        `json:"blocks"` // blocks per launch (SMs, instances, lanes)
	BET    model.Time `json:"bet"`
	// Exposure is Σ over launches of Blocks × the launch's cycles: the
	// denominator of every share.
	Exposure model.Time `json:"exposure"`
	Busy     model.Time `json:"busy"`
	Idle     Hist       `json:"idle"`
}

// IdleCycles is Exposure − Busy, the idle intervals' total.
func (l *Level) IdleCycles() model.Time { c, _ := l.Idle.Idle(); return c }

// Net is the level's break-even evaluation at bet.
func (l *Level) Net(bet model.Time) (saved model.Time, gates uint64) { return l.Idle.Net(bet) }

// Share is saved/Exposure at bet (0 for an empty level).
func (l *Level) Share(bet model.Time) float64 {
	if l.Exposure == 0 {
		return 0
	}
	s, _ := l.Net(bet)
	return float64(s) / float64(l.Exposure)
}

// Result is the power-gating analysis of one run (all its launches).
type Result struct {
	Kernel   string     `json:"kernel"`
	Model    string     `json:"model"`
	NumSMs   int        `json:"num_sms"`
	Launches int        `json:"launches"`
	Cycles   model.Time `json:"cycles"` // Σ launch cycles
	Config   Config     `json:"config"`
	// ActiveCycles is the seed's core-level metric: Σ over SMs of cycles
	// with a resident CTA.
	ActiveCycles model.Time `json:"active_cycles"`
	Core         Level      `json:"core"`
	Units        []Level    `json:"units"` // kinds present in the spec
	Lanes        []Level    `json:"lanes"`
}

// Summarise sums launches into a Result under cfg. Every launch must come
// from the same spec.
func Summarise(kernel string, spec *model.Spec, launches []*Launch, cfg Config) (*Result, error) {
	r := &Result{Kernel: kernel, Model: spec.Name, NumSMs: spec.NumSMs, Launches: len(launches), Config: cfg}
	r.Core = Level{Name: "core", BET: cfg.CoreBET}
	us := unitSpecs(spec)
	var units, lanes [model.NumUnitKinds]Level
	for k := range units {
		name := model.UnitKind(k).String()
		units[k] = Level{Name: "unit " + name, BET: cfg.UnitBET[k]}
		lanes[k] = Level{Name: "lane " + name, BET: cfg.LaneBET[k]}
	}
	add := func(lv *Level, bs []Block, cycles model.Time) {
		lv.Blocks = len(bs)
		lv.Exposure += model.Time(len(bs)) * cycles
		for _, b := range bs {
			lv.Busy += b.Busy
			lv.Idle = merge(lv.Idle, b.Idle)
		}
	}
	for i, l := range launches {
		if l.NumSMs != spec.NumSMs {
			return nil, fmt.Errorf("power: launch %d has %d SMs, spec %s %d", i, l.NumSMs, spec.Name, spec.NumSMs)
		}
		r.Cycles += l.Cycles
		add(&r.Core, l.Core, l.Cycles)
		for k := range units {
			add(&units[k], l.Units[k], l.Cycles)
			add(&lanes[k], l.Lanes[k], l.Cycles)
		}
	}
	r.ActiveCycles = r.Core.Busy
	for k := range units {
		if us[k].Count > 0 {
			r.Units = append(r.Units, units[k])
			r.Lanes = append(r.Lanes, lanes[k])
		}
	}
	return r, nil
}

// Levels returns the core level, then the unit levels, then the lane
// levels.
func (r *Result) Levels() []*Level {
	out := []*Level{&r.Core}
	for i := range r.Units {
		out = append(out, &r.Units[i])
	}
	for i := range r.Lanes {
		out = append(out, &r.Lanes[i])
	}
	return out
}

// CurveBETs are the BETs of the ideal curve: 1 … 10,000 cycles, ten
// log-spaced points per decade (rounded, duplicates dropped).
func CurveBETs() []model.Time {
	var out []model.Time
	p := 1.0
	step := 1.2589254117941673 // 10^(1/10)
	for i := 0; i <= 40; i++ {
		v := model.Time(p + 0.5)
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
		p *= step
	}
	out[len(out)-1] = 10000
	return out
}

// Curve is the ideal curve of one level: Share at each of BETs.
type Curve struct {
	Level string       `json:"level"`
	BETs  []model.Time `json:"bets"`
	Share []float64    `json:"share"`
}

// Curves returns the ideal curve (net saving share against BET) of every
// level of r.
func (r *Result) Curves(bets []model.Time) []Curve {
	var out []Curve
	for _, lv := range r.Levels() {
		c := Curve{Level: lv.Name, BETs: bets}
		for _, b := range bets {
			c.Share = append(c.Share, lv.Share(b))
		}
		out = append(out, c)
	}
	return out
}
