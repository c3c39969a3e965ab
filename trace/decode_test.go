package trace_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func hdr(rpw, segs, timer, wpc uint32) tt.Header {
	return tt.Header{RecordsPerWarp: rpw, Segments: segs, Timer: timer, WarpsPerCTA: wpc, ID: tt.ID}
}

func rec(p uint32, t uint64) tt.Record { return tt.Record{Probe: p, Sink: 0xabcd, Time: t} }

var (
	b0, e0 = tt.BeginID(0), tt.EndID(0)
	b1, e1 = tt.BeginID(1), tt.EndID(1)
	b2, e2 = tt.BeginID(2), tt.EndID(2)
)

type wantRegion struct {
	warp             uint32
	id               int
	start, end, cyc  uint64
	depth, instance  uint32
	beginRec, endRec uint32
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		timer   string
		h       tt.Header
		segs    map[uint32]tt.Seg
		want    []wantRegion
		issues  []trace.IssueKind
		lost    map[uint32]uint32
		nwarps  int
		wantErr string
	}{
		{
			name: "nested clock64", timer: "clock64", h: hdr(8, 2, 1, 2),
			segs: map[uint32]tt.Seg{
				0: {SM: 3, Records: []tt.Record{rec(b0, 100), rec(b1, 105), rec(e1, 180), rec(b2, 181), rec(e2, 190), rec(e0, 200)}},
				1: {WarpInCTA: 1, SM: 3, Records: []tt.Record{rec(b1, 7), rec(e1, 9), rec(b1, 10), rec(e1, 50)}},
			},
			want: []wantRegion{
				{0, 0, 100, 200, 100, 0, 0, 0, 5},
				{0, 1, 105, 180, 75, 1, 0, 1, 2},
				{0, 2, 181, 190, 9, 1, 0, 3, 4},
				{1, 1, 7, 9, 2, 0, 0, 0, 1},
				{1, 1, 10, 50, 40, 0, 1, 2, 3},
			},
			nwarps: 2,
		},
		{
			name: "clock wraps", timer: "clock", h: hdr(8, 1, 0, 1),
			segs: map[uint32]tt.Seg{0: {Records: []tt.Record{
				rec(b0, 0xFFFFFF00), rec(b1, 0xFFFFFFF0), rec(e1, 0x10), rec(e0, 0x30)}}},
			want: []wantRegion{
				{0, 0, 0xFFFFFF00, 0x100000030, 0x130, 0, 0, 0, 3},
				{0, 1, 0xFFFFFFF0, 0x100000010, 0x20, 1, 0, 1, 2},
			},
			nwarps: 1,
		},
		{
			name: "overflow", timer: "clock64", h: hdr(4, 1, 1, 1),
			segs: map[uint32]tt.Seg{0: {Count: 7, Records: []tt.Record{
				rec(b1, 1), rec(e1, 2), rec(b1, 3), rec(e1, 5), rec(b1, 8), rec(e1, 9), rec(b1, 10)}}},
			want: []wantRegion{
				{0, 1, 1, 2, 1, 0, 0, 0, 1},
				{0, 1, 3, 5, 2, 0, 1, 2, 3},
			},
			issues: []trace.IssueKind{trace.IssueOverflow},
			lost:   map[uint32]uint32{0: 3},
			nwarps: 1,
		},
		{
			name: "overflow cuts a region", timer: "clock64", h: hdr(3, 1, 1, 1),
			segs:   map[uint32]tt.Seg{0: {Count: 4, Records: []tt.Record{rec(b1, 1), rec(e1, 2), rec(b1, 3), rec(e1, 5)}}},
			want:   []wantRegion{{0, 1, 1, 2, 1, 0, 0, 0, 1}},
			issues: []trace.IssueKind{trace.IssueUnmatchedBegin, trace.IssueOverflow},
			lost:   map[uint32]uint32{0: 1},
			nwarps: 1,
		},
		{
			name: "unmatched end and begin", timer: "clock64", h: hdr(8, 1, 1, 1),
			segs: map[uint32]tt.Seg{0: {Records: []tt.Record{
				rec(e2, 1), rec(b1, 2), rec(e1, 4), rec(b2, 5)}}},
			want:   []wantRegion{{0, 1, 2, 4, 2, 0, 0, 1, 2}},
			issues: []trace.IssueKind{trace.IssueUnmatchedEnd, trace.IssueUnmatchedBegin},
			nwarps: 1,
		},
		{
			name: "end closes most recent instance", timer: "clock64", h: hdr(8, 1, 1, 1),
			segs: map[uint32]tt.Seg{0: {Records: []tt.Record{
				rec(b1, 1), rec(b1, 2), rec(e1, 4), rec(e1, 9)}}},
			want: []wantRegion{
				{0, 1, 1, 9, 8, 0, 0, 0, 3},
				{0, 1, 2, 4, 2, 1, 1, 1, 2},
			},
			nwarps: 1,
		},
		{
			name: "backwards clock64", timer: "clock64", h: hdr(8, 1, 1, 1),
			segs:   map[uint32]tt.Seg{0: {Records: []tt.Record{rec(b1, 10), rec(e1, 4), rec(b1, 11), rec(e1, 12)}}},
			want:   []wantRegion{{0, 1, 11, 12, 1, 0, 1, 2, 3}},
			issues: []trace.IssueKind{trace.IssueBackwards},
			nwarps: 1,
		},
		{
			name: "unwritten segments skipped", timer: "globaltimer", h: hdr(4, 4, 2, 2),
			segs: map[uint32]tt.Seg{
				1: {WarpInCTA: 1, Records: []tt.Record{rec(b1, 1000), rec(e1, 1500)}},
				2: {Unwritten: true},
				3: {CTA: [3]uint32{1, 0, 0}, WarpInCTA: 1, Flags: 3, Records: nil},
			},
			want:   []wantRegion{{1, 1, 1000, 1500, 500, 0, 0, 0, 1}},
			nwarps: 2,
		},
		{
			name: "unknown probe", timer: "clock64", h: hdr(8, 2, 1, 2),
			segs:    map[uint32]tt.Seg{1: {WarpInCTA: 1, Records: []tt.Record{rec(b1, 1), rec(e1, 2), rec(999, 3)}}},
			wantErr: "segment 1 record 2: unknown probe id 999",
		},
		{
			name: "bad magic", timer: "clock64", h: tt.Header{Magic: [8]byte{'X'}, RecordsPerWarp: 4, Segments: 1, Timer: 1, WarpsPerCTA: 1, ID: tt.ID},
			wantErr: "bad magic",
		},
		{
			name: "bad version", timer: "clock64", h: tt.Header{Version: 2, RecordsPerWarp: 4, Segments: 1, Timer: 1, WarpsPerCTA: 1, ID: tt.ID},
			wantErr: "layout version 2 is not supported",
		},
		{
			name: "wrong instrumentation id", timer: "clock64", h: tt.Header{RecordsPerWarp: 4, Segments: 1, Timer: 1, WarpsPerCTA: 1, ID: [8]byte{1}},
			wantErr: "instrumentation id 0100000000000000 does not match",
		},
		{
			name: "timer mismatch", timer: "clock", h: hdr(4, 1, 1, 1),
			wantErr: "timer code 1 does not match",
		},
		{
			name: "warp in CTA mismatch", timer: "clock64", h: hdr(4, 2, 1, 2),
			segs:    map[uint32]tt.Seg{1: {WarpInCTA: 0}},
			wantErr: "segment 1: warp in CTA 0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tt.Manifest(3, tc.timer, int(tc.h.RecordsPerWarp))
			raw := tt.Buffer(tc.h, tc.segs)
			tr, err := trace.Decode(raw, m, tt.Kernel)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.CheckValid(); err != nil {
				t.Fatalf("CheckValid: %v", err)
			}
			if len(tr.Warps) != tc.nwarps {
				t.Errorf("%d warps, want %d", len(tr.Warps), tc.nwarps)
			}
			if len(tr.Regions) != len(tc.want) {
				t.Fatalf("%d regions %+v, want %d", len(tr.Regions), tr.Regions, len(tc.want))
			}
			for i, w := range tc.want {
				r := tr.Regions[i]
				got := wantRegion{r.Warp, r.ID, r.Start, r.End, r.Cycles, r.Depth, r.Instance, r.BeginRec, r.EndRec}
				if got != w {
					t.Errorf("region %d = %+v, want %+v", i, got, w)
				}
			}
			var kinds []trace.IssueKind
			for _, is := range tr.Issues {
				kinds = append(kinds, is.Kind)
				if is.Message == "" {
					t.Errorf("issue without message: %+v", is)
				}
			}
			if len(kinds) != len(tc.issues) {
				t.Fatalf("issues %v, want %v", tr.Issues, tc.issues)
			}
			for i := range kinds {
				if kinds[i] != tc.issues[i] {
					t.Errorf("issue %d: %v, want %v", i, kinds[i], tc.issues[i])
				}
			}
			for _, w := range tr.Warps {
				if w.Lost != tc.lost[w.Segment] {
					t.Errorf("warp %d lost %d, want %d", w.Segment, w.Lost, tc.lost[w.Segment])
				}
			}
		})
	}
}

