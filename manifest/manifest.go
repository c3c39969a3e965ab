package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Version is the manifest format version this package writes.
const Version = "1.1"

// VersionGroupSeq is the version of a manifest with run-time paired
// asynchronous copies (ModeGroupSeq probes, Probe.Closes): written only when
// the module has such probes, so that other manifests stay as they were.
const VersionGroupSeq = "1.2"

// VersionPhaseSeq is the version of a manifest with run-time paired TMA and
// bulk copies (ModePhaseSeq probes): written only when the module has such
// probes. A reader of 1.2 refuses their mode rather than misread the tags.
const VersionPhaseSeq = "1.3"

// Major is the major version this package reads.
const Major = 1

// Layout constants of buffer layout version 1 (docs/buffer.md).
const (
	HeaderBytes        = 64
	SegmentHeaderBytes = 32
	RecordBytes        = 16
	LayoutVersion      = 1
)

// Timer names (Manifest.Timer) and their buffer-header codes.
const (
	TimerClock       = "clock"
	TimerClock64     = "clock64"
	TimerGlobaltimer = "globaltimer"
)

// TimerCode returns the buffer-header timer code of a timer name
// (docs/buffer.md: 0 clock, 1 clock64, 2 globaltimer), or -1.
func TimerCode(name string) int {
	switch name {
	case TimerClock:
		return 0
	case TimerClock64:
		return 1
	case TimerGlobaltimer:
		return 2
	}
	return -1
}

// Modes (Manifest.Mode, Probe.Mode).
const (
	ModeNaive = "naive"
	ModeFence = "fence"
	ModeDummy = "dummy"
	ModeAuto  = "auto" // only on Manifest.Mode; every probe has a concrete mode
	// Probe modes of asynchronous copies (Probe.Mode only): the end timer
	// read follows the program's own wait for the copy — the
	// cp.async.wait_group/wait_all that covers a cp.async (ModeWaitGroup),
	// or the exit of the mbarrier try_wait/test_wait loop a TMA or bulk
	// copy signals (ModeMbarrier).
	ModeWaitGroup = "wait_group"
	ModeMbarrier  = "mbarrier"
	// ModeGroupSeq (version 1.2): a cp.async whose covering wait is not in
	// straight-line code after it (a multi-stage pipeline), paired at run
	// time. Its begin record (at the copy) carries in the record's sink word
	// the thread's count of cp.async.commit_group executed so far (the
	// copy's group g); an end record (at every cp.async.wait_group N /
	// wait_all of the kernel) carries the count k of groups the wait has
	// completed (commits − N, or commits + 1 for wait_all). The decoder
	// closes every open instance with g < k at the first such end record
	// (docs/buffer.md, "Run-time pairing"). An end probe of this mode
	// lists in Closes every region it may close.
	ModeGroupSeq = "group_seq"
	// ModePhaseSeq (version 1.3): a TMA or bulk copy (mbarrier
	// complete_tx) whose wait loop is not in straight-line code after it,
	// paired at run time. Its begin record carries in the sink word the
	// 32-bit shared address of the copy's mbarrier; an end record (at the
	// exit of every mbarrier try_wait/test_wait .parity loop of the
	// kernel) carries the barrier's address with the waited parity in bit
	// 0. Per warp, the decoder closes each open copy at the first later
	// wait on its barrier whose parity is that of the phase following the
	// last one the warp observed complete on the barrier when the copy
	// issued (docs/buffer.md, "Run-time pairing"). An end probe of this
	// mode lists in Closes every region it may close.
	ModePhaseSeq = "phase_seq"
)

// Probe kinds.
const (
	KindBegin = "begin"
	KindEnd   = "end"
)

// Region kinds.
const (
	RegionLoad = "load" // one probed memory access
	RegionUser = "user" // a --region BEGIN:END given by the user
)

