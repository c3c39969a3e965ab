package trace_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/trace"
	tt "github.com/ptxtrace/ptxtrace/trace/tracetest"
)

func TestTransferShift(t *testing.T) {
	m := trace.RunMeta{Transfers: []trace.Transfer{
		{Buffer: "a", Dir: "h2d", Method: "iorw", Bytes: 8, StartPs: -3500, EndPs: -1200},
		{Buffer: "b", Dir: "h2d", Method: "dma", Bytes: 8, StartPs: -1200, EndPs: 0},
		{Buffer: "c", Dir: "d2h", Method: "hub", Bytes: 8, StartPs: 10_000, EndPs: 12_999},
	}}
	// earliest start −3.5 ns → shift ⌈3.5⌉ = 4 ns; times + 4000 ps, floored to ns.
	if got := m.TransferShiftNs(); got != 4 {
		t.Fatalf("shift %d ns, want 4", got)
	}
	want := [][2]uint64{{0, 2}, {2, 4}, {14, 16}}
	for i := range m.Transfers {
		s, e := m.TransferNs(&m.Transfers[i])
		if s != want[i][0] || e != want[i][1] {
			t.Errorf("transfer %d: [%d, %d] ns, want %v", i, s, e, want[i])
		}
	}
	if (&trace.RunMeta{}).TransferShiftNs() != 0 {
		t.Error("no transfers: shift must be 0")
	}
	if err := m.CheckTransfers(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []trace.Transfer{
		{Dir: "up"}, {Dir: "h2d", StartPs: 5, EndPs: 4}, {Dir: "h2d", StartPs: -5, EndPs: 4}, {Dir: "d2h", StartPs: -5, EndPs: 4}, {Dir: "d2h", Bytes: -1},
	} {
		if err := (&trace.RunMeta{Transfers: []trace.Transfer{bad}}).CheckTransfers(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestBundleTransfers: transfers round-trip through a bundle's META, a
// bundle without them reads as none, and a malformed one is refused by
// writer and reader.
func TestBundleTransfers(t *testing.T) {
	in := synthInput(t, tt.Synth{Warps: 4, WarpsPerCTA: 2, Iters: 2, Loads: 1, NumSMs: 1, Timer: 1})
	var plain bytes.Buffer
	if err := trace.WriteBundle(&plain, in); err != nil {
		t.Fatal(err)
	}
	b, err := trace.OpenBundle(bytes.NewReader(plain.Bytes()), int64(plain.Len()))
	if err != nil || len(b.Meta.Transfers) != 0 {
		t.Fatalf("bundle without transfers: %v, %v", b.Meta.Transfers, err)
	}
	if bytes.Contains(plain.Bytes(), []byte("transfers")) {
		t.Error("a bundle without transfers mentions them (old readers' bytes changed)")
	}
	xs := []trace.Transfer{{Buffer: "a", Dir: "h2d", Method: "iorw", Bytes: 64, StartPs: -2000, EndPs: 0},
		{Buffer: "c", Dir: "d2h", Method: "dma", Bytes: 64, StartPs: 9000, EndPs: 30000}}
	in.Meta.Transfers = xs
	var with bytes.Buffer
	if err := trace.WriteBundle(&with, in); err != nil {
		t.Fatal(err)
	}
	b, err = trace.OpenBundle(bytes.NewReader(with.Bytes()), int64(with.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Meta.Transfers) != 2 || b.Meta.Transfers[0] != xs[0] || b.Meta.Transfers[1] != xs[1] {
		t.Errorf("read back %+v", b.Meta.Transfers)
	}
	d, err := b.Regions()
	if err != nil || len(d.Header().Meta.Transfers) != 2 {
		t.Errorf("decoder header transfers: %v", err)
	}
	in.Meta.Transfers = []trace.Transfer{{Buffer: "a", Dir: "h2d", StartPs: -5, EndPs: 5}}
	if err := trace.WriteBundle(&bytes.Buffer{}, in); err == nil || !strings.Contains(err.Error(), "overlaps the kernel") {
		t.Errorf("writer accepted a copy-in overlapping the kernel: %v", err)
	}
}

func TestRunMetaDuration(t *testing.T) {
	xfers := []trace.Transfer{
		{Buffer: "a", Dir: "h2d", Method: "iorw", Bytes: 8, StartPs: -3500, EndPs: -1200},
		{Buffer: "c", Dir: "d2h", Method: "hub", Bytes: 8, StartPs: 10_000, EndPs: 12_999},
	}
	for _, c := range []struct {
		m    trace.RunMeta
		want time.Duration
	}{
		{trace.RunMeta{}, 0},
		{trace.RunMeta{TotalCycles: 1500}, 1500},                 // 1 ns per cycle without a rate
		{trace.RunMeta{TotalCycles: 1500, ClockHz: 1.5e9}, 1000}, // 1500 cycles at 1.5 GHz = 1 µs
		{trace.RunMeta{TotalCycles: 1, ClockHz: 3e9}, 0},         // ⅓ ns rounds to 0
		// shift ⌈3.5⌉ = 4 ns; kernel 4 + 10 = 14 ns; copy-out ends at
		// ⌊(12999 + 4000) / 1000⌋ = 16 ns, after the kernel
		{trace.RunMeta{TotalCycles: 10, ClockHz: 1e9, Transfers: xfers}, 16},
		// the same with a kernel of 20 ns: 4 + 20 = 24 ns, after the copy-out
		{trace.RunMeta{TotalCycles: 20, ClockHz: 1e9, Transfers: xfers}, 24},
	} {
		if got := c.m.Duration(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.m, got, c.want)
		}
	}
}
