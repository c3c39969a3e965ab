package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/ptxtrace/ptxtrace/manifest"
)

// Bundle file format (docs/trace.md).
const (
	BundleMagic = "PTXTBNDL"
	BundleMajor = 1
	BundleMinor = 2 // 1: optional STMP chunk (truth stamps); 2: optional ACTV chunk (activity)

	bundleHeaderBytes = 16
	chunkHeaderBytes  = 16
	chunkTrailerBytes = 4
	truthRecordBytes  = 24
	stampRecordBytes  = 16
)

// Chunk tags.
const (
	tagMeta     = "META"
	tagManifest = "MANI"
	tagRaw      = "RAWB"
	tagTruth    = "TRUT"
	tagStamps   = "STMP" // minor 1: Begin, End of each TRUT record, same order
	tagCounters = "CNTR"
	tagActivity = "ACTV" // minor 2: Activity as gzip-compressed JSON
	tagEnd      = "END."
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// BundleInput is what a run bundle holds. Raw (or RawFrom with RawSize) and
// a manifest (Manifest, or ManifestJSON) are required.
type BundleInput struct {
	Raw []byte
	// RawFrom streams a raw buffer too large for memory: exactly RawSize
	// bytes are read from it (used when Raw is nil).
	RawFrom io.Reader
	RawSize int64

	Manifest     *manifest.Manifest
	ManifestJSON []byte // used when Manifest is nil; stored as given

	Kernel   string // the launched kernel; "" = the manifest's only kernel
	Meta     RunMeta
	Truth    []TruthAccess // any order; stored sorted by warp (stable)
	Counters []Counter     // stored in the given order
	// Activity is the model's recorded activity of the launch (optional:
	// nil writes no ACTV chunk).
	Activity *Activity
}

// bundleMeta is the META chunk's JSON.
type bundleMeta struct {
	Kernel string  `json:"kernel"`
	Run    RunMeta `json:"run"`
}

// WriteBundle writes a run bundle to w. The bytes depend only on in.
func WriteBundle(w io.Writer, in *BundleInput) error {
	if in == nil {
		return errors.New("trace: WriteBundle: nil input")
	}
	m := in.Manifest
	mjson := in.ManifestJSON
	if m != nil {
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			return fmt.Errorf("trace: WriteBundle: manifest: %w", err)
		}
		mjson = buf.Bytes()
	} else {
		if mjson == nil {
			return errors.New("trace: WriteBundle: no manifest")
		}
		var err error
		if m, err = manifest.Read(bytes.NewReader(mjson)); err != nil {
			return fmt.Errorf("trace: WriteBundle: %w", err)
		}
	}
	k, err := pickKernel(m, in.Kernel)
	if err != nil {
		return fmt.Errorf("trace: WriteBundle: %w", err)
	}
	var raw io.Reader
	var rawSize int64
	var rawAt io.ReaderAt
	switch {
	case in.Raw != nil:
		raw, rawSize = bytes.NewReader(in.Raw), int64(len(in.Raw))
		rawAt = bytes.NewReader(in.Raw)
	case in.RawFrom != nil:
		raw, rawSize = in.RawFrom, in.RawSize
	default:
		return errors.New("trace: WriteBundle: no raw buffer")
	}
	if rawAt != nil {
		// Check the buffer belongs to the manifest before storing it.
		if _, err := NewDecoder(rawAt, rawSize, m, k.Name, Options{}); err != nil {
			return fmt.Errorf("trace: WriteBundle: %w", err)
		}
	}
	if err := in.Meta.CheckTransfers(); err != nil {
		return fmt.Errorf("trace: WriteBundle: %w", err)
	}
	meta, err := json.Marshal(bundleMeta{Kernel: k.Name, Run: in.Meta})
	if err != nil {
		return fmt.Errorf("trace: WriteBundle: %w", err)
	}
	counters := in.Counters
	if counters == nil {
		counters = []Counter{}
	}
	cjson, err := json.Marshal(counters)
	if err != nil {
		return fmt.Errorf("trace: WriteBundle: counters: %w", err)
	}
	var ajson []byte
	if in.Activity != nil {
		if err := in.Activity.Check(); err != nil {
			return fmt.Errorf("trace: WriteBundle: %w", err)
		}
		if ajson, err = encodeActivity(in.Activity); err != nil {
			return fmt.Errorf("trace: WriteBundle: activity: %w", err)
		}
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	var hdr [bundleHeaderBytes]byte
	copy(hdr[:], BundleMagic)
	binary.LittleEndian.PutUint16(hdr[8:], BundleMajor)
	binary.LittleEndian.PutUint16(hdr[10:], BundleMinor)
	if _, err := bw.Write(hdr[:]); err != nil {
		return err
	}
	put := func(tag string, size int64, body io.Reader) error {
		if err := writeChunk(bw, tag, size, body); err != nil {
			return fmt.Errorf("trace: WriteBundle: %s chunk: %w", tag, err)
		}
		return nil
	}
	if err := put(tagMeta, int64(len(meta)), bytes.NewReader(meta)); err != nil {
		return err
	}
	if err := put(tagManifest, int64(len(mjson)), bytes.NewReader(mjson)); err != nil {
		return err
	}
	if err := put(tagRaw, rawSize, raw); err != nil {
		return err
	}
	truth := make([]TruthAccess, len(in.Truth))
	copy(truth, in.Truth)
	sort.SliceStable(truth, func(i, j int) bool { return truth[i].Warp < truth[j].Warp })
	if err := put(tagTruth, int64(len(truth))*truthRecordBytes, &truthEncoder{t: truth}); err != nil {
		return err
	}
	if hasStamps(truth) {
		if err := put(tagStamps, int64(len(truth))*stampRecordBytes, &truthEncoder{t: truth, stamps: true}); err != nil {
			return err
		}
	}
	if err := put(tagCounters, int64(len(cjson)), bytes.NewReader(cjson)); err != nil {
		return err
	}
	if ajson != nil {
		if err := put(tagActivity, int64(len(ajson)), bytes.NewReader(ajson)); err != nil {
			return err
		}
	}
	if err := put(tagEnd, 0, bytes.NewReader(nil)); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteBundleFile writes a run bundle to path atomically (temporary file,
// sync, rename), with permission 0644.
func WriteBundleFile(path string, in *BundleInput) error {
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error { return WriteBundle(w, in) })
}

func writeChunk(w io.Writer, tag string, size int64, body io.Reader) error {
	var h [chunkHeaderBytes]byte
	copy(h[:4], tag)
	binary.LittleEndian.PutUint64(h[8:], uint64(size))
	crc := crc32.Update(0, castagnoli, h[:])
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	cw := &crcWriter{w: w, crc: crc}
	n, err := io.CopyN(cw, body, size)
	if err != nil {
		if n < size && (err == io.EOF || err == io.ErrUnexpectedEOF) {
			return fmt.Errorf("payload ended after %d of %d bytes", n, size)
		}
		return err
	}
	var t [chunkTrailerBytes]byte
	binary.LittleEndian.PutUint32(t[:], cw.crc)
	_, err = w.Write(t[:])
	return err
}

type crcWriter struct {
	w   io.Writer
	crc uint32
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	return n, err
}

// truthEncoder streams truth records (or, with stamps, their Begin and
// End) in their binary form.
type truthEncoder struct {
	t      []TruthAccess
	stamps bool
	buf    []byte
}

func (e *truthEncoder) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(e.buf) == 0 {
			if len(e.t) == 0 {
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
			var b [truthRecordBytes]byte
			if e.stamps {
				binary.LittleEndian.PutUint64(b[0:], e.t[0].Begin)
				binary.LittleEndian.PutUint64(b[8:], e.t[0].End)
				e.buf = b[:stampRecordBytes]
			} else {
				putTruth(b[:], e.t[0])
				e.buf = b[:]
			}
			e.t = e.t[1:]
		}
		c := copy(p[n:], e.buf)
		e.buf = e.buf[c:]
		n += c
	}
	return n, nil
}

func putTruth(b []byte, t TruthAccess) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], t.Warp)
	le.PutUint32(b[4:], t.Probe)
	le.PutUint64(b[8:], t.Issue)
	le.PutUint64(b[16:], t.Complete)
}