// Staging choices (Staging.Where).
const (
	StagingShared = "shared"
	StagingGlobal = "global"
	StagingNone   = "none" // a kernel without probes (version 1.1): unchanged, no added parameters
	// StagingDynamic (version 1.1): records are staged in dynamic shared
	// memory when the host passes a non-zero __pt_stage_recs, sized per
	// launch (instrument.PlanStaging), else in the global segment.
	StagingDynamic = "dynamic"
)

// Host values of added parameters (Param.Host).
const (
	HostTraceBuffer = "trace buffer device pointer"
	HostZero        = "0"
	// Staging parameters (version 1.1), from instrument.PlanStaging.
	HostStageOffset  = "staging offset: the launch's own dynamic shared bytes rounded up to 16"
	HostStageRecords = "staging records per warp (0 = global staging)"
)

// Manifest describes one instrumented PTX module.
type Manifest struct {
	Version           string   `json:"version"`            // manifest format, "MAJOR.MINOR"
	Tool              string   `json:"tool"`               // ptxtrace version that wrote it
	Input             string   `json:"input"`              // input file name as given
	InputSHA256       string   `json:"input_sha256"`       // hex
	Output            string   `json:"output,omitempty"`   // output file name as given
	InstrumentationID string   `json:"instrumentation_id"` // hex of first 8 bytes of SHA-256(output PTX)
	Target            string   `json:"target"`             // e.g. "sm_80" (the .target's first arch)
	AddressSize       int      `json:"address_size"`       // 32 or 64
	Mode              string   `json:"mode"`               // naive, fence, dummy, auto
	Timer             string   `json:"timer"`              // clock, clock64, globaltimer
	Fence             string   `json:"fence,omitempty"`    // the fence instruction used, e.g. "fence.acq_rel.cta"
	Buffer            Buffer   `json:"buffer"`
	Kernels           []Kernel `json:"kernels"`
}

// Buffer is the raw-buffer layout (docs/buffer.md) shared by every kernel.
type Buffer struct {
	LayoutVersion      int `json:"layout_version"`
	HeaderBytes        int `json:"header_bytes"`
	SegmentHeaderBytes int `json:"segment_header_bytes"`
	RecordBytes        int `json:"record_bytes"`
	RecordsPerWarp     int `json:"records_per_warp"`
	SegmentBytes       int `json:"segment_bytes"` // SegmentHeaderBytes + RecordsPerWarp*RecordBytes
	TimerCode          int `json:"timer_code"`    // header field at offset 32
}

// Kernel is one instrumented .entry.
type Kernel struct {
	Name        string  `json:"name"`
	ParamsAdded []Param `json:"params_added"`
	// WarpsPerCTA is ⌈threads per CTA / 32⌉ when .reqntid fixes it, else 0
	// (the host computes it from the launch configuration).
	WarpsPerCTA int     `json:"warps_per_cta,omitempty"`
	Staging     Staging `json:"staging"`
	// MaxNReg is the .maxnreg bound instrumentation added to the kernel so
	// that it keeps the original's occupancy (ptxas spills the probes'
	// registers instead), 0 when none was added (register count unknown,
	// or the kernel has launch bounds of its own).
	MaxNReg int     `json:"max_nreg,omitempty"`
	Probes  []Probe `json:"probes"`
}

// Param is a parameter appended to a kernel's parameter list.
type Param struct {
	Index int    `json:"index"` // position in the instrumented kernel's parameter list (0-based)
	Name  string `json:"name"`
	Type  string `json:"type"` // PTX type, e.g. ".u64"
	Host  string `json:"host"` // what the host passes: HostTraceBuffer or HostZero
}

// Staging is the decision where a kernel's records are staged.
type Staging struct {
	Where            string  `json:"where"`     // shared or global
	Requested        string  `json:"requested"` // auto, shared or global
	Reason           string  `json:"reason,omitempty"`
	SharedBytesAdded int     `json:"shared_bytes_added"` // per CTA, 0 for global
	RegsPerThread    int     `json:"regs_per_thread,omitempty"`
	RegsSource       string  `json:"regs_source,omitempty"` // "ptxas", "flag", "default"
	ThreadsPerBlock  int     `json:"threads_per_block,omitempty"`
	BlockSource      string  `json:"block_source,omitempty"`      // "reqntid", "maxntid", "flag", "default"
	SharedBytesBase  int     `json:"shared_bytes_base,omitempty"` // static .shared of the kernel
	OccupancyBefore  float64 `json:"occupancy_before,omitempty"`  // active warps / max warps per SM
	OccupancyAfter   float64 `json:"occupancy_after,omitempty"`
	WarpsBefore      int     `json:"active_warps_before,omitempty"`
	WarpsAfter       int     `json:"active_warps_after,omitempty"`
}

