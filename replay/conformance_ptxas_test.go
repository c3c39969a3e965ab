package replay

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ptxasNewer are spellings of the conformance suite that need a newer PTX
// ISA than CUDA 11.8's ptxas (PTX 7.8) accepts, or that it rejects although
// compilers emit them (mad.rn.f16 appears in the corpus; cvt.f32.s32 without
// rounding tests the lowering's default).
var ptxasNewer = []string{"satfinite", "min.relu", "max.relu", "elect.sync", "setmaxnreg", "cp.async.bulk",
	"fence.proxy.async", "mad.rn.f16", "cvt.f32.s32 $d"}

// TestConformancePTXAS assembles every conformance case with ptxas
// (sm_90): the accepted spellings and the suite's operand forms must be
// valid PTX. It takes minutes, so it runs only with
// PTXTRACE_PTXAS_CONFORMANCE=1 and a ptxas in PATH.
func TestConformancePTXAS(t *testing.T) {
	if os.Getenv("PTXTRACE_PTXAS_CONFORMANCE") == "" {
		t.Skip("set PTXTRACE_PTXAS_CONFORMANCE=1 to assemble the suite with ptxas")
	}
	if _, err := exec.LookPath("ptxas"); err != nil {
		t.Skip("ptxas not in PATH")
	}
	dir := t.TempDir()
	for _, g := range conformanceGroups() {
		for i, c := range g.cases {
			newer := false
			for _, s := range ptxasNewer {
				newer = newer || strings.Contains(c.asm, s)
			}
			if newer {
				continue
			}
			// PTX 7.8 for CUDA 11.8; %tid is a register of the harness
			// but also the special register's name for ptxas
			src := strings.Replace(kernelText(c), ".version 8.5", ".version 7.8", 1)
			src = strings.ReplaceAll(strings.ReplaceAll(src, "%tid", "%ltid"), "%ltid.x", "%tid.x")
			p := filepath.Join(dir, fmt.Sprintf("%s%d.ptx", g.name, i))
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("ptxas", "-arch=sm_90", "-o", os.DevNull, p).CombinedOutput(); err != nil {
				t.Errorf("%s: ptxas: %s", c.label(), strings.TrimSpace(string(out)))
			}
		}
	}
}
