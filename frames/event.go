package frames

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Kind is the kind of an Event.
type Kind uint8

const (
	// Begin opens a slice on thread TID (atrace "B|tgid|name").
	Begin Kind = iota + 1
	// End closes the innermost open slice on thread TID (atrace "E").
	End
	// Counter is a counter sample (atrace "C|tgid|name|value", a Perfetto
	// counter track).
	Counter
	// GPUFreq is a gpu_frequency ftrace event: Value is the new frequency
	// (kHz as the kernel prints it), TGID the gpu_id.
	GPUFreq
)

func (k Kind) String() string {
	switch k {
	case Begin:
		return "B"
	case End:
		return "E"
	case Counter:
		return "C"
	case GPUFreq:
		return "gpu_frequency"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Event is one trace event. Name is empty for End events (the matching
// Begin names the slice). TGID is the process as the atrace marker states
// it (0 when unknown); Comm is the thread name where the format has one.
type Event struct {
	Kind  Kind
	TS    int64 // nanoseconds, trace clock
	TID   int32
	TGID  int32
	Name  string
	Value float64
	Comm  string
}

// Format is a trace file format.
type Format int

const (
	FormatUnknown  Format = iota
	FormatText            // raw atrace/ftrace text
	FormatHTML            // systrace HTML wrapping ftrace text
	FormatPerfetto        // Perfetto protobuf
)

func (f Format) String() string {
	return [...]string{"unknown", "text", "html", "perfetto"}[f]
}

// Sniff guesses a trace's format from its first bytes: '<' (after
// whitespace) is HTML, a Perfetto Trace starts with field 1 as a
// length-delimited record (0x0a), anything else is text.
func Sniff(head []byte) Format {
	t := bytes.TrimLeft(head, " \t\r\n")
	switch {
	case len(t) == 0:
		return FormatText
	case t[0] == '<':
		return FormatHTML
	case head[0] == 0x0a:
		return FormatPerfetto
	}
	return FormatText
}

// Read reads a trace of any supported format from r, calling fn for each
// event in trace order. It returns the format it read.
func Read(r io.Reader, fn func(Event) error) (Format, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return FormatUnknown, err
	}
	f := Sniff(head)
	switch f {
	case FormatPerfetto:
		return f, ReadPerfetto(br, fn)
	default:
		return f, ReadText(br, fn)
	}
}
