package model

// This file is the observation seam: events a simulation reports to
// attached Observers (power-gating analyses, utilisation timelines,
// memory-level traces). Nothing here changes what the model computes.
//
// # Where and when observers are called
//
// Options.Observe attaches observers per part of the GPU: Run calls it once
// for every SM (part = 0 .. NumSMs-1) and once for the memory side (part =
// MemorySide), on the goroutine that called Run, before the first cycle.
// A part whose call returns nil has nothing attached and pays nothing: the
// model tests one nil interface per event site.
//
//   - An SM's observer receives IssueEvent, UnitBusy, Stall, CTAStart,
//     CTAFinish and the MemEvents of the SM's own caches and shared memory
//     (levels LevelShared, LevelL1, LevelTex, LevelConst). It is called on the
//     goroutine simulating that SM, in the SM's parallel phase; its calls
//     are sequential. Issue, UnitBusy and CTA events come in cycle order,
//     Stall events in cycle order per scheduler; MemEvents come in the
//     order the SM performs them (a lookup's Issue cycle may lie a few
//     cycles ahead of the SM's clock: the memory pipeline is timed ahead).
//     Different SMs' observers may be called concurrently (with
//     Options.Workers > 1 and a ConcurrentKernel), so they must not share
//     unsynchronised state; the same observer value returned for two parts
//     must be safe for that.
//   - The memory side's observer receives the MemEvents of the L2 slices
//     and DRAM channels (LevelL2, LevelDRAM). It is called in the serial phase
//     at each epoch boundary, while no SM runs (possibly on a worker
//     goroutine, never concurrently with an SM's observer), in the memory
//     side's event order: by time, ties in creation order.
//
// The events each observer receives, and their order, are therefore the
// same whatever Options.Workers and GOMAXPROCS are: they depend only on the
// simulated timing, which is deterministic. Events of different parts
// interleave by epoch, not by cycle: the memory side reports events up to
// Icnt.Latency past the epoch boundary before the SMs simulate the next
// epoch. Merge several parts' events by their cycle fields when a global
// order is needed. Every call has returned when Run returns.
//
// Observers must not call back into the model or the Warp they are told
// about, and must not modify an event's Inst.

// MemorySide is the part number of the memory side in Options.Observe.
const MemorySide = -1

// Observer receives a simulation's events. Embed BaseObserver to implement
// only some methods. Events are passed by value; an event's Inst pointer is
// the kernel's, read-only.
type Observer interface {
	// Issue is called for every issued warp-instruction (unless the
	// observer declines it, see IssueFilter).
	Issue(IssueEvent)
	// UnitBusy is called when an issue occupies an execution-unit instance
	// (one call per Issue, with the same interval).
	UnitBusy(UnitEvent)
	// Stall is called for scheduler-cycles in which a scheduler of an SM
	// with resident CTAs issued nothing. Summed over events, To-From per
	// reason equals Result.Stalls. Cycles in which an SM has no resident
	// CTA are not reported (see CTAStart, CTAFinish).
	Stall(StallEvent)
	// CTAStart is called when a CTA becomes resident and its warps can
	// issue; CTAFinish when its last warp retired (exited with its memory
	// operations complete) and its resources are freed.
	CTAStart(CTAEvent)
	CTAFinish(CTAEvent)
	// Mem is called for memory accesses at each level (see MemEvent).
	Mem(MemEvent)
}

// MemFilter is an optional interface of an Observer: when ObservesMem
// returns false the model does not build or send the SM's Mem events (an
// observer that ignores them saves their cost; every other event is sent
// as before).
type MemFilter interface {
	ObservesMem() bool
}

// IssueFilter is an optional interface of an Observer: when
// ObservesIssue returns false the model does not build or send the SM's
// IssueEvents, so each issue costs one call (UnitBusy, which carries the
// issue's cycle, unit instance and active lanes) instead of two. Every
// other event is sent as before.
type IssueFilter interface {
	ObservesIssue() bool
}

// BaseObserver ignores every event.
type BaseObserver struct{}

func (BaseObserver) Issue(IssueEvent)   {}
func (BaseObserver) UnitBusy(UnitEvent) {}
func (BaseObserver) Stall(StallEvent)   {}
func (BaseObserver) CTAStart(CTAEvent)  {}
func (BaseObserver) CTAFinish(CTAEvent) {}
func (BaseObserver) Mem(MemEvent)       {}

