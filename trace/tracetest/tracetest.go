// Package tracetest builds raw trace buffers, manifests and bundles for
// tests and benchmarks. The buffers are written byte by byte from
// docs/buffer.md with encoding/binary, independently of the decoder in
// package trace, so tests of the decoder check it against the document.
//
// Nothing here keeps global state; every function is deterministic.
package tracetest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// ID is the instrumentation id the manifests of this package carry.
var ID = [8]byte{0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04}

// IDHex is ID in hex.
const IDHex = "deadbeef01020304"

// Kernel is the kernel name of the test manifests.
const Kernel = "kern"

// Probe ids: region r (0-based) has begin probe BeginID(r) and end probe
// EndID(r). Region 0 is a "user" region (loop body), the others are "load"
// regions of the global space.
func BeginID(r int) uint32 { return uint32(100 + 2*r) }

// EndID is the end probe of region r.
func EndID(r int) uint32 { return uint32(101 + 2*r) }

// Manifest returns a valid manifest with one kernel (Kernel) and nRegions
// regions (region ids 0..nRegions−1) for the given timer name and records
// per warp.
func Manifest(nRegions int, timer string, recordsPerWarp int) *manifest.Manifest {
	k := manifest.Kernel{
		Name:        Kernel,
		ParamsAdded: []manifest.Param{{Index: 3, Name: "__ptxtrace_buf", Type: ".u64", Host: manifest.HostTraceBuffer}},
		Staging:     manifest.Staging{Where: manifest.StagingShared, Requested: "auto"},
	}
	for r := 0; r < nRegions; r++ {
		kind, space := manifest.RegionLoad, "global"
		text := fmt.Sprintf("ld.global.f32 %%f%d, [%%rd%d];", r, r)
		if r == 0 {
			kind, space, text = manifest.RegionUser, "", "// loop body"
		}
		for _, pk := range []string{manifest.KindBegin, manifest.KindEnd} {
			id := BeginID(r)
			if pk == manifest.KindEnd {
				id = EndID(r)
			}
			k.Probes = append(k.Probes, manifest.Probe{
				ID: id, Kernel: Kernel, Kind: pk, Region: r, RegionKind: kind, Mode: manifest.ModeFence,
				Space: space, Line: 10 + r, Text: text, OutLine: 20 + 3*r,
				LocFile: "kern.cu", LocLine: 40 + r, LocCol: 5,
			})
		}
	}
	code := manifest.TimerCode(timer)
	return &manifest.Manifest{
		Version: manifest.Version, Tool: "tracetest", Input: "kern.ptx",
		InstrumentationID: IDHex, Target: "sm_80", AddressSize: 64, Mode: manifest.ModeFence, Timer: timer,
		Buffer: manifest.Buffer{
			LayoutVersion: 1, HeaderBytes: 64, SegmentHeaderBytes: 32, RecordBytes: 16,
			RecordsPerWarp: recordsPerWarp, SegmentBytes: 32 + 16*recordsPerWarp, TimerCode: code,
		},
		Kernels: []manifest.Kernel{k},
	}
}

// Header is the raw buffer header's fields (docs/buffer.md).
type Header struct {
	Magic          [8]byte // zero value means "PTXTRACE"
	Version        uint32  // 0 means 1
	RecordsPerWarp uint32
	Segments       uint32
	Timer          uint32
	WarpsPerCTA    uint32
	ID             [8]byte
}

// PutHeader writes the 64-byte header into b with manifest.Header.Bytes,
// the encoder a real host uses; a non-zero Magic then replaces the magic
// (for tests of bad buffers).
func PutHeader(b []byte, h Header) {
	if h.Version == 0 {
		h.Version = 1
	}
	mh := manifest.Header{LayoutVersion: h.Version, HeaderBytes: manifest.HeaderBytes,
		SegmentBytes: manifest.SegmentHeaderBytes + h.RecordsPerWarp*manifest.RecordBytes, RecordsPerWarp: h.RecordsPerWarp,
		RecordBytes: manifest.RecordBytes, Segments: h.Segments, Timer: h.Timer, WarpsPerCTA: h.WarpsPerCTA, ID: h.ID}
	copy(b[:manifest.HeaderBytes], mh.Bytes())
	if h.Magic != ([8]byte{}) {
		copy(b[0:8], h.Magic[:])
	}
}

// Record is one probe record.
type Record struct {
	Probe uint32
	Sink  uint32
	Time  uint64
}

// Seg is one warp segment's content.
type Seg struct {
	Count     uint32 // records the warp tried to write; 0 means len(Records)
	CTA       [3]uint32
	WarpInCTA uint32
	SM        uint32
	HWWarp    uint32
	Flags     uint32 // 0 means 1 (written)
	Unwritten bool   // leave the segment all zero
	Records   []Record
}

