package clog2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Format constants of CLOG-02.44.
const (
	Version          = "CLOG-02.44"
	PreambleSize     = 1024  // bytes before the first block
	DefaultBlockSize = 65536 // MPE's default block size
	HeaderSize       = 24    // record header: f64 time, i32 icomm, rank, thread, rectype
	CargoSize        = 32    // bytes of a CARGOEVT payload
	CommIDSize       = 40    // one comm table entry: uuid[32], i32 local id, i32 kind
	UUIDSize         = 32    // i32 random, f64 time, char[20] name

	// Lengths of the fixed, NUL-padded strings (including the NUL).
	ColorLen  = 24
	NameLen   = 32
	FormatLen = 40
	FileLen   = 40

	// Event and state id allocation of MPE (the values this package writes
	// into the preamble).
	KnownEventIDStart     = 0
	UserEventIDStart      = 600
	KnownSoloEventIDStart = -10
	UserSoloEventIDStart  = 5000
	KnownStateIDCount     = 300
	NumBufferedBlocks     = 128

	// CommWorldCreate is the COMMEVT etype that creates MPI_COMM_WORLD
	// (and with it the timelines of one rank).
	CommWorldCreate = 0
	// CommKindIntra is the comm table kind of an intracommunicator.
	CommKindIntra = 1

	// minBlockSize and maxBlockSize bound what a reader accepts.
	minBlockSize = 256
	maxBlockSize = 1 << 26

	oneGiga = 1 << 30
)

// RecType is a record's type (the header's rectype field).
type RecType int32

// Record types.
const (
	RecEndLog    RecType = 0
	RecEndBlock  RecType = 1
	RecStateDef  RecType = 2
	RecEventDef  RecType = 3
	RecConstDef  RecType = 4
	RecBareEvt   RecType = 5
	RecCargoEvt  RecType = 6
	RecMsgEvt    RecType = 7
	RecCollEvt   RecType = 8
	RecCommEvt   RecType = 9
	RecSrcLoc    RecType = 10
	RecTimeShift RecType = 11
)

// BodySize returns the size of a record body of type t (without the
// 24-byte header) and false for unknown types.
func BodySize(t RecType) (int, bool) {
	switch t {
	case RecEndLog, RecEndBlock:
		return 0, true
	case RecStateDef:
		return 16 + ColorLen + NameLen + FormatLen, true // 112
	case RecEventDef:
		return 8 + ColorLen + NameLen + FormatLen, true // 104
	case RecConstDef:
		return 8 + NameLen, true // 40
	case RecBareEvt:
		return 8, true
	case RecCargoEvt:
		return 8 + CargoSize, true // 40
	case RecMsgEvt:
		return 24, true
	case RecCollEvt:
		return 16, true
	case RecCommEvt:
		return 16 + UUIDSize, true // 48
	case RecSrcLoc:
		return 8 + FileLen, true // 48
	case RecTimeShift:
		return 8, true
	}
	return 0, false
}

// String names the record type as MPE does.
func (t RecType) String() string {
	switch t {
	case RecEndLog:
		return "ENDLOG"
	case RecEndBlock:
		return "ENDBLOCK"
	case RecStateDef:
		return "STATEDEF"
	case RecEventDef:
		return "EVENTDEF"
	case RecConstDef:
		return "CONSTDEF"
	case RecBareEvt:
		return "BAREEVT"
	case RecCargoEvt:
		return "CARGOEVT"
	case RecMsgEvt:
		return "MSGEVT"
	case RecCollEvt:
		return "COLLEVT"
	case RecCommEvt:
		return "COMMEVT"
	case RecSrcLoc:
		return "SRCLOC"
	case RecTimeShift:
		return "TIMESHIFT"
	}
	return fmt.Sprintf("rectype(%d)", int32(t))
}

// Preamble is the 1024-byte file header. All numbers are written as
// decimal ASCII tokens separated by NULs.
type Preamble struct {
	Version               string
	BigEndian             bool
	Finalized             bool
	BlockSize             int32
	NumBufferedBlocks     int32
	MaxCommWorldSize      int32
	MaxThreadCount        int32
	KnownEventIDStart     int32
	UserEventIDStart      int32
	KnownSoloEventIDStart int32
	UserSoloEventIDStart  int32
	KnownStateIDCount     int32
	UserStateIDCount      int32
	KnownSoloEventIDCount int32
	UserSoloEventIDCount  int32
	CommTableFptr         int64 // file offset of the communicator table
}