// hasStamps reports whether any record has a begin or end stamp.
func hasStamps(t []TruthAccess) bool {
	for i := range t {
		if t[i].Begin != 0 || t[i].End != 0 {
			return true
		}
	}
	return false
}

// readStamps fills Begin and End of dst, the truth records from index i
// on, from the stamp chunk (minor 1); without one they stay 0.
func (b *Bundle) readStamps(i int64, dst []TruthAccess) error {
	if !b.hasStamps || len(dst) == 0 {
		return nil
	}
	if n := b.stamps.size / stampRecordBytes; i+int64(len(dst)) > n {
		return fmt.Errorf("trace: bundle: %d stamp records for %d truth records", n, b.TruthCount())
	}
	p := make([]byte, len(dst)*stampRecordBytes)
	if _, err := b.r.ReadAt(p, b.stamps.off+i*stampRecordBytes); err != nil {
		return fmt.Errorf("trace: bundle: stamps: %w", err)
	}
	for j := range dst {
		dst[j].Begin = binary.LittleEndian.Uint64(p[j*stampRecordBytes:])
		dst[j].End = binary.LittleEndian.Uint64(p[j*stampRecordBytes+8:])
	}
	return nil
}

func getTruth(b []byte) TruthAccess {
	le := binary.LittleEndian
	return TruthAccess{Warp: le.Uint32(b[0:]), Probe: le.Uint32(b[4:]), Issue: le.Uint64(b[8:]), Complete: le.Uint64(b[16:])}
}

