package instrument

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// WriteManifest writes man exactly as man.Write does, encoding one kernel
// at a time (manifest.AppendKernel, the bytes of encoding/json without
// its reflection): the manifest of a large module (a few times its size
// as JSON) is then never held whole in memory as text.
func WriteManifest(w io.Writer, man *manifest.Manifest) error {
	if len(man.Kernels) == 0 {
		return man.Write(w) // "kernels": null or []
	}
	head := *man
	pre, tail, err := splitHead(&head)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, streamChunk) // a write per 4 KiB would cost a system call each
	bw.Write(pre)
	var b []byte
	for k := range man.Kernels {
		var err error
		b, err = manifest.AppendKernel(b[:0], &man.Kernels[k], "    ")
		if err != nil {
			return err
		}
		if k > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(b)
	}
	bw.WriteString("\n  ]")
	bw.Write(tail)
	return bw.Flush()
}

// splitHead encodes head with no kernels and returns its text up to the
// kernels' "[" and after their "]"; it sets head.Kernels to empty.
func splitHead(head *manifest.Manifest) (pre, tail []byte, err error) {
	head.Kernels = []manifest.Kernel{}
	var hb bytes.Buffer
	if err := head.Write(&hb); err != nil {
		return nil, nil, err
	}
	b := hb.Bytes()
	// The kernels field, at depth 1, encodes as below when empty; no
	// string value holds it (a quote in a string is escaped).
	const empty = "\n  \"kernels\": []"
	i := bytes.Index(b, []byte(empty))
	if i < 0 {
		return nil, nil, errors.New("manifest: internal error: no kernels field")
	}
	return b[:i+len(empty)-1], b[i+len(empty):], nil
}

// ManifestSink receives the manifest Stream writes as it instruments
// (StreamOptions.Manifest): its bytes in order, then a few of them
// overwritten at the end (WriteAt: the fields known last, of fixed width).
// *os.File and atomicfile.Pending are sinks.
type ManifestSink interface {
	io.Writer
	io.WriterAt
}

// Summary is what a caller is told of a manifest Stream wrote to a sink
// (Result.Summary), or of any manifest (SummaryOf): enough to describe the
// output, not the probes.
type Summary struct {
	Version           string
	InstrumentationID string
	Kernels           []KernelSummary // in the manifest's order
}

// KernelSummary is one kernel of a Summary.
type KernelSummary struct {
	Name            string
	Probes          int
	Staging, Reason string // Staging.Where and Staging.Reason
}

// SummaryOf summarises man.
func SummaryOf(man *manifest.Manifest) *Summary {
	s := &Summary{Version: man.Version, InstrumentationID: man.InstrumentationID, Kernels: make([]KernelSummary, len(man.Kernels))}
	for i := range man.Kernels {
		s.Kernels[i] = kernelSummary(&man.Kernels[i])
	}
	return s
}

func kernelSummary(k *manifest.Kernel) KernelSummary {
	return KernelSummary{Name: k.Name, Probes: len(k.Probes), Staging: k.Staging.Where, Reason: k.Staging.Reason}
}

// manifestStream writes a manifest to a sink a batch of kernels at a time,
// byte for byte as WriteManifest writes the whole manifest: the head
// (every field before "kernels") first, with placeholders of the same width
// for the three fields known only at the end (the version, raised by the
// probes' modes; the instrumentation id, the output's hash; the input's
// hash, computed beside the second pass), which finish overwrites. A
// goroutine of its own encodes and checks (manifest.Checker) the kernels
// in order while the printer goes on, so that no more than a few batches'
// kernels are held.
type manifestStream struct {
	w     ManifestSink
	head  manifest.Manifest // Kernels nil
	tail  []byte            // after the kernels
	verAt int64             // offsets of the placeholders
	idAt  int64
	inAt  int64
	in    chan []manifest.Kernel
	done  chan struct{}
	// The goroutine's, read after done.
	buf     []byte
	n       int // kernels
	check   *manifest.Checker
	version string
	sum     []KernelSummary
	err     error
}

// Placeholders of the head: as wide as the values.
const (
	idHold = "0000000000000000"
	inHold = idHold + idHold + idHold + idHold
)

