package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMaxNReg: the .maxnreg bound added to an instrumented entry, expected
// values by hand for sm_52 (65536 registers, 256 per warp allocation unit =
// 8 per thread, granularity 4 warps, 64 warps and 32 blocks per SM).
func TestMaxNReg(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "samples", "vecadd", "vecadd.sm_52.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	ownBounds := regexp.MustCompile(`\)\s*\n\{`).ReplaceAllString(string(src), ")\n.maxntid 128\n{")
	if ownBounds == string(src) {
		t.Fatal("could not add .maxntid to the sample")
	}
	cases := []struct {
		name string
		src  string
		o    Options
		want int
	}{
		// Register count unknown: no bound.
		{"unknown", string(src), Options{}, 0},
		// Block unknown: 13 rounded up to the unit of 8 = 16.
		{"regs only", string(src), Options{Regs: 13}, 16},
		// 8 rounds to 8, raised to ptxas's lower bound of 16.
		{"few regs", string(src), Options{Regs: 8}, 16},
		// 128 threads = 4 warps: 16 blocks by warps (64/4). With n
		// registers a warp takes ⌈32n/256⌉×256; 16 blocks need 64 warps,
		// 65536/64 = 1024 per warp, so n ≤ 32.
		{"regs and block", string(src), Options{Regs: 13, Block: 128}, 32},
		// The kernel's own launch bounds are kept, none added.
		{"own maxntid", ownBounds, Options{Regs: 13}, 0},
	}
	for _, c := range cases {
		fset, f := parse(t, "vecadd.ptx", []byte(c.src))
		c.o.Output = "vecadd.inst.ptx"
		res, err := Instrument(fset, f, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := 0
		if m := regexp.MustCompile(`\.maxnreg (\d+)`).FindSubmatch(res.PTX); m != nil {
			got, _ = strconv.Atoi(string(m[1]))
		}
		if got != c.want {
			t.Errorf("%s: .maxnreg %d, want %d", c.name, got, c.want)
		}
		if mk := res.Manifest.Kernel("vecadd"); mk == nil || mk.MaxNReg != c.want {
			t.Errorf("%s: manifest max_nreg %+v, want %d", c.name, mk, c.want)
		}
		if c.want == 0 {
			continue
		}
		if strings.Count(string(res.PTX), ".maxnreg") != 1 {
			t.Errorf("%s: %d .maxnreg directives", c.name, strings.Count(string(res.PTX), ".maxnreg"))
		}
		// ptxas accepts it and allocates at most the bound.
		if _, err := exec.LookPath("ptxas"); err != nil {
			continue
		}
		dir := t.TempDir()
		in := filepath.Join(dir, "v.ptx")
		if err := os.WriteFile(in, res.PTX, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("ptxas", "-arch=sm_52", "-v", "-o", filepath.Join(dir, "v.cubin"), in).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: ptxas: %v\n%s", c.name, err, out)
		}
		if strings.Contains(string(out), "warning") {
			t.Errorf("%s: ptxas warns:\n%s", c.name, out)
		}
		m := regexp.MustCompile(`Used (\d+) registers`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no register count in ptxas output:\n%s", c.name, out)
		}
		t.Logf("%s: ptxas: %s registers, .maxnreg %d", c.name, m[1], c.want)
		if n, _ := strconv.Atoi(string(m[1])); n > c.want {
			t.Errorf("%s: ptxas used %d registers over .maxnreg %d", c.name, n, c.want)
		}
	}
}
