package accuracy

import (
	"bytes"
	"context"
	"fmt"
	"go/token"
	"math"
	"sort"
	"strings"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/trace"
)

// Thresholds of the acceptance (issue 10).
const (
	MaxRelErr     = 0.05 // fence, dummy, auto: mean |measured − true − cost| / true
	MinNaiveUnder = 0.80 // naive: mean (true − measured) / true
)

// DefaultPresets returns the model presets measured by default (a fresh
// slice: no shared mutable state).
func DefaultPresets() []string { return []string{"gtx480", "rtx3080", "a100", "h100"} }

// DefaultModes returns the probe modes measured by default (a fresh slice).
func DefaultModes() []string { return []string{"naive", "fence", "dummy", "auto"} }

// Arch returns the PTX architecture a preset is measured with by default:
// sm_52 for gtx480 (the oldest target CUDA 11.8 emits), sm_80 otherwise.
func Arch(preset string) string {
	if preset == "gtx480" {
		return "sm_52"
	}
	return "sm_80"
}

// Case is one kernel (module) to measure.
type Case struct {
	Name     string
	PTX      map[string][]byte // source by architecture ("sm_52", "sm_80")
	Spec     *launch.Spec      // launch spec (read-only: Measure does not modify it)
	BaseDir  string            // the spec's directory for relative files
	Registry launch.Registry   // generators and references the spec names
	// Presets, when set, restricts the case to these of Options.Presets
	// (e.g. a -G build that exists for one architecture only).
	Presets []string
}

// Options select what Measure runs. Zero fields take the defaults.
type Options struct {
	Presets []string
	Modes   []string
	Arch    func(preset string) string // default Arch
	// Instrument adjusts the instrumentation options of each run (mode
	// already set); may be nil.
	Instrument func(*instrument.Options)
	// NoStagingGPU runs instrumented kernels without giving the launch the
	// preset to size shared staging for: auto-staged code falls back to
	// global staging at run time (what a host that passes 0 records gets).
	NoStagingGPU bool
	// tamper, in tests, alters each launch's raw trace buffer before it is
	// decoded (a deliberately wrong pairing must fail the checks).
	tamper func(raw []byte, man *manifest.Manifest)
}

// Stat summarises the load regions of one group.
type Stat struct {
	Regions  int
	TrueMean float64 // mean true latency (cycles)
	MeasMean float64 // mean measured cycles
	CostMean float64 // mean documented own cost
	RelErr   float64 // mean |measured − true − cost| / mean true: the mean absolute error as a fraction of the true latency
	// IssueWait is the mean issue wait (cycles from the begin timer read
	// to the access's issue: address operands, scheduling), reported apart
	// from the latency; NetErr is mean |measured − issue wait − true −
	// PostCost| / mean true, the error the acceptance judges.
	IssueWait float64
	NetErr    float64
	PostMean  float64 // mean of measured − issue wait − true − PostCost: the post wait beyond the cost
	Under     float64 // (mean true − mean measured) / mean true: how far low the probe reads
	MinDiff   float64 // min and max of measured − true − cost
	MaxDiff   float64
	// Run-time paired cp.async (probe mode group_seq, pipeline.go): there
	// TrueMean is the copy's issue to the cycle its closing wait issued
	// (the completion the program observes); LatMean is the copy's issue
	// to the completion of the groups that wait covers; Hidden the
	// fraction of regions whose wait issued after that completion (the
	// pipeline hid the latency), Slack their mean cycles from completion
	// to the wait; LatErr the NetErr against LatMean over the other
	// regions (NaN when there is none). Zero for other modes.
	LatMean, Hidden, Slack, LatErr float64
}

// SpaceStat is a Stat of one state space and probe mode.
type SpaceStat struct {
	Space string // global, shared, local, const, tex, generic, ...
	Probe string // the probe mode the instrument chose: naive, fence, dummy
	Stat
}