// section locates one chunk's payload in the file.
type section struct {
	off, size int64
	crc       uint32 // stored CRC (covers the chunk header too)
	hdr       [chunkHeaderBytes]byte
}

// Bundle is an open run bundle. The small sections (metadata, manifest,
// counters) are read and checksum-verified by OpenBundle; the raw buffer and
// ground truth stay in the file and are read on demand through the
// io.ReaderAt, so bundles larger than memory work.
type Bundle struct {
	Major, Minor uint16
	Kernel       string
	Meta         RunMeta
	ManifestJSON []byte
	Manifest     *manifest.Manifest
	Counters     []Counter
	// Activity is the ACTV chunk (minor 2), checked; nil when the bundle
	// has none (older bundles, runs without --activity).
	Activity *Activity

	r          io.ReaderAt
	raw, truth section
	hasTruth   bool
	stamps     section // Begin, End per truth record (minor 1; optional)
	hasStamps  bool
	closer     io.Closer
}

// BundleError is a malformed bundle; Offset is the byte offset of the
// problem (−1 unknown).
type BundleError struct {
	Offset int64
	Msg    string
}

func (e *BundleError) Error() string {
	if e.Offset < 0 {
		return "trace: bundle: " + e.Msg
	}
	return fmt.Sprintf("trace: bundle: offset %d: %s", e.Offset, e.Msg)
}

