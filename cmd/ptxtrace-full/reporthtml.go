package main

// `ptxtrace report --html`: the page is built by viewers/runreport and
// written atomically here.

import (
	"bytes"
	"context"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/experiments/power"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/viewers/runreport"
)

// writeReportHTML writes path atomically: rep and the timeline of the
// warps of src (a fresh pass over the same trace).
func writeReportHTML(ctx context.Context, path string, rep *analysis.Result, src trace.RegionSource) error {
	act := src.Header().Activity // before Page reads src
	page, err := runreport.Page(ctx, rep, src, "ptxtrace "+version)
	if err != nil {
		return err
	}
	if act != nil {
		// a run recorded with --activity: the power-gating analysis of
		// this launch (docs/power.md)
		a, err := power.FromBundles(rep.Kernel, []*trace.Activity{act})
		if err != nil {
			return err
		}
		r, err := a.Summarise(power.DefaultConfig())
		if err != nil {
			return err
		}
		secs, err := power.Sections(r)
		if err != nil {
			return err
		}
		page.Sections = append(page.Sections, secs...)
	}
	var b bytes.Buffer
	if err := page.Render(&b); err != nil {
		return err
	}
	return writeBytes(path, b.Bytes())
}
