package frames

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxLine is the longest trace line ReadText accepts inside trace text
// (lines of HTML outside trace blocks may be any length: they are skipped
// without being held).
const MaxLine = 1 << 20

// ReadText reads atrace/ftrace text, raw or wrapped in systrace HTML, and
// calls fn for each atrace marker (tracing_mark_write / print B|E|C) and
// gpu_frequency event. HTML is recognised by a leading '<'; its trace text
// is taken from <script class="trace-data"> blocks (several allowed; JSON
// blocks are skipped) and from the older `var linuxPerfData = "…"` string
// literal whose lines end in `\n\`.
//
// Errors name the 1-based line of the input.
func ReadText(r io.Reader, fn func(Event) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 1<<16 {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	tr := textReader{br: br, fn: fn}
	return tr.run()
}

type textMode int

const (
	modeText     textMode = iota // raw trace text
	modeHTML                     // HTML outside trace blocks
	modeBlock                    // inside <script class="trace-data">
	modeJSON                     // inside a trace-data block holding JSON: skipped
	modeJSString                 // inside var linuxPerfData = "…"
)

type textReader struct {
	br   *bufio.Reader
	fn   func(Event) error
	line int
	long []byte
}

// next returns the next line without its newline. Lines longer than the
// buffer are assembled in t.long when keep is true (up to MaxLine), and
// skipped (returned empty, skipped=true) when keep is false.
func (t *textReader) next(keep bool) (line []byte, skipped bool, err error) {
	b, err := t.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		t.long = append(t.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = t.br.ReadSlice('\n')
			if keep {
				if len(t.long)+len(b) > MaxLine {
					return nil, false, fmt.Errorf("line %d: longer than %d bytes", t.line+1, MaxLine)
				}
				t.long = append(t.long, b...)
			}
		}
		if !keep {
			t.long = t.long[:0]
			skipped = true
		}
		b = t.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	if len(b) == 0 && err != nil {
		return nil, false, io.EOF
	}
	t.line++
	b = bytes.TrimRight(b, "\r\n")
	return b, skipped, nil
}

var (
	tagTraceData = []byte(`class="trace-data"`)
	tagScriptEnd = []byte(`</script>`)
	tagJSString  = []byte(`linuxPerfData = "`)
)

func (t *textReader) run() error {
	mode := modeText
	first := true
	for {
		keep := mode != modeHTML && mode != modeJSON
		b, skipped, err := t.next(keep)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if first {
			if s := bytes.TrimLeft(b, " \t"); len(s) > 0 {
				first = false
				if s[0] == '<' {
					mode = modeHTML
				}
			}
		}
		if skipped {
			continue
		}
		switch mode {
		case modeHTML:
			if i := bytes.Index(b, tagTraceData); i >= 0 {
				rest := b[i:]
				j := bytes.IndexByte(rest, '>')
				if j < 0 {
					return fmt.Errorf("line %d: unterminated trace-data <script> tag", t.line)
				}
				rest = rest[j+1:]
				mode = modeBlock
				closed := false
				if k := bytes.Index(rest, tagScriptEnd); k >= 0 {
					rest, closed = rest[:k], true
				}
				if err := t.blockLine(rest, &mode); err != nil {
					return err
				}
				if closed {
					mode = modeHTML
				}
			} else if i := bytes.Index(b, tagJSString); i >= 0 {
				rest := b[i+len(tagJSString):]
				mode = modeJSString
				if err := t.jsLine(rest, &mode); err != nil {
					return err
				}
			}
		case modeBlock:
			if k := bytes.Index(b, tagScriptEnd); k >= 0 {
				mode = modeHTML
				if err := t.blockLine(b[:k], &mode); err != nil {
					return err
				}
				mode = modeHTML
				continue
			}
			if err := t.blockLine(b, &mode); err != nil {
				return err
			}
		case modeJSON:
			if bytes.Contains(b, tagScriptEnd) {
				mode = modeHTML
			}
		case modeJSString:
			if err := t.jsLine(b, &mode); err != nil {
				return err
			}
		default:
			if err := t.traceLine(b); err != nil {
				return err
			}
		}
	}
}

// blockLine handles one line of a trace-data block: a block whose first
// non-blank character is '{' or '[' is JSON and is skipped.
func (t *textReader) blockLine(b []byte, mode *textMode) error {
	s := bytes.TrimSpace(b)
	if len(s) == 0 {
		return nil
	}
	if *mode == modeBlock && (s[0] == '{' || s[0] == '[') {
		*mode = modeJSON
		return nil
	}
	if *mode == modeJSON {
		return nil
	}
	return t.traceLine(s)
}

// jsLine handles one line of a JavaScript string literal holding trace
// text: `…\n\` continues, `…\n";` ends it.
func (t *textReader) jsLine(b []byte, mode *textMode) error {
	s := bytes.TrimRight(b, " \t")
	if bytes.HasSuffix(s, []byte(`";`)) {
		*mode = modeHTML
		s = s[:len(s)-2]
	} else if bytes.HasSuffix(s, []byte(`\`)) {
		s = s[:len(s)-1]
	} else if len(s) > 0 {
		return fmt.Errorf("line %d: trace string line does not end in a line continuation", t.line)
	}
	s = bytes.TrimSuffix(s, []byte(`\n`))
	if len(s) == 0 {
		return nil
	}
	if bytes.IndexByte(s, '\\') >= 0 {
		s = jsUnescape(s)
	}
	return t.traceLine(s)
}

// jsUnescape undoes the string-literal escapes systrace writes (\", \\,
// \t, \'); other escapes are kept as they are.
func jsUnescape(s []byte) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '\'':
				out = append(out, s[i+1])
				i++
				continue
			case 't':
				out = append(out, '\t')
				i++
				continue
			}
		}
		out = append(out, s[i])
	}
	return out
}

func (t *textReader) errf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", t.line, fmt.Sprintf(format, args...))
}

// traceLine parses "TASK-PID [CPU] FLAGS TIMESTAMP: FUNCTION: INFO" (the
// TGID column "(  123)" and the flags column are optional).
func (t *textReader) traceLine(b []byte) error {
	b = bytes.TrimLeft(b, " \t")
	if len(b) == 0 || b[0] == '#' {
		return nil
	}
	// CPU column: " [ddd]".
	i := 0
	for {
		k := bytes.IndexByte(b[i:], '[')
		if k < 0 {
			return t.errf("no [CPU] column in %q", clip(b))
		}
		i += k
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if i > 0 && b[i-1] == ' ' && j > i+1 && j < len(b) && b[j] == ']' {
			break
		}
		i++
	}
	cpuEnd := i + 1
	for b[cpuEnd] != ']' {
		cpuEnd++
	}
	prefix := bytes.TrimRight(b[:i], " ")
	var tgid int32
	if n := len(prefix); n > 0 && prefix[n-1] == ')' {
		p := bytes.LastIndexByte(prefix, '(')
		if p < 0 {
			return t.errf("unbalanced TGID column")
		}
		tg := bytes.TrimSpace(prefix[p+1 : n-1])
		if len(tg) > 0 && tg[0] != '-' {
			v, ok := atoi(tg)
			if !ok {
				return t.errf("bad TGID %q", tg)
			}
			tgid = int32(v)
		}
		prefix = bytes.TrimRight(prefix[:p], " ")
	}
	dash := bytes.LastIndexByte(prefix, '-')
	if dash < 0 {
		return t.errf("task %q has no -PID", clip(prefix))
	}
	pid, ok := atoi(prefix[dash+1:])
	if !ok {
		return t.errf("bad PID in %q", clip(prefix))
	}
	rest := b[cpuEnd+1:]
	// Up to two tokens before the timestamp (flags); the timestamp ends
	// with ':'.
	var ts int64
	found := false
	for tok := 0; tok < 3 && !found; tok++ {
		rest = bytes.TrimLeft(rest, " ")
		e := bytes.IndexByte(rest, ' ')
		if e < 0 {
			e = len(rest)
		}
		w := rest[:e]
		rest = rest[e:]
		if len(w) > 1 && w[len(w)-1] == ':' {
			v, ok := parseSeconds(w[:len(w)-1])
			if !ok {
				return t.errf("bad timestamp %q", w)
			}
			ts, found = v, true
		}
	}
	if !found {
		return t.errf("no timestamp")
	}
	rest = bytes.TrimLeft(rest, " ")
	c := bytes.IndexByte(rest, ':')
	if c < 0 {
		return t.errf("no function name")
	}
	fnName := rest[:c]
	info := bytes.TrimLeft(rest[c+1:], " ")
	switch string(fnName) {
	case "tracing_mark_write", "0", "print":
		ev, ok, err := parseMarker(info)
		if err != nil {
			return t.errf("%v", err)
		}
		if !ok {
			return nil
		}
		ev.TS, ev.TID = ts, int32(pid)
		if ev.TGID == 0 {
			ev.TGID = tgid
		}
		ev.Comm = string(prefix[:dash])
		return t.fn(ev)
	case "gpu_frequency":
		state, okS := field(info, "state=")
		id, okI := field(info, "gpu_id=")
		if !okS || !okI {
			return t.errf("gpu_frequency without state= and gpu_id=: %q", clip(info))
		}
		return t.fn(Event{Kind: GPUFreq, TS: ts, TID: int32(pid), TGID: int32(id), Value: float64(state), Comm: string(prefix[:dash])})
	}
	return nil
}

// parseMarker parses an atrace marker: "B|tgid|name", "E[|tgid…]",
// "C|tgid|name|value". Other markers (async S/F, clock sync, free text)
// return ok=false.
func parseMarker(info []byte) (Event, bool, error) {
	info = bytes.TrimRight(info, " \n\\")
	info = bytes.TrimSuffix(info, []byte(`\n`))
	if len(info) == 0 || (len(info) > 1 && info[1] != '|') {
		return Event{}, false, nil
	}
	switch info[0] {
	case 'E':
		ev := Event{Kind: End}
		if len(info) > 2 {
			p := info[2:]
			if k := bytes.IndexByte(p, '|'); k >= 0 {
				p = p[:k]
			}
			if v, ok := atoi(p); ok {
				ev.TGID = int32(v)
			}
		}
		return ev, true, nil
	case 'B':
		if len(info) < 2 {
			return Event{}, false, fmt.Errorf("B marker without tgid")
		}
		p := info[2:]
		k := bytes.IndexByte(p, '|')
		if k < 0 {
			return Event{}, false, fmt.Errorf("B marker %q has no name", clip(info))
		}
		v, ok := atoi(p[:k])
		if !ok {
			return Event{}, false, fmt.Errorf("B marker %q: bad tgid", clip(info))
		}
		return Event{Kind: Begin, TGID: int32(v), Name: string(p[k+1:])}, true, nil
	case 'C':
		if len(info) < 2 {
			return Event{}, false, fmt.Errorf("C marker without tgid")
		}
		p := info[2:]
		k := bytes.IndexByte(p, '|')
		if k < 0 {
			return Event{}, false, fmt.Errorf("C marker %q has no name", clip(info))
		}
		v, ok := atoi(p[:k])
		if !ok {
			return Event{}, false, fmt.Errorf("C marker %q: bad tgid", clip(info))
		}
		p = p[k+1:]
		l := bytes.IndexByte(p, '|')
		if l < 0 {
			return Event{}, false, fmt.Errorf("C marker %q has no value", clip(info))
		}
		name, val := p[:l], p[l+1:]
		if m := bytes.IndexByte(val, '|'); m >= 0 { // optional trailing category
			val = val[:m]
		}
		x, err := strconv.ParseFloat(string(val), 64)
		if err != nil {
			return Event{}, false, fmt.Errorf("C marker %q: bad value", clip(info))
		}
		return Event{Kind: Counter, TGID: int32(v), Name: string(name), Value: x}, true, nil
	}
	return Event{}, false, nil
}

// field finds key (e.g. "state=") in s and parses the decimal after it.
func field(s []byte, key string) (int64, bool) {
	i := bytes.Index(s, []byte(key))
	if i < 0 {
		return 0, false
	}
	s = s[i+len(key):]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return atoi(s[:j])
}

func atoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parseSeconds parses "123.456789" seconds into nanoseconds exactly
// (at most 9 fraction digits).
func parseSeconds(b []byte) (int64, bool) {
	dot := bytes.IndexByte(b, '.')
	ip, fp := b, []byte(nil)
	if dot >= 0 {
		ip, fp = b[:dot], b[dot+1:]
	}
	s, ok := atoi(ip)
	if !ok || len(fp) > 9 || s > 1<<33 {
		return 0, false
	}
	var f int64
	for i := 0; i < 9; i++ {
		f *= 10
		if i < len(fp) {
			c := fp[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			f += int64(c - '0')
		}
	}
	return s*1_000_000_000 + f, true
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
