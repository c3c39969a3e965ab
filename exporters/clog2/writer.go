package clog2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Record is one decoded record: the header fields and the body fields of
// its type (fields of other types are zero).
type Record struct {
	Time   float64 // seconds
	IComm  int32
	Rank   int32
	Thread int32
	Type   RecType

	// EType is the event type of BAREEVT, CARGOEVT, MSGEVT, COLLEVT,
	// EVENTDEF, CONSTDEF and the creation type of COMMEVT.
	EType int32

	// STATEDEF
	StateID, StartEType, FinalEType int32
	// STATEDEF and EVENTDEF
	Color, Name, Format string

	Value int32           // CONSTDEF value (Name holds its name)
	Cargo [CargoSize]byte // CARGOEVT bytes

	// MSGEVT: remote communicator and rank, tag, size. COLLEVT: Root, Size.
	RemoteIComm, RemoteRank, Tag, Size, Root int32

	// COMMEVT: created communicator, rank in it, rank in the world, uuid.
	CommIComm, CommRank, WRank int32
	GComm                      UUID

	// SRCLOC
	SrcLoc, LineNo int32
	File           string

	Shift float64 // TIMESHIFT
}

// Sizer computes how many blocks a sequence of records fills, with the
// same flush rule as Writer, so that a writer that knows its records in
// advance can put the communicator table's offset into the preamble before
// writing any block.
type Sizer struct {
	blockSize int
	used      int
	blocks    int64
}

// NewSizer returns a Sizer for blocks of blockSize bytes.
func NewSizer(blockSize int) *Sizer { return &Sizer{blockSize: blockSize} }

// Add accounts for one record of type t.
func (s *Sizer) Add(t RecType) {
	n, _ := BodySize(t)
	n += HeaderSize
	if s.used+n+HeaderSize >= s.blockSize {
		s.blocks++
		s.used = 0
	}
	s.used += n
}

// EndBlock accounts for Writer.EndBlock.
func (s *Sizer) EndBlock() {
	if s.used > 0 {
		s.blocks++
		s.used = 0
	}
}

// AddN accounts for n records of type t.
func (s *Sizer) AddN(t RecType, n int) {
	for ; n > 0; n-- {
		s.Add(t)
	}
}

// Blocks returns the number of blocks the records fill, counting the last
// block that ENDLOG closes.
func (s *Sizer) Blocks() int64 { return s.blocks + 1 }

// CommTableOffset is the file offset of the communicator table after the
// records added so far.
func (s *Sizer) CommTableOffset() int64 { return PreambleSize + s.Blocks()*int64(s.blockSize) }

// Writer writes a CLOG2 file: preamble, records packed into blocks of
// exactly BlockSize bytes (each closed by ENDBLOCK, the last by ENDLOG and
// zero padded), then the communicator table. It does not sort: the caller
// writes records in time order. The preamble's CommTableFptr must be the
// offset Close will write the table at (compute it with a Sizer); Close
// fails otherwise.
type Writer struct {
	w      io.Writer
	pre    Preamble
	bs     int
	blk    []byte
	used   int
	blocks int64
	err    error
	closed bool
	last   float64 // time of the last record: ENDBLOCK and ENDLOG repeat it

	endLogged bool // appendBlocks brought the ENDLOG
}

// NewWriter writes the preamble and returns a Writer.
func NewWriter(w io.Writer, p Preamble) (*Writer, error) {
	if p.BlockSize < minBlockSize || p.BlockSize > maxBlockSize || p.BlockSize%8 != 0 {
		return nil, fmt.Errorf("clog2: block size %d: want a multiple of 8 in [%d, %d]", p.BlockSize, minBlockSize, maxBlockSize)
	}
	pb, err := p.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(pb); err != nil {
		return nil, err
	}
	return &Writer{w: w, pre: p, bs: int(p.BlockSize), blk: make([]byte, p.BlockSize)}, nil
}

// newSpool returns a Writer of blocks only (no preamble, no table): its
// finish ends the last block with ENDLOG, and AppendBlocks of a Writer
// copies the blocks into a file.
func newSpool(w io.Writer, blockSize int) *Writer {
	return &Writer{w: w, bs: blockSize, blk: make([]byte, blockSize)}
}

// finish writes ENDLOG and the zero-padded last block of a spool.
func (w *Writer) finish() error {
	w.putHeader(w.used, w.last, 0, 0, 0, RecEndLog)
	w.flush()
	w.closed = true
	return w.err
}

// appendBlocks copies n whole blocks (the last one ending with ENDLOG, as a
// spool's finish writes them) from r after the current block, which must be
// empty (see EndBlock). Close then writes only the table.
func (w *Writer) appendBlocks(r io.Reader, n int64) error {
	if w.used != 0 {
		return errors.New("clog2: appendBlocks into a non-empty block")
	}
	if w.err != nil {
		return w.err
	}
	k, err := io.CopyN(w.w, r, n*int64(w.bs))
	if err != nil {
		return fmt.Errorf("clog2: copying %d spooled blocks (%d bytes copied): %w", n, k, err)
	}
	w.blocks += n
	w.endLogged = true
	return nil
}

// reserve makes room for a record of n bytes (header included) in the
// current block, flushing it with ENDBLOCK first if the record and a
// trailing ENDBLOCK would not fit. It returns the record's offset.
func (w *Writer) reserve(n int) int {
	if w.used+n+HeaderSize >= w.bs {
		w.putHeader(w.used, w.last, 0, 0, 0, RecEndBlock)
		w.flush()
	}
	off := w.used
	w.used += n
	return off
}

