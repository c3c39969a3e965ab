package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMFinishesFile: SIGTERM (what kill, Slurm and Kubernetes send
// first) reaching `instrument` in the middle of a large module ends the
// command as an interrupt does, at its next stopping point: the file is
// finished and committed and no temporary file stays (by default SIGTERM
// killed the process at once, leaving its .atomicfile-* files behind).
func TestSIGTERMFinishesFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and instruments a 16 MB module; skipped with -short")
	}
	dir := t.TempDir()
	bin := buildCLI(t, dir)
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_52\n.address_size 64\n")
	for i := 0; b.Len() < 16<<20; i++ {
		fmt.Fprintf(&b, ".visible .entry k%d(\n\t.param .u64 p\n)\n{\n\t.reg .b64 %%rd<3>;\n\t.reg .f32 %%f<3>;\n"+
			"\tld.param.u64 %%rd1, [p];\n\tcvta.to.global.u64 %%rd2, %%rd1;\n\tld.global.f32 %%f1, [%%rd2];\n"+
			"\tadd.f32 %%f2, %%f1, %%f1;\n\tst.global.f32 [%%rd2], %%f2;\n\tret;\n}\n", i)
	}
	in := filepath.Join(dir, "big.ptx")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "instrument", "--no-ptxas", "-o", filepath.Join(outDir, "k.ptx"), in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	temps := func() []string {
		m, _ := filepath.Glob(filepath.Join(outDir, ".atomicfile-*"))
		return m
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(temps()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if len(temps()) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skip("the outputs were never seen in preparation (instrument too fast?)")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err != nil {
		t.Errorf("instrument after SIGTERM: %v\n%s", err, stderr.String())
	}
	if left := temps(); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, f := range []string{"k.ptx", "k.probes.json"} {
		if _, err := os.Stat(filepath.Join(outDir, f)); err != nil && cmd.ProcessState.Success() {
			t.Errorf("exit 0 without %s: %v", f, err)
		}
	}
}
