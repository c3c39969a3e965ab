package web

import (
	"net/http/httptest"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

// xferSynth is a small synthetic model run (clock 1 GHz: 1 cycle = 1000
// ps) with a copy-in before and a copy-out after the kernel.
func xferSynth(source string, clockHz float64) *synth {
	s := newSynth(8, 4, 2, 6)
	s.hdr.Meta.Source, s.hdr.Meta.ClockHz = source, clockHz
	s.hdr.Meta.Transfers = []trace.Transfer{
		{Buffer: "a", Dir: "h2d", Method: "dma", Bytes: 4096, StartPs: -7_000_400, EndPs: -1_500_600},
		{Buffer: "c", Dir: "d2h", Method: "iorw", Bytes: 512, StartPs: 900_000_000, EndPs: 912_345_678},
	}
	return s
}

func TestTransfersPlaced(t *testing.T) {
	ix := build(t, xferSynth("model", 1e9))
	if ix.TransferNote != "" || len(ix.Transfers) != 2 {
		t.Fatalf("transfers %+v, note %q", ix.Transfers, ix.TransferNote)
	}
	// 1 GHz: ps / 1000, rounded to the nearest cycle (by hand).
	want := [][2]int64{{-7000, -1501}, {900_000, 912_346}}
	for i, w := range want {
		if g := ix.Transfers[i]; g.Start != w[0] || g.End != w[1] {
			t.Errorf("transfer %d on the axis [%d, %d), want %v", i, g.Start, g.End, w)
		}
	}
	if ix.Transfers[0].Name != "h2d a (dma, 4096 B)" {
		t.Errorf("name %q", ix.Transfers[0].Name)
	}
	if x0, x1 := ix.Extent(); x0 != -7000 || x1 != 912_346 || ix.Origin != 0 {
		t.Errorf("extent [%d, %d), origin %d; regions [%d, %d)", x0, x1, ix.Origin, ix.T0, ix.T1)
	}
	// The LOD pyramid still covers the regions only: its bins are as fine
	// as without transfers.
	plain := build(t, newSynth(8, 4, 2, 6))
	if ix.Nodes[0].hist.w0 != plain.Nodes[0].hist.w0 || ix.T0 != plain.T0 {
		t.Errorf("pyramid bin width %d, without transfers %d", ix.Nodes[0].hist.w0, plain.Nodes[0].hist.w0)
	}
	// globaltimer: ps / 1000 = ns whatever the clock.
	g := xferSynth("model", 0)
	g.hdr.Timer = trace.TimerGlobaltimer
	if ix := build(t, g); ix.TransferNote != "" || ix.Transfers[1].Start != 900_000 {
		t.Errorf("globaltimer: %+v %q", ix.Transfers, ix.TransferNote)
	}
}

// TestTransfersRefused: without a clock rate, or on hardware runs (whose
// kernel start on the timer is unknown), transfers are listed but not
// placed, and the extent is the regions'.
func TestTransfersRefused(t *testing.T) {
	for _, c := range []struct {
		source string
		hz     float64
	}{{"model", 0}, {"gpu", 1e9}, {"", 1e9}} {
		ix := build(t, xferSynth(c.source, c.hz))
		if ix.TransferNote == "" || len(ix.Transfers) != 2 {
			t.Errorf("%+v: placed without a known axis: %+v", c, ix.Transfers)
		}
		if x0, x1 := ix.Extent(); x0 != ix.T0 || x1 != ix.T1 {
			t.Errorf("%+v: extent [%d, %d), regions [%d, %d)", c, x0, x1, ix.T0, ix.T1)
		}
	}
}

func TestTracksAPI(t *testing.T) {
	srv := httptest.NewServer(NewServer([]Run{{Index: build(t, xferSynth("model", 1e9))}, {Index: build(t, newSynth(4, 4, 1, 3))}}))
	defer srv.Close()
	var tr tracksInfo
	if get(t, srv.URL+"/api/tracks?run=0", &tr) != 200 || len(tr.Transfers) != 2 || tr.Transfers[1].Dir != "d2h" || tr.Transfers[1].End != 912_346 {
		t.Errorf("tracks %+v", tr)
	}
	var runs []runInfo
	if get(t, srv.URL+"/api/runs", &runs) != 200 || runs[0].X0 != -7000 || runs[0].X1 != 912_346 || runs[0].Origin != 0 || runs[1].X0 != runs[1].T0 {
		t.Errorf("runs %+v", runs)
	}
	if get(t, srv.URL+"/api/tracks?run=1", &tr) != 200 || tr.Transfers == nil || len(tr.Transfers) != 0 {
		t.Errorf("run without transfers: %+v", tr)
	}
	if c := get(t, srv.URL+"/api/tracks?run=2", nil); c != 404 {
		t.Errorf("tracks of a missing run: %d", c)
	}
}
