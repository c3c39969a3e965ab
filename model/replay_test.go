package model_test

import (
	"context"
	"encoding/binary"
	"go/token"
	"math"
	"os"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

// TestReplayVecAdd drives replay's functional core with the timing model:
// the sample vector add, checked for its output and for plausible timing.
func TestReplayVecAdd(t *testing.T) {
	src, err := os.ReadFile("../samples/vecadd/vecadd.sm_52.ptx")
	if err != nil {
		t.Skip(err)
	}
	f, err := ptx.ParseFile(token.NewFileSet(), "vecadd.ptx", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 16
	ls, err := launch.ParseSpec([]byte(`kernel: vecadd
grid: [256]
block: [256]
params:
  - buffer: {type: f32, count: 65536, init: {ramp: {start: 0, step: 1}}}
  - buffer: {type: f32, count: 65536, init: {ramp: {start: 0, step: 2}}}
  - buffer: {type: f32, count: 65536}
  - value: 65536
`))
	if err != nil {
		t.Fatal(err)
	}
	spec := model.GTX480()
	prep, err := ls.Prepare(prog, launch.PrepareOptions{NumSMs: spec.NumSMs})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	r, err := model.Run(context.Background(), spec, prep.Kernel, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	t.Logf("%d cycles, %d thread-insts (%.1f M/s with replay), IPC %.2f, L1 hit %.2f, DRAM %d B read",
		r.Cycles, r.ThreadInsts, float64(r.ThreadInsts)/el.Seconds()/1e6, r.IPC, r.L1D.HitRate(), r.DRAM.BytesRead)
	out := prep.Buffers[2].Alloc.Data
	for i := 0; i < n; i += 997 {
		got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		if want := float32(3 * i); got != want {
			t.Fatalf("c[%d] = %v, want %v", i, got, want)
		}
	}
	if r.Mem.LoadTxns == 0 || r.Mem.StoreTxns == 0 || r.DRAM.BytesRead < 2*4*n {
		t.Errorf("memory counters %+v %+v", r.Mem, r.DRAM)
	}
}
