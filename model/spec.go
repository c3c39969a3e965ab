package model

import (
	"fmt"
	"math"
	"strings"
)

// WarpSize is the number of lanes of a warp. It is fixed: model.Effect masks
// are 32 bits wide.
const WarpSize = 32

// Spec describes a GPU for the model. It is a plain value: copying it gives
// an independent Spec, and nothing in this package modifies a Spec it is
// given. Build one with a preset (Preset, Presets), change fields, call
// Validate, or read one from YAML/JSON with specfile.Parse (package model/specfile).
//
// Every latency is in core cycles (the SM clock, CoreMHz) unless the field
// says otherwise; every size is in bytes. docs/model.md gives the source of
// each preset value.
type Spec struct {
	Name    string  `yaml:"name" json:"name"`
	CoreMHz float64 `yaml:"core_mhz" json:"core_mhz"` // SM clock: %clock counts these cycles
	NumSMs  int     `yaml:"num_sms" json:"num_sms"`
	// GlobalTimerNs is the resolution of %globaltimer in ns (1 = exact).
	GlobalTimerNs int `yaml:"global_timer_ns" json:"global_timer_ns"`
	// DeviceLaunchNs is the latency of a device-side grid launch (CUDA
	// dynamic parallelism) in ns: from the completion of the preceding grid
	// of the launch queue to the dispatch of the child's first CTA. It is
	// converted to core cycles with CoreMHz. Every preset sets 5000, an
	// assumption of the model (docs/model.md, "Dynamic parallelism").
	DeviceLaunchNs int `yaml:"device_launch_ns" json:"device_launch_ns"`

	SM     SMSpec     `yaml:"sm" json:"sm"`
	Shared SharedSpec `yaml:"shared" json:"shared"`
	L1D    CacheSpec  `yaml:"l1d" json:"l1d"`
	Tex    CacheSpec  `yaml:"tex" json:"tex"`
	Const  CacheSpec  `yaml:"const" json:"const"`
	Icnt   IcntSpec   `yaml:"icnt" json:"icnt"`
	L2     L2Spec     `yaml:"l2" json:"l2"`
	DRAM   DRAMSpec   `yaml:"dram" json:"dram"`

	// QuantumCycles bounds the epoch length of the parallel simulation. The
	// model uses min(QuantumCycles, Lookahead()); see doc.go. It changes
	// how often SMs synchronise, never the simulated result.
	QuantumCycles int `yaml:"quantum_cycles" json:"quantum_cycles"`
}