// NewPreamble returns the preamble this package writes, with MPE's id
// allocation, for the given sizes; CommTableFptr is left for the caller.
func NewPreamble(blockSize, worldSize, threads, userStates, userSoloEvents int32) Preamble {
	return Preamble{
		Version:               Version,
		BigEndian:             true,
		Finalized:             true,
		BlockSize:             blockSize,
		NumBufferedBlocks:     NumBufferedBlocks,
		MaxCommWorldSize:      worldSize,
		MaxThreadCount:        threads,
		KnownEventIDStart:     KnownEventIDStart,
		UserEventIDStart:      UserEventIDStart,
		KnownSoloEventIDStart: KnownSoloEventIDStart,
		UserSoloEventIDStart:  UserSoloEventIDStart,
		KnownStateIDCount:     KnownStateIDCount,
		UserStateIDCount:      userStates,
		KnownSoloEventIDCount: 0,
		UserSoloEventIDCount:  userSoloEvents,
	}
}

func boolToken(b bool) string {
	if b {
		return "TRUE "
	}
	return "FALSE"
}

// MarshalBinary encodes the preamble as exactly PreambleSize bytes.
func (p *Preamble) MarshalBinary() ([]byte, error) {
	if p.CommTableFptr < 0 {
		return nil, fmt.Errorf("clog2: negative commtable_fptr %d", p.CommTableFptr)
	}
	tokens := []string{
		p.Version,
		"is_big_endian=", boolToken(p.BigEndian),
		"is_finalzed=", boolToken(p.Finalized), // sic: MPE's spelling
		"block_size=", itoa(p.BlockSize),
		"num_buffered_blocks=", itoa(p.NumBufferedBlocks),
		"max_comm_world_size=", itoa(p.MaxCommWorldSize),
		"max_thread_count=", itoa(p.MaxThreadCount),
		"known_eventID_start=", itoa(p.KnownEventIDStart),
		"user_eventID_start=", itoa(p.UserEventIDStart),
		"known_solo_eventID_start=", itoa(p.KnownSoloEventIDStart),
		"user_solo_eventID_start=", itoa(p.UserSoloEventIDStart),
		"known_stateID_count=", itoa(p.KnownStateIDCount),
		"user_stateID_count=", itoa(p.UserStateIDCount),
		"known_solo_eventID_count=", itoa(p.KnownSoloEventIDCount),
		"user_solo_eventID_count=", itoa(p.UserSoloEventIDCount),
		"commtable_fptr=",
		strconv.FormatInt(p.CommTableFptr/oneGiga, 10),
		strconv.Itoa(oneGiga),
		strconv.FormatInt(p.CommTableFptr%oneGiga, 10),
	}
	b := make([]byte, 0, PreambleSize)
	for _, t := range tokens {
		if t == "" || bytes.IndexByte([]byte(t), 0) >= 0 {
			return nil, fmt.Errorf("clog2: empty or NUL-containing preamble token %q", t)
		}
		b = append(b, t...)
		b = append(b, 0)
	}
	if len(b) > PreambleSize {
		return nil, fmt.Errorf("clog2: preamble needs %d bytes, more than %d", len(b), PreambleSize)
	}
	return b[:PreambleSize], nil
}

func itoa(v int32) string { return strconv.FormatInt(int64(v), 10) }

