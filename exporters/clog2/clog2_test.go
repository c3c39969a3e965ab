package clog2

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/exporters"
	"github.com/ptxtrace/ptxtrace/trace"
	"github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func export(t testing.TB, tr *trace.Trace, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := exporters.Run(context.Background(), tr.Source(), New(&buf, opt)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, timer := range []trace.Timer{trace.TimerClock64, trace.TimerGlobaltimer} {
		tr := tracetest.Fixture(6, 3, 40, timer)
		// Small blocks: many ENDBLOCKs.
		b := export(t, tr, Options{BlockSize: 1024})
		if len(b) <= PreambleSize || (len(b)-PreambleSize-4-CommIDSize)%1024 != 0 {
			t.Fatalf("file size %d is not preamble + whole blocks + table", len(b))
		}
		var cycles, n int64
		perLine := map[[2]int32]int64{}
		s, err := Check(bytes.NewReader(b), &CheckOptions{OnInstance: func(in *Instance) {
			ts, err := CargoFormat(in.State.Format)
			if err != nil {
				t.Fatal(err)
			}
			v, err := DecodeCargo(ts, in.Cargo[:])
			if err != nil {
				t.Fatal(err)
			}
			// cta.x = rank, warp = thread
			if v[0].(int64) != int64(in.Rank) || v[3].(int64) != int64(in.Thread) {
				t.Fatalf("cargo %v on line (%d,%d)", v, in.Rank, in.Thread)
			}
			cycles += v[6].(int64)
			n++
			perLine[[2]int32{in.Rank, in.Thread}]++
		}})
		if err != nil {
			t.Fatal(err)
		}
		var want int64
		for _, r := range tr.Regions {
			want += int64(r.Cycles)
		}
		if n != int64(len(tr.Regions)) || s.Instances != n {
			t.Errorf("%v: %d instances, want %d", timer, n, len(tr.Regions))
		}
		if cycles != want {
			t.Errorf("%v: cargo cycles sum %d, want %d", timer, cycles, want)
		}
		if s.Lines != 18 || s.Ranks != 6 || len(perLine) != 18 {
			t.Errorf("lines %d ranks %d, want 18 and 6", s.Lines, s.Ranks)
		}
		if s.Blocks < 10 || s.Records[RecEndBlock] != s.Blocks-1 {
			t.Errorf("blocks %d, endblocks %d", s.Blocks, s.Records[RecEndBlock])
		}
		// Durations in seconds agree with the regions.
		spt := secondsPerTick(&tr.Header)
		var secs float64
		for _, st := range s.States {
			secs += st.Seconds
			if st.Color == "" || !strings.Contains(st.Name, "load") && !strings.Contains(st.Name, "user") {
				t.Errorf("state %+v", st)
			}
		}
		if d := secs - float64(want)*spt; d > 1e-9*secs || d < -1e-9*secs {
			t.Errorf("%v: seconds %g, want %g", timer, secs, float64(want)*spt)
		}
		// Levels: the overlapping region 4 forces a level-2 load state.
		names := []string{}
		for _, st := range s.States {
			names = append(names, st.Name)
		}
		if !strings.Contains(strings.Join(names, ","), "L2") {
			t.Errorf("states %v: want a level-2 state", names)
		}
		if p := s.Preamble; p.MaxCommWorldSize != 6 || p.MaxThreadCount != 3 || p.UserStateIDCount != int32(len(s.States)) {
			t.Errorf("preamble %+v", p)
		}
	}
}

func TestDeterministic(t *testing.T) {
	tr := tracetest.Fixture(4, 2, 10, trace.TimerClock)
	a := export(t, tr, Options{})
	b := export(t, tr, Options{})
	if !bytes.Equal(a, b) {
		t.Fatal("two exports differ")
	}
	if len(a) != PreambleSize+DefaultBlockSize+4+CommIDSize {
		t.Fatalf("size %d", len(a))
	}
}