// LineStat is the error of one probed load (one line of the input PTX):
// its excess measured − true − cost over the load's instances.
type LineStat struct {
	Line       int    // line in the input PTX
	Text       string // the load
	Space      string
	Probe      string
	Regions    int
	MeanExcess float64 // mean of measured − true − cost (cycles)
	MaxExcess  float64
	TrueMean   float64
	IssueWait  float64 // mean issue wait (cycles)
}

// Row is one case × preset × mode.
type Row struct {
	Kernel, Preset, Arch, Mode string
	Stat
	Spaces    []SpaceStat // sorted by space, then probe
	Lines     []LineStat  // per probed load, by line: where the error comes from
	Unmatched int         // decoded load regions without ground truth
	Lost      int         // records lost to overflow (those regions are not measured)
	Staging   string      // where the trace slots were staged (first kernel of the manifest)
	// OrigCycles and Cycles are the model's kernel cycles (launch to
	// last CTA, summed over the spec's launches) of the original and the
	// instrumented kernel: the probes' cost on the run time.
	OrigCycles, Cycles int64
	Note               string // exceptions that did not stop the measurement
	NotRun             string // why the configuration could not run ("" if it ran)
	Err                error  // a failure (instrumentation, replay, decode, output mismatch)
}

// OK reports whether the row meets issue 10's acceptance: it ran without
// error, has regions, and naive underestimates by ≥ MinNaiveUnder; other
// modes are within MaxRelErr over all regions once the issue wait, which
// is reported separately, is taken out of the measurement (NetErr).
func (r *Row) OK() bool {
	if r.NotRun != "" || r.Err != nil || r.Regions == 0 {
		return false
	}
	if r.Mode == "naive" {
		return r.Under >= MinNaiveUnder
	}
	return r.NetErr <= MaxRelErr
}

// OKStrict is the stricter rule of the earlier tables: the measurement
// with the issue wait included (RelErr) is within MaxRelErr over all
// regions and in every state space.
func (r *Row) OKStrict() bool {
	if r.NotRun != "" || r.Err != nil || r.Regions == 0 {
		return false
	}
	if r.Mode == "naive" {
		return r.Under >= MinNaiveUnder
	}
	if r.RelErr > MaxRelErr {
		return false
	}
	for _, s := range r.Spaces {
		if s.RelErr > MaxRelErr {
			return false
		}
	}
	return true
}

// OKOverall is OKStrict without the per-space condition: the mean over
// all of the row's regions, issue wait included, meets the threshold.
func (r *Row) OKOverall() bool {
	if r.NotRun != "" || r.Err != nil || r.Regions == 0 {
		return false
	}
	if r.Mode == "naive" {
		return r.Under >= MinNaiveUnder
	}
	return r.RelErr <= MaxRelErr
}

// Cause describes why a row is not OK ("" when it is).
func (r *Row) Cause() string {
	switch {
	case r.OK():
		return ""
	case r.NotRun != "":
		return "not run: " + r.NotRun
	case r.Err != nil:
		return "error: " + r.Err.Error()
	case r.Regions == 0:
		return "no load region was measured"
	case r.Mode == "naive":
		return fmt.Sprintf("naive underestimates by only %.1f%%", 100*r.Under)
	}
	return fmt.Sprintf("error without issue wait %.1f%% (post wait beyond cost %+.1f, issue wait %.1f, true %.0f, cost %.0f)",
		100*r.NetErr, r.PostMean, r.IssueWait, r.TrueMean, r.CostMean)
}

// CauseStrict describes why a row is not OKStrict ("" when it is).
func (r *Row) CauseStrict() string {
	if r.OKStrict() {
		return ""
	}
	if r.NotRun != "" || r.Err != nil || r.Regions == 0 || r.Mode == "naive" {
		return r.Cause()
	}
	var bad []string
	for _, s := range r.Spaces {
		if s.RelErr > MaxRelErr {
			bad = append(bad, fmt.Sprintf("%s/%s %.1f%% (measured−true−cost %+.0f…%+.0f, true %.0f, cost %.0f)",
				s.Space, s.Probe, 100*s.RelErr, s.MinDiff, s.MaxDiff, s.TrueMean, s.CostMean))
		}
	}
	if len(bad) == 0 {
		return fmt.Sprintf("mean error %.1f%%", 100*r.RelErr)
	}
	return strings.Join(bad, "; ")
}

