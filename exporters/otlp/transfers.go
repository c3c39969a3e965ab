package otlp

import (
	"errors"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
	"go.opentelemetry.io/otel/attribute"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// Host↔device transfers (trace.RunMeta.Transfers) become spans under the
// run span, siblings of the launch span, named trace.TransferName and
// marked ptxtrace.track = trace.TransferTrack ("copy engine"). The clock's
// anchor moves by RunMeta.TransferShiftNs so that the first copy-in
// starts at the anchor (as every exporter shifts), and the run span covers
// the transfers. They are granted spans before CTAs, warps and regions.

// transferShift checks that transfers can share the time axis and returns
// the shift.
func transferShift(h *trace.Header) (time.Duration, error) {
	if len(h.Meta.Transfers) == 0 {
		return 0, nil
	}
	if !h.HasNs() || !fromKernelStart(h) {
		return 0, errors.New("otlp: the launch has transfers but its times do not count ns from the kernel's start")
	}
	return time.Duration(h.Meta.TransferShiftNs()), nil
}

// emitTransfers starts and ends the transfer spans under the run span and
// returns the latest end (zero time when none).
func (e *Exporter) emitTransfers(s *spanner, t *top) time.Time {
	var last time.Time
	m := &e.h.Meta
	anchor := s.clk.base.Add(-time.Duration(m.TransferShiftNs()))
	for i := range m.Transfers {
		tr := &m.Transfers[i]
		if !s.grant() {
			continue
		}
		st, en := m.TransferNs(tr)
		start, end := anchor.Add(time.Duration(st)), anchor.Add(time.Duration(en))
		_, sp := s.tracer.Start(t.runCtx, trace.TransferName(tr), oteltrace.WithTimestamp(start), oteltrace.WithAttributes(
			attribute.String("ptxtrace.track", trace.TransferTrack), attribute.String("ptxtrace.transfer.dir", tr.Dir),
			attribute.String("ptxtrace.transfer.method", tr.Method), attribute.Int64("ptxtrace.transfer.bytes", tr.Bytes),
			attribute.String("ptxtrace.transfer.buffer", tr.Buffer)))
		sp.End(oteltrace.WithTimestamp(end))
		if end.After(last) {
			last = end
		}
	}
	return last
}