func bundleErr(off int64, format string, args ...any) error {
	return &BundleError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// maxSmallChunk bounds chunks that OpenBundle reads into memory.
const maxSmallChunk = 256 << 20

// OpenBundle reads a bundle's directory and small sections from r (size
// bytes).
func OpenBundle(r io.ReaderAt, size int64) (*Bundle, error) {
	var hdr [bundleHeaderBytes]byte
	if size < bundleHeaderBytes {
		return nil, bundleErr(-1, "%d bytes: too short for a bundle", size)
	}
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("trace: bundle: %w", err)
	}
	if string(hdr[:8]) != BundleMagic {
		return nil, bundleErr(0, "bad magic %q (want %q): not a ptxtrace run bundle", hdr[:8], BundleMagic)
	}
	b := &Bundle{r: r, Major: binary.LittleEndian.Uint16(hdr[8:]), Minor: binary.LittleEndian.Uint16(hdr[10:])}
	if b.Major != BundleMajor {
		return nil, bundleErr(8, "version %d.%d is not supported (this ptxtrace reads major version %d)", b.Major, b.Minor, BundleMajor)
	}
	var (
		meta, mani, cntr, actv []byte
		seen                   = map[string]bool{}
		ended                  bool
	)
	off := int64(bundleHeaderBytes)
	for !ended {
		if off+chunkHeaderBytes+chunkTrailerBytes > size {
			return nil, bundleErr(off, "truncated: no END chunk")
		}
		var s section
		if _, err := r.ReadAt(s.hdr[:], off); err != nil {
			return nil, fmt.Errorf("trace: bundle: offset %d: %w", off, err)
		}
		tag := string(s.hdr[:4])
		n := binary.LittleEndian.Uint64(s.hdr[8:])
		if n > uint64(size) || off+chunkHeaderBytes+int64(n)+chunkTrailerBytes > size {
			return nil, bundleErr(off, "chunk %q of %d bytes runs past the end of the file (%d bytes)", tag, n, size)
		}
		s.off, s.size = off+chunkHeaderBytes, int64(n)
		var t [chunkTrailerBytes]byte
		if _, err := r.ReadAt(t[:], s.off+s.size); err != nil {
			return nil, fmt.Errorf("trace: bundle: offset %d: %w", s.off+s.size, err)
		}
		s.crc = binary.LittleEndian.Uint32(t[:])
		if seen[tag] {
			return nil, bundleErr(off, "duplicate chunk %q", tag)
		}
		seen[tag] = true
		small := func() ([]byte, error) {
			if s.size > maxSmallChunk {
				return nil, bundleErr(off, "chunk %q is %d bytes (limit %d)", tag, s.size, maxSmallChunk)
			}
			p := make([]byte, s.size)
			if _, err := r.ReadAt(p, s.off); err != nil {
				return nil, fmt.Errorf("trace: bundle: chunk %q: %w", tag, err)
			}
			c := crc32.Update(crc32.Update(0, castagnoli, s.hdr[:]), castagnoli, p)
			if c != s.crc {
				return nil, bundleErr(off, "chunk %q: checksum mismatch (stored %08x, computed %08x): corrupt file", tag, s.crc, c)
			}
			return p, nil
		}
		var err error
		switch tag {
		case tagMeta:
			meta, err = small()
		case tagManifest:
			mani, err = small()
		case tagCounters:
			cntr, err = small()
		case tagActivity:
			actv, err = small()
		case tagRaw:
			b.raw = s
		case tagTruth:
			if s.size%truthRecordBytes != 0 {
				return nil, bundleErr(off, "truth chunk of %d bytes is not a multiple of %d", s.size, truthRecordBytes)
			}
			b.truth, b.hasTruth = s, true
		case tagStamps:
			if s.size%stampRecordBytes != 0 {
				return nil, bundleErr(off, "stamp chunk of %d bytes is not a multiple of %d", s.size, stampRecordBytes)
			}
			b.stamps, b.hasStamps = s, true
		case tagEnd:
			_, err = small()
			ended = true
		default:
			// Unknown chunks of a newer minor version are skipped; their
			// checksum is checked by CheckValid.
		}
		if err != nil {
			return nil, err
		}
		off = s.off + s.size + chunkTrailerBytes
	}
	for _, tag := range []string{tagMeta, tagManifest, tagRaw} {
		if !seen[tag] {
			return nil, bundleErr(-1, "missing %q chunk", tag)
		}
	}
	var bm bundleMeta
	if err := json.Unmarshal(meta, &bm); err != nil {
		return nil, bundleErr(-1, "metadata: %v", err)
	}
	b.Kernel, b.Meta = bm.Kernel, bm.Run
	if err := b.Meta.CheckTransfers(); err != nil {
		return nil, bundleErr(-1, "metadata: %v", err)
	}
	b.ManifestJSON = mani
	m, err := manifest.Read(bytes.NewReader(mani))
	if err != nil {
		return nil, fmt.Errorf("trace: bundle: %w", err)
	}
	b.Manifest = m
	if m.Kernel(b.Kernel) == nil {
		return nil, bundleErr(-1, "kernel %q is not in the bundle's manifest", b.Kernel)
	}
	if cntr != nil {
		if err := json.Unmarshal(cntr, &b.Counters); err != nil {
			return nil, bundleErr(-1, "counters: %v", err)
		}
	}
	if actv != nil {
		if b.Activity, err = decodeActivity(actv); err != nil {
			return nil, bundleErr(-1, "activity: %v", err)
		}
		if err := b.Activity.Check(); err != nil {
			return nil, bundleErr(-1, "%v", err)
		}
	}
	return b, nil
}

