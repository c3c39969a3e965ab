package manifest

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// Magic opens every raw trace buffer (docs/buffer.md).
const Magic = "PTXTRACE"

// Header is the 64-byte header the host writes at the start of a raw trace
// buffer before the launch (docs/buffer.md, "Header"). It is the seam
// between a host that allocates the buffer (replay's launch package, or a
// harness on a real GPU) and trace's decoder: Bytes encodes it, ParseHeader
// decodes it, and both follow the byte table of docs/buffer.md.
type Header struct {
	LayoutVersion  uint32 // offset 8
	HeaderBytes    uint32 // 12
	SegmentBytes   uint32 // 16
	RecordsPerWarp uint32 // 20
	RecordBytes    uint32 // 24
	Segments       uint32 // 28: CTAs × WarpsPerCTA
	Timer          uint32 // 32: TimerCode of the manifest's timer
	WarpsPerCTA    uint32 // 36
	ID             [8]byte
}

// MaxBufferBytes bounds the raw buffer Header accepts for one launch.
const MaxBufferBytes = 1 << 31

// Header returns the raw-buffer header of a launch of the instrumented
// kernel with the given grid and block: the manifest's buffer layout and
// instrumentation id, the segment count of the grid. It refuses grids
// whose buffer would exceed MaxBufferBytes, dimensions that are not
// positive, and a manifest whose id, timer or buffer layout is not that of
// a valid manifest (Validate).
func (m *Manifest) Header(grid, block [3]int) (Header, error) {
	for i := 0; i < 3; i++ {
		if grid[i] <= 0 || block[i] <= 0 {
			return Header{}, fmt.Errorf("manifest: grid %v block %v: dimensions must be positive", grid, block)
		}
	}
	b := m.Buffer
	if b.RecordsPerWarp <= 0 {
		return Header{}, fmt.Errorf("manifest: buffer.records_per_warp is %d", b.RecordsPerWarp)
	}
	tc := TimerCode(m.Timer)
	if tc < 0 {
		return Header{}, fmt.Errorf("manifest: unknown timer %q", m.Timer)
	}
	if b.TimerCode != tc {
		return Header{}, fmt.Errorf("manifest: buffer.timer_code %d does not match timer %q (%d)", b.TimerCode, m.Timer, tc)
	}
	id, err := hex.DecodeString(m.InstrumentationID)
	if err != nil || len(id) != 8 {
		return Header{}, fmt.Errorf("manifest: instrumentation_id %q is not 16 hex digits", m.InstrumentationID)
	}
	segBytes := int64(SegmentHeaderBytes + b.RecordsPerWarp*RecordBytes)
	if b.SegmentBytes != 0 && int64(b.SegmentBytes) != segBytes {
		return Header{}, fmt.Errorf("manifest: buffer.segment_bytes %d != %d + %d×%d", b.SegmentBytes, SegmentHeaderBytes, b.RecordsPerWarp, RecordBytes)
	}
	threads := int64(block[0]) * int64(block[1]) * int64(block[2])
	wpc := (threads + 31) / 32
	segs := int64(grid[0]) * int64(grid[1]) * int64(grid[2]) * wpc
	if segs > MaxBufferBytes || HeaderBytes+segs*segBytes > MaxBufferBytes {
		return Header{}, fmt.Errorf("trace buffer of %d segments × %d bytes is too large (at most %d bytes)", segs, segBytes, int64(MaxBufferBytes))
	}
	h := Header{LayoutVersion: LayoutVersion, HeaderBytes: HeaderBytes, SegmentBytes: uint32(segBytes),
		RecordsPerWarp: uint32(b.RecordsPerWarp), RecordBytes: RecordBytes, Segments: uint32(segs),
		Timer: uint32(tc), WarpsPerCTA: uint32(wpc)}
	copy(h.ID[:], id)
	return h, nil
}

// BufferBytes is the size of the whole raw buffer: the header and every
// segment.
func (h Header) BufferBytes() int64 {
	return int64(h.HeaderBytes) + int64(h.Segments)*int64(h.SegmentBytes)
}

// Bytes encodes the header: 64 bytes, magic first, little-endian fields,
// reserved bytes 48-63 zero.
func (h Header) Bytes() []byte {
	b := make([]byte, HeaderBytes)
	le := binary.LittleEndian
	copy(b[0:8], Magic)
	le.PutUint32(b[8:], h.LayoutVersion)
	le.PutUint32(b[12:], h.HeaderBytes)
	le.PutUint32(b[16:], h.SegmentBytes)
	le.PutUint32(b[20:], h.RecordsPerWarp)
	le.PutUint32(b[24:], h.RecordBytes)
	le.PutUint32(b[28:], h.Segments)
	le.PutUint32(b[32:], h.Timer)
	le.PutUint32(b[36:], h.WarpsPerCTA)
	copy(b[40:48], h.ID[:])
	return b
}

// ParseHeader decodes the header at the start of a raw buffer. It checks
// only what it needs to read the fields: the length and the magic; whether
// the values are consistent (version, sizes, timer, id against a manifest)
// is the decoder's business (trace.NewDecoder).
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderBytes {
		return Header{}, fmt.Errorf("%d bytes, shorter than the %d-byte header", len(b), HeaderBytes)
	}
	if string(b[:8]) != Magic {
		return Header{}, fmt.Errorf("bad magic %q (want %q): not a ptxtrace raw buffer", b[:8], Magic)
	}
	le := binary.LittleEndian
	h := Header{LayoutVersion: le.Uint32(b[8:]), HeaderBytes: le.Uint32(b[12:]), SegmentBytes: le.Uint32(b[16:]),
		RecordsPerWarp: le.Uint32(b[20:]), RecordBytes: le.Uint32(b[24:]), Segments: le.Uint32(b[28:]),
		Timer: le.Uint32(b[32:]), WarpsPerCTA: le.Uint32(b[36:])}
	copy(h.ID[:], b[40:48])
	return h, nil
}
