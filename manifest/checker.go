package manifest

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// Checker checks a manifest's kernels one at a time, in order, and then
// its other fields (Err): the checks of Validate, which runs one, with
// the same errors in the same order, for a writer that encodes the
// kernels as it makes them and never holds the whole manifest. It keeps
// per probe id, region and kernel name a few integers (no pointers), not
// the kernels.
type Checker struct {
	errs    []error
	kernels map[string]int32 // name → index
	names   []string         // by index
	ids     denseMap[int32]  // probe id → index of the kernel that listed it first
	// fprobes: a function probe's function, region and kind, for its
	// listings under other kernels.
	fprobes map[uint32]fprobe
	regions denseMap[regionInfo]
	order   []int    // regions in order of first appearance
	kinds   []string // region kinds by index (regionInfo.kind)
}

type fprobe struct {
	function, kind string
	region         int
}

type regionInfo struct {
	kernel, kind int32
	begins, ends int32
}

// NewChecker returns a Checker that has seen no kernel.
func NewChecker() *Checker {
	return &Checker{kernels: map[string]int32{}, fprobes: map[uint32]fprobe{}}
}

func (c *Checker) bad(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("manifest: "+format, args...))
}

func (c *Checker) kind(s string) int32 {
	for i, k := range c.kinds {
		if k == s {
			return int32(i)
		}
	}
	c.kinds = append(c.kinds, s)
	return int32(len(c.kinds) - 1)
}

// Kernel checks the next kernel k against itself and the kernels before
// it. The Checker does not keep k.
func (c *Checker) Kernel(k *Kernel) {
	ki := len(c.names)
	c.names = append(c.names, k.Name)
	if k.Name == "" {
		c.bad("kernel %d has no name", ki)
	}
	if _, dup := c.kernels[k.Name]; dup {
		c.bad("kernel %q listed twice", k.Name)
	} else {
		c.kernels[k.Name] = int32(ki)
	}
	for _, p := range k.ParamsAdded {
		if p.Name == "" || p.Type == "" {
			c.bad("kernel %q: added parameter %d has no name or type", k.Name, p.Index)
		}
	}
	switch k.Staging.Where {
	case StagingShared, StagingGlobal, StagingDynamic:
	case StagingNone:
		if len(k.ParamsAdded) > 0 || len(k.Probes) > 0 {
			c.bad("kernel %q: staging none but %d added parameters and %d probes", k.Name, len(k.ParamsAdded), len(k.Probes))
		}
	default:
		c.bad("kernel %q: unknown staging %q", k.Name, k.Staging.Where)
	}
	var one [1]int
	for pi := range k.Probes {
		p := &k.Probes[pi]
		if prev, dup := c.ids.get(int64(p.ID)); dup {
			// A function's probe listed under another kernel (the
			// kernel a name stands for is the first of that name).
			if p.Function == "" || c.fprobes[p.ID] != (fprobe{p.Function, p.Kind, p.Region}) || c.names[prev] == k.Name {
				c.bad("probe id %d used twice (kernels %q and %q)", p.ID, c.names[prev], k.Name)
			}
			continue
		}
		c.ids.put(int64(p.ID), int32(ki))
		if p.Function != "" {
			c.fprobes[p.ID] = fprobe{p.Function, p.Kind, p.Region}
		}
		if p.Kernel != k.Name {
			c.bad("probe %d: kernel %q but listed under %q", p.ID, p.Kernel, k.Name)
		}
		switch p.Mode {
		case ModeNaive, ModeFence, ModeDummy, ModeWaitGroup, ModeMbarrier, ModeGroupSeq, ModePhaseSeq:
		default:
			c.bad("probe %d: mode %q (want naive, fence, dummy, wait_group, mbarrier, group_seq or phase_seq)", p.ID, p.Mode)
		}
		if len(p.Closes) > 0 && (p.Mode != ModeGroupSeq && p.Mode != ModePhaseSeq || p.Kind != KindEnd || p.Closes[0] != p.Region) {
			c.bad("probe %d: closes is for end probes of mode group_seq or phase_seq whose region is its first entry", p.ID)
		}
		if p.RegionKind != RegionLoad && p.RegionKind != RegionUser {
			c.bad("probe %d: unknown region kind %q", p.ID, p.RegionKind)
		}
		rids := p.Closes
		if len(rids) == 0 {
			one[0] = p.Region
			rids = one[:]
		}
		kind := c.kind(p.RegionKind)
		for _, rid := range rids {
			r, ok := c.regions.get(int64(rid))
			if !ok {
				// The kernel of a region is its kernel's first index:
				// two kernels of one name are one kernel here.
				r = regionInfo{kernel: c.kernels[k.Name], kind: kind}
				c.order = append(c.order, rid)
			} else if c.names[r.kernel] != k.Name || r.kind != kind {
				c.bad("region %d: probes in different kernels or of different kinds", rid)
			}
			switch p.Kind {
			case KindBegin:
				r.begins++
			case KindEnd:
				r.ends++
			default:
				c.bad("probe %d: unknown kind %q", p.ID, p.Kind)
			}
			c.regions.put(int64(rid), r)
		}
	}
}

