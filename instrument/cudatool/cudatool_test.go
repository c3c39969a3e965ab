package cudatool

import (
	"context"
	"testing"
)

func TestParseVerbose(t *testing.T) {
	log := `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'bfs_update' for 'sm_52'
ptxas info    : Function properties for bfs_update
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, 356 bytes cmem[0]
ptxas info    : Compiling entry function 'k2' for 'sm_52'
ptxas info    : Function properties for helper
ptxas info    : Used 30 registers, 8448 bytes smem, 360 bytes cmem[0]
`
	got := ParseVerbose(log)
	if got["bfs_update"] != (Usage{Regs: 12}) || got["k2"] != (Usage{Regs: 30, SharedBytes: 8448}) || len(got) != 2 {
		t.Errorf("ParseVerbose = %+v", got)
	}
}

func TestSupportsVersion(t *testing.T) {
	for v, want := range map[[2]int]bool{{7, 8}: true, {6, 4}: true, {8, 0}: false, {7, 9}: false} {
		if SupportsVersion(v[0], v[1]) != want {
			t.Errorf("SupportsVersion(%v) != %v", v, want)
		}
	}
}

func TestCompileMissing(t *testing.T) {
	if _, _, err := (Tools{}).Compile(context.Background(), "x.ptx", nil, "sm_52"); err != ErrNoPtxas {
		t.Errorf("Compile without ptxas: %v", err)
	}
	tools := Find()
	if tools.Ptxas == "" {
		t.Skip("ptxas not installed")
	}
	_, log, err := tools.Compile(context.Background(), "bad.ptx", []byte(".version 7.8\n.target sm_52\n.address_size 64\n.entry k( {"), "sm_52")
	if err == nil {
		t.Fatalf("ptxas accepted garbage: %s", log)
	}
}
