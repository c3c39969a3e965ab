package exporters

import (
	"context"
	"errors"
	"io"

	"github.com/ptxtrace/ptxtrace/trace"
)

// Exporter writes one trace in one format. The driver (Run) calls Begin
// once, then WriteWarp/WriteRegions for every warp in segment order, then
// End once; after an error from any method it calls nothing more except
// Abort if the exporter implements Aborter.
//
// Ordering guarantee: regions arrive grouped by warp, warps in increasing
// segment order, and within a warp in the order of their begin records,
// which is time order within that warp (per-SM clocks make timestamps of
// different warps incomparable unless the timer is %globaltimer). An
// exporter that needs global time order (CLOG2) merges with trace.MergeByTime
// instead of buffering everything.
//
// The slice passed to WriteRegions (and the Region values in it) is only
// valid during the call: copy what must outlive it.
type Exporter interface {
	Begin(h *trace.Header) error
	WriteRegions(rs []trace.Region) error
	End() error
}

// WarpWriter is implemented by exporters that also want each warp's
// segment header and decoder issues (overflow, unmatched begin/end). Run
// calls WriteWarp before the warp's WriteRegions.
type WarpWriter interface {
	WriteWarp(w *trace.Warp, issues []trace.Issue) error
}

// TimeOrdered is implemented by exporters that need every region begin and
// end of the whole trace in time order (CLOG2). When the source is a
// *trace.Decoder, Run feeds such an exporter through trace.MergeByTime
// (bounded memory): Begin, WriteEvent per event, End; WriteRegions and
// WriteWarp are not called. With any other source Run sorts nothing and
// uses the ordinary warp-batch calls.
type TimeOrdered interface {
	WriteEvent(ev *trace.Event) error
}

// Aborter is implemented by exporters that must clean up (close and remove
// a partial output) when the export fails after Begin.
type Aborter interface {
	Abort(err error)
}

// Run streams src into e: Begin(src.Header()), one WriteWarp (if
// implemented) and one WriteRegions per warp, End. It checks ctx between
// warps. Warps without regions still get WriteWarp but no WriteRegions.
func Run(ctx context.Context, src trace.RegionSource, e Exporter) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	defer func() {
		if err != nil {
			if a, ok := e.(Aborter); ok {
				a.Abort(err)
			}
		}
	}()
	if err := e.Begin(src.Header()); err != nil {
		return err
	}
	if to, ok := e.(TimeOrdered); ok {
		if d, ok := src.(*trace.Decoder); ok {
			err := trace.MergeByTime(d, func(ev *trace.Event) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				return to.WriteEvent(ev)
			})
			if err != nil {
				return err
			}
			return e.End()
		}
	}
	ww, _ := e.(WarpWriter)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wr, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if ww != nil {
			if err := ww.WriteWarp(&wr.Warp, wr.Issues); err != nil {
				return err
			}
		}
		if len(wr.Regions) > 0 {
			if err := e.WriteRegions(wr.Regions); err != nil {
				return err
			}
		}
	}
	return e.End()
}
