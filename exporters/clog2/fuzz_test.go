package clog2

import (
	"bytes"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

// FuzzCheck feeds arbitrary bytes to the validating reader: it must return
// a summary or an error, never panic, hang or allocate without bound.
func FuzzCheck(f *testing.F) {
	var buf bytes.Buffer
	tr := tracetest.Fixture(2, 2, 3, trace.TimerClock64)
	b := export(f, tr, Options{BlockSize: 256})
	f.Add(b)
	f.Add(b[:PreambleSize+100])
	buf.Write(b)
	buf.Write([]byte{0, 0, 0, 1})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Check(bytes.NewReader(data), nil)
		if err == nil && s == nil {
			t.Fatal("nil summary without error")
		}
		// A file that passes Check parses record by record too.
		if err == nil {
			rd, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("Check accepted what NewReader rejects: %v", err)
			}
			var r Record
			for rd.Next(&r) == nil {
			}
		}
	})
}
