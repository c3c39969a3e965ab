package launch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// The samples' launch specs (testdata/samples/NAME/launch.yaml) take their
// inputs from samples/ref's seeded generators and are checked against
// samples/ref's independent references (SampleRegistry), with the
// references' own tolerances.

// sampleNames lists every bundled sample with a launch spec.
var sampleNames = []string{"vecadd", "matmul", "reduce", "nn", "pathfinder", "hotspot", "gaussian", "lud", "bfs", "volrender"}

func loadSampleSpec(t testing.TB, name string) (*Spec, string) {
	t.Helper()
	dir := filepath.Join("testdata", "samples", name)
	b, err := os.ReadFile(filepath.Join(dir, "launch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return spec, dir
}

// runSampleSpec runs launch/testdata/samples/NAME/launch.yaml on the
// sample's sm_52 PTX (functionally, or on the model when ms is set).
func runSample(t testing.TB, name string, workers int, ms *model.Spec) (*Prepared, *SeqResult) {
	t.Helper()
	spec, dir := loadSampleSpec(t, name)
	prog := loadPTX(t, filepath.Join("..", "samples", name, name+".sm_52.ptx"))
	o := PrepareOptions{BaseDir: dir, Registry: SampleRegistry()}
	if ms != nil {
		o.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(prog, o)
	if err != nil {
		t.Fatal(err)
	}
	res, err := prep.Run(context.Background(), ExecOptions{Workers: workers, Model: ms})
	if err != nil {
		t.Fatal(err)
	}
	return prep, res
}

// runSampleSpec runs a sample functionally with the given workers.
func runSampleSpec(t testing.TB, name, ptxName string, workers int) *Prepared {
	t.Helper()
	prep, _ := runSample(t, name, workers, nil)
	return prep
}

func checkSample(t *testing.T, name string, prep *Prepared) {
	t.Helper()
	dir := filepath.Join("testdata", "samples", name)
	rs := prep.Check(SampleRegistry(), dir)
	if len(rs) == 0 {
		t.Errorf("%s: no checks", name)
	}
	for _, r := range rs {
		if !r.OK {
			t.Errorf("check %s: %s", r.Buffer, r.Msg)
		} else {
			t.Logf("check %s: %s", r.Buffer, r.Msg)
		}
	}
}

func outputs(prep *Prepared) map[string][]byte {
	out := map[string][]byte{}
	for _, b := range prep.Buffers {
		if b.Output {
			out[b.Name] = append([]byte(nil), b.Alloc.Data...)
		}
	}
	return out
}

func TestSamples(t *testing.T) {
	for _, name := range sampleNames {
		t.Run(name, func(t *testing.T) {
			prep, res := runSample(t, name, 0, nil)
			t.Logf("%d launches, %d CTAs, %d thread-instructions", len(res.Launches), res.CTAs, res.ThreadInsts)
			checkSample(t, name, prep)
		})
	}
}

// TestSamplesTiming runs every sample on the gtx480 model: the checks pass
// and the outputs are the same bytes as in functional mode.
func TestSamplesTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("timing mode of every sample is slow with -short")
	}
	ms, _ := model.Preset("gtx480")
	for _, name := range sampleNames {
		t.Run(name, func(t *testing.T) {
			fprep, _ := runSample(t, name, 0, nil)
			prep, res := runSample(t, name, 0, &ms)
			t.Logf("%d launches, %d cycles, %d thread-instructions", len(res.Launches), res.Cycles, res.ThreadInsts)
			if res.Cycles == 0 {
				t.Errorf("no cycles")
			}
			checkSample(t, name, prep)
			fo, to := outputs(fprep), outputs(prep)
			for k, v := range fo {
				if !bytes.Equal(v, to[k]) {
					t.Errorf("output %s differs between functional and timing mode", k)
				}
			}
		})
	}
}

// TestVolrenderBlockShapes: seed 003's experiment in small: the block shape
// changes the texture-cache hit rate (the model's tiled texel layout sees
// the lanes' texels), never the image.
func TestVolrenderBlockShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("timing runs")
	}
	ms, _ := model.Preset("gtx480")
	var first []byte
	rates := map[[2]int]float64{}
	for _, b := range [][2]int{{16, 8}, {128, 1}, {1, 128}} {
		spec, dir := loadSampleSpec(t, "volrender")
		spec.Block = []int{b[0], b[1]}
		spec.Grid = []int{(64 + b[0] - 1) / b[0], (64 + b[1] - 1) / b[1]}
		prog := loadPTX(t, filepath.Join("..", "samples", "volrender", "volrender.sm_52.ptx"))
		prep, err := spec.Prepare(prog, PrepareOptions{BaseDir: dir, Registry: SampleRegistry(), NumSMs: ms.NumSMs})
		if err != nil {
			t.Fatal(err)
		}
		res, err := prep.Run(context.Background(), ExecOptions{Model: &ms})
		if err != nil {
			t.Fatal(err)
		}
		tm := res.Launches[0].Timing
		if tm.Tex.Hits+tm.Tex.Misses == 0 || tm.Mem.TexInsts == 0 {
			t.Fatalf("%v: no texture-cache activity: %+v", b, tm.Tex)
		}
		rates[b] = float64(tm.Tex.Hits) / float64(tm.Tex.Hits+tm.Tex.Misses)
		t.Logf("block %dx%d: %d cycles, texture hit rate %.3f (%d tex insts)", b[0], b[1], tm.Cycles, rates[b], tm.Mem.TexInsts)
		img := prep.Buffer("d_output").Alloc.Data
		if first == nil {
			first = append([]byte(nil), img...)
			nz := 0
			for _, px := range u32s(img) {
				if px != 0 {
					nz++
				}
			}
			if nz < 100 {
				t.Fatalf("only %d non-empty pixels", nz)
			}
		} else if !bytes.Equal(first, img) {
			t.Errorf("block %v: image differs", b)
		}
	}
	if rates[[2]int{16, 8}] == rates[[2]int{128, 1}] && rates[[2]int{128, 1}] == rates[[2]int{1, 128}] {
		t.Errorf("the block shape does not change the texture hit rate: %v", rates)
	}
}