// SMSpec is one streaming multiprocessor.
type SMSpec struct {
	MaxThreads int `yaml:"max_threads" json:"max_threads"` // resident threads
	MaxWarps   int `yaml:"max_warps" json:"max_warps"`     // resident warps
	MaxCTAs    int `yaml:"max_ctas" json:"max_ctas"`       // resident CTAs (CTA slots)
	Registers  int `yaml:"registers" json:"registers"`     // 32-bit registers
	// RegAllocUnit is the register allocation granularity per warp: a warp
	// gets RegsPerThread*32 registers rounded up to a multiple of it.
	RegAllocUnit int `yaml:"reg_alloc_unit" json:"reg_alloc_unit"`
	// SharedAllocUnit is the shared-memory allocation granularity per CTA.
	SharedAllocUnit int `yaml:"shared_alloc_unit" json:"shared_alloc_unit"`
	// CTALaunchLatency is the delay between a CTA slot freeing (or the
	// launch) and the next CTA's first issue on that SM.
	CTALaunchLatency int `yaml:"cta_launch_latency" json:"cta_launch_latency"`

	Schedulers int `yaml:"schedulers" json:"schedulers"` // warp schedulers; each issues ≤ 1 instruction per cycle
	// Scheduler is the built-in issue policy: GTO, LRR or TwoLevel
	// (Options.Policy replaces it with a caller's own).
	Scheduler PolicyName `yaml:"scheduler" json:"scheduler"`
	// TwoLevelActive is the active-pool size per scheduler of "two-level".
	TwoLevelActive int `yaml:"two_level_active" json:"two_level_active"`
	// Partitioned: unit instances belong to one scheduler each (instance i
	// to scheduler i mod Schedulers, Volta and later); otherwise any
	// scheduler may use any free instance (Fermi).
	Partitioned bool `yaml:"partitioned" json:"partitioned"`
	// CTAPlacement is how the first CTAs of a kernel are spread over the
	// SMs: "" (round robin: one CTA per SM per round while they fit) or
	// "consolidate" (fill SM 0 to its resource limits, then SM 1, …; seed
	// 000 §3.1.1, for power-gating idle SMs). Freed slots are refilled in
	// place either way. Functional results do not depend on it.
	CTAPlacement string `yaml:"cta_placement,omitempty" json:"cta_placement,omitempty"`
	// CTASMs, when > 0, gives CTAs only to SMs 0 … CTASMs−1; the others
	// stay empty and can be power-gated (seed 000 §3.1.2). 0: every SM.
	CTASMs int `yaml:"cta_sms,omitempty" json:"cta_sms,omitempty"`

	// Execution units. A warp instruction occupies one instance of its
	// unit for ceil(32/(Lanes*ClockMul)) * Interval cycles.
	Units Units `yaml:"units" json:"units"`
	// Per-class timing.
	Classes Classes `yaml:"classes" json:"classes"`

	BarrierLatency int `yaml:"barrier_latency" json:"barrier_latency"` // from the last arrival to the release of bar.sync
	FenceLatency   int `yaml:"fence_latency" json:"fence_latency"`     // membar/fence once the warp's memory operations completed
}

// Units are the kinds of execution unit of an SM.
type Units struct {
	SP     UnitSpec `yaml:"sp" json:"sp"`
	INT    UnitSpec `yaml:"int" json:"int"`
	DP     UnitSpec `yaml:"dp" json:"dp"`
	SFU    UnitSpec `yaml:"sfu" json:"sfu"`
	Tensor UnitSpec `yaml:"tensor" json:"tensor"`
	LdSt   UnitSpec `yaml:"ldst" json:"ldst"`
	Branch UnitSpec `yaml:"branch" json:"branch"`
}

// UnitSpec is one kind of SIMD execution unit.
type UnitSpec struct {
	Count int `yaml:"count" json:"count"` // instances per SM (0: absent)
	Lanes int `yaml:"lanes" json:"lanes"` // lanes per instance
	// ClockMul is the unit clock over the core clock (2 on Fermi, whose
	// 16-lane groups run at the 2x "hot" clock).
	ClockMul int `yaml:"clock_mul" json:"clock_mul"`
}

// ClassSpec is the timing of one instruction class.
type ClassSpec struct {
	Unit     string `yaml:"unit" json:"unit"`         // sp, int, dp, sfu, tensor, ldst, branch
	Latency  int    `yaml:"latency" json:"latency"`   // issue to result (dependent issue), cycles
	Interval int    `yaml:"interval" json:"interval"` // initiation interval per pass through the unit
}

// Classes holds a ClassSpec per instruction class (model.Class).
type Classes struct {
	Int      ClassSpec `yaml:"int" json:"int"`
	FP32     ClassSpec `yaml:"fp32" json:"fp32"`
	FP64     ClassSpec `yaml:"fp64" json:"fp64"`
	SFU      ClassSpec `yaml:"sfu" json:"sfu"`
	Conv     ClassSpec `yaml:"conv" json:"conv"`
	Tensor   ClassSpec `yaml:"tensor" json:"tensor"`
	LdSt     ClassSpec `yaml:"ldst" json:"ldst"` // Latency: address generation before the memory pipeline
	Branch   ClassSpec `yaml:"branch" json:"branch"`
	Barrier  ClassSpec `yaml:"barrier" json:"barrier"`
	Fence    ClassSpec `yaml:"fence" json:"fence"`
	WarpSync ClassSpec `yaml:"warp_sync" json:"warp_sync"`
	Misc     ClassSpec `yaml:"misc" json:"misc"`
}

