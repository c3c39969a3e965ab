package instrument

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Defaults.
const (
	DefaultCapacity = 64  // records per warp
	DefaultBlock    = 256 // threads per block assumed when the kernel does not say
	MaxCapacity     = 1 << 20
)

// Modes are the probe modes Options.Mode accepts. Each call returns a new
// slice: the lists are constants of the package, not shared state.
func Modes() []string { return []string{"naive", "fence", "dummy", "auto"} }

// Timers are the timer registers Options.Timer accepts.
func Timers() []string { return []string{"clock", "clock64", "globaltimer"} }

// Stagings are the record-staging choices Options.Staging accepts.
func Stagings() []string { return []string{"auto", "shared", "global"} }

// AllSpaces are the state spaces Options.Spaces (--space) accepts.
func AllSpaces() []string {
	return []string{"global", "shared", "local", "const", "param", "tex", "generic"}
}

// DefaultSpaces are the state spaces probed when Options.Spaces is empty.
func DefaultSpaces() []string {
	return []string{"global", "shared", "local", "const", "tex", "generic"}
}

// Range is an inclusive range of line numbers.
type Range struct{ From, To int }

// Contains reports whether line is in r.
func (r Range) Contains(line int) bool { return line >= r.From && line <= r.To }

// SrcRange selects instructions by the CUDA source position of their .loc.
type SrcRange struct {
	File  string // matched against the .file name: equal, or a suffix after '/' or '\'; "" matches any file
	Lines Range
}

// Region is a user region: BEGIN and END are PTX line numbers of the input.
// The begin probe goes before the first instruction on or after line
// Begin; the end probe goes after the last instruction on or before line
// End, or before it when that instruction transfers control (bra, ret,
// exit), so that the probe runs on every path leaving the region's last
// line.
type Region struct{ Begin, End int }

// Resources are what ptxas reports for one kernel of the input.
type Resources struct {
	Regs        int // registers per thread
	SharedBytes int // static shared memory per block
}

// Options configures Instrument. The zero value of a field selects its
// default.
type Options struct {
	Mode     string   // naive, fence, dummy, auto (default auto)
	Timer    string   // clock, clock64, globaltimer (default clock64)
	Spaces   []string // state spaces of the probed loads (default DefaultSpaces)
	Kernel   string   // instrument only this .entry ("" = all)
	Lines    *Range   // only loads on these PTX lines of the input
	Src      *SrcRange
	Regions  []Region
	NoLoads  bool   // probe only the user regions
	Capacity int    // records per warp (default DefaultCapacity)
	Staging  string // auto, shared, global (default auto)
	Regs     int    // registers per thread when ptxas did not say (0 = unknown)
	Block    int    // threads per block when .reqntid/.maxntid do not say (0 = DefaultBlock)
	// Resources per kernel name, from ptxas -v on the input; they take
	// precedence over Regs and over the static shared memory counted from
	// the PTX.
	Resources map[string]Resources

	Tool   string // tool version for the manifest
	Output string // output file name for the manifest
}

func oneOf(what, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q (want one of %s)", what, v, strings.Join(allowed, ", "))
}

// normalize fills in defaults and checks the options.
func (o *Options) normalize() error {
	if o.Mode == "" {
		o.Mode = "auto"
	}
	if o.Timer == "" {
		o.Timer = "clock64"
	}
	if o.Staging == "" {
		o.Staging = "auto"
	}
	if o.Capacity == 0 {
		o.Capacity = DefaultCapacity
	}
	if o.Block == 0 {
		o.Block = DefaultBlock
	}
	if err := oneOf("mode", o.Mode, Modes()); err != nil {
		return err
	}
	if err := oneOf("timer", o.Timer, Timers()); err != nil {
		return err
	}
	if err := oneOf("staging", o.Staging, Stagings()); err != nil {
		return err
	}
	if o.Capacity < 1 || o.Capacity > MaxCapacity {
		return fmt.Errorf("capacity %d records per warp is outside 1..%d", o.Capacity, MaxCapacity)
	}
	if o.Block < 1 || o.Block > 1024 {
		return fmt.Errorf("block size %d is outside 1..1024", o.Block)
	}
	if o.Regs < 0 || o.Regs > 255 {
		return fmt.Errorf("registers per thread %d is outside 0..255", o.Regs)
	}
	if len(o.Spaces) == 0 {
		o.Spaces = DefaultSpaces()
	}
	for i, s := range o.Spaces {
		s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), ".")
		switch s {
		case "constant":
			s = "const"
		case "texture":
			s = "tex"
		}
		if err := oneOf("state space", s, AllSpaces()); err != nil {
			return err
		}
		o.Spaces[i] = s
	}
	if o.Lines != nil && (o.Lines.From < 1 || o.Lines.To < o.Lines.From) {
		return fmt.Errorf("bad line range %d-%d", o.Lines.From, o.Lines.To)
	}
	if o.Src != nil && (o.Src.Lines.From < 1 || o.Src.Lines.To < o.Src.Lines.From) {
		return fmt.Errorf("bad source line range %d-%d", o.Src.Lines.From, o.Src.Lines.To)
	}
	for _, r := range o.Regions {
		if r.Begin < 1 || r.End < r.Begin {
			return fmt.Errorf("bad region %d:%d (want BEGIN_LINE:END_LINE with 1 ≤ BEGIN ≤ END)", r.Begin, r.End)
		}
	}
	if o.NoLoads && len(o.Regions) == 0 {
		return fmt.Errorf("no loads and no regions: nothing to instrument")
	}
	return nil
}

// ParseRange parses "A-B" or "A" (a single line).
func ParseRange(s string) (Range, error) {
	a, b, found := strings.Cut(strings.TrimSpace(s), "-")
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to := from
	var err2 error
	if found {
		to, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return Range{}, fmt.Errorf("bad line range %q (want LINE or FROM-TO with 1 ≤ FROM ≤ TO)", s)
	}
	return Range{from, to}, nil
}

// ParseSrc parses "file.cu:42", "file.cu:40-50" or ":40-50".
func ParseSrc(s string) (SrcRange, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return SrcRange{}, fmt.Errorf("bad source position %q (want FILE:LINE, FILE:FROM-TO or :FROM-TO)", s)
	}
	r, err := ParseRange(s[i+1:])
	if err != nil {
		return SrcRange{}, fmt.Errorf("bad source position %q: %v", s, err)
	}
	return SrcRange{File: s[:i], Lines: r}, nil
}

// ParseRegion parses "BEGIN:END".
func ParseRegion(s string) (Region, error) {
	a, b, ok := strings.Cut(s, ":")
	x, err1 := strconv.Atoi(strings.TrimSpace(a))
	y, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || x < 1 || y < x {
		return Region{}, fmt.Errorf("bad region %q (want BEGIN_LINE:END_LINE with 1 ≤ BEGIN ≤ END)", s)
	}
	return Region{x, y}, nil
}

// defaultSelection reports whether o selects every load of every kernel in
// the default spaces (no kernel, line, source, region or space filter), as
// normalize leaves it.
func (o *Options) defaultSelection() bool {
	if o.Kernel != "" || o.Lines != nil || o.Src != nil || len(o.Regions) > 0 || o.NoLoads {
		return false
	}
	return slices.Equal(o.Spaces, DefaultSpaces())
}
