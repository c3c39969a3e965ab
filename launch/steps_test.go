package launch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/replay"
)

func TestExpr(t *testing.T) {
	p := &Prepared{vars: map[string]value{"n": intVal(64), "g.x": {f: 1.5}}, byName: map[string]*Buffer{}}
	p.byName["b"] = &Buffer{Name: "b", Type: "s32", Alloc: &replay.Alloc{Data: []byte{7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}}}
	for src, want := range map[string]float64{
		"1": 1, "n/16-1": 3, "(n - 1 - 5 + 15) / 16": 4, "n % 10": 4, "-n + 1": -63, "g.x * 2": 3,
		"b[0] == 7": 1, "b[1] < 0 && n > 1": 1, "b[0] != 7 || 0": 0, "!0": 1, "0x10 + 1e2": 116, "n >= 64": 1, "7 / 2": 3, "7.0 / 2": 3.5,
	} {
		v, err := p.eval(src)
		if err != nil || v.float() != want {
			t.Errorf("%q = %v, %v; want %v", src, v.float(), err, want)
		}
	}
	for _, src := range []string{"", "n +", "m", "b[9]", "(1", "1 / 0", "n $ 2", "c[0]"} {
		if _, err := p.eval(src); err == nil {
			t.Errorf("%q: want an error", src)
		}
	}
}

// TestSteps: repeat with a variable, set, fill, swap and until over a
// kernel that increments a counter buffer.
func TestSteps(t *testing.T) {
	src := `.visible .entry inc(.param .u64 a, .param .u64 b, .param .u32 k)
{
	.reg .b32 %r<6>; .reg .b64 %rd<6>;
	ld.param.u64 %rd1, [a];
	ld.param.u64 %rd2, [b];
	ld.param.u32 %r1, [k];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd1, %rd1, %rd3;
	add.s64 %rd2, %rd2, %rd3;
	ld.global.u32 %r3, [%rd1];
	add.u32 %r3, %r3, %r1;
	st.global.u32 [%rd2], %r3;
	ret;
}
`
	spec := `vars: {n: 4}
buffers:
  - {name: x, type: u32, count: 8, output: true}
  - {name: y, type: u32, count: 8}
  - {name: z, type: u32, count: 8, init: {const: 5}}
steps:
  - fill: {buffer: x, value: 1, count: 4}
  - repeat: n
    var: i
    do:
      - set: {k: i * 10}
      - launch: {kernel: inc, grid: [1], block: ["n"], params: [{ref: x}, {ref: y}, {value: k}]}
      - swap: [x, y]
  - until: x[0] >= 100
    var: j
    do:
      - launch: {kernel: inc, grid: [1], block: [2], params: [{ref: x, offset: 1}, {ref: x}, {value: j + 1}]}
`
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := s.Prepare(progFromSrc(t, "k.ptx", texHeader+src), PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := prep.Run(context.Background(), ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := u32s(prep.Buffer("x").Alloc.Data)
	// after the repeat: x[0..3] = 1+0+10+20+30 = 61; then x[i] = x[i+1] + j + 1 for i < 2
	if x[3] != 61 || x[0] < 100 {
		t.Fatalf("x = %v (%d launches)", x, len(res.Launches))
	}
	if len(res.Launches) < 5 {
		t.Fatalf("%d launches", len(res.Launches))
	}
	// an until that never becomes true hits max
	bad := strings.Replace(spec, "until: x[0] >= 100", "until: x[0] < 0\n    max: 3", 1)
	s, _ = ParseSpec([]byte(bad))
	prep, _ = s.Prepare(progFromSrc(t, "k.ptx", texHeader+src), PrepareOptions{})
	if _, err := prep.Run(context.Background(), ExecOptions{}); err == nil || !strings.Contains(err.Error(), "after 3 iterations") {
		t.Fatalf("until max: %v", err)
	}
	// a repeat over MaxRepeat is refused before its first iteration
	huge := strings.Replace(spec, "repeat: n\n", "repeat: n * 1000000000\n", 1)
	s, _ = ParseSpec([]byte(huge))
	prep, _ = s.Prepare(progFromSrc(t, "k.ptx", texHeader+src), PrepareOptions{})
	res, err = prep.Run(context.Background(), ExecOptions{})
	if want := "4000000000 iterations exceed the limit of 10000000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("repeat 4e9: %v, want %q", err, want)
	}
	for _, y := range []string{
		"steps: [{launch: {kernel: k, grid: [1], block: [1], params: []}, swap: [a, b]}]",
		"kernel: k\ngrid: [1]\nblock: [1]\nsteps: [{swap: [a, b]}]",
		"steps: [{repeat: 2}]",
		"steps: [{launch: {kernel: k, grid: [1], block: [1], params: [{buffer: {count: 1}}]}}]",
		"kernel: k\ngrid: [1]\nblock: [1]\nbuffers: [{name: a, count: 1}]",
		"steps: [{swap: [a]}]",
	} {
		if _, err := ParseSpec([]byte(y)); err == nil {
			t.Errorf("%q: want a validation error", y)
		}
	}
}

// TestEstimateRegs: the liveness estimate is near ptxas -v (sm_52, CUDA
// 11.8) for the samples, far below the declared virtual registers.
func TestEstimateRegs(t *testing.T) {
	ptxas := map[string]int{"vecadd": 8, "matmul": 27, "reduce_partial": 11, "reduce_final": 9, "nn_distance": 8, "pathfinder_step": 11,
		"hotspot_step": 30, "gaussian_fan1": 14, "gaussian_fan2": 14, "lud_diagonal": 32, "lud_perimeter": 32,
		"lud_internal": 23, "bfs_expand": 17, "bfs_update": 12, "d_render": 24}
	for _, n := range sampleNames {
		prog := loadPTX(t, filepath.Join("..", "samples", n, n+".sm_52.ptx"))
		for _, e := range prog.Entries() {
			c, err := prog.Lower(e)
			if err != nil {
				t.Fatal(err)
			}
			est, want := c.EstimateRegs(), ptxas[e]
			t.Logf("%s: estimate %d, ptxas %d, declared %d", e, est, want, c.RegsPerThread())
			if est < want/2 || est > want*2 {
				t.Errorf("%s: estimate %d is far from ptxas's %d", e, est, want)
			}
		}
	}
}