// SharedSpec is the shared memory of an SM.
type SharedSpec struct {
	Bytes     int `yaml:"bytes" json:"bytes"`           // per SM
	Banks     int `yaml:"banks" json:"banks"`           // banks
	BankBytes int `yaml:"bank_bytes" json:"bank_bytes"` // bank width
	Latency   int `yaml:"latency" json:"latency"`       // conflict-free load to use
	// CyclesPerWay is the cost of each way of an n-way bank conflict: an
	// access occupies the LD/ST unit n*CyclesPerWay cycles and completes
	// (n-1)*CyclesPerWay cycles later than a conflict-free one.
	CyclesPerWay int `yaml:"cycles_per_way" json:"cycles_per_way"`
	// Carveouts are other splits of the SM's on-chip memory between shared
	// memory and the L1 data cache, in increasing SharedBytes (one at or
	// below Bytes is never taken). A launch whose CTA needs more shared
	// memory than Bytes runs with the first carveout that holds it, as the
	// CUDA runtime switches
	// the cache configuration of a kernel that cannot run with the preferred
	// one (Fermi: 16 KB shared / 48 KB L1 or 48 KB / 16 KB); a CTA that
	// fits Bytes always runs with Bytes and the L1D above (Spec.ForShared).
	Carveouts []Carveout `yaml:"carveouts" json:"carveouts,omitempty"`
}

// Carveout is one alternative split: SharedBytes of shared memory per SM
// and an L1 data cache of L1DSets sets of L1DWays ways (line, sector,
// MSHR and latency figures stay those of the spec's l1d).
type Carveout struct {
	SharedBytes int `yaml:"shared_bytes" json:"shared_bytes"`
	L1DSets     int `yaml:"l1d_sets" json:"l1d_sets"`
	L1DWays     int `yaml:"l1d_ways" json:"l1d_ways"`
}

// ForShared returns the spec a launch whose CTA needs shared bytes of
// shared memory runs with, and the carveout taken (nil: s itself, because
// the CTA fits shared.bytes or no carveout holds it; the caller's fit
// check then reports the need against shared.bytes).
func (s Spec) ForShared(shared int) (Spec, *Carveout) {
	if shared <= s.Shared.Bytes {
		return s, nil
	}
	for i := range s.Shared.Carveouts {
		c := s.Shared.Carveouts[i]
		if shared <= c.SharedBytes {
			s.Shared.Bytes = c.SharedBytes
			s.L1D.Sets, s.L1D.Ways = c.L1DSets, c.L1DWays
			s.Shared.Carveouts = nil
			return s, &c
		}
	}
	return s, nil
}

// CacheSpec is an SM-private cache (L1 data, texture, constant).
type CacheSpec struct {
	Sets        int `yaml:"sets" json:"sets"`
	Ways        int `yaml:"ways" json:"ways"`
	LineBytes   int `yaml:"line_bytes" json:"line_bytes"`
	SectorBytes int `yaml:"sector_bytes" json:"sector_bytes"` // fill granularity (= LineBytes: not sectored)
	MSHRs       int `yaml:"mshrs" json:"mshrs"`               // outstanding missed lines
	Latency     int `yaml:"latency" json:"latency"`           // hit latency
	// PerCycle is how many distinct lines (tag lookups) the cache serves
	// per cycle; a warp access touching n lines occupies the LD/ST unit
	// ceil(n/PerCycle) cycles.
	PerCycle int `yaml:"per_cycle" json:"per_cycle"`
	// CachesGlobal (L1D only): global loads allocate in L1 (Fermi default;
	// ld.ca). When false, global loads bypass L1 (ld.cg) and only local
	// accesses are cached.
	CachesGlobal bool `yaml:"caches_global" json:"caches_global"`
	// Tile (texture only): texels per block-linear tile in X, Y and Z; a
	// tile is stored contiguously, so texels close in 2D/3D share lines.
	TileX int `yaml:"tile_x" json:"tile_x"`
	TileY int `yaml:"tile_y" json:"tile_y"`
	TileZ int `yaml:"tile_z" json:"tile_z"`
}