// OwnCost is the documented cost a probe of mode adds to the measured
// latency on spec when nothing else delays it: fence 1 + SM.FenceLatency,
// dummy 2, naive 0. Of it, 1 cycle (fence, dummy) is the minimum issue
// wait (the access issues at the earliest one cycle after the begin timer
// read: a warp issues one instruction per cycle) and the rest is PostCost.
//
// An async copy's probe (instrument: wait_group, mbarrier) ends at the
// program's own wait, which the model treats as a fence: wait_group
// 1 + SM.FenceLatency like fence, mbarrier 1 + SM.FenceLatency + the
// branch latency (the loop's exit branch issues at the fence's release,
// the end read when the branch resolves); group_seq (a pipelined cp.async
// paired at run time) like wait_group: its end read follows the wait.
func OwnCost(mode string, spec *model.Spec) float64 {
	switch mode {
	case "fence", "dummy", "wait_group", "mbarrier", "group_seq", "phase_seq":
		return 1 + PostCost(mode, spec)
	}
	return 0
}

// PostCost is the part of OwnCost after the access completes, the cost the
// acceptance adds to the true latency once the issue wait is taken out:
// dummy 1 (the consumer issues when the loaded register is written, the
// end timer read one cycle later), fence SM.FenceLatency (the fence
// releases the warp that long after its memory operations completed, and
// the timer read issues at the release), naive 0 (no consumer: the end
// timer read may issue before completion, so the post wait is negative).
func PostCost(mode string, spec *model.Spec) float64 {
	switch mode {
	case "fence", "wait_group", "group_seq":
		return float64(spec.SM.FenceLatency)
	case "mbarrier", "phase_seq":
		return float64(spec.SM.FenceLatency + spec.SM.Classes.Branch.Latency)
	case "dummy":
		return 1
	}
	return 0
}

// Measure runs every case × preset × mode and returns the rows in that
// order. Failures of one configuration are recorded in its row; the error
// is only for bad options (an unknown preset).
func Measure(ctx context.Context, cases []Case, o Options) ([]Row, error) {
	if len(o.Presets) == 0 {
		o.Presets = DefaultPresets()
	}
	if len(o.Modes) == 0 {
		o.Modes = DefaultModes()
	}
	if o.Arch == nil {
		o.Arch = Arch
	}
	var rows []Row
	for _, c := range cases {
		for _, p := range o.Presets {
			if len(c.Presets) > 0 && !contains(c.Presets, p) {
				continue
			}
			ms, ok := model.Preset(p)
			if !ok {
				return nil, fmt.Errorf("unknown model preset %q", p)
			}
			rows = append(rows, measurePreset(ctx, c, p, &ms, o)...)
		}
	}
	return rows, nil
}

type run struct {
	prep *launch.Prepared
	res  *launch.SeqResult
}

func parse(name string, src []byte) (*token.FileSet, *ptx.File, error) {
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, name, src, 0)
	return fset, f, err
}

// prepare parses src and prepares c's spec on it for ms.
func prepare(c Case, name string, src []byte, man *manifest.Manifest, ms *model.Spec, noStaging bool) (*launch.Prepared, error) {
	_, f, err := parse(name, src)
	if err != nil {
		return nil, err
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		return nil, err
	}
	if noStaging {
		return c.Spec.Prepare(prog, launch.PrepareOptions{BaseDir: c.BaseDir, Manifest: man, NumSMs: ms.NumSMs, Registry: c.Registry})
	}
	return c.Spec.Prepare(prog, launch.PrepareOptions{BaseDir: c.BaseDir, Manifest: man, GPU: ms, Registry: c.Registry})
}

// tooBig says why a single-launch kernel cannot run on ms ("" if it can;
// multi-launch specs are not checked here: their runs report it).
func tooBig(prep *launch.Prepared, ms *model.Spec) string {
	if prep.Kernel == nil {
		return ""
	}
	s := prep.Kernel.SharedPerCTA()
	if fit, _ := ms.ForShared(s); s > fit.Shared.Bytes {
		return fmt.Sprintf("the CTA needs %d B of shared memory, the preset has %d B", s, fit.Shared.Bytes)
	}
	return ""
}

