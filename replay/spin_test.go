package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

const spinHead = ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n\t.reg .u32 %r<8>;\n\t.reg .u64 %rd<4>;\n\t.reg .pred %p<4>;\n"

// spinKernel builds kernel k (body after spinHead, lines 9 on) with one
// 64-byte output buffer, a spin probe every `every` instructions and the
// given instruction budget.
func spinKernel(t *testing.T, body string, block int, every, budget uint64) (*Kernel, *Alloc) {
	t.Helper()
	return spinKernelOn(t, body, 2, block, every, budget)
}

// spinKernelOn is spinKernel on a grid of grid CTAs.
func spinKernelOn(t *testing.T, body string, grid, block int, every, budget uint64) (*Kernel, *Alloc) {
	t.Helper()
	src := spinHead + body + "}\n"
	f, err := ptx.ParseFile(token.NewFileSet(), "spin.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Lower("k")
	if err != nil {
		t.Fatal(err)
	}
	dev := NewDeviceFor(p)
	out := dev.Alloc("out", 64)
	params := make([]byte, c.ParamSize)
	binary.LittleEndian.PutUint64(params[c.Params[0].Offset:], out.Base)
	k, err := NewKernel(Launch{Code: c, Grid: [3]int{grid}, Block: [3]int{block}, Params: params, Dev: dev, MaxWarpInsts: budget})
	if err != nil {
		t.Fatal(err)
	}
	k.SetSpinCheck(every)
	return k, out
}

// TestSpin: loops whose state repeats with only register work in between
// fault as spinning, at a line of the loop, within a few probes; loops that
// can exit (a counter, a flag another warp sets, the clock) run to the end
// however often they are probed.
func TestSpin(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		block         int
		every, budget uint64
		lines         [2]int // spinning: the fault's line is in [lines[0], lines[1]]; {0,0}: must finish
		want          string // substring of the fault (a non-spin fault), "" for none
		out           uint32 // finishing kernels store this at out[0]
	}{
		{name: "self loop", body: "L:\n\tbra L;\n", block: 32, every: 1000, lines: [2]int{10, 10}},
		{name: "constant add", body: "\tmov.u32 %r1, 0;\nL:\n\tadd.u32 %r1, %r1, 0;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra L;\n\tret;\n", block: 64, every: 1000, lines: [2]int{11, 13}},
		{name: "toggle period 2", body: "L:\n\txor.b32 %r1, %r1, 1;\n\tbra L;\n", block: 32, every: 1000, lines: [2]int{10, 11}},
		{name: "half the warp spins", body: "\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra DONE;\nL:\n\tbra L;\nDONE:\n\tret;\n", block: 32, every: 1000, lines: [2]int{13, 13}},
		{name: "spin with stores", body: "\tld.param.u64 %rd1, [out];\nL:\n\tst.global.u32 [%rd1], %r1;\n\tbra L;\n", block: 32, every: 1000, lines: [2]int{11, 12}},
		{name: "default probe interval", body: "L:\n\tbra L;\n", block: 32, every: DefaultSpinCheck, lines: [2]int{10, 10}},
		{name: "counter exits", body: "\tmov.u32 %r1, 0;\nL:\n\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, 300000;\n\t@%p1 bra L;\n\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n", block: 32, every: 100, out: 300000},
		{name: "counter never exits", body: "L:\n\tadd.u32 %r1, %r1, 1;\n\tbra L;\n", block: 32, every: 100, budget: 200000, want: "more than 200000 instructions"},
		{name: "clock delay", body: "L:\n\tmov.u32 %r1, %clock;\n\tsetp.lt.u32 %p1, %r1, 200000;\n\tmov.u32 %r1, 0;\n\t@%p1 bra L;\n\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], 7;\n\tret;\n", block: 32, every: 100, out: 7},
		// warp 0 waits for a flag warp 1 sets after 20000 iterations
		{name: "flag set by another warp", body: "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra WAIT;\n\tmov.u32 %r2, 0;\nCOUNT:\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, 20000;\n\t@%p2 bra COUNT;\n\tst.volatile.global.u32 [%rd1+4], 1;\n\tret;\nWAIT:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra WAIT;\n\tst.global.u32 [%rd1], 9;\n\tret;\n", block: 64, every: 100, out: 9},
		{name: "probes off", body: "L:\n\tbra L;\n", block: 32, every: 0, budget: 100000, want: "more than 100000 instructions"},
	}
	for _, tc := range tests {
		for _, timing := range []bool{false, true} {
			name := tc.name + "/functional"
			if timing {
				name = tc.name + "/timing"
			}
			t.Run(name, func(t *testing.T) {
				k, out := spinKernel(t, tc.body, tc.block, tc.every, tc.budget)
				start := time.Now()
				var err error
				if timing {
					_, _, err = k.RunModel(context.Background(), model.GTX480(), model.Options{Workers: 1})
				} else {
					_, err = k.Run(context.Background(), RunOptions{Workers: 1})
				}
				if el := time.Since(start); el > 30*time.Second {
					t.Errorf("took %v", el)
				}
				var f *Fault
				switch {
				case tc.lines[0] > 0:
					if !errors.As(err, &f) || f.Kind != FaultRunaway || !strings.Contains(f.Msg, "spinning") {
						t.Fatalf("want a spinning fault, got %v", err)
					}
					if f.Line < tc.lines[0] || f.Line > tc.lines[1] || f.File != "spin.ptx" {
						t.Errorf("fault at %s:%d, want a line in %v: %v", f.File, f.Line, tc.lines, f)
					}
				case tc.want != "":
					if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "spinning") {
						t.Fatalf("got %v, want a fault with %q", err, tc.want)
					}
				default:
					if err != nil {
						t.Fatal(err)
					}
					if got := binary.LittleEndian.Uint32(out.Data); got != tc.out {
						t.Errorf("out[0] = %d, want %d", got, tc.out)
					}
				}
			})
		}
	}
}