// Bytes is the capacity of the cache.
func (c CacheSpec) Bytes() int { return c.Sets * c.Ways * c.LineBytes }

// IcntSpec is the interconnect between SMs and L2 slices: a crossbar with
// one injection port per SM and per slice, FlitBytes per cycle each.
type IcntSpec struct {
	Latency   int `yaml:"latency" json:"latency"`       // one way, uncontended
	FlitBytes int `yaml:"flit_bytes" json:"flit_bytes"` // port bandwidth per cycle
	// HeaderBytes is the size of a request without data (address, command).
	HeaderBytes int `yaml:"header_bytes" json:"header_bytes"`
	// MissQueue is the depth of the SM's L1-miss / store queue in front of
	// its injection port; a full queue stalls the LD/ST unit (the stall
	// reason "interconnect").
	MissQueue int `yaml:"miss_queue" json:"miss_queue"`
}

// L2Spec is the shared L2: Slices slices, each a set-associative cache.
type L2Spec struct {
	Slices      int `yaml:"slices" json:"slices"`
	Sets        int `yaml:"sets" json:"sets"` // per slice
	Ways        int `yaml:"ways" json:"ways"`
	LineBytes   int `yaml:"line_bytes" json:"line_bytes"`
	SectorBytes int `yaml:"sector_bytes" json:"sector_bytes"`
	MSHRs       int `yaml:"mshrs" json:"mshrs"` // per slice
	// Latency is from a request's arrival at the slice to its data being
	// ready (hit), GPGPU-Sim's ROP latency plus the tag/data access.
	Latency int `yaml:"latency" json:"latency"`
	// InterleaveBytes is the address interleaving across slices.
	InterleaveBytes int `yaml:"interleave_bytes" json:"interleave_bytes"`
	// AtomicCycles is the ALU time per lane of an atomic at the slice.
	AtomicCycles int `yaml:"atomic_cycles" json:"atomic_cycles"`
}

// Bytes is the total L2 capacity.
func (l L2Spec) Bytes() int { return l.Slices * l.Sets * l.Ways * l.LineBytes }

// DRAMSpec is the device memory: Channels channels (memory controllers),
// each L2.Slices/Channels slices behind it.
type DRAMSpec struct {
	Channels  int     `yaml:"channels" json:"channels"`
	Banks     int     `yaml:"banks" json:"banks"` // per channel
	RowBytes  int     `yaml:"row_bytes" json:"row_bytes"`
	QueueSize int     `yaml:"queue_size" json:"queue_size"` // scheduler queue per channel
	Scheduler string  `yaml:"scheduler" json:"scheduler"`   // "frfcfs" or "fcfs"
	ClockMHz  float64 `yaml:"clock_mhz" json:"clock_mhz"`   // command clock; timings below count these
	// BytesPerClock is the data bytes one channel moves per command clock
	// (bus width x data rate: 64 bit GDDR5 QDR = 32).
	BytesPerClock int `yaml:"bytes_per_clock" json:"bytes_per_clock"`
	TRCD          int `yaml:"t_rcd" json:"t_rcd"` // activate to column command
	TRP           int `yaml:"t_rp" json:"t_rp"`   // precharge
	TCL           int `yaml:"t_cl" json:"t_cl"`   // column command to data
	TRAS          int `yaml:"t_ras" json:"t_ras"` // activate to precharge
	TCCD          int `yaml:"t_ccd" json:"t_ccd"` // column command to column command, same bank
	// Latency is a fixed pipeline latency (core cycles) added to every
	// DRAM access (controller, PHY, return path).
	Latency int `yaml:"latency" json:"latency"`
}

// Bandwidth is the peak DRAM bandwidth in bytes per second.
func (d DRAMSpec) Bandwidth() float64 {
	return float64(d.Channels*d.BytesPerClock) * d.ClockMHz * 1e6
}

