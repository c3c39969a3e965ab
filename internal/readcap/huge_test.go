package readcap

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// writeRandom writes n random bytes to a file in t's temporary directory.
func writeRandom(tb testing.TB, n int) (string, []byte) {
	want := make([]byte, n)
	rand.New(rand.NewSource(int64(n))).Read(want)
	path := filepath.Join(tb.TempDir(), "big")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path, want
}

// TestReadFileLarge: files larger than two huge pages (whose buffer gets
// the huge-page advice), at sizes that end inside, at and just after a
// 2 MiB boundary, read back exactly.
func TestReadFileLarge(t *testing.T) {
	for _, n := range []int{4<<20 + 1, 6 << 20, 9<<20 - 3} {
		path, want := writeRandom(t, n)
		got, err := ReadFile(path, "test file", 64<<20)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read back differs", n)
		}
	}
}

// TestAdviseHugeKeepsBytes: the advice on a buffer already written
// changes none of its bytes, whatever its alignment.
func TestAdviseHugeKeepsBytes(t *testing.T) {
	buf := make([]byte, 7<<20)
	rand.New(rand.NewSource(1)).Read(buf)
	want := bytes.Clone(buf)
	for _, off := range []int{0, 1, 4095, hugePage - 1} {
		adviseHuge(buf[off:])
	}
	adviseHuge(buf[:3])
	if !bytes.Equal(buf, want) {
		t.Error("adviseHuge changed the buffer")
	}
}

// BenchmarkReadFile reads a 32 MB file (MB/s).
func BenchmarkReadFile(b *testing.B) {
	path, _ := writeRandom(b, 32<<20)
	b.SetBytes(32 << 20)
	for b.Loop() {
		if _, err := ReadFile(path, "test file", 64<<20); err != nil {
			b.Fatal(err)
		}
	}
}
