package model

import (
	"math/rand/v2"
	"testing"
)

// coalesceByLane is the definition of coalesce, lane by lane: every line a
// lane's bytes touch gets one txn (in the order lines first appear), the
// sectors and 32-byte units those bytes cover, and one lane count per lane
// touching it (a lane repeating the previous lane's address inside one
// line counts once more, as on hardware: a broadcast).
func coalesceByLane(lineBytes, sectorBytes uint64, addrs []uint64, active uint32, size int) []txn {
	var tx []txn
	for l := 0; l < 32 && l < len(addrs); l++ {
		if active>>l&1 == 0 {
			continue
		}
		a, end := addrs[l], addrs[l]+uint64(size)-1
		for la := a / lineBytes * lineBytes; la <= end; la += lineBytes {
			lo, hi := max(a, la), min(end, la+lineBytes-1)
			var mask, units uint32
			for b := lo; b <= hi; b++ {
				mask |= 1 << ((b - la) / sectorBytes)
				units |= 1 << ((b - la) / 32)
			}
			k := -1
			for i := range tx {
				if tx[i].addr == la {
					k = i
				}
			}
			if k < 0 {
				tx = append(tx, txn{addr: la})
				k = len(tx) - 1
			}
			tx[k].mask |= mask
			tx[k].units |= units
			tx[k].lanes++
		}
	}
	return tx
}

// TestCoalesceRuns compares coalesce (which ORs contiguous runs of lanes
// at once) with the lane-by-lane definition on contiguous, strided,
// repeated, misaligned, line-crossing, broadcast and random warp accesses.
func TestCoalesceRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, g := range []struct{ line, sector int }{{128, 32}, {128, 128}, {64, 32}} {
		c := newCache(4, 2, g.line, g.sector, 4)
		sm := &smState{}
		for trial := 0; trial < 3000; trial++ {
			size := []int{1, 2, 4, 8, 16}[r.IntN(5)]
			base := uint64(0x1000_0000) + uint64(r.IntN(4096))
			var addrs [32]uint64
			mode := trial % 8
			for l := range addrs {
				switch mode {
				case 0: // contiguous
					addrs[l] = base + uint64(l*size)
				case 1: // strided
					addrs[l] = base + uint64(l*size*(1+r.IntN(3)))
				case 2: // runs with repeats
					addrs[l] = base + uint64(l/3*size)
				case 3: // reversed
					addrs[l] = base + uint64((31-l)*size)
				case 4: // random within a few lines
					addrs[l] = base + uint64(r.IntN(512))
				case 5: // contiguous with holes and jumps
					addrs[l] = base + uint64(l*size) + uint64(l/8*r.IntN(200))
				case 7: // one address for every lane (a broadcast)
					addrs[l] = base
				default: // consecutive elements from an aligned base
					addrs[l] = base&^uint64(size-1) + uint64(l*size)
				}
			}
			if mode == 7 && trial%3 == 0 {
				addrs[r.IntN(32)] += uint64(1 + r.IntN(size)) // one lane elsewhere
			}
			active := r.Uint32()
			if trial%4 == 0 {
				active = ^uint32(0)
			}
			if mode == 6 && trial%3 == 0 {
				// a run of lanes (a partial last warp, a bounds check)
				lo, hi := r.IntN(32), r.IntN(32)
				lo, hi = min(lo, hi), max(lo, hi)
				active = uint32(uint64(2)<<hi-1) &^ (uint32(1)<<lo - 1)
			}
			got := sm.coalesce(c, nil, addrs[:], active, size)
			want := coalesceByLane(uint64(g.line), uint64(g.sector), addrs[:], active, size)
			if len(got) != len(want) {
				t.Fatalf("line %d mode %d size %d: %d txns, want %d (%v vs %v)", g.line, mode, size, len(got), len(want), got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("line %d mode %d size %d: txn %d = %+v, want %+v", g.line, mode, size, i, got[i], want[i])
				}
			}
		}
	}
}

// TestSameAddr checks sameAddr on full and partial masks: equal addresses
// answer true with the address, one active lane elsewhere (any lane, any
// difference in bits) false, an inactive lane elsewhere changes nothing.
func TestSameAddr(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 5000; trial++ {
		a0 := r.Uint64()
		var addrs [32]uint64
		for l := range addrs {
			addrs[l] = a0
		}
		active := ^uint32(0)
		if trial%2 == 1 {
			active = r.Uint32() | 1<<r.IntN(32)
		}
		if a, ok := sameAddr(addrs[:], active); !ok || a != a0 {
			t.Fatalf("equal addresses %#x, mask %#x: %#x %v", a0, active, a, ok)
		}
		l := r.IntN(32)
		addrs[l] = []uint64{a0 &^ r.Uint64(), a0 | r.Uint64(), r.Uint64(), a0 ^ 1<<r.IntN(64)}[r.IntN(4)]
		if addrs[l] == a0 {
			continue
		}
		_, ok := sameAddr(addrs[:], active)
		if want := active>>l&1 == 0; ok != want {
			t.Fatalf("lane %d at %#x, others %#x, mask %#x: %v, want %v", l, addrs[l], a0, active, ok, want)
		}
	}
	if _, ok := sameAddr(make([]uint64, 31), 1); ok {
		t.Fatal("fewer than 32 lanes: true")
	}
	if _, ok := sameAddr(make([]uint64, 32), 0); ok {
		t.Fatal("no lane active: true")
	}
}