func (w *Writer) flush() {
	if w.err == nil {
		_, w.err = w.w.Write(w.blk)
	}
	clear(w.blk)
	w.used = 0
	w.blocks++
}

func (w *Writer) putHeader(off int, t float64, icomm, rank, thread int32, rt RecType) {
	b := w.blk[off : off+HeaderSize]
	w.last = t
	binary.BigEndian.PutUint64(b[0:], math.Float64bits(t))
	binary.BigEndian.PutUint32(b[8:], uint32(icomm))
	binary.BigEndian.PutUint32(b[12:], uint32(rank))
	binary.BigEndian.PutUint32(b[16:], uint32(thread))
	binary.BigEndian.PutUint32(b[20:], uint32(rt))
}

func put32(b []byte, vs ...int32) {
	for i, v := range vs {
		binary.BigEndian.PutUint32(b[4*i:], uint32(v))
	}
}

// EndBlock closes the current block early with ENDBLOCK (if it holds any
// record), so that the next record starts a fresh block.
func (w *Writer) EndBlock() {
	if w.used > 0 {
		w.putHeader(w.used, w.last, 0, 0, 0, RecEndBlock)
		w.flush()
	}
}

// Bare writes a BAREEVT.
func (w *Writer) Bare(t float64, icomm, rank, thread, etype int32) {
	off := w.reserve(HeaderSize + 8)
	w.putHeader(off, t, icomm, rank, thread, RecBareEvt)
	b := w.blk[off+HeaderSize:]
	binary.BigEndian.PutUint32(b, uint32(etype))
	binary.BigEndian.PutUint32(b[4:], 0)
}

// Cargo writes a CARGOEVT with 32 bytes of cargo.
func (w *Writer) Cargo(t float64, icomm, rank, thread, etype int32, cargo *[CargoSize]byte) {
	off := w.reserve(HeaderSize + 8 + CargoSize)
	w.putHeader(off, t, icomm, rank, thread, RecCargoEvt)
	b := w.blk[off+HeaderSize:]
	binary.BigEndian.PutUint32(b, uint32(etype))
	binary.BigEndian.PutUint32(b[4:], 0)
	copy(b[8:8+CargoSize], cargo[:])
}

// Write writes any record except ENDBLOCK and ENDLOG (which the Writer
// places itself).
func (w *Writer) Write(r *Record) error {
	if w.closed {
		return errors.New("clog2: write after Close")
	}
	n, ok := BodySize(r.Type)
	if !ok || r.Type == RecEndBlock || r.Type == RecEndLog {
		return fmt.Errorf("clog2: cannot write record type %v", r.Type)
	}
	off := w.reserve(HeaderSize + n)
	w.putHeader(off, r.Time, r.IComm, r.Rank, r.Thread, r.Type)
	b := w.blk[off+HeaderSize : off+HeaderSize+n]
	clear(b)
	switch r.Type {
	case RecStateDef:
		put32(b, r.StateID, r.StartEType, r.FinalEType, 0)
		putString(b[16:16+ColorLen], r.Color)
		putString(b[16+ColorLen:16+ColorLen+NameLen], r.Name)
		putString(b[16+ColorLen+NameLen:], r.Format)
	case RecEventDef:
		put32(b, r.EType, 0)
		putString(b[8:8+ColorLen], r.Color)
		putString(b[8+ColorLen:8+ColorLen+NameLen], r.Name)
		putString(b[8+ColorLen+NameLen:], r.Format)
	case RecConstDef:
		put32(b, r.EType, r.Value)
		putString(b[8:], r.Name)
	case RecBareEvt:
		put32(b, r.EType, 0)
	case RecCargoEvt:
		put32(b, r.EType, 0)
		copy(b[8:], r.Cargo[:])
	case RecMsgEvt:
		put32(b, r.EType, r.RemoteIComm, r.RemoteRank, r.Tag, r.Size, 0)
	case RecCollEvt:
		put32(b, r.EType, r.Root, r.Size, 0)
	case RecCommEvt:
		put32(b, r.EType, r.CommIComm, r.CommRank, r.WRank)
		copy(b[16:], r.GComm[:])
	case RecSrcLoc:
		put32(b, r.SrcLoc, r.LineNo)
		putString(b[8:], r.File)
	case RecTimeShift:
		binary.BigEndian.PutUint64(b, math.Float64bits(r.Shift))
	}
	return w.err
}

// Close writes ENDLOG, the zero-padded last block and the communicator
// table. It checks that the table lands at the preamble's CommTableFptr.
func (w *Writer) Close(table []CommID) error {
	if w.closed {
		return errors.New("clog2: Close called twice")
	}
	w.closed = true
	if !w.endLogged {
		w.putHeader(w.used, w.last, 0, 0, 0, RecEndLog)
		w.flush()
	}
	if w.err != nil {
		return w.err
	}
	if off := PreambleSize + w.blocks*int64(w.bs); off != w.pre.CommTableFptr {
		return fmt.Errorf("clog2: communicator table at offset %d, preamble says %d", off, w.pre.CommTableFptr)
	}
	b := make([]byte, 4+CommIDSize*len(table))
	binary.BigEndian.PutUint32(b, uint32(len(table)))
	for i, c := range table {
		e := b[4+i*CommIDSize:]
		copy(e, c.UUID[:])
		put32(e[UUIDSize:], c.LocalID, c.Kind)
	}
	_, err := w.w.Write(b)
	return err
}

// Blocks returns the number of blocks written so far.
func (w *Writer) Blocks() int64 { return w.blocks }
