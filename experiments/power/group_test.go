package power

import (
	"reflect"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// The lane-group fast path gives every lane exactly the busy cycles and
// idle intervals of a per-cycle reference built from the definition
// (gtx480 sp: lane j busy in [From, To) when thread j or j+16 is active),
// on a pseudo-random issue stream mixing full warps, half warps (lanes
// still all busy), partial masks, overlapping and adjacent issues, and
// issues past the end (cut).
func TestLaneGroupsMatchReference(t *testing.T) {
	spec, _ := model.Preset("gtx480")
	r := NewRecorder(&spec)
	var obs []model.Observer
	for i := range spec.NumSMs {
		obs = append(obs, r.Observe(i))
	}
	const end = 5000
	type iv struct {
		from, to model.Time
		mask     uint32
	}
	var issues [2][]iv
	x := uint64(12345)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	now := [2]model.Time{}
	for now[0] < end+3 || now[1] < end+3 {
		v := next()
		u := int(v & 1)
		if now[u] >= end+3 {
			u ^= 1
		}
		var mask uint32
		switch v >> 1 % 5 {
		case 0, 1:
			mask = 0xffffffff
		case 2:
			mask = 0x0000ffff
		default:
			mask = uint32(next())
		}
		gap := model.Time(next() % 40)
		if v>>8%4 == 0 {
			gap = 0 // adjacent
		}
		from := now[u] + gap
		to := from + 1 + model.Time(v>>12%3)
		if v>>16%7 == 0 && from > 0 {
			from-- // overlaps the previous issue
		}
		if from >= end {
			break
		}
		issues[u] = append(issues[u], iv{from, to, mask})
		obs[0].UnitBusy(model.UnitEvent{SM: 0, Unit: model.UnitSP, Index: u, From: from, To: to, Active: mask})
		now[u] = max(now[u], to)
	}
	l, err := r.Finish(end)
	if err != nil {
		t.Fatal(err)
	}
	for u := range 2 {
		for j := range 16 {
			busy := make([]bool, end+10)
			for _, is := range issues[u] {
				if is.mask&(1<<j|1<<(j+16)) != 0 {
					for c := is.from; c < is.to; c++ {
						busy[c] = true
					}
				}
			}
			var nb model.Time
			idle := map[model.Time]uint64{}
			run := model.Time(0)
			for c := range end {
				if busy[c] {
					nb++
					if run > 0 {
						idle[run]++
					}
					run = 0
				} else {
					run++
				}
			}
			if run > 0 {
				idle[run]++
			}
			want := Hist{}
			for n := model.Time(1); n <= end; n++ {
				if idle[n] > 0 {
					want = append(want, Bin{n, idle[n]})
				}
			}
			b := l.Lanes[model.UnitSP][u*16+j]
			if b.SM != 0 || b.Busy != nb || !reflect.DeepEqual(b.Idle, want) {
				t.Fatalf("unit %d lane %d: busy %d idle %v; reference %d %v", u, j, b.Busy, b.Idle, nb, want)
			}
		}
	}
}
