package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptxtrace/ptxtrace/model"
)

// memSpinKernel builds kernel k (body after spinHead, lines 9 on) on a grid
// of grid CTAs with one zeroed 64-byte buffer out (out[0]: the result,
// out[1], out[2]: flags), a spin probe every 100 instructions and the given
// instruction budget.
func memSpinKernel(t *testing.T, body string, grid, block int, budget uint64) (*Kernel, *Alloc) {
	t.Helper()
	return spinKernelOn(t, body, grid, block, 100, budget)
}

// Pieces of the kernels below. %rd1 = out; the flag is out[1] (byte 4).
const (
	msOut  = "\tld.param.u64 %rd1, [out];\n"                                                            // line 9
	msTid  = "\tmov.u32 %r1, %tid.x;\n"                                                                 // line 10
	msDone = "\tst.global.u32 [%rd1], 9;\n\tret;\n"                                                     // the waiter's end
	msPoll = "L:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n" // lines 10-13 after msOut
)

// msDelay counts %r2 up to n under label lbl (4 lines).
func msDelay(lbl, n string) string {
	return "\tmov.u32 %r2, 0;\n" + lbl + ":\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, " + n + ";\n\t@%p2 bra " + lbl + ";\n"
}

// TestSpinMemory: warps polling memory that nothing will write any more
// fault as spinning (the memory proof of spinmem.go), at a line of the
// polling loop, in seconds; loops whose memory another warp or CTA writes
// later, or that leave by the clock, run to the end. Every expectation is
// by hand from the kernel: who writes the flag, and whether the writer can
// run (functional mode runs a CTA to its end without other CTAs' writes;
// the timing model interleaves the resident CTAs of a 2-CTA grid).
func TestSpinMemory(t *testing.T) {
	type want struct {
		lines [2]int // spinning on memory: the fault's line lies in lines
		fault string // else a fault containing this ("" none)
		out   uint32 // no fault: out[0]
	}
	tests := []struct {
		name        string
		body        string
		grid, block int
		budget      uint64
		fn, tm      want   // functional, timing
		msg         string // the memory spin fault contains msg
		sms         int    // timing: SMs of the GTX 480 model (0: its 15)
	}{
		{name: "global flag nobody writes", body: msOut + msPoll + "\tret;\n", grid: 2, block: 64,
			fn: want{lines: [2]int{11, 13}}, tm: want{lines: [2]int{11, 13}}},
		{name: "plain global load", body: msOut + "L:\n\tld.global.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 2, block: 64,
			fn: want{lines: [2]int{11, 13}}, tm: want{lines: [2]int{11, 13}}},
		{name: "generic flag", body: msOut + "L:\n\tld.volatile.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 1, block: 32,
			fn: want{lines: [2]int{11, 13}}, tm: want{lines: [2]int{11, 13}}},
		{name: "shared flag", body: "\t.shared .align 4 .u32 fl;\nL:\n\tld.volatile.shared.u32 %r3, [fl];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 2, block: 96,
			fn: want{lines: [2]int{11, 13}}, tm: want{lines: [2]int{11, 13}}},
		{name: "atomic add of 0", body: msOut + "L:\n\tatom.global.add.u32 %r3, [%rd1+4], 0;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 2, block: 64,
			fn: want{lines: [2]int{11, 13}}, tm: want{lines: [2]int{11, 13}}},
		{name: "failing cas", body: msOut + "L:\n\tatom.global.cas.b32 %r3, [%rd1+4], 1, 2;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 1, block: 64,
			fn: want{lines: [2]int{11, 13}}, tm: want{lines: [2]int{11, 13}}},
		// warp 0 exits at once, warp 1 polls
		{name: "the other warp exited", body: msOut + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra DONE;\n" + msPoll + "DONE:\n\tret;\n", grid: 2, block: 64,
			fn: want{lines: [2]int{13, 15}}, tm: want{lines: [2]int{13, 15}}},
		// warp 1 waits at a barrier warp 0 never reaches: a deadlock in
		// functional mode; the timing model holds barrier waits itself, so
		// there only the budget ends it
		{name: "the other warp waits at a barrier", body: msOut + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra P;\n\tbar.sync 0;\n\tret;\nP:\n" + msPoll + "\tret;\n", grid: 1, block: 64, budget: 300000,
			fn: want{lines: [2]int{17, 19}}, tm: want{fault: "more than 300000 instructions"}},
		// the state changes every round: no proof, the budget ends it
		{name: "poll with a counter", body: msOut + "L:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tadd.u32 %r4, %r4, 1;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 1, block: 32, budget: 300000,
			fn: want{fault: "more than 300000 instructions"}, tm: want{fault: "more than 300000 instructions"}},
		// a store in the polling loop: no proof
		{name: "poll and store", body: msOut + "L:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tst.global.u32 [%rd1+8], %r3;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n\tret;\n", grid: 1, block: 32, budget: 300000,
			fn: want{fault: "more than 300000 instructions"}, tm: want{fault: "more than 300000 instructions"}},

		// must finish: warp 1 sets the flag after a long delay, warp 0 polls
		{name: "flag set by a later warp", body: msOut + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra W;\n" + msDelay("D", "100000") + "\tst.volatile.global.u32 [%rd1+4], 1;\n\tret;\nW:\n" + strings.Replace(msPoll, "L:", "L:", 1) + msDone, grid: 2, block: 64,
			fn: want{out: 9}, tm: want{out: 9}},
		{name: "atomic flag set by a later warp", body: msOut + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra W;\n" + msDelay("D", "50000") + "\tatom.global.exch.b32 %r5, [%rd1+4], 1;\n\tret;\nW:\nL:\n\tatom.global.add.u32 %r3, [%rd1+4], 0;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra L;\n" + msDone, grid: 2, block: 64,
			fn: want{out: 9}, tm: want{out: 9}},
		{name: "shared flag set by a later warp", body: "\t.shared .align 4 .u32 fl;\n" + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra W;\n" + msDelay("D", "50000") + "\tst.volatile.shared.u32 [fl], 1;\n\tret;\nW:\n\tld.volatile.shared.u32 %r3, [fl];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra W;\n\tld.param.u64 %rd1, [out];\n" + msDone, grid: 2, block: 64,
			fn: want{out: 9}, tm: want{out: 9}},
		// the flag is a counter another warp's atomics raise to 20000
		{name: "counter raised by atomics", body: msOut + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra W;\n\tmov.u32 %r2, 0;\nA:\n\tatom.global.add.u32 %r5, [%rd1+4], 1;\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, 20000;\n\t@%p2 bra A;\n\tret;\nW:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tsetp.lt.u32 %p3, %r3, 20000;\n\t@%p3 bra W;\n" + msDone, grid: 1, block: 64,
			fn: want{out: 9}, tm: want{out: 9}},
		// warp 2 sets flag 2 after a delay; warp 1 waits for it, then sets
		// flag 1; warp 0 waits for flag 1
		{name: "chain of waiting warps", body: msOut + msTid + "\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra W;\n\tsetp.lt.u32 %p1, %r1, 64;\n\t@%p1 bra M;\n" + msDelay("D", "50000") + "\tst.volatile.global.u32 [%rd1+8], 1;\n\tret;\nM:\n\tld.volatile.global.u32 %r3, [%rd1+8];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra M;\n\tst.volatile.global.u32 [%rd1+4], 1;\n\tret;\nW:\n" + msPoll + msDone, grid: 1, block: 96,
			fn: want{out: 9}, tm: want{out: 9}},
		// CTA 1 sets the flag after a delay, CTA 0 polls: both resident
		// under the timing model; functional mode never shows CTA 0 the
		// write of CTA 1 (same wave), so it faults, saying so
		{name: "flag set by another CTA", body: msOut + "\tmov.u32 %r1, %ctaid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra W;\n" + msDelay("D", "50000") + "\tst.volatile.global.u32 [%rd1+4], 1;\n\tret;\nW:\n" + msPoll + msDone, grid: 2, block: 32,
			fn: want{lines: [2]int{22, 24}}, tm: want{out: 9}, msg: "timing model"},
		// CTA 0 raises the flag with an atomic after a delay; CTA 1 polls
		// with atomics: functional mode runs the CTAs of a kernel with
		// global atomics one after another, CTA 0 first
		{name: "atomic flag set by an earlier CTA", body: msOut + "\tmov.u32 %r1, %ctaid.x;\n\tsetp.eq.u32 %p1, %r1, 1;\n\t@%p1 bra W;\n" + msDelay("D", "50000") + "\tatom.global.exch.b32 %r5, [%rd1+4], 1;\n\tret;\nW:\n\tatom.global.add.u32 %r3, [%rd1+4], 0;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra W;\n" + msDone, grid: 2, block: 32,
			fn: want{out: 9}, tm: want{out: 9}},
		// CTA 1 would set the flag, but with one SM and 1024-thread CTAs it
		// never becomes resident while CTA 0 polls: the model's CTA 1 is
		// never created, so nothing is proven and the budget ends the run
		{name: "flag set by a CTA that never becomes resident", body: msOut + "\tmov.u32 %r1, %ctaid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra W;\n\tst.volatile.global.u32 [%rd1+4], 1;\n\tret;\nW:\n" + msPoll + msDone, grid: 2, block: 1024, budget: 20000, sms: 1,
			fn: want{lines: [2]int{17, 19}}, tm: want{fault: "more than 20000 instructions"}, msg: "timing model"},
		// the poll gives up by the clock
		{name: "poll with a clock timeout", body: msOut + "L:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tmov.u32 %r1, %clock;\n\tsetp.lt.u32 %p1, %r1, 200000;\n\t@%p1 bra L;\n\tst.global.u32 [%rd1], 7;\n\tret;\n", grid: 2, block: 64,
			fn: want{out: 7}, tm: want{out: 7}},
	}
	for _, tc := range tests {
		for _, timing := range []bool{false, true} {
			name, w := tc.name+"/functional", tc.fn
			if timing {
				name, w = tc.name+"/timing", tc.tm
			}
			t.Run(name, func(t *testing.T) {
				k, out := memSpinKernel(t, tc.body, tc.grid, tc.block, tc.budget)
				start := time.Now()
				var err error
				if timing {
					spec := model.GTX480()
					if tc.sms > 0 {
						spec.NumSMs = tc.sms
					}
					_, _, err = k.RunModel(context.Background(), spec, model.Options{Workers: 4})
				} else {
					_, err = k.Run(context.Background(), RunOptions{Workers: 4})
				}
				el := time.Since(start)
				if w.lines[0] > 0 && el > 5*time.Second {
					t.Errorf("detected after %v", el)
				}
				var f *Fault
				switch {
				case w.lines[0] > 0:
					if !errors.As(err, &f) || f.Kind != FaultRunaway || !strings.Contains(f.Msg, "polls memory") {
						t.Fatalf("want a memory spin fault, got %v", err)
					}
					if f.Line < w.lines[0] || f.Line > w.lines[1] || f.File != "spin.ptx" {
						t.Errorf("fault at %s:%d, want a line in %v: %v", f.File, f.Line, w.lines, f)
					}
					if !strings.Contains(f.Msg, tc.msg) {
						t.Errorf("fault %q lacks %q", f.Msg, tc.msg)
					}
					t.Logf("detected in %v: %v", el, err)
				case w.fault != "":
					if err == nil || !strings.Contains(err.Error(), w.fault) || strings.Contains(err.Error(), "spinning") {
						t.Fatalf("got %v, want a fault with %q", err, w.fault)
					}
				default:
					if err != nil {
						t.Fatal(err)
					}
					if got := binary.LittleEndian.Uint32(out.Data); got != w.out {
						t.Errorf("out[0] = %d, want %d", got, w.out)
					}
				}
			})
		}
	}
}