// Lookahead is the least number of cycles between an SM sending a request
// to the memory side and any consequence of it reaching an SM again, and
// between a CTA slot freeing and the next CTA starting there. Epochs no
// longer than this make the parallel simulation exact (doc.go).
func (s *Spec) Lookahead() int {
	rtt := 2*s.Icnt.Latency + s.L2.Latency
	if s.SM.CTALaunchLatency < rtt {
		rtt = s.SM.CTALaunchLatency
	}
	return rtt
}

// Quantum is the epoch length the model uses.
func (s *Spec) Quantum() int {
	q := s.Lookahead()
	if s.QuantumCycles > 0 && s.QuantumCycles < q {
		q = s.QuantumCycles
	}
	if q < 1 {
		q = 1
	}
	return q
}

// FieldError is a Spec field with an invalid value.
type FieldError struct {
	Field string // YAML path, e.g. "l1d.ways"
	Msg   string
}

func (e *FieldError) Error() string { return "spec: " + e.Field + ": " + e.Msg }

// Validate reports the first invalid field of s as a *FieldError naming it
// by its YAML path.
func (s *Spec) Validate() error {
	var err error
	pos := func(field string, v int) {
		if err == nil && v <= 0 {
			err = &FieldError{field, fmt.Sprintf("must be > 0, got %d", v)}
		}
	}
	nonneg := func(field string, v int) {
		if err == nil && v < 0 {
			err = &FieldError{field, fmt.Sprintf("must be >= 0, got %d", v)}
		}
	}
	check := func(field string, ok bool, format string, args ...any) {
		if err == nil && !ok {
			err = &FieldError{field, fmt.Sprintf(format, args...)}
		}
	}
	check("name", s.Name != "", "must not be empty")
	check("core_mhz", s.CoreMHz > 0 && !math.IsInf(s.CoreMHz, 0), "must be > 0, got %v", s.CoreMHz)
	pos("num_sms", s.NumSMs)
	pos("global_timer_ns", s.GlobalTimerNs)
	nonneg("device_launch_ns", s.DeviceLaunchNs)
	nonneg("quantum_cycles", s.QuantumCycles)

	sm := &s.SM
	pos("sm.max_threads", sm.MaxThreads)
	pos("sm.max_warps", sm.MaxWarps)
	pos("sm.max_ctas", sm.MaxCTAs)
	pos("sm.registers", sm.Registers)
	pos("sm.reg_alloc_unit", sm.RegAllocUnit)
	pos("sm.shared_alloc_unit", sm.SharedAllocUnit)
	pos("sm.cta_launch_latency", sm.CTALaunchLatency)
	pos("sm.schedulers", sm.Schedulers)
	check("sm.scheduler", sm.Scheduler == LRR || sm.Scheduler == GTO || sm.Scheduler == TwoLevel,
		"must be lrr, gto or two-level, got %q", string(sm.Scheduler))
	if sm.Scheduler == TwoLevel {
		pos("sm.two_level_active", sm.TwoLevelActive)
	}
	check("sm.cta_sms", sm.CTASMs >= 0 && sm.CTASMs <= s.NumSMs, "must be 0 … num_sms (%d), got %d", s.NumSMs, sm.CTASMs)
	check("sm.cta_placement", sm.CTAPlacement == "" || sm.CTAPlacement == "consolidate",
		"must be empty (round robin) or consolidate, got %q", sm.CTAPlacement)
	nonneg("sm.barrier_latency", sm.BarrierLatency)
	nonneg("sm.fence_latency", sm.FenceLatency)
	for i, u := range sm.Units.list() {
		name := "sm.units." + unitNames[i]
		nonneg(name+".count", u.Count)
		if u.Count > 0 {
			pos(name+".lanes", u.Lanes)
			pos(name+".clock_mul", u.ClockMul)
			check(name+".count", !sm.Partitioned || u.Count%sm.Schedulers == 0 || u.Count < sm.Schedulers,
				"%d instances cannot be partitioned among %d schedulers", u.Count, sm.Schedulers)
		}
	}
	units := sm.Units.list()
	for c := Class(0); c < NumClasses; c++ {
		cs := sm.Classes.of(c)
		name := "sm.classes." + classNames[c]
		u := unitIndex(cs.Unit)
		check(name+".unit", u >= 0, "unknown unit %q (want one of %s)", cs.Unit, strings.Join(unitNames[:], ", "))
		if u >= 0 {
			check(name+".unit", units[u].Count > 0, "unit %q has no instances (sm.units.%s.count is 0)", cs.Unit, cs.Unit)
		}
		pos(name+".latency", cs.Latency)
		pos(name+".interval", cs.Interval)
	}
	check("sm.classes.ldst.unit", sm.Classes.LdSt.Unit == "ldst", "must be ldst")

	sh := &s.Shared
	pos("shared.bytes", sh.Bytes)
	pos("shared.banks", sh.Banks)
	check("shared.banks", sh.Banks <= 64, "must be at most 64, got %d", sh.Banks)
	pos("shared.bank_bytes", sh.BankBytes)
	pos("shared.latency", sh.Latency)
	pos("shared.cycles_per_way", sh.CyclesPerWay)
	prev := 0
	for i, c := range sh.Carveouts {
		name := fmt.Sprintf("shared.carveouts[%d]", i)
		check(name+".shared_bytes", c.SharedBytes > prev, "must be above %d (the carveouts are in increasing shared_bytes), got %d", prev, c.SharedBytes)
		pos(name+".l1d_sets", c.L1DSets)
		pos(name+".l1d_ways", c.L1DWays)
		prev = c.SharedBytes
	}

	for _, c := range []struct {
		name string
		c    *CacheSpec
	}{{"l1d", &s.L1D}, {"tex", &s.Tex}, {"const", &s.Const}} {
		s.validateCache(c.name, c.c, check, pos)
	}
	pos("tex.tile_x", s.Tex.TileX)
	pos("tex.tile_y", s.Tex.TileY)
	pos("tex.tile_z", s.Tex.TileZ)

	pos("icnt.latency", s.Icnt.Latency)
	pos("icnt.flit_bytes", s.Icnt.FlitBytes)
	pos("icnt.header_bytes", s.Icnt.HeaderBytes)
	pos("icnt.miss_queue", s.Icnt.MissQueue)

	l2 := &s.L2
	pos("l2.slices", l2.Slices)
	pos("l2.sets", l2.Sets)
	pos("l2.ways", l2.Ways)
	pos("l2.line_bytes", l2.LineBytes)
	pos("l2.sector_bytes", l2.SectorBytes)
	check("l2.line_bytes", l2.LineBytes <= 0 || (isPow2(l2.LineBytes) && l2.LineBytes >= 32 && l2.LineBytes <= 1024),
		"must be a power of two from 32 to 1024, got %d", l2.LineBytes)
	check("l2.sector_bytes", l2.SectorBytes <= 0 || (isPow2(l2.SectorBytes) && l2.SectorBytes >= 32 && l2.SectorBytes <= l2.LineBytes),
		"must be a power of two from 32 to line_bytes, got %d", l2.SectorBytes)
	pos("l2.mshrs", l2.MSHRs)
	pos("l2.latency", l2.Latency)
	pos("l2.interleave_bytes", l2.InterleaveBytes)
	pos("l2.atomic_cycles", l2.AtomicCycles)

	d := &s.DRAM
	pos("dram.channels", d.Channels)
	check("dram.channels", d.Channels <= 0 || l2.Slices <= 0 || l2.Slices%d.Channels == 0,
		"l2.slices (%d) must be a multiple of dram.channels (%d)", l2.Slices, d.Channels)
	pos("dram.banks", d.Banks)
	pos("dram.row_bytes", d.RowBytes)
	pos("dram.queue_size", d.QueueSize)
	check("dram.scheduler", d.Scheduler == "frfcfs" || d.Scheduler == "fcfs", "must be frfcfs or fcfs, got %q", d.Scheduler)
	check("dram.clock_mhz", d.ClockMHz > 0 && !math.IsInf(d.ClockMHz, 0), "must be > 0, got %v", d.ClockMHz)
	pos("dram.bytes_per_clock", d.BytesPerClock)
	nonneg("dram.t_rcd", d.TRCD)
	nonneg("dram.t_rp", d.TRP)
	nonneg("dram.t_cl", d.TCL)
	nonneg("dram.t_ras", d.TRAS)
	pos("dram.t_ccd", d.TCCD)
	nonneg("dram.latency", d.Latency)
	if err == nil {
		err = s.checkLimits() // physical ranges (limits.go)
	}
	return err
}

