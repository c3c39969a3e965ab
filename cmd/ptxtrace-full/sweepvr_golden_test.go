package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// sweepVRGoldenArgs is a small, fast sweep vr (12 runs, well under a
// second). testdata/sweepvr holds its outputs as written by the sweep vr
// that kept everything in memory (before plan/run/merge); they must not
// change, whatever -j.
var sweepVRGoldenArgs = []string{"sweep", "vr", "--image", "16", "--volume", "8",
	"--views", "0,0,0;90,0,90", "--shapes", "32x4,4x32"}

func TestSweepVRGolden(t *testing.T) {
	golden := filepath.Join("testdata", "sweepvr")
	for _, j := range []string{"1", "3"} {
		dir := t.TempDir()
		r := runCLI(t, "", append(slices.Clone(sweepVRGoldenArgs), "-o", dir, "-j", j)...)
		if r.code != 0 {
			t.Fatalf("-j %s: exit %d\n%s", j, r.code, r.stderr)
		}
		if *update && j == "1" {
			os.RemoveAll(golden)
			os.MkdirAll(golden, 0o755)
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				os.WriteFile(filepath.Join(golden, e.Name()), b, 0o644)
			}
			os.WriteFile(filepath.Join(golden, "stdout.golden"), []byte(r.stdout), 0o644)
			continue
		}
		compareDirs(t, golden, dir, "stdout.golden")
		want, err := os.ReadFile(filepath.Join(golden, "stdout.golden"))
		if err != nil {
			t.Fatal(err)
		}
		if r.stdout != string(want) {
			t.Errorf("-j %s: stdout differs from %s:\n%s", j, golden, r.stdout)
		}
	}
}

// compareDirs fails unless dir holds exactly the files of golden (less
// the names in skip), byte for byte.
func compareDirs(t *testing.T, golden, dir string, skip ...string) {
	t.Helper()
	names := func(d string) []string {
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			if !slices.Contains(skip, e.Name()) {
				out = append(out, e.Name())
			}
		}
		return out
	}
	want, got := names(golden), names(dir)
	if !slices.Equal(want, got) {
		t.Fatalf("%s has files %v, want %v", dir, got, want)
	}
	for _, n := range want {
		a, _ := os.ReadFile(filepath.Join(golden, n))
		b, _ := os.ReadFile(filepath.Join(dir, n))
		if string(a) != string(b) {
			t.Errorf("%s differs from %s", filepath.Join(dir, n), filepath.Join(golden, n))
		}
	}
}
