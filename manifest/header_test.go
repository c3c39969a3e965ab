package manifest

import (
	"bytes"
	"strings"
	"testing"
)

// TestHeaderBytes encodes the header of a launch and compares it with the
// 64 bytes written out by hand from docs/buffer.md's table.
func TestHeaderBytes(t *testing.T) {
	m := &Manifest{InstrumentationID: "0102030405060708", Timer: TimerClock64,
		Buffer: Buffer{LayoutVersion: 1, HeaderBytes: 64, SegmentHeaderBytes: 32, RecordBytes: 16,
			RecordsPerWarp: 3, SegmentBytes: 80, TimerCode: 1}}
	// grid 2×3×1 = 6 CTAs of 40×1×2 = 80 threads: 3 warps per CTA, 18 segments.
	h, err := m.Header([3]int{2, 3, 1}, [3]int{40, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		'P', 'T', 'X', 'T', 'R', 'A', 'C', 'E', // 0 magic
		1, 0, 0, 0, // 8 layout version
		64, 0, 0, 0, // 12 header bytes
		80, 0, 0, 0, // 16 segment bytes = 32 + 3×16
		3, 0, 0, 0, // 20 records per warp
		16, 0, 0, 0, // 24 record bytes
		18, 0, 0, 0, // 28 segments
		1, 0, 0, 0, // 32 timer: clock64
		3, 0, 0, 0, // 36 warps per CTA
		1, 2, 3, 4, 5, 6, 7, 8, // 40 instrumentation id
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 48 reserved
	}
	got := h.Bytes()
	if !bytes.Equal(got, want) {
		t.Fatalf("header bytes\n got % x\nwant % x", got, want)
	}
	if n := h.BufferBytes(); n != 64+18*80 {
		t.Errorf("BufferBytes = %d, want %d", n, 64+18*80)
	}
	back, err := ParseHeader(want)
	if err != nil {
		t.Fatal(err)
	}
	if back != h {
		t.Errorf("ParseHeader = %+v, want %+v", back, h)
	}
}

// TestParseHeaderFields decodes a header with distinct values in every
// field, laid out by hand.
func TestParseHeaderFields(t *testing.T) {
	b := make([]byte, 70)
	copy(b, "PTXTRACE")
	for off, v := range map[int]byte{8: 9, 12: 10, 16: 11, 20: 12, 24: 13, 28: 14, 32: 15, 36: 16} {
		b[off] = v
		b[off+3] = 0x80 // high byte, to catch a wrong width or byte order
	}
	copy(b[40:48], "abcdefgh")
	h, err := ParseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{LayoutVersion: 0x80000009, HeaderBytes: 0x8000000a, SegmentBytes: 0x8000000b, RecordsPerWarp: 0x8000000c,
		RecordBytes: 0x8000000d, Segments: 0x8000000e, Timer: 0x8000000f, WarpsPerCTA: 0x80000010, ID: [8]byte{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}}
	if h != want {
		t.Errorf("got %+v\nwant %+v", h, want)
	}
	if !bytes.Equal(h.Bytes(), b[:64]) {
		t.Errorf("Bytes does not give the parsed bytes back")
	}
}

func TestHeaderErrors(t *testing.T) {
	good := func() *Manifest {
		return &Manifest{InstrumentationID: "0102030405060708", Timer: TimerClock,
			Buffer: Buffer{RecordsPerWarp: 4, SegmentBytes: 96, TimerCode: 0}}
	}
	one := [3]int{1, 1, 1}
	cases := []struct {
		name  string
		edit  func(m *Manifest)
		grid  [3]int
		block [3]int
		msg   string
	}{
		{"zero dim", nil, [3]int{0, 1, 1}, one, "positive"},
		{"bad id", func(m *Manifest) { m.InstrumentationID = "xyz" }, one, one, "instrumentation_id"},
		{"bad timer", func(m *Manifest) { m.Timer = "tsc" }, one, one, "unknown timer"},
		{"timer code", func(m *Manifest) { m.Buffer.TimerCode = 2 }, one, one, "timer_code"},
		{"segment bytes", func(m *Manifest) { m.Buffer.SegmentBytes = 100 }, one, one, "segment_bytes"},
		{"no records", func(m *Manifest) { m.Buffer.RecordsPerWarp = 0 }, one, one, "records_per_warp"},
		{"too large", nil, [3]int{1 << 20, 1 << 10, 1}, [3]int{1024, 1, 1}, "too large"},
	}
	for _, c := range cases {
		m := good()
		if c.edit != nil {
			c.edit(m)
		}
		_, err := m.Header(c.grid, c.block)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.msg)
		}
	}
	if _, err := ParseHeader(make([]byte, 63)); err == nil {
		t.Errorf("ParseHeader accepts 63 bytes")
	}
	b := make([]byte, 64)
	copy(b, "PTXTRACX")
	if _, err := ParseHeader(b); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("ParseHeader bad magic: %v", err)
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add(append([]byte("PTXTRACE"), make([]byte, 56)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			return
		}
		if !bytes.Equal(h.Bytes()[:48], b[:48]) {
			t.Fatalf("round trip of the first 48 bytes differs")
		}
	})
}