func measurePreset(ctx context.Context, c Case, preset string, ms *model.Spec, o Options) []Row {
	arch := o.Arch(preset)
	rows := make([]Row, len(o.Modes))
	for i, m := range o.Modes {
		rows[i] = Row{Kernel: c.Name, Preset: preset, Arch: arch, Mode: m}
	}
	fail := func(f func(r *Row)) []Row {
		for i := range rows {
			f(&rows[i])
		}
		return rows
	}
	src, ok := c.PTX[arch]
	if !ok {
		return fail(func(r *Row) { r.NotRun = "no PTX for " + arch })
	}
	name := c.Name + "." + arch + ".ptx"
	prep, err := prepare(c, name, src, nil, ms, false)
	if err != nil {
		return fail(func(r *Row) { r.Err = err })
	}
	if why := tooBig(prep, ms); why != "" {
		return fail(func(r *Row) { r.NotRun = "original kernel: " + why })
	}
	ores, err := prep.Run(ctx, launch.ExecOptions{Model: ms})
	if err != nil {
		return fail(func(r *Row) { r.Err = fmt.Errorf("original: %w", err) })
	}
	for i := range rows {
		rows[i].OrigCycles = launchCycles(ores)
	}
	for _, cr := range prep.Check(c.Registry, c.BaseDir) {
		if !cr.OK {
			return fail(func(r *Row) { r.Err = fmt.Errorf("original: check %s: %s", cr.Buffer, cr.Msg) })
		}
	}
	for i := range rows {
		measureMode(ctx, c, name, src, prep, ms, o, &rows[i])
	}
	return rows
}

