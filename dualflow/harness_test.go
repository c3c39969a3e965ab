package dualflow

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/replay"
)

// sampleNames are the bundled samples with a launch spec.
var sampleNames = []string{"vecadd", "matmul", "reduce", "nn", "pathfinder", "hotspot", "gaussian", "lud", "bfs", "volrender"}

func samplePTX(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "samples", name, name+".sm_52.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runSample runs sample name's launch spec on the PTX src (functionally, or
// on the model when ms is set) and returns its output buffers.
func runSample(t testing.TB, name string, src []byte, ms *model.Spec) (map[string][]byte, *launch.SeqResult) {
	t.Helper()
	f, err := Parse(name+".ptx", src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	prog, err := replay.NewProgram(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	yb, ok := launch.SampleSpec(name)
	if !ok {
		t.Fatalf("%s: no launch spec", name)
	}
	spec, err := launch.ParseSpec(yb)
	if err != nil {
		t.Fatal(err)
	}
	o := launch.PrepareOptions{Registry: launch.SampleRegistry()}
	if ms != nil {
		o.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(prog, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	res, err := prep.Run(context.Background(), launch.ExecOptions{Model: ms})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := map[string][]byte{}
	for _, b := range prep.Buffers {
		if b.Output {
			out[b.Name] = append([]byte(nil), b.Alloc.Data...)
		}
	}
	return out, res
}

func sameOutputs(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: no outputs", what)
	}
	for k, v := range want {
		if !bytes.Equal(v, got[k]) {
			t.Errorf("%s: output %s differs from the original's", what, k)
		}
	}
}