// Err checks m's fields other than its kernels (m.Kernels is not read)
// and returns every error found, m's first, then those of the kernels
// given to Kernel, then those of their regions: Validate's error.
func (c *Checker) Err(m *Manifest) error {
	if err := checkVersion(m.Version); err != nil {
		return err // alone: the other fields may mean something else
	}
	errs := headErrs(m)
	errs = append(errs, c.errs...)
	for _, id := range c.order {
		r, _ := c.regions.get(int64(id))
		if r.begins != 1 || r.ends < 1 {
			errs = append(errs, fmt.Errorf("manifest: region %d: %d begin and %d end probes (want 1 and ≥1)", id, r.begins, r.ends))
		}
	}
	return errors.Join(errs...)
}

// headErrs checks the fields of m other than its kernels.
func headErrs(m *Manifest) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("manifest: "+format, args...))
	}
	if id, err := hex.DecodeString(m.InstrumentationID); err != nil || len(id) != 8 {
		bad("instrumentation_id %q is not 16 hex digits", m.InstrumentationID)
	}
	if m.InputSHA256 != "" {
		if h, err := hex.DecodeString(m.InputSHA256); err != nil || len(h) != 32 {
			bad("input_sha256 %q is not 64 hex digits", m.InputSHA256)
		}
	}
	if m.AddressSize != 32 && m.AddressSize != 64 {
		bad("address_size %d is not 32 or 64", m.AddressSize)
	}
	switch m.Mode {
	case ModeNaive, ModeFence, ModeDummy, ModeAuto:
	default:
		bad("unknown mode %q", m.Mode)
	}
	code := TimerCode(m.Timer)
	if code < 0 {
		bad("unknown timer %q", m.Timer)
	}
	b := m.Buffer
	if b.LayoutVersion != LayoutVersion {
		bad("buffer layout version %d is not supported (want %d)", b.LayoutVersion, LayoutVersion)
	}
	if b.HeaderBytes != HeaderBytes || b.SegmentHeaderBytes != SegmentHeaderBytes || b.RecordBytes != RecordBytes {
		bad("buffer layout %d/%d/%d bytes (header/segment header/record) does not match layout 1 (%d/%d/%d)",
			b.HeaderBytes, b.SegmentHeaderBytes, b.RecordBytes, HeaderBytes, SegmentHeaderBytes, RecordBytes)
	}
	if b.RecordsPerWarp <= 0 {
		bad("buffer records_per_warp %d must be positive", b.RecordsPerWarp)
	} else if b.SegmentBytes != SegmentHeaderBytes+b.RecordsPerWarp*RecordBytes {
		bad("buffer segment_bytes %d != %d + %d×%d", b.SegmentBytes, SegmentHeaderBytes, b.RecordsPerWarp, RecordBytes)
	}
	if code >= 0 && b.TimerCode != code {
		bad("buffer timer_code %d does not match timer %q (%d)", b.TimerCode, m.Timer, code)
	}
	return errs
}