func TestEmptyTrace(t *testing.T) {
	tr := tracetest.Fixture(1, 1, 0, trace.TimerClock64)
	b := export(t, tr, Options{})
	s, err := Check(bytes.NewReader(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Instances != 0 || s.Ranks != 1 {
		t.Fatalf("%+v", s)
	}
}

func TestPreambleRoundTrip(t *testing.T) {
	p := NewPreamble(65536, 12, 4, 7, 0)
	p.CommTableFptr = 3*oneGiga + 12345
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != PreambleSize || !bytes.HasPrefix(b, []byte("CLOG-02.44\x00is_big_endian=\x00TRUE \x00is_finalzed=\x00TRUE \x00block_size=\x0065536\x00")) {
		t.Fatalf("preamble %q", b[:100])
	}
	q, err := ParsePreamble(b)
	if err != nil {
		t.Fatal(err)
	}
	if q != p {
		t.Fatalf("got %+v, want %+v", q, p)
	}
	p.BigEndian = false
	b, _ = p.MarshalBinary()
	if _, err := ParsePreamble(b); err == nil || !strings.Contains(err.Error(), "little-endian") {
		t.Fatalf("little-endian preamble: %v", err)
	}
}

// handmade writes a small file with the given records after one state
// definition, optionally without the COMMEVT.
type handmade struct {
	color    string
	noComm   bool
	events   []Record
	truncate int
}

func (hm handmade) bytes(t *testing.T) []byte {
	t.Helper()
	recs := []Record{{Type: RecStateDef, StateID: 300, StartEType: 600, FinalEType: 601, Color: hm.color, Name: "load", Format: "p=%d"}}
	if !hm.noComm {
		recs = append(recs, Record{Type: RecCommEvt, EType: CommWorldCreate, CommRank: 0})
	}
	recs = append(recs, hm.events...)
	sz := NewSizer(256)
	for _, r := range recs {
		sz.Add(r.Type)
	}
	p := NewPreamble(256, 1, 1, 1, 0)
	p.CommTableFptr = sz.CommTableOffset()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close([]CommID{{UUID: NewUUID(1, 0, "x"), Kind: CommKindIntra}}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if hm.truncate > 0 {
		// Cut the last block short and drop the table: a short last block.
		b = b[:len(b)-4-CommIDSize-hm.truncate]
	}
	return b
}

func ev(t float64, et int32) Record {
	return Record{Type: RecCargoEvt, Time: t, EType: et}
}

func TestCheckRejects(t *testing.T) {
	good := []Record{ev(1, 600), {Type: RecBareEvt, Time: 2, EType: 601}, ev(3, 600), {Type: RecBareEvt, Time: 4, EType: 601}}
	if _, err := Check(bytes.NewReader(handmade{color: "red", events: good}.bytes(t)), nil); err != nil {
		t.Fatalf("good file: %v", err)
	}
	unsorted := []Record{ev(3, 600), {Type: RecBareEvt, Time: 2, EType: 601}}
	cases := []struct {
		name string
		hm   handmade
		want string
	}{
		{"unsorted", handmade{color: "red", events: unsorted}, "sorted by time"},
		{"missing COMMEVT", handmade{color: "red", noComm: true, events: good}, "no COMMEVT"},
		{"short last block", handmade{color: "red", events: good, truncate: 8}, "short"},
		{"empty color", handmade{color: "", events: good}, "empty color"},
		{"unmatched final", handmade{color: "red", events: []Record{{Type: RecBareEvt, Time: 2, EType: 601}}}, "without an open start"},
		{"unmatched start", handmade{color: "red", events: []Record{ev(1, 600)}}, "unmatched start"},
		{"undefined etype", handmade{color: "red", events: []Record{ev(1, 700)}}, "not defined"},
		{"thread out of range", handmade{color: "red", events: []Record{{Type: RecCargoEvt, Time: 1, EType: 600, Thread: 1}}}, "max_thread_count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(bytes.NewReader(c.hm.bytes(t)), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestReaderRejectsLayout(t *testing.T) {
	good := handmade{color: "red", events: []Record{ev(1, 600), {Type: RecBareEvt, Time: 2, EType: 601}}}.bytes(t)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"trailing bytes", mut(func(b []byte) []byte { return append(b, 0) }), "trailing"},
		{"no table", mut(func(b []byte) []byte { return b[:len(b)-4-CommIDSize] }), "table count"},
		{"unknown rectype", mut(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[PreambleSize+20:], 99)
			return b
		}), "unknown record type"},
		{"bad version", mut(func(b []byte) []byte { b[5] = '3'; return b }), "version"},
		{"bad fptr", mut(func(b []byte) []byte {
			i := bytes.Index(b, []byte("commtable_fptr="))
			j := i + len("commtable_fptr=") + 1 + 2 + 11 // "0\x00" "1073741824\x00"
			b[j] = '9'
			return b
		}), "commtable_fptr"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(bytes.NewReader(c.b), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestSizerMatchesWriter(t *testing.T) {
	// Block boundaries: records of mixed sizes over many small blocks.
	sz := NewSizer(256)
	var recs []Record
	for i := 0; i < 200; i++ {
		r := Record{Type: RecBareEvt, Time: float64(i)}
		if i%3 == 0 {
			r.Type = RecCargoEvt
		}
		if i%17 == 0 {
			r.Type = RecStateDef
			r.Color, r.Name = "red", "s"
		}
		recs = append(recs, r)
		sz.Add(r.Type)
	}
	p := NewPreamble(256, 1, 1, 0, 0)
	p.CommTableFptr = sz.CommTableOffset()
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, p)
	for i := range recs {
		w.Write(&recs[i])
	}
	if err := w.Close([]CommID{{Kind: CommKindIntra}}); err != nil {
		t.Fatal(err)
	}
	if w.Blocks() != sz.Blocks() {
		t.Fatalf("writer %d blocks, sizer %d", w.Blocks(), sz.Blocks())
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var r Record
	n := 0
	for rd.Next(&r) == nil {
		if r.Type != recs[n].Type || r.Time != recs[n].Time {
			t.Fatalf("record %d: %+v", n, r)
		}
		n++
	}
	if n != len(recs) {
		t.Fatalf("read %d records, wrote %d", n, len(recs))
	}
}

// TestMPEConverter runs MPE's Java converter when PTXTRACE_CLOG2TOSLOG2
// names it (a script running logformat.slog2.output.Clog2ToSlog2, built
// from MPE2's slog2sdk sources), and checks zero unmatched events.
func TestMPEConverter(t *testing.T) {
	conv := os.Getenv("PTXTRACE_CLOG2TOSLOG2")
	if conv == "" {
		t.Skip("set PTXTRACE_CLOG2TOSLOG2 to MPE's clog2TOslog2 to run the Java reader chain")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "t.clog2")
	tr := tracetest.Fixture(8, 4, 50, trace.TimerClock64)
	if err := os.WriteFile(in, export(t, tr, Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(conv, "-tc", "-o", filepath.Join(dir, "t.slog2"), in).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", conv, err, out)
	}
	m := regexp.MustCompile(`Number of Drawables = (\d+)\s+Number of Unmatched Events = (\d+)`).FindSubmatch(out)
	if m == nil || string(m[2]) != "0" {
		t.Fatalf("converter output:\n%s", out)
	}
	if string(m[1]) != itoa(int32(len(tr.Regions))) {
		t.Errorf("drawables %s, want %d", m[1], len(tr.Regions))
	}
	if bytes.Contains(out, []byte("Exception")) || bytes.Contains(out, []byte("not found")) {
		t.Errorf("converter complained:\n%s", out)
	}
}
