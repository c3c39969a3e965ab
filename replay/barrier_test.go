package replay

import (
	"context"
	"encoding/binary"
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// runBar runs entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn) on
// one CTA of block threads, functionally or under the A100 timing model.
// in holds u32 1000+i for i < 256; out is 4*block bytes of 0xab.
func runBar(t testing.TB, body string, block int, n uint32, timing bool) ([]uint32, error) {
	t.Helper()
	src := ".version 8.5\n.target sm_90\n.address_size 64\n.shared .align 4 .b8 sm[1024];\n" +
		".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n" +
		"\t.reg .pred %p, %q;\n\t.reg .b32 %tid, %n, %v, %w, %j, %r;\n\t.reg .b64 %in, %out, %a, %s, %o;\n" +
		"\tld.param.u64 %in, [pin];\n\tld.param.u64 %out, [pout];\n\tld.param.u32 %n, [pn];\n\tmov.u32 %tid, %tid.x;\n" +
		"\tmov.u64 %s, sm;\n\tmul.wide.u32 %o, %tid, 4;\n" + body + "\n}\n"
	f, err := ptx.ParseFile(token.NewFileSet(), "bar.ptx", []byte(src), 0)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	p, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Lower("k")
	if err != nil || len(code.Warnings) > 0 {
		t.Fatalf("lower: %v %v", err, code.Warnings)
	}
	dev := NewDevice()
	bin, bout := dev.Alloc("in", 1024), dev.Alloc("out", 4*block)
	for i := 0; i < 256; i++ {
		binary.LittleEndian.PutUint32(bin.Data[4*i:], uint32(1000+i))
	}
	for i := range bout.Data {
		bout.Data[i] = 0xab
	}
	params := make([]byte, code.ParamSize)
	binary.LittleEndian.PutUint64(params[code.Params[0].Offset:], bin.Base)
	binary.LittleEndian.PutUint64(params[code.Params[1].Offset:], bout.Base)
	binary.LittleEndian.PutUint32(params[code.Params[2].Offset:], n)
	kern, err := NewKernel(Launch{Code: code, Grid: [3]int{1, 1, 1}, Block: [3]int{block, 1, 1}, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	if timing {
		_, _, err = kern.RunModel(context.Background(), model.A100(), model.Options{Workers: 1})
	} else {
		_, err = kern.Run(context.Background(), RunOptions{Workers: 1})
	}
	out := make([]uint32, block)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(bout.Data[4*i:])
	}
	return out, err
}

const untouched = 0xabababab

// early return, then a CTA barrier; each thread reads its right
// neighbour's value written before the barrier (across warps)
const earlyReturn = `
	setp.ge.u32 %p, %tid, %n;
	@%p bra $Lexit;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	BARRIER;
	add.u32 %j, %tid, 1;
	rem.u32 %j, %j, %n;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
$Lexit:
	ret;`

func TestBarrierEarlyReturn(t *testing.T) {
	for _, timing := range []bool{false, true} {
		for _, bar := range []string{"bar.sync 0", "barrier.sync 0", "barrier.sync.aligned 0", "barrier.cta.sync.aligned 0", "bar.cta.sync 0", "bar.sync 0, 96"} {
			for _, n := range []uint32{40, 70, 96, 1} {
				body := strings.Replace(earlyReturn, "BARRIER", bar, 1)
				out, err := runBar(t, body, 96, n, timing)
				if strings.HasSuffix(bar, ", 96") && n <= 64 && !timing {
					// a whole warp exited: 96 threads (3 warps) never
					// arrive, which hangs a GPU (the timing model's own
					// barrier accounting caps the count at the CTA's live
					// threads, so it is checked functionally only)
					if err == nil || !strings.Contains(err.Error(), "deadlock") {
						t.Errorf("%s n=%d timing=%v: err %v, want a deadlock fault", bar, n, timing, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s n=%d timing=%v: %v", bar, n, timing, err)
					continue
				}
				for i, got := range out {
					want := uint32(untouched)
					if i < int(n) {
						want = uint32(1000 + (i+1)%int(n))
					}
					if got != want {
						t.Errorf("%s n=%d timing=%v: out[%d] = %d, want %d", bar, n, timing, i, got, want)
						break
					}
				}
			}
		}
	}
}

// The taken path is the body, the fall-through path exits: the lanes on
// the exiting path run first and exit before the barrier.
func TestBarrierEarlyExitInstruction(t *testing.T) {
	body := `
	setp.ge.u32 %p, %tid, %n;
	@%p exit;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	bar.sync 0;
	sub.u32 %j, %n, 1;
	sub.u32 %j, %j, %tid;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
	ret;`
	out, err := runBar(t, body, 64, 50, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 64; i++ {
		want := uint32(untouched)
		if i < 50 {
			want = uint32(1000 + 49 - i) // reversed
		}
		if out[i] != want {
			t.Fatalf("out[%d] = %d, want %d", i, out[i], want)
		}
	}
}

func TestBarrierDivergenceFaults(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"skip-to-second", `
	setp.lt.u32 %p, %tid, 16;
	@%p bra $Lskip;
	bar.sync 0;
$Lskip:
	bar.sync 0;
	ret;`},
		{"two-ids", `
	setp.lt.u32 %p, %tid, 16;
	@%p bra $L1;
	bar.sync 0;
	bra.uni $L2;
$L1:
	bar.sync 1;
$L2:
	ret;`},
		{"aligned-two-pcs", `
	setp.lt.u32 %p, %tid, 16;
	@%p bra $L1;
	bar.sync 0;
	bra.uni $L2;
$L1:
	bar.sync 0;
$L2:
	ret;`},
		{"guarded", `
	setp.lt.u32 %p, %tid, 16;
	@%p bar.sync 0;
	ret;`},
	} {
		for _, timing := range []bool{false, true} {
			_, err := runBar(t, tc.body, 64, 0, timing)
			if err == nil || !strings.Contains(err.Error(), "barrier-divergence") {
				t.Errorf("%s timing=%v: err %v, want a barrier-divergence fault", tc.name, timing, err)
			}
		}
	}
}

// A non-.aligned barrier may be reached by the lanes of a warp at
// different instructions (same barrier id).
func TestBarrierNonAlignedTwoPCs(t *testing.T) {
	body := `
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	setp.lt.u32 %p, %tid, 16;
	@%p bra $L1;
	barrier.sync 0;
	mov.u32 %j, 63;
	bra.uni $L2;
$L1:
	barrier.sync 0;
	mov.u32 %j, 62;
$L2:
	sub.u32 %j, %j, %tid;
	and.b32 %j, %j, 63;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
	ret;`
	for _, timing := range []bool{false, true} {
		out, err := runBar(t, body, 64, 0, timing)
		if err != nil {
			t.Fatalf("timing=%v: %v", timing, err)
		}
		for i := 0; i < 64; i++ {
			j := (63 - i) & 63
			if i < 16 {
				j = (62 - i) & 63
			}
			if out[i] != uint32(1000+j) {
				t.Fatalf("timing=%v: out[%d] = %d, want %d", timing, i, out[i], 1000+j)
			}
		}
	}
}

// Named barriers with thread counts: warps 0-1 produce and bar.arrive,
// warps 2-3 bar.sync on the same barrier (128 threads = 4 warps) and read
// what the producers wrote; warps 2-3 also sync among themselves on
// barrier 2 with a count of 64.
func TestBarrierCounts(t *testing.T) {
	body := `
	setp.ge.u32 %p, %tid, 64;
	@%p bra $Lcons;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	bar.arrive 1, 128;
	bra.uni $Lend;
$Lcons:
	bar.sync 1, 128;
	sub.u32 %j, %tid, 64;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %w;
	bar.sync 2, 64;
	xor.b32 %j, %tid, 32;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
$Lend:
	ret;`
	for _, timing := range []bool{false, true} {
		out, err := runBar(t, body, 128, 0, timing)
		if err != nil {
			t.Fatalf("timing=%v: %v", timing, err)
		}
		for i := 0; i < 128; i++ {
			want := uint32(untouched)
			if i >= 64 {
				// thread i reads sm[i^32], written by thread i^32 with
				// the producer value of thread (i^32)-64
				want = uint32(1000 + (i ^ 32) - 64)
			}
			if out[i] != want {
				t.Fatalf("timing=%v: out[%d] = %d, want %d", timing, i, out[i], want)
			}
		}
	}
}

// bar.red with exited threads: threads >= n return first and do not take
// part.
func TestBarrierRed(t *testing.T) {
	for _, tc := range []struct {
		red, pred string
		n         uint32
		want      uint32
	}{
		// multiples of 3 in 0..39: 0, 3, ..., 39 = 14
		{"bar.red.popc.u32 %r, 0, %q;", "rem.u32 %j, %tid, 3;\n\tsetp.eq.u32 %q, %j, 0;", 40, 14},
		{"barrier.red.popc.u32 %r, 0, !%q;", "rem.u32 %j, %tid, 3;\n\tsetp.eq.u32 %q, %j, 0;", 40, 26},
		{"bar.red.and.pred %q, 0, %q;\n\tselp.u32 %r, 1, 0, %q;", "setp.lt.u32 %q, %tid, 40;", 40, 1},
		{"bar.red.and.pred %q, 0, %q;\n\tselp.u32 %r, 1, 0, %q;", "setp.lt.u32 %q, %tid, 39;", 40, 0},
		{"bar.red.or.pred %q, 0, %q;\n\tselp.u32 %r, 1, 0, %q;", "setp.eq.u32 %q, %tid, 39;", 40, 1},
		{"bar.red.or.pred %q, 0, %q;\n\tselp.u32 %r, 1, 0, %q;", "setp.eq.u32 %q, %tid, 40;", 40, 0},
		{"barrier.cta.red.popc.aligned.u32 %r, 0, 96, %q;", "setp.ne.u32 %q, %tid, 5;", 70, 69},
	} {
		body := "\tsetp.ge.u32 %p, %tid, %n;\n\t@%p bra $Lexit;\n\t" + tc.pred + "\n\t" + tc.red +
			"\n\tadd.u64 %a, %out, %o;\n\tst.global.u32 [%a], %r;\n$Lexit:\n\tret;"
		for _, timing := range []bool{false, true} {
			out, err := runBar(t, body, 96, tc.n, timing)
			if err != nil {
				t.Errorf("%s timing=%v: %v", tc.red, timing, err)
				continue
			}
			for i := range out {
				want := uint32(untouched)
				if i < int(tc.n) {
					want = tc.want
				}
				if out[i] != want {
					t.Errorf("%s (%s) timing=%v: out[%d] = %d, want %d", tc.red, tc.pred, timing, i, out[i], want)
					break
				}
			}
		}
	}
}

// bar.red votes of lanes gathered on different paths (non-.aligned
// barrier.red at two instructions) combine.
func TestBarrierRedTwoPaths(t *testing.T) {
	body := `
	setp.lt.u32 %p, %tid, 10;
	@%p bra $L1;
	setp.eq.u32 %q, %tid, 50;
	barrier.red.popc.u32 %r, 0, %q;
	bra.uni $L2;
$L1:
	setp.ne.u32 %q, %tid, 3;
	barrier.red.popc.u32 %r, 0, %q;
$L2:
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %r;
	ret;`
	out, err := runBar(t, body, 64, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	// true: tid 50 and tids 0..9 except 3 = 1 + 9
	for i, got := range out {
		if got != 10 {
			t.Fatalf("out[%d] = %d, want 10", i, got)
		}
	}
}

// Lanes that skip a barrier and then exit do not take part (they are
// exited threads), also when they skip it inside a loop; a non-.aligned
// barrier is reached by the warp's lanes at two instructions.
func TestBarrierSkipThenExit(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       func(i int) uint32
	}{
		{"skip", `
	setp.lt.u32 %p, %tid, 16;
	@%p bra $Lskip;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	bar.sync 0;
	sub.u32 %j, %tid, 15;
	rem.u32 %j, %j, 48;
	add.u32 %j, %j, 16;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
$Lskip:
	ret;`, func(i int) uint32 {
			if i < 16 {
				return untouched
			}
			return uint32(1000 + 16 + (i-15)%48)
		}},
		// thread 0 sums sm[0..n) after a loop of four barriers that the
		// threads >= n skip by returning early
		{"loop", `
	setp.ge.u32 %p, %tid, 40;
	@%p bra $Lexit;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	mov.u32 %j, 0;
$Lloop:
	barrier.sync 0;
	add.u32 %j, %j, 1;
	setp.lt.u32 %q, %j, 4;
	@%q bra $Lloop;
	setp.ne.u32 %q, %tid, 0;
	@%q bra $Lexit;
	mov.u32 %w, 0;
	mov.u32 %j, 0;
$Lsum:
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %v, [%a];
	add.u32 %w, %w, %v;
	add.u32 %j, %j, 1;
	setp.lt.u32 %q, %j, 40;
	@%q bra $Lsum;
	st.global.u32 [%out], %w;
$Lexit:
	ret;`, func(i int) uint32 {
			if i == 0 {
				return 40*1000 + 39*40/2 // 40780
			}
			return untouched
		}},
		// early return, then a loop whose body diverges before the
		// barrier (odd threads add 1 to their word before each barrier)
		{"loop-nested", `
	setp.ge.u32 %p, %tid, 40;
	@%p bra $Lexit;
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], 0;
	mov.u32 %j, 0;
$Lloop:
	and.b32 %v, %tid, 1;
	setp.eq.u32 %q, %v, 0;
	@%q bra $Lskip;
	ld.shared.u32 %v, [%a];
	add.u32 %v, %v, 1;
	st.shared.u32 [%a], %v;
$Lskip:
	bar.sync 0;
	add.u32 %j, %j, 1;
	setp.lt.u32 %q, %j, 4;
	@%q bra $Lloop;
	xor.b32 %w, %tid, 1;
	setp.ge.u32 %q, %w, 40;
	@%q bra $Lexit;
	mul.wide.u32 %a, %w, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %v, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %v;
$Lexit:
	ret;`, func(i int) uint32 {
			if i >= 40 {
				return untouched
			}
			return uint32(4 * ((i ^ 1) & 1)) // the partner's count
		}},
		// two nested early exits: threads >= 40 skip the region, odd
		// threads return inside it; the even threads below 40 meet at
		// the barrier and read their right even neighbour (mod 40)
		{"nested-exits", `
	setp.lt.u32 %p, %tid, 40;
	@!%p bra $Lend;
	and.b32 %v, %tid, 1;
	setp.eq.u32 %q, %v, 1;
	@%q bra $Lexit;
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	bar.sync 0;
	add.u32 %j, %tid, 2;
	rem.u32 %j, %j, 40;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
$Lend:
	mov.u32 %v, 0;
$Lexit:
	ret;`, func(i int) uint32 {
			if i >= 40 || i%2 == 1 {
				return untouched
			}
			return uint32(1000 + (i+2)%40)
		}},
		// warp specialization with non-.aligned barriers: the two halves
		// of each warp run different code with two barriers each; the
		// second barrier is met while the first one's parked path has
		// not yet passed through it
		{"specialized", `
	add.u64 %a, %s, %o;
	setp.lt.u32 %p, %tid, 16;
	@%p bra $Lhalf;
	st.shared.u32 [%a], 1;
	barrier.sync 0;
	ld.shared.u32 %v, [%a];
	add.u32 %v, %v, 10;
	st.shared.u32 [%a], %v;
	barrier.sync 0;
	bra.uni $Ljoin;
$Lhalf:
	st.shared.u32 [%a], 2;
	barrier.sync 0;
	ld.shared.u32 %v, [%a];
	add.u32 %v, %v, 20;
	st.shared.u32 [%a], %v;
	barrier.sync 0;
$Ljoin:
	xor.b32 %j, %tid, 16;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
	ret;`, func(i int) uint32 {
			if i^16 < 16 { // the partner is in the first half: 2 + 20
				return 22
			}
			return 11
		}},
		// non-aligned: lanes 16.. wait at the first barrier.sync, lanes
		// 0..15 skip it and wait at the second; both count for warp 0
		{"nonaligned-two", `
	add.u64 %a, %in, %o;
	ld.global.u32 %v, [%a];
	add.u64 %a, %s, %o;
	st.shared.u32 [%a], %v;
	setp.lt.u32 %p, %tid, 16;
	@%p bra $Lskip;
	barrier.sync 0;
$Lskip:
	barrier.sync 0;
	xor.b32 %j, %tid, 32;
	mul.wide.u32 %a, %j, 4;
	add.u64 %a, %s, %a;
	ld.shared.u32 %w, [%a];
	add.u64 %a, %out, %o;
	st.global.u32 [%a], %w;
	ret;`, func(i int) uint32 { return uint32(1000 + (i ^ 32)) }},
	} {
		for _, timing := range []bool{false, true} {
			out, err := runBar(t, tc.body, 64, 0, timing)
			if err != nil {
				t.Errorf("%s timing=%v: %v", tc.name, timing, err)
				continue
			}
			for i, got := range out {
				if want := tc.want(i); got != want {
					t.Errorf("%s timing=%v: out[%d] = %d, want %d", tc.name, timing, i, got, want)
					break
				}
			}
		}
	}
}

// bar.red with a thread count that the non-exited warps cannot reach:
// a deadlock functionally; under the timing model (which caps the count
// at the CTA's live threads and releases the warps) the missing result
// is a fault, not a stale value.
func TestBarrierRedCountUnreachable(t *testing.T) {
	body := "\tsetp.ge.u32 %p, %tid, %n;\n\t@%p bra $Lexit;\n\tsetp.eq.u32 %q, %tid, 0;\n\tbar.red.popc.u32 %r, 0, 96, %q;" +
		"\n\tadd.u64 %a, %out, %o;\n\tst.global.u32 [%a], %r;\n$Lexit:\n\tret;"
	for _, timing := range []bool{false, true} {
		_, err := runBar(t, body, 96, 40, timing)
		if err == nil || !strings.Contains(err.Error(), "deadlock") {
			t.Errorf("timing=%v: err %v, want a deadlock fault", timing, err)
		}
	}
}

// BenchmarkBarrierEarlyReturn: parse, lower and run the early-return
// kernel on one CTA of 96 threads whose third warp straddles n (parked
// paths and split reconvergence waiters on every run).
func BenchmarkBarrierEarlyReturn(b *testing.B) {
	body := strings.Replace(earlyReturn, "BARRIER", "bar.sync 0", 1)
	for i := 0; i < b.N; i++ {
		if _, err := runBar(b, body, 96, 70, false); err != nil {
			b.Fatal(err)
		}
	}
}
