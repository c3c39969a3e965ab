package replay

import (
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// A two-stage cp.async pipeline: thread t copies in[t] to sm[t] (group 1)
// and in[t+64] to sm[64+t] (group 2); wait_group 1 completes group 1 only,
// a barrier publishes it, and thread t reads its neighbour's word
// sm[(t+1)%64]; then wait_group 0 and a barrier publish group 2 and the
// thread adds sm[64+(t+1)%64]. Expected: (1000+(t+1)%64) +
// (1000+64+(t+1)%64), functionally and under the timing model.
const asyncPipeline = `
	.reg .b64 %src, %dst, %n64;
	add.u64 %src, %in, %o;
	add.u64 %dst, %s, %o;
	cp.async.ca.shared.global [%dst], [%src], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%dst+256], [%src+256], 4;
	cp.async.commit_group;
	cp.async.wait_group 1;
	bar.sync 0;
	add.u32 %j, %tid, 1;
	and.b32 %j, %j, 63;
	mul.wide.u32 %n64, %j, 4;
	add.u64 %a, %s, %n64;
	ld.shared.u32 %v, [%a];
	cp.async.wait_group 0;
	bar.sync 0;
	ld.shared.u32 %w, [%a+256];
	add.u32 %v, %v, %w;
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %v;
`

func TestCpAsyncPipeline(t *testing.T) {
	for _, timing := range []bool{false, true} {
		out, err := runBar(t, asyncPipeline, 64, 64, timing)
		if err != nil {
			t.Fatalf("timing=%v: %v", timing, err)
		}
		for i, v := range out {
			j := (i + 1) % 64
			if want := uint32(1000+j) + uint32(1000+64+j); v != want {
				t.Fatalf("timing=%v: thread %d = %d, want %d", timing, i, v, want)
			}
		}
	}
}

// Reading group 2's destination after wait_group 1 is a race: a fault
// naming the pending copy.
func TestCpAsyncEarlyRead(t *testing.T) {
	body := strings.Replace(asyncPipeline, "ld.shared.u32 %v, [%a];", "ld.shared.u32 %v, [%a+256];", 1)
	_, err := runBar(t, body, 64, 64, false)
	if err == nil || !strings.Contains(err.Error(), "async-race") || !strings.Contains(err.Error(), "cp.async") {
		t.Fatalf("err = %v, want an async-race fault", err)
	}
}

// For the timing model cp.async is a global load without destination
// registers and the waits are fences (they wait for the warp's outstanding
// copies); commit_group is neither.
func TestCpAsyncModelView(t *testing.T) {
	src := ".version 8.5\n.target sm_80\n.address_size 64\n.shared .align 16 .b8 s[16];\n" +
		".visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %a, %b;\n\tld.param.u64 %a, [p];\n\tmov.u64 %b, s;\n" +
		"\tcp.async.cg.shared.global [%b], [%a], 16;\n\tcp.async.commit_group;\n\tcp.async.wait_group 1;\n\tcp.async.wait_all;\n}\n"
	f, err := ptx.ParseFile(token.NewFileSet(), "a.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("k")
	if err != nil || len(code.Warnings) > 0 {
		t.Fatalf("lower: %v %v", err, code.Warnings)
	}
	ins := code.Insts()
	cp, commit, w1, wall := ins[2], ins[3], ins[4], ins[5]
	if cp.Class != model.ClassLdSt || cp.Mem != model.MemLoad || cp.Space != model.SpaceGlobal || cp.Size != 16 || len(cp.Dst) != 0 {
		t.Errorf("cp.async: %+v, want a 16-byte global load without destinations", *cp)
	}
	if commit.Class == model.ClassFence {
		t.Errorf("commit_group is a fence")
	}
	if w1.Class != model.ClassFence || wall.Class != model.ClassFence {
		t.Errorf("wait_group/wait_all classes %v %v, want fences", w1.Class, wall.Class)
	}
}

// An mbarrier replaces a CTA barrier: thread t stores in[t] at sm[16+4t],
// arrives on the barrier at sm[0] (initialised by thread 0 for 64
// arrivals) and spins on try_wait.parity 0; after the phase completes it
// reads its neighbour's word. Warp 0 spins until warp 1 arrives, so the
// scheduler must interleave warps; functionally and under the model.
const mbarrierExchange = `
	.reg .pred %done;
	.reg .b64 %t64;
	setp.ne.u32 %p, %tid, 0;
	@%p bra $Lskip;
	mbarrier.init.shared.b64 [%s], 64;
$Lskip:
	bar.sync 0;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a+16], %v;
	mbarrier.arrive.shared.b64 %t64, [%s];
$Lwait:
	mbarrier.try_wait.parity.shared.b64 %done, [%s], 0;
	@!%done bra $Lwait;
	add.u32 %j, %tid, 1;
	and.b32 %j, %j, 63;
	mul.wide.u32 %o, %j, 4;
	add.u64 %a, %s, %o;
	ld.shared.u32 %v, [%a+16];
	mul.wide.u32 %o, %tid, 4;
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %v;
`

func TestMbarrierExchange(t *testing.T) {
	for _, timing := range []bool{false, true} {
		out, err := runBar(t, mbarrierExchange, 64, 64, timing)
		if err != nil {
			t.Fatalf("timing=%v: %v", timing, err)
		}
		for i, v := range out {
			if want := uint32(1000 + (i+1)%64); v != want {
				t.Fatalf("timing=%v: thread %d = %d, want %d", timing, i, v, want)
			}
		}
	}
}

// asyncGroupWait: group 1 copies a word whose line an earlier load has
// brought on chip, group 2 a word of a line nothing has touched (a DRAM
// miss); each thread stores the cycles its cp.async.wait_group WAITN took.
const asyncGroupWait = `
	.reg .b64 %src, %dst, %t0, %t1;
	add.u64 %src, %in, %o;
	add.u64 %dst, %s, %o;
	ld.global.u32 %v, [%src];
	add.u32 %v, %v, 1;
	cp.async.ca.shared.global [%dst], [%src], 4;
	cp.async.commit_group;
	cp.async.ca.shared.global [%dst+256], [%src+512], 4;
	cp.async.commit_group;
	mov.u64 %t0, %clock64;
	cp.async.wait_group WAITN;
	mov.u64 %t1, %clock64;
	cp.async.wait_group 0;
	sub.u64 %t1, %t1, %t0;
	cvt.u32.u64 %v, %t1;
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %v;
`

// TestCpAsyncWaitGroupTiming: per the ISA cp.async.wait_group 1 waits for
// every committed group but the most recent, so in the timing model it
// releases the warp once group 1 (an on-chip hit) has completed, while
// wait_group 0 also waits for group 2's DRAM miss. On the a100 preset a
// DRAM miss costs the DRAM latency (200 DRAM clocks) on top of the L2
// path, so wait_group 1 must be shorter by at least 100 cycles, and
// wait_group 0 must take at least the L2 latency.
func TestCpAsyncWaitGroupTiming(t *testing.T) {
	run := func(n string) uint32 {
		out, err := runBar(t, strings.Replace(asyncGroupWait, "WAITN", n, 1), 32, 32, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range out[1:] {
			if v != out[0] {
				t.Fatalf("wait_group %s: lanes disagree: %v", n, out)
			}
		}
		return out[0]
	}
	w1, w0 := run("1"), run("0")
	t.Logf("wait_group 1: %d cycles, wait_group 0: %d cycles", w1, w0)
	spec := model.A100()
	if w0 < uint32(spec.L2.Latency) {
		t.Errorf("wait_group 0 took %d cycles, less than the L2 latency %d: it did not wait for the DRAM miss", w0, spec.L2.Latency)
	}
	if w1+100 > w0 {
		t.Errorf("wait_group 1 took %d cycles, wait_group 0 %d: wait_group 1 waited for the most recent group", w1, w0)
	}
}