func (s *Spec) validateCache(name string, c *CacheSpec, check func(string, bool, string, ...any), pos func(string, int)) {
	pos(name+".sets", c.Sets)
	pos(name+".ways", c.Ways)
	pos(name+".line_bytes", c.LineBytes)
	pos(name+".sector_bytes", c.SectorBytes)
	check(name+".line_bytes", c.LineBytes <= 0 || (isPow2(c.LineBytes) && c.LineBytes >= 32 && c.LineBytes <= 1024),
		"must be a power of two from 32 to 1024, got %d", c.LineBytes)
	check(name+".sector_bytes", c.SectorBytes <= 0 || (isPow2(c.SectorBytes) && c.SectorBytes >= 32 && c.SectorBytes <= c.LineBytes),
		"must be a power of two from 32 to line_bytes, got %d", c.SectorBytes)
	pos(name+".mshrs", c.MSHRs)
	pos(name+".latency", c.Latency)
	pos(name+".per_cycle", c.PerCycle)
}

func isPow2(v int) bool { return v > 0 && v&(v-1) == 0 }

// UnitKind is a kind of SIMD execution unit of an SM: a field of Units, and
// the names ClassSpec.Unit uses.
type UnitKind uint8

// Unit kinds.
const (
	UnitSP     UnitKind = iota // single-precision / general ALU lanes ("sp")
	UnitINT                    // integer ALU lanes ("int")
	UnitDP                     // double precision ("dp")
	UnitSFU                    // special function unit ("sfu")
	UnitTensor                 // tensor core ("tensor")
	UnitLdSt                   // load/store unit, address generation ("ldst")
	UnitBranch                 // branch unit ("branch")
	NumUnitKinds
)

