package launch

import (
	"context"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/trace"
)

// TestTraceBuffers: every launch of the instrumented two-launch reduce spec
// gets its own trace buffer whose header (decoded with
// manifest.ParseHeader) has the geometry of docs/buffer.md worked out from
// the spec by hand: reduce_partial 8 CTAs × 256 threads = 8 × 8 warp
// segments, reduce_final 1 CTA × 32 threads = 1 segment.
func TestTraceBuffers(t *testing.T) {
	path := filepath.Join("..", "samples", "reduce", "reduce.sm_52.ptx")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := instrument.Instrument(fset, f, instrument.Options{Mode: "auto", Output: path})
	if err != nil {
		t.Fatal(err)
	}
	spec, dir := loadSampleSpec(t, "reduce")
	prep, err := spec.Prepare(progFromSrc(t, "reduce.ptx", string(res.PTX)),
		PrepareOptions{BaseDir: dir, Registry: SampleRegistry(), Manifest: res.Manifest})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := prep.Run(context.Background(), ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	traced := sr.Traced()
	if len(traced) != 2 {
		t.Fatalf("%d traced launches, want 2", len(traced))
	}
	rpw := uint32(res.Manifest.Buffer.RecordsPerWarp)
	for i, want := range []struct {
		kernel    string
		segs, wpc uint32
	}{{"reduce_partial", 64, 8}, {"reduce_final", 1, 1}} {
		lr := traced[i]
		h, err := manifest.ParseHeader(lr.Trace.Data)
		if err != nil {
			t.Fatal(err)
		}
		if lr.Kernel != want.kernel || h.Segments != want.segs || h.WarpsPerCTA != want.wpc || h.RecordsPerWarp != rpw ||
			h.SegmentBytes != 32+16*rpw || h.LayoutVersion != 1 || h.HeaderBytes != 64 || h.RecordBytes != 16 {
			t.Errorf("launch %d (%s): header %+v", i, lr.Kernel, h)
		}
		if got, n := len(lr.Trace.Data), 64+int(want.segs)*int(32+16*rpw); got != n {
			t.Errorf("launch %d: buffer of %d bytes, want %d", i, got, n)
		}
		if i > 0 && lr.Trace == traced[0].Trace {
			t.Errorf("launches share a trace buffer")
		}
		in, err := lr.Bundle(res.Manifest, nil, trace.RunMeta{})
		if err != nil || in.Kernel != want.kernel || in.Meta.Grid[0] != uint32(lr.Grid[0]) {
			t.Errorf("launch %d: bundle %v %+v", i, err, in)
		}
	}
}