// Buffer builds a whole raw buffer in memory: header h, then segments
// (missing ones stay zero = not written). Records beyond RecordsPerWarp are
// dropped, as the device would.
func Buffer(h Header, segs map[uint32]Seg) []byte {
	segBytes := 32 + int(h.RecordsPerWarp)*16
	b := make([]byte, 64+int(h.Segments)*segBytes)
	PutHeader(b, h)
	for s, sg := range segs {
		if sg.Unwritten {
			continue
		}
		PutSegment(b[64+int(s)*segBytes:64+(int(s)+1)*segBytes], h.RecordsPerWarp, sg)
	}
	return b
}

// PutSegment writes one segment (header and records) into b.
func PutSegment(b []byte, rpw uint32, sg Seg) {
	le := binary.LittleEndian
	count := sg.Count
	if count == 0 {
		count = uint32(len(sg.Records))
	}
	flags := sg.Flags
	if flags == 0 {
		flags = 1
	}
	le.PutUint32(b[0:], count)
	le.PutUint32(b[4:], sg.CTA[0])
	le.PutUint32(b[8:], sg.CTA[1])
	le.PutUint32(b[12:], sg.CTA[2])
	le.PutUint32(b[16:], sg.WarpInCTA)
	le.PutUint32(b[20:], sg.SM)
	le.PutUint32(b[24:], sg.HWWarp)
	le.PutUint32(b[28:], flags)
	for i, r := range sg.Records {
		if uint32(i) >= rpw {
			break
		}
		o := 32 + 16*i
		le.PutUint32(b[o:], r.Probe)
		le.PutUint32(b[o+4:], r.Sink)
		le.PutUint64(b[o+8:], r.Time)
	}
}

// Synth describes a synthetic launch: Warps warps (WarpsPerCTA per CTA, a
// 1-D grid), each running Iters iterations of a loop whose body is the user
// region 0 around Loads load regions 1..Loads. Timestamps are %clock64-like
// cycles, deterministic and varied per warp; SMs are assigned round-robin
// per CTA over NumSMs.
type Synth struct {
	Warps       int
	WarpsPerCTA int
	Iters       int
	Loads       int
	NumSMs      int
	Timer       uint32 // 0 clock (wraps), 1 clock64, 2 globaltimer
}

// Regions is the number of region instances the launch produces.
func (s Synth) Regions() int64 { return int64(s.Warps) * int64(s.Iters) * int64(1+s.Loads) }

// RecordsPerWarp is the records each warp writes.
func (s Synth) RecordsPerWarp() int { return s.Iters * 2 * (1 + s.Loads) }

// Manifest is the manifest matching the buffer.
func (s Synth) Manifest() *manifest.Manifest {
	timer := []string{"clock", "clock64", "globaltimer"}[s.Timer]
	return Manifest(1+s.Loads, timer, s.RecordsPerWarp())
}

// Size is the raw buffer's size in bytes.
func (s Synth) Size() int64 {
	return 64 + int64(s.Warps)*int64(32+16*s.RecordsPerWarp())
}

// WriteTo streams the raw buffer to w without holding it in memory.
func (s Synth) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	rpw := uint32(s.RecordsPerWarp())
	var hb [64]byte
	PutHeader(hb[:], Header{RecordsPerWarp: rpw, Segments: uint32(s.Warps), Timer: s.Timer, WarpsPerCTA: uint32(s.WarpsPerCTA), ID: ID})
	n := int64(0)
	k, err := bw.Write(hb[:])
	n += int64(k)
	if err != nil {
		return n, err
	}
	seg := make([]byte, 32+16*int(rpw))
	nsm := max(s.NumSMs, 1)
	for wi := 0; wi < s.Warps; wi++ {
		cta := wi / s.WarpsPerCTA
		sg := Seg{CTA: [3]uint32{uint32(cta), 0, 0}, WarpInCTA: uint32(wi % s.WarpsPerCTA), SM: uint32(cta % nsm), HWWarp: uint32(wi % 48)}
		sg.Records = s.records(wi, sg.Records)
		PutSegment(seg, rpw, sg)
		k, err := bw.Write(seg)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// records generates warp wi's records.
func (s Synth) records(wi int, out []Record) []Record {
	t := uint64(1000 + 37*wi)
	if s.Timer == 0 {
		t = uint64(0xFFFFF000 + 37*wi) // wraps early
	}
	x := uint32(wi*2654435761 + 1)
	stamp := func(id uint32) {
		v := t
		if s.Timer == 0 {
			v = uint64(uint32(t))
		}
		out = append(out, Record{Probe: id, Sink: x, Time: v})
	}
	for it := 0; it < s.Iters; it++ {
		stamp(BeginID(0))
		for l := 1; l <= s.Loads; l++ {
			t += 3
			stamp(BeginID(l))
			x = x*1664525 + 1013904223
			t += 20 + uint64(x>>24) // 20..275 cycles
			stamp(EndID(l))
		}
		t += 5
		stamp(EndID(0))
		t += 2
	}
	return out
}
