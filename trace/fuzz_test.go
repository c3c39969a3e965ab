package trace_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func FuzzDecode(f *testing.F) {
	m := tt.Manifest(3, "clock", 6)
	f.Add(tt.Buffer(hdr(6, 2, 0, 2), map[uint32]tt.Seg{
		0: {Records: []tt.Record{rec(b0, 0xFFFFFFF0), rec(b1, 2), rec(e1, 9), rec(e0, 12)}},
		1: {WarpInCTA: 1, Count: 9, Records: []tt.Record{rec(e2, 1), rec(b2, 2), rec(b1, 3), rec(e1, 4), rec(b1, 5), rec(e1, 1)}},
	}))
	f.Add(tt.Buffer(hdr(6, 1, 0, 1), nil))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tr, err := trace.Decode(raw, m, "")
		if err != nil {
			return
		}
		if err := tr.CheckValid(); err != nil {
			t.Fatalf("decoded trace invalid: %v", err)
		}
		// The streaming decoder agrees with the in-memory one.
		d, err := trace.NewDecoder(bytes.NewReader(raw), int64(len(raw)), m, "", trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			wr, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n += len(wr.Regions)
		}
		if n != len(tr.Regions) {
			t.Fatalf("streaming gave %d regions, Decode %d", n, len(tr.Regions))
		}
		ne := 0
		if err := trace.MergeByTime(d, func(*trace.Event) error { ne++; return nil }); err != nil {
			t.Fatal(err)
		}
		if ne != 2*n {
			t.Fatalf("merge gave %d events for %d regions", ne, n)
		}
	})
}

func FuzzBundle(f *testing.F) {
	in := synthInput(f, tt.Synth{Warps: 4, WarpsPerCTA: 2, Iters: 2, Loads: 1, Timer: 0})
	var buf bytes.Buffer
	if err := trace.WriteBundle(&buf, in); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PTXTBNDL\x01\x00\x00\x00\x00\x00\x00\x00END.\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Mutations almost always break a checksum; repair them half of
		// the time so the fuzzer also reaches the parsers behind them.
		if len(data) > 0 && data[len(data)-1]&1 == 0 {
			data = fixCRCs(data)
		}
		b, err := trace.OpenBundle(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if err := b.CheckValid(); err != nil {
			return
		}
		tr, err := b.Trace()
		if err != nil {
			t.Fatalf("valid bundle does not decode: %v", err)
		}
		if err := tr.CheckValid(); err != nil {
			t.Fatal(err)
		}
	})
}

// fixCRCs recomputes each chunk's CRC-32C (docs/trace.md) in a copy of data.
func fixCRCs(data []byte) []byte {
	d := append([]byte(nil), data...)
	tab := crc32.MakeTable(crc32.Castagnoli)
	off := 16
	for off+20 <= len(d) {
		n := binary.LittleEndian.Uint64(d[off+8:])
		if n > uint64(len(d)-off-20) {
			break
		}
		end := off + 16 + int(n)
		binary.LittleEndian.PutUint32(d[end:], crc32.Checksum(d[off:end], tab))
		off = end + 4
	}
	return d
}