func measureMode(ctx context.Context, c Case, name string, src []byte, orig *launch.Prepared, ms *model.Spec, o Options, row *Row) {
	instr := func(staging string) (*instrument.Result, error) {
		fset, f, err := parse(name, src)
		if err != nil {
			return nil, err
		}
		io := instrument.Options{Mode: row.Mode, Output: c.Name + ".inst.ptx", Staging: staging}
		if o.Instrument != nil {
			o.Instrument(&io)
		}
		return instrument.Instrument(fset, f, io)
	}
	ir, err := instr("")
	if err != nil {
		row.Err = fmt.Errorf("instrument: %w", err)
		return
	}
	prep, err := prepare(c, c.Name+".inst.ptx", ir.PTX, ir.Manifest, ms, o.NoStagingGPU)
	if err != nil {
		row.Err = err
		return
	}
	if why := tooBig(prep, ms); why != "" {
		row.Note = "shared staging does not fit the preset (" + why + "): instrumented with global staging"
		if ir, err = instr("global"); err != nil {
			row.Err = fmt.Errorf("instrument: %w", err)
			return
		}
		if prep, err = prepare(c, c.Name+".inst.ptx", ir.PTX, ir.Manifest, ms, o.NoStagingGPU); err != nil {
			row.Err = err
			return
		}
	}
	if len(ir.Manifest.Kernels) > 0 {
		row.Staging = ir.Manifest.Kernels[0].Staging.Where
	}
	observe, asyncEvents := asyncObserver(ir.Manifest)
	eo := launch.ExecOptions{Model: ms, ModelOpt: model.Options{Observe: observe}}
	mbar := newMbarTruth(ir.Manifest)
	if mbar != nil {
		if observe != nil {
			row.Err = fmt.Errorf("a kernel with both group_seq and phase_seq probes: no ground truth for both")
			return
		}
		eo.ModelOpt.Observe, eo.OnKernel = mbar.observe, mbar.onKernel
	}
	res, err := prep.Run(ctx, eo)
	if err != nil {
		row.Err = fmt.Errorf("instrumented: %w", err)
		return
	}
	row.Cycles = launchCycles(res)
	for _, ob := range orig.Buffers {
		ib := prep.Buffer(ob.Name)
		if ib == nil || !bytes.Equal(ob.Alloc.Data, ib.Alloc.Data) {
			row.Err = fmt.Errorf("buffer %s differs between the original and the instrumented kernel", ob.Name)
			return
		}
	}
	acc := map[[2]string]*sums{}
	pipe := map[[2]string]*pipeSums{}
	events := asyncEvents()
	groupSeq := beginsOf(ir.Manifest, manifest.ModeGroupSeq)
	phaseSeq := beginsOf(ir.Manifest, manifest.ModePhaseSeq)
	lines := map[int]*LineStat{}
	var all sums
	for _, lr := range res.Launches {
		if lr.Trace == nil {
			continue
		}
		if o.tamper != nil {
			o.tamper(lr.Trace.Data, ir.Manifest)
		}
		tr, err := trace.Decode(lr.Trace.Data, ir.Manifest, lr.Kernel)
		if err != nil {
			row.Err = fmt.Errorf("launch %d (%s): %w", lr.Index, lr.Kernel, err)
			return
		}
		for _, is := range tr.Issues {
			row.Lost += int(is.Lost)
		}
		truth := truthByInstance(lr, phaseSeq)
		copies := pipelineTruth(truth, groupSeq, events, uint32(lr.WarpsPerCTA))
		if mbar != nil {
			if copies, err = mbar.phaseTruth(truth, phaseSeq, uint32(lr.WarpsPerCTA)); err != nil {
				row.Err = fmt.Errorf("launch %d (%s): %w", lr.Index, lr.Kernel, err)
				return
			}
		}
		for _, reg := range tr.Regions {
			if !reg.Info.Memory() {
				continue
			}
			a, ok := truth[[3]uint32{reg.Warp, reg.Info.BeginProbe, reg.Instance}]
			if !ok || a.Complete <= a.Issue {
				row.Unmatched++
				continue
			}
			tv := float64(a.Complete - a.Issue)
			if reg.Info.Mode == manifest.ModeGroupSeq || reg.Info.Mode == manifest.ModePhaseSeq {
				// the wait observes its groups' completion, not the
				// copy's, and only when the warp reaches it
				c := copies[[3]uint32{reg.Warp, reg.Info.BeginProbe, reg.Instance}]
				if c.wait == 0 || c.wait < c.done {
					row.Unmatched++ // never waited for (so never closed), or a model inconsistency
					continue
				}
				lat := float64(c.done - a.Issue)
				tv = float64(c.wait - a.Issue)
				iw := 0.0
				if a.Begin > 0 && a.Begin <= a.Issue {
					iw = float64(a.Issue - a.Begin)
				}
				k := [2]string{reg.Info.Space, reg.Info.Mode}
				if pipe[k] == nil {
					pipe[k] = &pipeSums{}
				}
				pipe[k].add(lat, tv, float64(reg.Cycles), iw, PostCost(reg.Info.Mode, ms))
			}
			cost := OwnCost(reg.Info.Mode, ms)
			post := PostCost(reg.Info.Mode, ms)
			iw := 0.0
			if a.Begin > 0 && a.Begin <= a.Issue {
				iw = float64(a.Issue - a.Begin)
			}
			k := [2]string{reg.Info.Space, reg.Info.Mode}
			s := acc[k]
			if s == nil {
				s = newSums()
				acc[k] = s
			}
			s.add(tv, float64(reg.Cycles), cost, post, iw)
			ls := lines[reg.Info.Line]
			if ls == nil {
				ls = &LineStat{Line: reg.Info.Line, Text: reg.Info.Text, Space: reg.Info.Space, Probe: reg.Info.Mode, MaxExcess: math.Inf(-1)}
				lines[reg.Info.Line] = ls
			}
			d := float64(reg.Cycles) - tv - cost
			ls.Regions++
			ls.MeanExcess += d
			ls.TrueMean += tv
			ls.IssueWait += iw
			ls.MaxExcess = max(ls.MaxExcess, d)
			if all.n == 0 {
				all = *newSums()
			}
			all.add(tv, float64(reg.Cycles), cost, post, iw)
		}
	}
	finishRow(row, all, lines, acc, pipe)
}