// ParsePreamble decodes and checks a preamble: the tokens in MPE's order,
// the version, big-endian byte order, numeric values and a block size this
// package can read.
func ParsePreamble(b []byte) (Preamble, error) {
	var p Preamble
	if len(b) < PreambleSize {
		return p, fmt.Errorf("clog2: preamble is %d bytes, want %d", len(b), PreambleSize)
	}
	// Tokens are NUL-separated; empty tokens (runs of NULs) are skipped,
	// as Java's StringTokenizer does.
	var toks []string
	for _, f := range bytes.Split(b[:PreambleSize], []byte{0}) {
		if s := string(bytes.TrimSpace(f)); s != "" {
			toks = append(toks, s)
		}
	}
	i := 0
	next := func() (string, error) {
		if i >= len(toks) {
			return "", fmt.Errorf("clog2: preamble ends after %d tokens", len(toks))
		}
		i++
		return toks[i-1], nil
	}
	title := func(want string) error {
		t, err := next()
		if err != nil {
			return err
		}
		if t != want {
			return fmt.Errorf("clog2: preamble token %d is %q, want %q", i, t, want)
		}
		return nil
	}
	num := func(name string, dst *int32) error {
		if err := title(name); err != nil {
			return err
		}
		t, err := next()
		if err != nil {
			return err
		}
		v, err := strconv.ParseInt(t, 10, 32)
		if err != nil {
			return fmt.Errorf("clog2: preamble value of %s %q is not a 32-bit integer", name, t)
		}
		*dst = int32(v)
		return nil
	}
	flag := func(name string, dst *bool) error {
		if err := title(name); err != nil {
			return err
		}
		t, err := next()
		if err != nil {
			return err
		}
		switch t {
		case "TRUE", "true", "YES", "yes":
			*dst = true
		case "FALSE", "false", "NO", "no":
		default:
			return fmt.Errorf("clog2: preamble value of %s is %q, want TRUE or FALSE", name, t)
		}
		return nil
	}
	var err error
	if p.Version, err = next(); err != nil {
		return p, err
	}
	steps := []func() error{
		func() error { return flag("is_big_endian=", &p.BigEndian) },
		func() error { return flag("is_finalzed=", &p.Finalized) },
		func() error { return num("block_size=", &p.BlockSize) },
		func() error { return num("num_buffered_blocks=", &p.NumBufferedBlocks) },
		func() error { return num("max_comm_world_size=", &p.MaxCommWorldSize) },
		func() error { return num("max_thread_count=", &p.MaxThreadCount) },
		func() error { return num("known_eventID_start=", &p.KnownEventIDStart) },
		func() error { return num("user_eventID_start=", &p.UserEventIDStart) },
		func() error { return num("known_solo_eventID_start=", &p.KnownSoloEventIDStart) },
		func() error { return num("user_solo_eventID_start=", &p.UserSoloEventIDStart) },
		func() error { return num("known_stateID_count=", &p.KnownStateIDCount) },
		func() error { return num("user_stateID_count=", &p.UserStateIDCount) },
		func() error { return num("known_solo_eventID_count=", &p.KnownSoloEventIDCount) },
		func() error { return num("user_solo_eventID_count=", &p.UserSoloEventIDCount) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return p, err
		}
	}
	if err := title("commtable_fptr="); err != nil {
		return p, err
	}
	var parts [3]int64
	for k := range parts {
		t, err := next()
		if err != nil {
			return p, err
		}
		if parts[k], err = strconv.ParseInt(t, 10, 32); err != nil || parts[k] < 0 {
			return p, fmt.Errorf("clog2: preamble commtable_fptr part %q is not a non-negative 32-bit integer", t)
		}
	}
	p.CommTableFptr = parts[0]*parts[1] + parts[2]

	if p.Version != Version {
		return p, fmt.Errorf("clog2: version %q, this reader reads %s", p.Version, Version)
	}
	if !p.BigEndian {
		return p, fmt.Errorf("clog2: is_big_endian=FALSE: MPE's Java reader refuses little-endian files")
	}
	if p.BlockSize < minBlockSize || p.BlockSize > maxBlockSize || p.BlockSize%8 != 0 {
		return p, fmt.Errorf("clog2: block_size %d: want a multiple of 8 in [%d, %d]", p.BlockSize, minBlockSize, maxBlockSize)
	}
	if p.MaxCommWorldSize < 1 || p.MaxThreadCount < 1 {
		return p, fmt.Errorf("clog2: max_comm_world_size %d and max_thread_count %d must be ≥ 1", p.MaxCommWorldSize, p.MaxThreadCount)
	}
	if int64(p.MaxCommWorldSize)*int64(p.MaxThreadCount) > math.MaxInt32 {
		return p, fmt.Errorf("clog2: max_comm_world_size × max_thread_count overflows a line id")
	}
	if p.UserStateIDCount < 0 || p.UserSoloEventIDCount < 0 || p.KnownStateIDCount < 0 || p.KnownSoloEventIDCount < 0 {
		return p, fmt.Errorf("clog2: negative id count in preamble")
	}
	return p, nil
}

// UUID is a communicator's globally unique id: {i32, f64, char[20]}.
type UUID [UUIDSize]byte

// NewUUID builds a UUID from its three parts (name is cut to 20 bytes).
func NewUUID(rnd int32, t float64, name string) UUID {
	var u UUID
	binary.BigEndian.PutUint32(u[0:], uint32(rnd))
	binary.BigEndian.PutUint64(u[4:], math.Float64bits(t))
	copy(u[12:], name)
	return u
}

// CommID is one entry of the communicator table at the end of the file.
type CommID struct {
	UUID    UUID
	LocalID int32
	Kind    int32
}

// putString copies s into a fixed NUL-padded field of len(dst) bytes,
// cutting it so that at least one NUL remains.
func putString(dst []byte, s string) {
	n := copy(dst[:len(dst)-1], s)
	clear(dst[n:])
}

// getString returns the bytes of a fixed field up to the first NUL.
func getString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
