package instrument

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

// streamOnce runs Stream and returns its output, manifest and warnings
// as one text, or the refusal's message.
func streamOnce(t *testing.T, name string, src []byte, opts Options, so StreamOptions) string {
	t.Helper()
	var out bytes.Buffer
	res, err := Stream(&out, name, src, opts, so)
	if err != nil {
		if !errors.Is(err, ErrNotStreamed) {
			t.Fatalf("%s: %v", name, err)
		}
		return "refused: " + err.Error()
	}
	out.WriteString("\n// ---- manifest ----\n")
	if err := res.Manifest.Write(&out); err != nil {
		t.Fatal(err)
	}
	out.WriteString("\n// ---- warnings ----\n" + strings.Join(res.Warnings, "\n"))
	return out.String()
}

// TestStreamWorkers: Stream's output, manifest and warnings are the same
// with one worker and GOMAXPROCS 1 as with four workers under GOMAXPROCS
// 4, each segment a batch of its own (the most hand-overs between
// workers), on the samples, the golden input and generated modules, in
// several modes. (TestStreamSameAsWhole compares the default with
// Instrument.)
func TestStreamWorkers(t *testing.T) {
	files := []string{"testdata/small.ptx"}
	for _, f := range inputFiles(t) {
		if strings.HasPrefix(f, "../samples/") {
			files = append(files, f)
		}
	}
	inputs := map[string][]byte{"gen.ptx": genModule(512 << 10), "calls.ptx": []byte(callsModule)}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = src
	}
	variants := []Options{{Tool: "test"}, {Mode: "fence", Staging: "global", Tool: "test"},
		{Timer: "globaltimer", Regs: 40, Tool: "test"}, {Mode: "naive", Staging: "shared", Tool: "test"}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	streamed, batches := 0, 0
	for name, src := range inputs {
		for _, opts := range variants {
			runtime.GOMAXPROCS(1)
			one := streamOnce(t, name, src, opts, StreamOptions{Workers: 1})
			runtime.GOMAXPROCS(4)
			four := streamOnce(t, name, src, opts, StreamOptions{Workers: 4, batch: 1})
			if one != four {
				t.Errorf("%s %+v: four workers differ from one at byte %d: %q vs %q", name, opts,
					firstDiff([]byte(four), []byte(one)), around([]byte(four), firstDiff([]byte(four), []byte(one))),
					around([]byte(one), firstDiff([]byte(four), []byte(one))))
			}
			if !strings.HasPrefix(one, "refused") {
				streamed++
			}
			batches++
		}
	}
	if streamed < batches/2 {
		t.Errorf("only %d of %d runs streamed", streamed, batches)
	}
	t.Logf("%d of %d runs streamed", streamed, batches)
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errFull = errors.New("disk full")

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n < len(b) {
		return 0, errFull
	}
	f.n -= len(b)
	return len(b), nil
}

// TestStreamWriteError: an error of the writer (which a goroutine of its
// own writes to) is Stream's error, whether it comes while segments are
// still printed or with the last chunk.
func TestStreamWriteError(t *testing.T) {
	src := genModule(2 << 20) // several chunks
	for _, n := range []int{0, 1000, streamChunk * 3} {
		_, err := Stream(&failAfter{n: n}, "gen.ptx", src, Options{}, StreamOptions{})
		if !errors.Is(err, errFull) {
			t.Errorf("writer failing after %d bytes: err %v, want %v", n, err, errFull)
		}
	}
}
