package launch

import (
	"encoding/binary"
	"go/token"
	"os"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

const texHeader = ".version 7.8\n.target sm_52\n.address_size 64\n"

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

// loadPTX reads and prepares a PTX file.
func loadPTX(t testing.TB, path string) *replay.Program {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return progFromSrc(t, path, string(src))
}

// u32s reads little-endian 32-bit words.
func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}
