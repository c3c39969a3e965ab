package replay_test

import (
	"io/fs"
	"sync"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/replay"
	"github.com/ptxtrace/ptxtrace/samples/modern"
)

// TestObserveMbarrier runs the wgmmagemm sample (6 CTAs of one warpgroup,
// K = 320: 5 k-tiles over two stages with barriers F = full[0] and
// F+8 = full[1]) with ObserveMbarrier and checks warp 0's events, derived
// from the kernel's text: thread 0 issues the copies of k-tiles 0 and 1
// (two each, on F and F+8, both in phase 0), then at iteration kt waits on
// full[kt%2] with parity (kt/2)%2 and, for kt+2 < 5, refills that stage:
// its barrier has just completed phase kt/2, so the refill's copies see
// parity (kt/2+1)%2. The other warps only wait, with the same barriers and
// parities whenever a wait succeeds (a failed try is retried).
func TestObserveMbarrier(t *testing.T) {
	src, err := fs.ReadFile(modern.FS(), "wgmmagemm/wgmmagemm.sm_90a.ptx")
	if err != nil {
		t.Fatal(err)
	}
	y, err := fs.ReadFile(modern.FS(), "wgmmagemm/launch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := launch.ParseSpec(y)
	if err != nil {
		t.Fatal(err)
	}
	prog := progFromSrc(t, "wgmmagemm.ptx", string(src))
	prep, err := spec.Prepare(prog, launch.PrepareOptions{Registry: modern.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	evs := map[[2]int][]replay.MbarEvent{}
	if _, err := prep.Run(t.Context(), launch.ExecOptions{Workers: 2, OnKernel: func(k *replay.Kernel) {
		k.ObserveMbarrier(func(e replay.MbarEvent) {
			mu.Lock()
			defer mu.Unlock()
			evs[[2]int{e.CTA, e.Warp}] = append(evs[[2]int{e.CTA, e.Warp}], e)
		})
	}}); err != nil {
		t.Fatal(err)
	}
	const tiles = 5
	for cta := 0; cta < 6; cta++ {
		got := evs[[2]int{cta, 0}]
		if len(got) == 0 {
			t.Fatalf("CTA %d warp 0: no events", cta)
		}
		F := got[0].Bar
		type ev struct {
			wait bool
			bar  uint64
			par  uint8
		}
		var want []ev
		for kt := 0; kt < 2; kt++ {
			want = append(want, ev{false, F + 8*uint64(kt), 0}, ev{false, F + 8*uint64(kt), 0})
		}
		for kt := 0; kt < tiles; kt++ {
			b := F + 8*uint64(kt%2)
			want = append(want, ev{true, b, uint8(kt / 2 % 2)})
			if kt+2 < tiles {
				want = append(want, ev{false, b, uint8((kt/2 + 1) % 2)}, ev{false, b, uint8((kt/2 + 1) % 2)})
			}
		}
		var ok []ev
		for _, e := range got {
			if !e.Wait || e.OK {
				ok = append(ok, ev{e.Wait, e.Bar, e.Parity})
			}
		}
		if len(ok) != len(want) {
			t.Fatalf("CTA %d warp 0: %d events %+v, want %+v", cta, len(ok), ok, want)
		}
		for i := range want {
			if ok[i] != want[i] {
				t.Errorf("CTA %d warp 0 event %d: %+v, want %+v", cta, i, ok[i], want[i])
			}
		}
		for w := 1; w < 4; w++ {
			var waits []ev
			for _, e := range evs[[2]int{cta, w}] {
				if !e.Wait {
					t.Errorf("CTA %d warp %d: a copy", cta, w)
				}
				if e.OK {
					waits = append(waits, ev{true, e.Bar, e.Parity})
				}
			}
			if len(waits) != tiles {
				t.Errorf("CTA %d warp %d: %d successful waits, want %d", cta, w, len(waits), tiles)
				continue
			}
			for kt, e := range waits {
				if e.bar != F+8*uint64(kt%2) || e.par != uint8(kt/2%2) {
					t.Errorf("CTA %d warp %d wait %d: %+v", cta, w, kt, e)
				}
			}
		}
	}
}