// OpenBundleFile opens the bundle at path, or the one bundle of a run
// directory with a single traced launch (RunBundles); a directory of a
// multi-launch run is an error naming its bundles (OpenRunDir opens them
// all). Close the result when done.
func OpenBundleFile(path string) (*Bundle, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		rbs, err := RunBundles(path)
		if err != nil {
			return nil, err
		}
		if len(rbs) > 1 {
			return nil, fmt.Errorf("%s: run directory has %d traced launches (%s ... %s); open them with OpenRunDir or name one bundle",
				path, len(rbs), filepath.Base(rbs[0].Path), filepath.Base(rbs[len(rbs)-1].Path))
		}
		path = rbs[0].Path
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	b, err := OpenBundle(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b.closer = f
	return b, nil
}

// Close closes the file of a bundle opened with OpenBundleFile.
func (b *Bundle) Close() error {
	if b.closer == nil {
		return nil
	}
	err := b.closer.Close()
	b.closer = nil
	return err
}

// Raw returns a reader over the raw buffer section.
func (b *Bundle) Raw() *io.SectionReader { return io.NewSectionReader(b.r, b.raw.off, b.raw.size) }

// RawSize is the raw buffer's length in bytes.
func (b *Bundle) RawSize() int64 { return b.raw.size }

// TruthCount is the number of ground-truth records.
func (b *Bundle) TruthCount() int64 { return b.truth.size / truthRecordBytes }

// TruthAt returns ground-truth record i.
func (b *Bundle) TruthAt(i int64) (TruthAccess, error) {
	var p [truthRecordBytes]byte
	if _, err := b.r.ReadAt(p[:], b.truth.off+i*truthRecordBytes); err != nil {
		return TruthAccess{}, fmt.Errorf("trace: bundle: truth record %d: %w", i, err)
	}
	t := []TruthAccess{getTruth(p[:])}
	err := b.readStamps(i, t)
	return t[0], err
}

// AllTruth reads every ground-truth record into memory.
func (b *Bundle) AllTruth() ([]TruthAccess, error) {
	n := b.TruthCount()
	out := make([]TruthAccess, 0, n)
	rd := bufio.NewReaderSize(io.NewSectionReader(b.r, b.truth.off, b.truth.size), 1<<16)
	var p [truthRecordBytes]byte
	for i := int64(0); i < n; i++ {
		if _, err := io.ReadFull(rd, p[:]); err != nil {
			return nil, fmt.Errorf("trace: bundle: truth record %d: %w", i, err)
		}
		out = append(out, getTruth(p[:]))
	}
	if err := b.readStamps(0, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Truth implements TruthReader: the records of one warp, found by binary
// search (the chunk is sorted by warp).
func (b *Bundle) Truth(seg uint32, dst []TruthAccess) ([]TruthAccess, error) {
	n := b.TruthCount()
	var ferr error
	warpAt := func(i int64) uint32 {
		var p [4]byte
		if _, err := b.r.ReadAt(p[:], b.truth.off+i*truthRecordBytes); err != nil && ferr == nil {
			ferr = err
		}
		return binary.LittleEndian.Uint32(p[:])
	}
	lo, hi := int64(0), n
	for lo < hi {
		m := lo + (hi-lo)/2
		if warpAt(m) < seg {
			lo = m + 1
		} else {
			hi = m
		}
	}
	start, first := len(dst), lo
	const blk = 256
	var p [blk * truthRecordBytes]byte
	for i := lo; i < n && ferr == nil; i += blk {
		c := min(blk, n-i)
		if _, err := b.r.ReadAt(p[:c*truthRecordBytes], b.truth.off+i*truthRecordBytes); err != nil {
			return dst, fmt.Errorf("trace: bundle: truth: %w", err)
		}
		for j := int64(0); j < c; j++ {
			t := getTruth(p[j*truthRecordBytes:])
			if t.Warp != seg {
				return dst, b.readStamps(first, dst[start:])
			}
			dst = append(dst, t)
		}
	}
	if ferr != nil {
		return dst, fmt.Errorf("trace: bundle: truth: %w", ferr)
	}
	return dst, b.readStamps(first, dst[start:])
}

// Regions returns a streaming decoder over the bundle's raw buffer, with
// ground truth attached to the regions it times.
func (b *Bundle) Regions() (*Decoder, error) {
	var tr TruthReader
	if b.TruthCount() > 0 {
		tr = b
	}
	return NewDecoder(b.Raw(), b.raw.size, b.Manifest, b.Kernel, Options{Meta: b.Meta, ManifestJSON: b.ManifestJSON, Truth: tr, Activity: b.Activity})
}

// Trace decodes the whole bundle into memory.
func (b *Bundle) Trace() (*Trace, error) {
	d, err := b.Regions()
	if err != nil {
		return nil, err
	}
	t, err := Collect(d)
	if err != nil {
		return nil, err
	}
	if t.Truth, err = b.AllTruth(); err != nil {
		return nil, err
	}
	t.Counters = append([]Counter(nil), b.Counters...)
	return t, nil
}

// VerifyChecksums re-reads every chunk (streaming, bounded memory) and
// compares its CRC-32C with the stored one.
func (b *Bundle) VerifyChecksums() error {
	off := int64(bundleHeaderBytes)
	buf := make([]byte, 64<<10)
	for {
		var s section
		if _, err := b.r.ReadAt(s.hdr[:], off); err != nil {
			return fmt.Errorf("trace: bundle: offset %d: %w", off, err)
		}
		tag := string(s.hdr[:4])
		n := int64(binary.LittleEndian.Uint64(s.hdr[8:]))
		c := crc32.Update(0, castagnoli, s.hdr[:])
		for pos := int64(0); pos < n; {
			k := min(int64(len(buf)), n-pos)
			if _, err := b.r.ReadAt(buf[:k], off+chunkHeaderBytes+pos); err != nil {
				return fmt.Errorf("trace: bundle: chunk %q: %w", tag, err)
			}
			c = crc32.Update(c, castagnoli, buf[:k])
			pos += k
		}
		var t [4]byte
		if _, err := b.r.ReadAt(t[:], off+chunkHeaderBytes+n); err != nil {
			return fmt.Errorf("trace: bundle: chunk %q: %w", tag, err)
		}
		if stored := binary.LittleEndian.Uint32(t[:]); stored != c {
			return bundleErr(off, "chunk %q: checksum mismatch (stored %08x, computed %08x): corrupt file", tag, stored, c)
		}
		if tag == tagEnd {
			return nil
		}
		off += chunkHeaderBytes + n + chunkTrailerBytes
	}
}

// CheckValid verifies the checksums, decodes every warp (one at a time) and
// checks the invariants of each warp's regions. It returns the first
// problem; decoder issues (overflow, unmatched probes) are not errors.
func (b *Bundle) CheckValid() error {
	if err := b.VerifyChecksums(); err != nil {
		return err
	}
	if err := b.Manifest.Validate(); err != nil {
		return err
	}
	d, err := b.Regions()
	if err != nil {
		return err
	}
	for {
		wr, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := checkWarp(d.Header(), wr); err != nil {
			return err
		}
	}
	for i, c := range b.Counters {
		if c.Name == "" || c.SM < -1 {
			return fmt.Errorf("trace: counter %d: bad name %q or SM %d", i, c.Name, c.SM)
		}
	}
	return nil
}
