package instrument

import (
	"bytes"
	"errors"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// TestStreamedManifest: with a manifest sink, Stream writes the bytes
// WriteManifest writes of the whole module's manifest (Instrument's), on
// 1 to 7 workers and batches of one segment or the default size: the
// samples, the golden input, a generated module, a cp.async pipeline
// (version 1.2) and a TMA kernel (version 1.3), whose versions are known
// only once their probes are (and whose end probes' output lines Stream
// once left 0).
func TestStreamedManifest(t *testing.T) {
	type input struct {
		name string
		src  []byte
		opts Options
	}
	var ins []input
	paths, _ := filepath.Glob("../samples/*/*.ptx")
	paths = append(paths, "testdata/small.ptx", "../samples/modern/wgmmagemm/wgmmagemm.sm_90a.ptx")
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{p, src, Options{Tool: "test"}})
	}
	ins = append(ins,
		input{"wgmma-global", ins[len(ins)-1].src, Options{Spaces: []string{"global"}, Tool: "test"}},
		input{"pipe.ptx", []byte(strings.Replace(pipeKernel, "WAIT", "cp.async.wait_group 1;", 1)), Options{Tool: "test"}},
		input{"gen.ptx", genModule(96 << 10), Options{Tool: "test <&>"}})
	versions := map[string]bool{}
	streamed := 0
	for _, in := range ins {
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, in.name, in.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Instrument(fset, f, in.opts)
		if err != nil {
			continue // a module without sites
		}
		if _, err := Stream(&bytes.Buffer{}, in.name, in.src, in.opts, StreamOptions{Manifest: &memSink{}}); errors.Is(err, ErrNotStreamed) {
			continue
		}
		streamed++
		wholeThenStream(t, in.name, in.src, in.opts) // the collected manifest too
		versions[want.Manifest.Version] = true
		for _, workers := range []int{1, 2, 3, 7} {
			for _, batch := range []int{1, 0} {
				streamedManifestBatch(t, in.name, in.src, in.opts, want, workers, batch)
			}
		}
	}
	if streamed < 5 || !versions["1.1"] || !versions["1.2"] || !versions["1.3"] {
		t.Errorf("%d modules streamed, versions %v: want at least 5 and versions 1.1, 1.2 and 1.3", streamed, versions)
	}
}

// failSink fails its n-th write (from 1), Write or WriteAt.
type failSink struct {
	memSink
	n, writes int
}

var errSink = errors.New("sink full")

func (s *failSink) Write(b []byte) (int, error) {
	if s.writes++; s.writes == s.n {
		return 0, errSink
	}
	return s.memSink.Write(b)
}

func (s *failSink) WriteAt(b []byte, off int64) (int, error) {
	if s.writes++; s.writes == s.n {
		return 0, errSink
	}
	return s.memSink.WriteAt(b, off)
}

// TestStreamedManifestSinkFails: a sink's error is Stream's, whichever
// write fails (the first chunk, the last, a placeholder's overwrite).
func TestStreamedManifestSinkFails(t *testing.T) {
	src := genModule(600 << 10) // a manifest of several chunks
	var ok memSink
	if _, err := Stream(&bytes.Buffer{}, "gen.ptx", src, Options{}, StreamOptions{Manifest: &ok}); err != nil {
		t.Fatal(err)
	}
	if len(ok.b) < 2*streamChunk {
		t.Fatalf("manifest of %d bytes: want several chunks", len(ok.b))
	}
	for _, n := range []int{1, 2, 3, 4, 5, 6} {
		s := &failSink{n: n}
		_, err := Stream(&bytes.Buffer{}, "gen.ptx", src, Options{}, StreamOptions{Manifest: s})
		if !errors.Is(err, errSink) {
			t.Errorf("write %d failing (of %d): Stream: %v, want %v", n, s.writes, err, errSink)
		}
	}
}