var unitNames = [NumUnitKinds]string{"sp", "int", "dp", "sfu", "tensor", "ldst", "branch"}

// String returns the unit's name as in Spec files.
func (k UnitKind) String() string {
	if k < NumUnitKinds {
		return unitNames[k]
	}
	return fmt.Sprintf("UnitKind(%d)", int(k))
}

func unitIndex(name string) int {
	for i, n := range unitNames {
		if n == name {
			return i
		}
	}
	return -1
}

func (u *Units) list() [NumUnitKinds]UnitSpec {
	return [NumUnitKinds]UnitSpec{u.SP, u.INT, u.DP, u.SFU, u.Tensor, u.LdSt, u.Branch}
}

var classNames = [NumClasses]string{"int", "fp32", "fp64", "sfu", "conv", "tensor", "ldst", "branch", "barrier", "fence", "warp_sync", "misc"}

// String returns the class name used in Spec files.
func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

func (c *Classes) of(cl Class) ClassSpec {
	switch cl {
	case ClassInt:
		return c.Int
	case ClassFP32:
		return c.FP32
	case ClassFP64:
		return c.FP64
	case ClassSFU:
		return c.SFU
	case ClassConv:
		return c.Conv
	case ClassTensor:
		return c.Tensor
	case ClassLdSt:
		return c.LdSt
	case ClassBranch:
		return c.Branch
	case ClassBarrier:
		return c.Barrier
	case ClassFence:
		return c.Fence
	case ClassWarpSync:
		return c.WarpSync
	default:
		return c.Misc
	}
}
