package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRunDeviceLaunches: `ptxtrace run` of a kernel that launches grids from
// device code (replay/testdata/cdp: top -> mid -> leaf) lists each grid as a
// launch with the launch that launched it and its depth, and in timing mode
// its start and end cycles (each child 5 µs after the previous grid ends).
func TestRunDeviceLaunches(t *testing.T) {
	dir := t.TempDir()
	ptxFile := filepath.Join("..", "..", "replay", "testdata", "cdp", "cdp.ptx")
	spec := filepath.Join(dir, "l.yaml")
	os.WriteFile(spec, []byte(`kernel: _Z3topPi
grid: [1]
block: [1]
params:
  - {name: p, buffer: {type: u32, count: 4, output: true}}
`), 0o644)
	if r := runCLI(t, "", "run", "--launch", spec, "--model", "gtx480", "-o", filepath.Join(dir, "out"), ptxFile); r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out", "p.bin"))
	if len(b) != 16 || binary.LittleEndian.Uint32(b) != 1 || binary.LittleEndian.Uint32(b[4:]) != 10 || binary.LittleEndian.Uint32(b[8:]) != 21 {
		t.Fatalf("p = %v, want 1, 10, 21, 0", b)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	var sum struct {
		Cycles   uint64 `json:"cycles"`
		Launches []struct {
			Kernel     string `json:"kernel"`
			Cycles     uint64 `json:"cycles"`
			LaunchedBy *int   `json:"launched_by"`
			Depth      int    `json:"depth"`
			Start      uint64 `json:"start_cycle"`
			End        uint64 `json:"end_cycle"`
		} `json:"launches"`
	}
	if err := json.Unmarshal(js, &sum); err != nil || len(sum.Launches) != 3 {
		t.Fatalf("summary: %v %s", err, js)
	}
	l := sum.Launches
	if l[0].Kernel != "_Z3topPi" || l[0].LaunchedBy != nil || l[1].Kernel != "_Z3midPii" || l[1].LaunchedBy == nil || *l[1].LaunchedBy != 0 || l[1].Depth != 1 ||
		l[2].Kernel != "_Z4leafPii" || l[2].LaunchedBy == nil || *l[2].LaunchedBy != 1 || l[2].Depth != 2 {
		t.Fatalf("launches %s", js)
	}
	// gtx480 core clock 700 MHz: 5000 ns = 3500 cycles
	const lat = 3500
	if l[1].Start != l[0].Cycles+lat || l[1].End != l[1].Start+l[1].Cycles || l[2].Start != l[1].End+lat || l[2].End != l[2].Start+l[2].Cycles || sum.Cycles != l[2].End {
		t.Errorf("cycles: total %d, launches %s", sum.Cycles, js)
	}
}