// IssueEvent is one issued warp-instruction.
type IssueEvent struct {
	SM, Sched int // SM and its warp scheduler that issued
	Slot      int // hardware warp slot in the SM
	CTA, Warp int // linear CTA id and the warp's index within its CTA
	Inst      *Inst
	Cycle     Time // issue cycle
	// Active is the lanes that executed (guard and divergence applied); 0
	// for a predicated-off instruction, which still occupies its unit.
	Active uint32
	// Unit and UnitIndex name the execution-unit instance the instruction
	// occupies for Busy cycles from Cycle (see UnitBusy).
	Unit      UnitKind
	UnitIndex int
	Busy      Time
}

// UnitEvent is an execution-unit instance busy in [From, To).
type UnitEvent struct {
	SM     int
	Unit   UnitKind
	Index  int // instance within its kind, 0 .. count-1
	Sched  int // owning scheduler of a partitioned SM, else -1 (shared)
	From   Time
	To     Time
	Active uint32 // the lanes that use it
	// Split: the instance ran the warp as two half-warps on the lower half
	// of its lanes, taking twice its occupancy (IssueQueue.SplitUnit).
	Split bool
}

// StallEvent is scheduler Sched of an SM issuing nothing in cycles
// [From, To) because of Reason (its most nearly ready warp's).
type StallEvent struct {
	SM, Sched int
	From, To  Time
	Reason    StallReason
}

// CTAEvent is a CTA starting or finishing on an SM at Cycle.
type CTAEvent struct {
	SM, CTA int
	Warps   int // warps of the CTA
	Cycle   Time
}

// MemLevel is a level of the memory hierarchy.
type MemLevel uint8

// Memory levels.
const (
	LevelShared MemLevel = iota // shared memory of an SM
	LevelL1                     // L1 data cache of an SM (global, local, surface loads)
	LevelTex                    // texture cache of an SM
	LevelConst                  // constant cache of an SM (constant and parameter space)
	LevelL2                     // an L2 slice
	LevelDRAM                   // a DRAM channel
	NumMemLevels
)

var memLevelNames = [NumMemLevels]string{"shared", "l1", "tex", "const", "l2", "dram"}

func (l MemLevel) String() string {
	if l < NumMemLevels {
		return memLevelNames[l]
	}
	return "MemLevel(?)"
}

// MemOutcome is what one access did at its level.
type MemOutcome uint8

// Outcomes.
const (
	// Hit: every sector was present (DRAM: a row-buffer hit; shared: every
	// access). Complete is when the data is there.
	Hit MemOutcome = iota
	// Miss: a sector was absent; a fill was requested (DRAM: the row had
	// to be opened). Complete is unknown (0) at a cache, known at DRAM.
	Miss
	// Merged: the missing sectors were already being fetched (MSHR hit).
	Merged
	// Fill: the data of an earlier Miss arrived at the level. Issue is the
	// time of the first miss on that MSHR, Complete the arrival.
	Fill
	// Write: a store or atomic performed at L2 (write-allocate; no fill).
	Write
)

var outcomeNames = [...]string{"hit", "miss", "merged", "fill", "write"}

func (o MemOutcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "MemOutcome(?)"
}

// MemEvent is one line-sized access (one tag lookup) at a level, a fill,
// or a DRAM transfer. Stores, atomics and ld.cg loads pass an SM's L1
// without a lookup event and are reported at L2.
type MemEvent struct {
	Level   MemLevel
	Outcome MemOutcome
	// SM is the requesting SM; -1 for DRAM transfers (an L2 fill or a
	// dirty write-back may serve several SMs or none).
	SM    int
	Write bool   // a store or atomic (DRAM: a write-back)
	Addr  uint64 // line address at the level (DRAM: the L2 line)
	// Issue is the cycle of the lookup (DRAM: the request's arrival in the
	// channel queue); Complete as the Outcome says (DRAM: the last data
	// cycle, plus DRAM.Latency for reads). Shared: Issue is the cycle the
	// access enters the pipeline, Complete the data's, and Addr is 0.
	Issue, Complete Time
	// Ways is the bank-conflict degree of a shared-memory access (1 =
	// conflict-free), else 0.
	Ways int
}
