package instrument

import (
	"go/token"
	"os"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// BenchmarkInstrument measures parse + instrument + print + manifest per
// byte of input PTX over the samples (MB/s in the output).
func BenchmarkInstrument(b *testing.B) {
	var srcs [][]byte
	total := 0
	for _, name := range inputFiles(b) {
		src, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, name, src, 0)
		if err != nil {
			continue
		}
		if _, err := Instrument(fset, f, Options{}); err != nil {
			continue
		}
		srcs = append(srcs, src)
		total += len(src)
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range srcs {
			fset := token.NewFileSet()
			f, _ := ptx.ParseFile(fset, "in.ptx", src, 0)
			if _, err := Instrument(fset, f, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
