package atomicfile

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWritebackRanges: the ranges whose writes a Pending starts while
// it is written are contiguous from 0, each at least writebackChunk
// long (merged when the starter falls behind), end less than a chunk
// and a buffer before the bytes written once the starter has caught up,
// and the file committed holds exactly what was written (with a patch
// at its head, as the streamed manifest does).
func TestWritebackRanges(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "out")
	p, err := Create(dst, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got [][2]int64
	slow := make(chan struct{})
	p.wb.start = func(_ *os.File, off, n int64) {
		<-slow // the first call waits: later ranges must merge
		mu.Lock()
		got = append(got, [2]int64{off, n})
		mu.Unlock()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	bytesRng := rand.NewChaCha8([32]byte{7})
	var want bytes.Buffer
	write := func(upTo int) {
		for want.Len() < upTo {
			b := make([]byte, 1+rng.IntN(3<<20))
			bytesRng.Read(b)
			want.Write(b)
			if _, err := p.Write(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(9 * writebackChunk) // the starter is stuck in its first call
	close(slow)
	write(13 * writebackChunk) // and then catches up
	if _, err := p.WriteAt([]byte("head"), 0); err != nil {
		t.Fatal(err)
	}
	copy(want.Bytes(), "head")
	if err := Commit(p); err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 {
		t.Fatalf("%d ranges started", len(got))
	}
	var next int64
	merged := false
	for i, r := range got {
		if r[0] != next || r[1] < writebackChunk {
			t.Fatalf("range %d = %v: want offset %d, length ≥ %d", i, r, next, writebackChunk)
		}
		next = r[0] + r[1]
		merged = merged || r[1] >= 2*writebackChunk
	}
	if !merged {
		t.Error("no ranges merged while the starter was stuck")
	}
	if total := int64(want.Len()); next > total || total-next >= writebackChunk+pendingBuf {
		t.Errorf("ranges end at %d of %d bytes", next, total)
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want.Bytes()) {
		t.Error("committed file differs from what was written")
	}
}

// TestWritebackAbort: a Pending aborted while its writeback runs stops
// it and leaves no temporary file.
func TestWritebackAbort(t *testing.T) {
	dir := t.TempDir()
	p, err := Create(filepath.Join(dir, "out"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3*writebackChunk)
	if _, err := p.Write(b); err != nil {
		t.Fatal(err)
	}
	p.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left", len(ents))
	}
}
