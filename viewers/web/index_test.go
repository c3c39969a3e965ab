package web

import (
	"context"
	"math/big"
	"testing"
)

func build(t testing.TB, s *synth) *Index {
	t.Helper()
	ix, err := Build(context.Background(), "synth", s)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// bigEdge is t0 + ⌊(t1−t0)·k/px⌋ in arbitrary precision.
func bigEdge(t0, t1 int64, k, px int) int64 {
	v := new(big.Int).Mul(big.NewInt(t1-t0), big.NewInt(int64(k)))
	v.Quo(v, big.NewInt(int64(px)))
	return t0 + v.Int64()
}

// members returns the flat regions of node n, identified by the rows' segments.
func members(ix *Index, flat []flatRegion, n Node) []flatRegion {
	segs := map[uint32]bool{}
	for r := n.Lo; r < n.Hi; r++ {
		segs[ix.Rows[r].Segment] = true
	}
	var out []flatRegion
	for _, f := range flat {
		if segs[f.seg] {
			out = append(out, f)
		}
	}
	return out
}

func brute(rs []flatRegion, a, b int64) (n, busy, mem int64) {
	for _, f := range rs {
		if f.start >= a && f.start < b {
			n++
			busy += f.end - f.start
			if f.mem {
				mem++
			}
		}
	}
	return
}

func TestTree(t *testing.T) {
	ix := build(t, newSynth(24, 4, 3, 5))
	// 24 warps in 6 CTAs of 4 on 3 SMs: 1 GPU + 3 SM + 6 CTA + 24 warp nodes.
	levels := map[string]int{}
	for _, n := range ix.Nodes {
		levels[n.Level]++
		if n.Parent >= 0 {
			p := ix.Nodes[n.Parent]
			if n.Lo < p.Lo || n.Hi > p.Hi {
				t.Errorf("node %d [%d,%d) outside parent [%d,%d)", n.ID, n.Lo, n.Hi, p.Lo, p.Hi)
			}
		}
		for r := n.Lo; r < n.Hi; r++ {
			if n.Level == "sm" && ix.Rows[r].SM != ix.Rows[n.Lo].SM || n.Level == "cta" && ix.Rows[r].CTA != ix.Rows[n.Lo].CTA {
				t.Errorf("node %d mixes rows", n.ID)
			}
		}
	}
	if levels["gpu"] != 1 || levels["sm"] != 3 || levels["cta"] != 6 || levels["warp"] != 24 {
		t.Errorf("levels %v", levels)
	}
	if ix.Total != 24*6 {
		t.Errorf("Total %d, want %d", ix.Total, 24*6)
	}
}

func TestTilesAgainstBruteForce(t *testing.T) {
	// 80 warps: the GPU node (> 64 warps) answers fine ranges from level-0
	// bins, the SM nodes (≤ 64) exactly.
	ix := build(t, newSynth(80, 4, 3, 30))
	flat := flatten(newSynth(80, 4, 3, 30))
	modes := map[string]int{}
	defer func() {
		if modes["spans"] == 0 || modes["buckets"] == 0 || modes["bins"] == 0 {
			t.Errorf("modes exercised: %v", modes)
		}
	}()
	ranges := [][2]int64{{ix.T0, ix.T1}, {ix.T0 - 100, ix.T1 + 100}, {ix.T0 + 1234, ix.T0 + 5678}, {ix.T0 + 300, ix.T0 + 301}}
	for _, rg := range ranges {
		for _, px := range []int{1, 7, 100, 999} {
			ids := make([]int, len(ix.Nodes))
			for i := range ids {
				ids[i] = i
			}
			tiles, err := ix.Tiles(ids, rg[0], rg[1], px)
			if err != nil {
				t.Fatal(err)
			}
			for _, tile := range tiles {
				n := ix.Nodes[tile.Node]
				modes[tile.Mode]++
				rs := members(ix, flat, n)
				if tile.Mode == "spans" {
					checkSpans(t, n, rs, tile.Spans, rg[0], rg[1])
					continue
				}
				exactEdges := tile.Mode == "buckets"
				if wantExact := n.hist == nil || (rg[1]-rg[0])/int64(px) < n.hist.w0 && n.Hi-n.Lo <= 64; wantExact != exactEdges {
					t.Fatalf("node %d %s: mode %s", n.ID, n.Level, tile.Mode)
				}
				if exactEdges && len(tile.Buckets) != px {
					t.Fatalf("node %d: %d buckets, want %d", n.ID, len(tile.Buckets), px)
				}
				var sum int64
				for k, b := range tile.Buckets {
					if exactEdges && (b.T0 != bigEdge(rg[0], rg[1], k, px) || b.T1 != bigEdge(rg[0], rg[1], k+1, px)) {
						t.Fatalf("node %d bucket %d edges [%d,%d)", n.ID, k, b.T0, b.T1)
					}
					if k > 0 && tile.Buckets[k-1].T1 != b.T0 {
						t.Fatalf("node %d: buckets not contiguous", n.ID)
					}
					wn, wb, wm := brute(rs, b.T0, b.T1)
					if b.Count != wn || b.Busy != wb || b.Memory != wm {
						t.Fatalf("node %d %s range %v px %d bucket [%d,%d): got n=%d busy=%d mem=%d, want %d %d %d",
							n.ID, n.Level, rg, px, b.T0, b.T1, b.Count, b.Busy, b.Memory, wn, wb, wm)
					}
					sum += b.Count
				}
				// The buckets cover the query range (clipped to the trace).
				if len(tile.Buckets) > 0 {
					first, last := tile.Buckets[0], tile.Buckets[len(tile.Buckets)-1]
					if first.T0 > max(rg[0], ix.T0) || last.T1 < min(rg[1], ix.T1) {
						t.Errorf("node %d: buckets [%d,%d) do not cover [%d,%d)", n.ID, first.T0, last.T1, rg[0], rg[1])
					}
				}
				if !exactEdges {
					w := (rg[1] - rg[0]) / int64(px)
					if n.Hi-n.Lo <= 64 && tile.Buckets[0].T1-tile.Buckets[0].T0 < w {
						t.Errorf("node %d: pyramid bins narrower than a pixel", n.ID)
					}
				}
				_ = sum
			}
		}
	}
}

func checkSpans(t *testing.T, n Node, rs []flatRegion, spans []Span, t0, t1 int64) {
	t.Helper()
	var want [][2]int64
	for _, f := range rs {
		if f.start < t1 && f.end > t0 {
			want = append(want, [2]int64{f.start, f.end})
		}
	}
	if len(want) != len(spans) {
		t.Fatalf("node %d [%d,%d): %d spans, want %d", n.ID, t0, t1, len(spans), len(want))
	}
	for i, s := range spans {
		if s.Start != want[i][0] || s.End != want[i][1] {
			t.Fatalf("node %d span %d = [%d,%d), want %v", n.ID, i, s.Start, s.End, want[i])
		}
	}
}

func TestTilesErrors(t *testing.T) {
	ix := build(t, newSynth(4, 4, 1, 3))
	for _, c := range []struct {
		nodes  []int
		t0, t1 int64
		px     int
	}{{[]int{0}, 5, 5, 10}, {[]int{0}, 0, 10, 0}, {[]int{0}, 0, 10, 9000}, {[]int{99}, 0, 10, 10}, {[]int{-1}, 0, 10, 10}} {
		if _, err := ix.Tiles(c.nodes, c.t0, c.t1, c.px); err == nil {
			t.Errorf("Tiles(%v, %d, %d, %d) succeeded", c.nodes, c.t0, c.t1, c.px)
		}
	}
}

func TestDetailAndSearch(t *testing.T) {
	ix := build(t, newSynth(8, 4, 2, 6))
	// Region 1 of every warp is the first load: global, line 20, truth since i%3==0.
	d, err := ix.Detail(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d.Class != "global" || d.Line != 20 || d.Source != "k.cu:7:3" || d.Truth == nil || int64(*d.Truth) != d.Measured-5 {
		t.Errorf("detail %+v", d)
	}
	if d.Ns != float64(d.Measured) {
		t.Errorf("ns %v at 1 GHz, want %d", d.Ns, d.Measured)
	}
	if _, err := ix.Detail(0, 99); err == nil {
		t.Error("Detail out of range succeeded")
	}
	// Line 30 = shared loads: 3 of 6 per warp.
	hits, total := ix.Search(30, "", 5)
	if total != 8*3 || len(hits) != 5 {
		t.Errorf("search line 30: %d hits, total %d", len(hits), total)
	}
	if _, total := ix.Search(0, "LD.GLOBAL", 100); total != 8*3 {
		t.Errorf("search text: total %d", total)
	}
	if _, total := ix.Search(0, "synthk", 1000); total != 8*7 {
		t.Errorf("search kernel: total %d", total)
	}
	lines := ix.Lines()
	if len(lines) != 3 || lines[0].Line != 10 || lines[1].Count != 8*3 || lines[2].Source != "k.cu:9:5" {
		t.Errorf("lines %+v", lines)
	}
}