// truthByInstance indexes a launch's ground truth by (warp, probe, n), n
// counting the probe's accesses of the warp in order, as the decoder counts
// a region's instances. A phase_seq copy predicated off (completion = issue)
// is left out: only the lanes that copy write its record.
func truthByInstance(lr *launch.LaunchResult, phaseSeq map[uint32]bool) map[[3]uint32]trace.TruthAccess {
	truth := map[[3]uint32]trace.TruthAccess{}
	cnt := map[[2]uint32]uint32{}
	for _, a := range lr.Truth() {
		if phaseSeq[a.Probe] && a.Complete == a.Issue {
			continue
		}
		k := [2]uint32{a.Warp, a.Probe}
		truth[[3]uint32{a.Warp, a.Probe, cnt[k]}] = a
		cnt[k]++
	}
	return truth
}

// beginsOf returns the begin probes of the manifest's regions timed in
// probe mode mode (group_seq, phase_seq: the run-time paired ones).
func beginsOf(man *manifest.Manifest, mode string) map[uint32]bool {
	out := map[uint32]bool{}
	for _, k := range man.Kernels {
		for _, p := range k.Probes {
			if p.Mode == mode && p.Kind == manifest.KindBegin {
				out[p.ID] = true
			}
		}
	}
	return out
}

// finishRow fills row's totals, per-line and per-space statistics from
// the sums measureMode gathered, lines and spaces in a fixed order.
func finishRow(row *Row, all sums, lines map[int]*LineStat, acc map[[2]string]*sums, pipe map[[2]string]*pipeSums) {
	row.Stat = all.stat()
	for _, ls := range lines {
		ls.MeanExcess /= float64(ls.Regions)
		ls.TrueMean /= float64(ls.Regions)
		ls.IssueWait /= float64(ls.Regions)
		row.Lines = append(row.Lines, *ls)
	}
	sort.Slice(row.Lines, func(i, j int) bool { return row.Lines[i].Line < row.Lines[j].Line })
	for k, s := range acc {
		st := s.stat()
		if p := pipe[k]; p != nil {
			p.fill(&st)
		}
		row.Spaces = append(row.Spaces, SpaceStat{Space: k[0], Probe: k[1], Stat: st})
	}
	sort.Slice(row.Spaces, func(i, j int) bool {
		a, b := row.Spaces[i], row.Spaces[j]
		if a.Space != b.Space {
			return a.Space < b.Space
		}
		return a.Probe < b.Probe
	})
}

// launchCycles sums the model's kernel cycles of res's launches.
func launchCycles(res *launch.SeqResult) int64 {
	var n int64
	for _, lr := range res.Launches {
		if lr.Timing != nil {
			n += int64(lr.Timing.Cycles)
		}
	}
	return n
}

type sums struct {
	n                   int
	tv, meas, cost, rel float64
	iw, net, post       float64
	minD, maxD          float64
}

func newSums() *sums { return &sums{minD: math.Inf(1), maxD: math.Inf(-1)} }

// add accounts one region: true latency tv, measured m, documented cost
// (OwnCost) and its part after completion (PostCost), issue wait iw.
func (s *sums) add(tv, m, cost, post, iw float64) {
	s.n++
	s.tv += tv
	s.meas += m
	s.cost += cost
	s.iw += iw
	d := m - tv - cost
	s.rel += math.Abs(d)
	dn := m - iw - tv - post
	s.net += math.Abs(dn)
	s.post += dn
	s.minD = min(s.minD, d)
	s.maxD = max(s.maxD, d)
}

func (s *sums) stat() Stat {
	if s.n == 0 {
		return Stat{}
	}
	n := float64(s.n)
	return Stat{Regions: s.n, TrueMean: s.tv / n, MeasMean: s.meas / n, CostMean: s.cost / n,
		RelErr: s.rel / s.tv, Under: (s.tv - s.meas) / s.tv, MinDiff: s.minD, MaxDiff: s.maxD,
		IssueWait: s.iw / n, NetErr: s.net / s.tv, PostMean: s.post / n}
}