// Probe is one clock read inserted into the program.
type Probe struct {
	ID         uint32 `json:"id"` // unique in the module
	Kernel     string `json:"kernel"`
	Kind       string `json:"kind"`   // begin or end
	Region     int    `json:"region"` // region id, unique in the module
	RegionKind string `json:"region_kind"`
	Mode       string `json:"mode"`            // naive, fence, dummy, wait_group or mbarrier (never auto)
	Space      string `json:"space,omitempty"` // state space of the access: global, shared, local, const, param, tex, generic; "" for user regions
	// Line and Text locate the probed access (load regions) or the region
	// boundary (user regions) in the INPUT file.
	Line int    `json:"line"`
	Text string `json:"text,omitempty"`
	// OutLine is the line of the probed access in the OUTPUT file (load
	// regions; for user regions the line of the instruction the probe is
	// next to), so a replay can mark it for ground truth.
	OutLine int `json:"out_line"`
	// Function is the .func holding the access (version 1.1), "" in the
	// kernel itself. A function's probes are listed under every kernel
	// that reaches it, with the same id and region.
	Function string `json:"function,omitempty"`
	// Closes (version 1.2, end probes of mode group_seq) lists the regions
	// whose instances a record of this probe may close: the kernel's
	// run-time paired copies. Region is the first of them.
	Closes []int `json:"closes,omitempty"`
	// Source position from the nearest preceding .loc, if any.
	LocFile string `json:"loc_file,omitempty"`
	LocLine int    `json:"loc_line,omitempty"`
	LocCol  int    `json:"loc_col,omitempty"`
}

// Read decodes and validates a manifest.
func Read(r io.Reader) (*Manifest, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	// Check the version before the full decode so that a future major
	// version with different field types gets the clear message.
	var head struct {
		Version *string `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if head.Version == nil {
		return nil, errors.New("manifest: no \"version\" field (not a ptxtrace probe manifest?)")
	}
	if err := checkVersion(*head.Version); err != nil {
		return nil, err
	}
	m := new(Manifest)
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Write encodes m as indented JSON. It does not validate m.
func (m *Manifest) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

func checkVersion(v string) error {
	majorStr, _, _ := strings.Cut(v, ".")
	major, err := strconv.Atoi(majorStr)
	if err != nil || major < 0 {
		return fmt.Errorf("manifest: malformed version %q (want MAJOR.MINOR)", v)
	}
	if major != Major {
		return fmt.Errorf("manifest: version %s is not supported: this ptxtrace reads major version %d (re-instrument with a matching ptxtrace)", v, Major)
	}
	return nil
}

// Validate checks the invariants listed in the package documentation.
func (m *Manifest) Validate() error {
	c := NewChecker()
	for ki := range m.Kernels {
		c.Kernel(&m.Kernels[ki])
	}
	return c.Err(m)
}

// ProbeByID returns the probe with the given id and its kernel, or nil.
func (m *Manifest) ProbeByID(id uint32) (*Probe, *Kernel) {
	for ki := range m.Kernels {
		k := &m.Kernels[ki]
		for pi := range k.Probes {
			if k.Probes[pi].ID == id {
				return &k.Probes[pi], k
			}
		}
	}
	return nil, nil
}

// Kernel returns the kernel with the given name, or nil.
func (m *Manifest) Kernel(name string) *Kernel {
	for ki := range m.Kernels {
		if m.Kernels[ki].Name == name {
			return &m.Kernels[ki]
		}
	}
	return nil
}
