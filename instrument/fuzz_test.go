package instrument

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzStream: on any text, Stream either refuses it (ErrNotStreamed) or
// gives exactly what Instrument gives on the whole module (output,
// manifest, warnings), and it ends (a fuzzed input once made the first
// pass loop for ever).
func FuzzStream(f *testing.F) {
	for _, glob := range []string{"testdata/*.ptx", "../samples/vecadd/*.ptx", "../samples/nn/*.ptx", "../samples/pathfinder/*.ptx"} {
		names, _ := filepath.Glob(glob)
		for _, name := range names {
			if src, err := os.ReadFile(name); err == nil {
				f.Add(src)
			}
		}
	}
	f.Add(genModule(4 << 10))
	f.Add([]byte(".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n.visible .entry k2() /* never closed\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		wholeThenStream(t, "fuzz.ptx", src, Options{})
	})
}
