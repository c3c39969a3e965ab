package main

import (
	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"os"
	"strings"
	"testing"
)

const dualflowDiamond = `.version 7.8
.target sm_52
.address_size 64
.visible .entry diamond(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [n];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra ELSE;
	add.s32 %r2, %r1, 2;
	bra.uni JOIN;
ELSE:
	mov.u32 %r2, 7;
JOIN:
	ld.param.u64 %rd1, [out];
	mul.lo.s32 %r3, %r2, 2;
	st.global.u32 [%rd1], %r3;
	ret;
}
`

func TestDualflowConvertCommand(t *testing.T) {
	path := writeTemp(t, "diamond.ptx", dualflowDiamond, 0o644)
	r := runCLI(t, "", "dualflow", "convert", path)
	if r.code != 0 {
		t.Fatalf("status %d: %s", r.code, r.stderr)
	}
	// seed Fig. 7: the ELSE side ends with a nop, the consumer reads |3|
	for _, want := range []string{"nop\t// join JOIN", "mul.lo.s32 |3|, 2;", "added 0 mov, 1 nop"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("listing lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := runCLI(t, "", "dualflow", "convert", "--form", "bogus", path); r.code != exitUsage {
		t.Errorf("bad --form: status %d", r.code)
	}
	r = runCLI(t, "", "dualflow", "alloc", "--min", path)
	if r.code != 0 {
		t.Fatalf("alloc: status %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "%r1") || !strings.Contains(r.stdout, "%R0") {
		t.Errorf("alloc output keeps virtual registers:\n%s", r.stdout)
	}
	// %r1 dies at the add (or is dead on the ELSE path), %r2 at the mul
	// that defines %r3: one b32 register serves all three, plus %rd1 (two
	// 32-bit words) = 3
	if !strings.Contains(r.stderr, "diamond: 3 registers") {
		t.Errorf("alloc summary: %s", r.stderr)
	}
}

func TestDualflowEvalCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("timing runs")
	}
	dir := t.TempDir()
	csv := dir + "/cdf.csv"
	r := runCLI(t, "", "dualflow", "eval", "--csv", csv, "nn")
	if r.code != 0 {
		t.Fatalf("status %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "nn") || !strings.Contains(r.stdout, "speedup") {
		t.Errorf("table:\n%s", r.stdout)
	}
	b, err := os.ReadFile(csv)
	if err != nil || !strings.HasPrefix(string(b), "sample,kernel,distance,operands,cumulative\nnn,nn_distance,") {
		t.Errorf("CSV: %v\n%s", err, b)
	}
	if r := runCLI(t, "", "dualflow", "eval", "--mem", "fifo", "nn"); r.code != exitUsage {
		t.Errorf("bad --mem: status %d", r.code)
	}
	if r := runCLI(t, "", "dualflow", "eval", "--profile", "nn"); r.code != 0 || !strings.Contains(r.stdout, "nn") {
		t.Errorf("--profile: status %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "", "dualflow", "eval", "--regs", "7", "nn"); r.code != exitUsage {
		t.Errorf("bad --regs: status %d", r.code)
	}
	if cudatool.Find().Ptxas == "" {
		t.Log("ptxas not found: --regs ptxas not run")
		return
	}
	// nn_distance needs 12 words in PTX order, ptxas 8: BASE spills
	r = runCLI(t, "", "dualflow", "eval", "--regs", "ptxas", "nn")
	if r.code != 0 || !strings.Contains(r.stdout, "BASE reload") {
		t.Fatalf("--regs ptxas: status %d: %s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("%s", r.stdout)
}
