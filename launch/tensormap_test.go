package launch

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
)

// tmaKernel: thread 0 loads an 8×4 box of u32 at coordinates (4, 2) of the
// tensor map's tensor into shared memory through an mbarrier; every thread
// copies one word of it to out.
const tmaKernel = `.version 8.5
.target sm_90a
.address_size 64
.shared .align 1024 .b8 tile[128];
.shared .align 8 .b64 bar;
.visible .entry k(.param .u64 px, .param .align 128 .b8 tmap[128], .param .u64 pout)
{
	.reg .b32 %tid, %d, %mb, %c0, %c1, %v, %o;
	.reg .b64 %tm, %out, %p;
	.reg .pred %lead, %ok;
	mov.u32 %tid, %tid.x;
	ld.param.u64 %out, [pout];
	mov.u32 %d, tile;
	mov.u32 %mb, bar;
	mov.b64 %tm, tmap;
	cvta.param.u64 %tm, %tm;
	setp.eq.u32 %lead, %tid, 0;
	mov.u32 %c0, 4;
	mov.u32 %c1, 2;
	@%lead mbarrier.init.shared.b64 [%mb], 1;
	bar.sync 0;
	@%lead mbarrier.arrive.expect_tx.shared.b64 _, [%mb], 128;
	@%lead cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%d], [%tm, {%c0, %c1}], [%mb];
$Lwait:
	mbarrier.try_wait.parity.shared.b64 %ok, [%mb], 0;
	@!%ok bra $Lwait;
	shl.b32 %o, %tid, 2;
	add.u32 %d, %d, %o;
	ld.shared.u32 %v, [%d];
	cvt.u64.u32 %p, %o;
	add.u64 %p, %out, %p;
	st.global.u32 [%p], %v;
	ret;
}
`

// TestTensorMapParam: a tensor_map parameter builds replay's tensor map
// over a buffer (16×6 u32, ramp 0, 1, 2, ...; packed rows of 64 bytes), so
// box element (i, j) is x[(2+j)·16 + 4+i].
func TestTensorMapParam(t *testing.T) {
	spec := `kernel: k
grid: [1]
block: [32]
params:
  - {name: x, buffer: {type: u32, count: 96, init: {ramp: {start: 0, step: 1}}}}
  - {tensor_map: {ref: x, dims: [16, 6], box: [8, 4]}}
  - {name: y, buffer: {type: u32, count: 32, output: true}}
`
	s, err := ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := s.Prepare(progFromSrc(t, "k.ptx", tmaKernel), PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prep.Run(context.Background(), ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	y := prep.Buffer("y").Alloc.Data
	for j := 0; j < 4; j++ {
		for i := 0; i < 8; i++ {
			want := uint32((2+j)*16 + 4 + i)
			if got := binary.LittleEndian.Uint32(y[4*(8*j+i):]); got != want {
				t.Fatalf("box (%d,%d) = %d, want %d", i, j, got, want)
			}
		}
	}
	for _, c := range []struct{ spec, want string }{
		{strings.Replace(spec, "box: [8, 4]", "box: [8]", 1), "same rank"},
		{strings.Replace(spec, "dims: [16, 6]", "dims: [16, 600]", 1), "buffer \"x\" has 384"},
		{strings.Replace(spec, "box: [8, 4]", "box: [3, 4]", 1), "multiple of 16"},
	} {
		s, err := ParseSpec([]byte(c.spec))
		if err == nil {
			_, err = s.Prepare(progFromSrc(t, "k.ptx", tmaKernel), PrepareOptions{})
			if err == nil {
				var prep *Prepared
				prep, _ = s.Prepare(progFromSrc(t, "k.ptx", tmaKernel), PrepareOptions{})
				_, err = prep.Run(context.Background(), ExecOptions{})
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error containing %q", err, c.want)
		}
	}
}
