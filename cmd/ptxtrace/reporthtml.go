package main

// `ptxtrace report --html`: the page is built by viewers/runreport and
// written atomically here.

import (
	"bytes"
	"context"

	"github.com/ptxtrace/ptxtrace/analysis"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/viewers/runreport"
)

// writeReportHTML writes path atomically: rep and the timeline of the
// warps of src (a fresh pass over the same trace).
func writeReportHTML(ctx context.Context, path string, rep *analysis.Result, src trace.RegionSource) error {
	page, err := runreport.Page(ctx, rep, src, "ptxtrace "+version)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Render(&b); err != nil {
		return err
	}
	return writeBytes(path, b.Bytes())
}
