package perfetto

import (
	"bytes"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// FuzzCheck: the protobuf checker returns a summary or an error for any
// input, never panics.
func FuzzCheck(f *testing.F) {
	tr := tracetest.Fixture(1, 2, 3, trace.TimerClock64)
	f.Add(exportProto(f, tr, Options{Counters: tr.Counters}))
	f.Add([]byte{0x0a, 0x02, 0x50, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Check(bytes.NewReader(data))
		if err == nil && s == nil {
			t.Fatal("nil summary without error")
		}
	})
}
