package replay

import (
	"bytes"
	"encoding/binary"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// corpusGemm is the shared corpus' sm_90a TMA + wgmma GEMM.
const corpusGemm = "zhang677__PTXBench__gemm_kernel.ptx"

func readCorpusFile(t *testing.T, name string) []byte {
	t.Helper()
	for _, dir := range []string{os.Getenv("PTXTRACE_CORPUS_DIR"), filepath.Join("..", "..", "shared", "corpus", "ptx"), filepath.Join("..", "..", "..", "shared", "corpus", "ptx")} {
		if dir == "" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return b
		}
	}
	t.Skipf("corpus file %s absent", name)
	return nil
}

// TestCorpusGemmParity pins down why the corpus' sm_90a GEMM does not run,
// and that replay runs it once its one defect is fixed.
//
// The kernel is single-buffered: k-tile i (i = 0..79) is loaded by thread 0
// with two TMA copies signalling mbarrier i%2 (two objects, each
// initialised with count 1 and armed once per use by arrive.expect_tx), and
// every thread then spins on mbarrier.try_wait.parity of barrier i%2 with
// parity i%2: the loop body is unrolled four times and its waits use the
// constant parities 0, 1, 0, 1 (lines 161, 325, 425, 524). Use u of
// barrier b (i = 2u+b) is that barrier's phase u, whose parity is u%2 =
// (i/2)%2, i.e. 0, 0, 1, 1 for the four unrolled waits. Per the PTX ISA
// (mbarrier.test_wait/try_wait: .parity names "either the current phase
// or the immediately preceding phase", True for the preceding one, and
// init starts phase 0) the second wait — barrier 1, parity 1, while
// barrier 1 is still in its first phase 0 — tests the (virtual) preceding
// phase and succeeds at once, before the TMA copy of k-tile 1 has
// completed; the wgmma that follows reads the copy's shared-memory
// destination. On hardware that is a race (the tile may be partly the old
// one); replay reports it as an async-race fault at the first wgmma of
// that iteration. With the two middle parities exchanged (0, 0, 1, 1),
// the kernel runs to completion and its 64×64 bf16 result equals an
// independent reference.
func TestCorpusGemmParity(t *testing.T) {
	src := readCorpusFile(t, corpusGemm)
	run := func(src []byte) (corpusOutcome, *Device, *Program) {
		f, err := ptx.ParseFile(token.NewFileSet(), corpusGemm, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := NewProgram(f)
		if err != nil {
			t.Fatal(err)
		}
		entries := prog.Entries()
		if len(entries) != 1 {
			t.Fatalf("entries %v", entries)
		}
		o, dev := runCorpusKernelOn(prog, entries[0], src)
		return o, dev, prog
	}

	o, _, _ := run(src)
	if o.class != "fault" || !strings.Contains(o.detail, "async-race") || !strings.Contains(o.detail, "cp.async.bulk copy") {
		t.Fatalf("original kernel: %s %s, want an async-race fault on a TMA destination", o.class, o.detail)
	}
	// the fault is at a wgmma of the second unrolled iteration (after the
	// wait of line 325, before the one of line 425)
	if !strings.Contains(o.detail, "wgmma") {
		t.Errorf("original kernel: %s, want the fault at a wgmma", o.detail)
	}
	t.Logf("original: %s", o.detail)

	fixed := bytes.Replace(src, []byte("mov.u32 \t%r115, 1;"), []byte("mov.u32 \t%r115, 0;"), 1)
	fixed = bytes.Replace(fixed, []byte("mov.u32 \t%r135, 0;"), []byte("mov.u32 \t%r135, 1;"), 1)
	if bytes.Equal(fixed, src) || len(fixed) != len(src) {
		t.Fatal("the corpus file changed: the parity constants were not found")
	}
	o, dev, _ := run(fixed)
	if o.class != "ok" {
		t.Fatalf("fixed kernel: %s %s, want completion", o.class, o.detail)
	}
	// runCorpusKernel's synthetic inputs: both tensor maps are 256×256
	// bf16 tensors (row stride 512 bytes) whose element i (row-major) is
	// the bf16 0x3f80 + i%3 (1, 1+2^-7, 1+2^-6); boxes 64×64 from
	// coordinates {k, 64·ctaid}; M = N = 64 (the int parameters), so only
	// CTA (0,0) stores: C[m][n] (row stride N) = Σ_k A[m][k]·B[n][k] over
	// k < 256 (TMA reads zeros past the tensor for k-tiles 4..79). Every
	// product is a multiple of 2^-14 below 2^1 and every partial sum below
	// 2^9, so f32 accumulation in any order is exact: the bf16 result is
	// the round-to-nearest-even of the exact sum.
	bf := func(i int) float64 { return 1 + float64(i%3)/128 }
	var out *Alloc
	for _, a := range dev.Allocs() {
		if a.Name == "p2" {
			out = a
		}
	}
	if out == nil {
		t.Fatal("no output buffer p2")
	}
	bad := 0
	for m := 0; m < 64; m++ {
		for n := 0; n < 64; n++ {
			s := 0.0
			for k := 0; k < 256; k++ {
				s += bf(m*256+k) * bf(n*256+k)
			}
			want := f32ToBF16RNE(float32(s))
			got := binary.LittleEndian.Uint16(out.Data[2*(m*64+n):])
			if got != want && bad < 5 {
				t.Errorf("C[%d][%d] = %#04x, want %#04x (%g)", m, n, got, want, s)
			}
			if got != want {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 4096 results differ", bad)
	}
}

// f32ToBF16RNE rounds an f32 (not NaN) to bf16, nearest even.
func f32ToBF16RNE(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7fff + (b >> 16 & 1)) >> 16)
}