func TestDecodeErrorLocates(t *testing.T) {
	m := tt.Manifest(2, "clock64", 4)
	raw := tt.Buffer(hdr(4, 3, 1, 1), map[uint32]tt.Seg{2: {CTA: [3]uint32{2, 0, 0}, Records: []tt.Record{rec(b1, 1), rec(7, 2)}}})
	_, err := trace.Decode(raw, m, "")
	var de *trace.DecodeError
	if !errors.As(err, &de) || de.Segment != 2 || de.Record != 1 {
		t.Fatalf("error %v, want DecodeError at segment 2 record 1", err)
	}
}

func TestDecodeHeaderProblems(t *testing.T) {
	m := tt.Manifest(2, "clock64", 4)
	good := tt.Buffer(hdr(4, 2, 1, 1), nil)
	tests := []struct {
		name string
		raw  []byte
		m    *manifest.Manifest
		k    string
		want string
	}{
		{"short", good[:10], m, "", "shorter than the 64-byte header"},
		{"truncated", good[:len(good)-1], m, "", "truncated"},
		{"rpw differs", good, tt.Manifest(2, "clock64", 5), "", "4 records per warp, the manifest says 5"},
		{"no such kernel", good, m, "other", `kernel "other" is not in the manifest`},
		{"segments not multiple", tt.Buffer(hdr(4, 3, 1, 2), nil), m, "", "not a multiple"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trace.Decode(tc.raw, tc.m, tc.k)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNs(t *testing.T) {
	m := tt.Manifest(2, "clock64", 4)
	raw := tt.Buffer(hdr(4, 1, 1, 1), map[uint32]tt.Seg{0: {Records: []tt.Record{rec(b1, 1000), rec(e1, 3000)}}})
	tr, err := trace.DecodeOptions(raw, m, "", trace.Options{Meta: trace.RunMeta{ClockHz: 2e9}})
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Regions[0]
	if r.StartNs != 500 || r.EndNs != 1500 || r.DurNs != 1000 {
		t.Fatalf("ns %v %v %v", r.StartNs, r.EndNs, r.DurNs)
	}
	tr, _ = trace.Decode(raw, m, "")
	if tr.Header.HasNs() || tr.Regions[0].DurNs != 0 {
		t.Fatalf("ns without clock rate")
	}
}

func TestSynthDecode(t *testing.T) {
	for timer := uint32(0); timer < 3; timer++ {
		s := tt.Synth{Warps: 50, WarpsPerCTA: 4 + 0, Iters: 7, Loads: 3, NumSMs: 5, Timer: timer}
		s.Warps = 48
		var buf bytes.Buffer
		if _, err := s.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if int64(buf.Len()) != s.Size() {
			t.Fatalf("size %d, want %d", buf.Len(), s.Size())
		}
		tr, err := trace.Decode(buf.Bytes(), s.Manifest(), "")
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(tr.Regions)) != s.Regions() || len(tr.Issues) != 0 {
			t.Fatalf("timer %d: %d regions, %d issues; want %d, 0", timer, len(tr.Regions), len(tr.Issues), s.Regions())
		}
		if err := tr.CheckValid(); err != nil {
			t.Fatal(err)
		}
		// Streaming gives the same.
		d, err := trace.NewDecoder(bytes.NewReader(buf.Bytes()), int64(buf.Len()), s.Manifest(), "", trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			wr, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range wr.Regions {
				want := tr.Regions[n]
				if r.Info.ID != want.Info.ID {
					t.Fatalf("streamed region %d: info differs", n)
				}
				r.Info, want.Info = nil, nil
				if r != want {
					t.Fatalf("streamed region %d differs", n)
				}
				n++
			}
		}
	}
}