// newManifestStream writes head (its Kernels, InstrumentationID and
// InputSHA256 not read) up to the kernels to w and starts the encoder.
func newManifestStream(w ManifestSink, head *manifest.Manifest) (*manifestStream, error) {
	ms := &manifestStream{w: w, head: *head, in: make(chan []manifest.Kernel, 4), done: make(chan struct{}),
		check: manifest.NewChecker(), version: manifest.Version}
	h := *head
	h.Version, h.InstrumentationID, h.InputSHA256 = manifest.Version, idHold, inHold
	b, tail, err := splitHead(&h)
	if err != nil {
		return nil, err
	}
	// Each field at depth 1 starts a line "  \"name\": "; no string value
	// holds a newline (it is escaped), so the first match is the field.
	at := func(field, value string) (int64, error) {
		key := "\n  \"" + field + "\": \"" + value + "\""
		i := bytes.Index(b, []byte(key))
		if i < 0 {
			return 0, fmt.Errorf("manifest: internal error: no %s field", field)
		}
		return int64(i + len(key) - len(value) - 1), nil
	}
	if ms.verAt, err = at("version", manifest.Version); err != nil {
		return nil, err
	}
	if ms.idAt, err = at("instrumentation_id", idHold); err != nil {
		return nil, err
	}
	if ms.inAt, err = at("input_sha256", inHold); err != nil {
		return nil, err
	}
	ms.tail = tail
	ms.buf = make([]byte, 0, streamChunk+streamChunk/2)
	ms.buf = append(ms.buf, b...) // up to "["
	go ms.run(ms.in)              // the channel, not the field, which stop clears
	return ms, nil
}

// add hands the next kernels to the encoder, which keeps them until it has
// encoded them.
func (ms *manifestStream) add(ks []manifest.Kernel) {
	if len(ks) > 0 {
		ms.in <- ks
	}
}

func (ms *manifestStream) run(in <-chan []manifest.Kernel) {
	defer close(ms.done)
	for ks := range in {
		for i := range ks {
			k := &ks[i]
			ms.check.Kernel(k)
			ms.sum = append(ms.sum, kernelSummary(k))
			for _, p := range k.Probes {
				ms.version = raiseVersion(ms.version, p.Mode)
			}
			if ms.err != nil {
				continue // drain: the printer must not wait
			}
			if ms.n > 0 {
				ms.buf = append(ms.buf, ',')
			}
			ms.n++
			ms.buf = append(ms.buf, "\n    "...)
			// Straight into the buffer: on an error what it holds is
			// never written (ms.err stops the flushes).
			ms.buf, ms.err = manifest.AppendKernel(ms.buf, k, "    ")
		}
		if len(ms.buf) >= streamChunk && ms.err == nil {
			ms.flush()
		}
	}
}

// flush writes the buffer.
func (ms *manifestStream) flush() {
	_, err := ms.w.Write(ms.buf)
	ms.buf = ms.buf[:0]
	if err != nil && ms.err == nil {
		ms.err = err
	}
}

// raiseVersion is the manifest version v raised by a probe of mode mode.
func raiseVersion(v, mode string) string {
	switch {
	case mode == manifest.ModePhaseSeq:
		return manifest.VersionPhaseSeq
	case mode == manifest.ModeGroupSeq && v != manifest.VersionPhaseSeq:
		return manifest.VersionGroupSeq
	}
	return v
}

// stop ends the encoder, with nothing more written (on failure).
func (ms *manifestStream) stop() {
	if ms.in != nil {
		close(ms.in)
		ms.in = nil
		<-ms.done
	}
}

// finish writes the rest of the manifest, whose output and input have the
// SHA-256 outSum and inSum, checks it whole (Validate's checks) and
// returns its summary.
func (ms *manifestStream) finish(outSum, inSum []byte) (*Summary, error) {
	ms.stop()
	if ms.err != nil {
		return nil, ms.err
	}
	head := ms.head
	head.Version, head.InstrumentationID, head.InputSHA256 = ms.version, hex.EncodeToString(outSum[:8]), hex.EncodeToString(inSum)
	if err := ms.check.Err(&head); err != nil {
		return nil, fmt.Errorf("%s: internal error: invalid manifest: %w", head.Input, err)
	}
	if ms.n > 0 {
		ms.buf = append(ms.buf, "\n  "...)
	}
	ms.buf = append(ms.buf, ']')
	ms.buf = append(ms.buf, ms.tail...)
	if ms.flush(); ms.err != nil {
		return nil, ms.err
	}
	for _, f := range []struct {
		at          int64
		value, hold string
	}{{ms.verAt, head.Version, manifest.Version}, {ms.idAt, head.InstrumentationID, idHold}, {ms.inAt, head.InputSHA256, inHold}} {
		if len(f.value) != len(f.hold) {
			return nil, fmt.Errorf("manifest: internal error: %q is not as wide as its placeholder", f.value)
		}
		if _, err := ms.w.WriteAt([]byte(f.value), f.at); err != nil {
			return nil, err
		}
	}
	return &Summary{Version: head.Version, InstrumentationID: head.InstrumentationID, Kernels: ms.sum}, nil
}
