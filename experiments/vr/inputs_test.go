package vr

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
)

// TestInputsOnce: concurrent runs of one scene call the generator once and
// get the same bytes (not copies); other arguments are another input.
func TestInputsOnce(t *testing.T) {
	var calls atomic.Int32
	gen := func(args map[string]string) (launch.GenOutput, error) {
		calls.Add(1)
		return launch.GenOutput{Buffers: map[string][]byte{"volume": []byte(args["n"] + args["kind"])}}, nil
	}
	var c Inputs
	reg := c.registry(launch.Registry{Generators: map[string]launch.GenFunc{"volume": gen}})
	outs := make([]launch.GenOutput, 8)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			var err error
			outs[i], err = reg.Generators["volume"](map[string]string{"kind": "sphere", "n": "8"})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("generator called %d times for one input, want 1", n)
	}
	for i, o := range outs {
		if v := o.Buffers["volume"]; string(v) != "8sphere" || &v[0] != &outs[0].Buffers["volume"][0] {
			t.Errorf("run %d got %q at %p, want the shared \"8sphere\"", i, v, &v[0])
		}
	}
	// {n: 8s, kind: phere} must not collide with {n: 8, kind: sphere}.
	o, _ := reg.Generators["volume"](map[string]string{"kind": "phere", "n": "8s"})
	if calls.Load() != 2 || string(o.Buffers["volume"]) != "8sphere" {
		t.Errorf("another input: %d calls, %q", calls.Load(), o.Buffers["volume"])
	}
	o, _ = reg.Generators["volume"](map[string]string{"kind": "torus", "n": "8"})
	if calls.Load() != 3 || string(o.Buffers["volume"]) != "8torus" {
		t.Errorf("torus: %d calls, %q", calls.Load(), o.Buffers["volume"])
	}
}

// TestInputsShareVolume: two prepared runs of a sweep's scene see the one
// generated volume (the bytes their textures wrap), not copies.
func TestInputsShareVolume(t *testing.T) {
	var c Inputs
	code, err := Instrument("", Capacity(), "test")
	if err != nil {
		t.Fatal(err)
	}
	sc := Scene{Image: 8, Volume: 16, Kind: "sphere"}
	var vols [][]byte
	for _, s := range []Shape{{1, 128}, {128, 1}} {
		prep, _, err := prepare(RunOptions{Code: code, Model: gtx480(t), Scene: sc, Shape: s, Inputs: &c})
		if err != nil {
			t.Fatal(err)
		}
		vols = append(vols, prep.RefInput().Buffers["volume"])
	}
	if len(vols[0]) != 16*16*16 || &vols[0][0] != &vols[1][0] {
		t.Errorf("volumes of %d and %d bytes at %p and %p, want one of 4096", len(vols[0]), len(vols[1]), &vols[0][0], &vols[1][0])
	}
}
