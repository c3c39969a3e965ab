package clog2

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Reader reads a CLOG2 file record by record and enforces its layout:
// preamble, full-size blocks, records that fit their block, ENDBLOCK at
// the end of every block but the last, ENDLOG in the last, then the
// communicator table at the preamble's offset and nothing after it.
// ENDBLOCK records are consumed internally; ENDLOG ends Next with io.EOF.
type Reader struct {
	r      *bufio.Reader
	pre    Preamble
	blk    []byte
	pos    int   // offset of the next record in blk
	off    int64 // file offset just after the bytes read so far
	blocks int64
	have   bool // a block is loaded
	done   bool // ENDLOG seen
	table  []CommID
	tabErr error
	tabOK  bool
	rec    int64 // records returned
}

// NewReader reads and checks the preamble.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var pb [PreambleSize]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return nil, fmt.Errorf("clog2: reading preamble: %w", noEOF(err))
	}
	p, err := ParsePreamble(pb[:])
	if err != nil {
		return nil, err
	}
	if p.CommTableFptr < PreambleSize+int64(p.BlockSize) || (p.CommTableFptr-PreambleSize)%int64(p.BlockSize) != 0 {
		return nil, fmt.Errorf("clog2: commtable_fptr %d is not the end of a whole number (≥ 1) of %d-byte blocks after the preamble", p.CommTableFptr, p.BlockSize)
	}
	return &Reader{r: br, pre: p, blk: make([]byte, p.BlockSize), off: PreambleSize}, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Preamble returns the file's preamble.
func (r *Reader) Preamble() Preamble { return r.pre }

// Offset returns the file offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.off }

func (r *Reader) loadBlock() error {
	if _, err := io.ReadFull(r.r, r.blk); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("clog2: file ends after block %d without ENDLOG", r.blocks)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("clog2: block %d at offset %d is short (blocks must be exactly %d bytes, the last one too)", r.blocks, r.off, r.pre.BlockSize)
		}
		return err
	}
	r.off += int64(len(r.blk))
	r.blocks++
	r.pos = 0
	r.have = true
	return nil
}

// Next decodes the next record into rec. It returns io.EOF after ENDLOG.
func (r *Reader) Next(rec *Record) error {
	for {
		if r.done {
			return io.EOF
		}
		if !r.have {
			if err := r.loadBlock(); err != nil {
				return err
			}
		}
		bs := len(r.blk)
		if r.pos+HeaderSize > bs {
			return fmt.Errorf("clog2: block %d: record header at %d crosses the block end", r.blocks-1, r.pos)
		}
		h := r.blk[r.pos:]
		*rec = Record{}
		rec.Time = math.Float64frombits(binary.BigEndian.Uint64(h))
		rec.IComm = int32(binary.BigEndian.Uint32(h[8:]))
		rec.Rank = int32(binary.BigEndian.Uint32(h[12:]))
		rec.Thread = int32(binary.BigEndian.Uint32(h[16:]))
		rec.Type = RecType(binary.BigEndian.Uint32(h[20:]))
		n, ok := BodySize(rec.Type)
		if !ok {
			return fmt.Errorf("clog2: block %d offset %d: unknown record type %d", r.blocks-1, r.pos, int32(rec.Type))
		}
		if r.pos+HeaderSize+n > bs {
			return fmt.Errorf("clog2: block %d: %v record at %d crosses the block end", r.blocks-1, rec.Type, r.pos)
		}
		b := r.blk[r.pos+HeaderSize : r.pos+HeaderSize+n]
		r.pos += HeaderSize + n
		switch rec.Type {
		case RecEndBlock:
			r.have = false
			if r.off >= r.pre.CommTableFptr {
				return fmt.Errorf("clog2: ENDBLOCK in the last block (offset %d): the last block must end with ENDLOG", r.off-int64(bs))
			}
			continue
		case RecEndLog:
			if r.off != r.pre.CommTableFptr {
				return fmt.Errorf("clog2: ENDLOG in the block ending at %d, but commtable_fptr is %d", r.off, r.pre.CommTableFptr)
			}
			r.done = true
			r.rec++
			return io.EOF
		}
		decodeBody(rec, b)
		r.rec++
		return nil
	}
}

