package replay_test

import (
	"encoding/binary"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

// The tests of package replay_test drive the SIMT machine through launch
// specs (package launch), which replay itself must not import.

const faultHeader = ".version 7.8\n.target sm_52\n.address_size 64\n"

// progFromSrc parses src as file name and prepares it for lowering.
func progFromSrc(t testing.TB, name, src string) *replay.Program {
	t.Helper()
	f, err := ptx.ParseFile(token.NewFileSet(), name, []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// le reads an n-byte little-endian word.
func le(b []byte, n int) uint64 {
	var buf [8]byte
	copy(buf[:], b[:n])
	return binary.LittleEndian.Uint64(buf[:])
}

// sampleDir is where the samples' launch specs live.
func sampleDir(name string) string {
	return filepath.Join("..", "launch", "testdata", "samples", name)
}

func loadSampleSpec(t testing.TB, name string) (*launch.Spec, string) {
	t.Helper()
	dir := sampleDir(name)
	b, err := os.ReadFile(filepath.Join(dir, "launch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := launch.ParseSpec(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return spec, dir
}

// runSampleSpec runs a sample functionally with the given workers.
func runSampleSpec(t testing.TB, name string, workers int) *launch.Prepared {
	t.Helper()
	spec, dir := loadSampleSpec(t, name)
	prog := progFromSrc(t, name+".ptx", mustRead(t, filepath.Join("..", "samples", name, name+".sm_52.ptx")))
	prep, err := spec.Prepare(prog, launch.PrepareOptions{BaseDir: dir, Registry: launch.SampleRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prep.Run(t.Context(), launch.ExecOptions{Workers: workers}); err != nil {
		t.Fatal(err)
	}
	return prep
}

// outputs copies the output buffers of a prepared launch.
func outputs(prep *launch.Prepared) map[string][]byte {
	out := map[string][]byte{}
	for _, b := range prep.Buffers {
		if b.Output {
			out[b.Name] = append([]byte(nil), b.Alloc.Data...)
		}
	}
	return out
}