func get32(b []byte, i int) int32 { return int32(binary.BigEndian.Uint32(b[4*i:])) }

func decodeBody(rec *Record, b []byte) {
	switch rec.Type {
	case RecStateDef:
		rec.StateID, rec.StartEType, rec.FinalEType = get32(b, 0), get32(b, 1), get32(b, 2)
		rec.Color = getString(b[16 : 16+ColorLen])
		rec.Name = getString(b[16+ColorLen : 16+ColorLen+NameLen])
		rec.Format = getString(b[16+ColorLen+NameLen:])
	case RecEventDef:
		rec.EType = get32(b, 0)
		rec.Color = getString(b[8 : 8+ColorLen])
		rec.Name = getString(b[8+ColorLen : 8+ColorLen+NameLen])
		rec.Format = getString(b[8+ColorLen+NameLen:])
	case RecConstDef:
		rec.EType, rec.Value = get32(b, 0), get32(b, 1)
		rec.Name = getString(b[8:])
	case RecBareEvt:
		rec.EType = get32(b, 0)
	case RecCargoEvt:
		rec.EType = get32(b, 0)
		copy(rec.Cargo[:], b[8:])
	case RecMsgEvt:
		rec.EType, rec.RemoteIComm, rec.RemoteRank, rec.Tag, rec.Size = get32(b, 0), get32(b, 1), get32(b, 2), get32(b, 3), get32(b, 4)
	case RecCollEvt:
		rec.EType, rec.Root, rec.Size = get32(b, 0), get32(b, 1), get32(b, 2)
	case RecCommEvt:
		rec.EType, rec.CommIComm, rec.CommRank, rec.WRank = get32(b, 0), get32(b, 1), get32(b, 2), get32(b, 3)
		copy(rec.GComm[:], b[16:])
	case RecSrcLoc:
		rec.SrcLoc, rec.LineNo = get32(b, 0), get32(b, 1)
		rec.File = getString(b[8:])
	case RecTimeShift:
		rec.Shift = math.Float64frombits(binary.BigEndian.Uint64(b))
	}
}

// maxCommIDs bounds the communicator table a reader accepts.
const maxCommIDs = 1 << 20

// CommTable reads the communicator table after Next has returned io.EOF,
// and checks that the file ends right after it.
func (r *Reader) CommTable() ([]CommID, error) {
	if r.tabOK || r.tabErr != nil {
		return r.table, r.tabErr
	}
	if !r.done {
		return nil, errors.New("clog2: CommTable before the end of the records")
	}
	r.table, r.tabErr = r.readTable()
	r.tabOK = r.tabErr == nil
	return r.table, r.tabErr
}

func (r *Reader) readTable() ([]CommID, error) {
	var cb [4]byte
	if _, err := io.ReadFull(r.r, cb[:]); err != nil {
		return nil, fmt.Errorf("clog2: reading communicator table count at %d: %w", r.off, noEOF(err))
	}
	r.off += 4
	n := int32(binary.BigEndian.Uint32(cb[:]))
	if n < 1 || n > maxCommIDs {
		return nil, fmt.Errorf("clog2: communicator table count %d: want 1..%d", n, maxCommIDs)
	}
	t := make([]CommID, n)
	var e [CommIDSize]byte
	for i := range t {
		if _, err := io.ReadFull(r.r, e[:]); err != nil {
			return nil, fmt.Errorf("clog2: reading communicator table entry %d: %w", i, noEOF(err))
		}
		r.off += CommIDSize
		copy(t[i].UUID[:], e[:])
		t[i].LocalID, t[i].Kind = get32(e[UUIDSize:], 0), get32(e[UUIDSize:], 1)
	}
	var one [1]byte
	if k, _ := io.ReadFull(r.r, one[:]); k != 0 {
		return nil, fmt.Errorf("clog2: trailing bytes after the communicator table at offset %d", r.off)
	}
	return t, nil
}
