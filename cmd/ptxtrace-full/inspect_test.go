package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// inspectKernel is a small kernel with one access of each common kind and a
// .file/.loc table.
const inspectKernel = `.version 7.8
.target sm_80
.address_size 64
.file 1 "k.cu"
.shared .align 4 .b8 tile[512];

.visible .entry k(.param .u64 .ptr .global .align 16 k_a, .param .u32 k_n)
.maxntid 128, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<3>;
	.loc 1 3 7
	ld.param.u64 %rd1, [k_a];
	ld.param.u32 %r1, [k_n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	.loc 1 4 9
	ld.global.nc.f32 %f1, [%rd1];
	st.shared.f32 [tile], %f1;
	bar.sync 0;
	ld.shared.f32 %f2, [tile+4];
	st.global.f32 [%rd1], %f2;
DONE:
	ret;
}
`

type inspectResult struct {
	code           int
	stdout, stderr string
}

// inspectCLI runs ptxtrace with args and stdin.
func inspectCLI(t *testing.T, stdin string, args ...string) inspectResult {
	t.Helper()
	var out, errOut strings.Builder
	code := run(context.Background(), append([]string{"ptxtrace"}, args...), strings.NewReader(stdin), &out, &errOut)
	return inspectResult{code, out.String(), errOut.String()}
}

// inspectTemp writes src to name in a new temporary directory.
func inspectTemp(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInspectText(t *testing.T) {
	path := inspectTemp(t, "k.ptx", inspectKernel)
	r := inspectCLI(t, "", "inspect", path)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^.*k\.ptx: PTX 7\.8, target sm_80, address size 64$`),
		regexp.MustCompile(`(?m)^KIND +NAME +LINKAGE +PARAMS +REGS +SHARED +LOCAL +CONST +INSTS +BLOCKS +MEM OPS$`),
		regexp.MustCompile(`(?m)^entry +k +visible +2 +12 +512 +0 +0 +11 +3 +6$`),
		regexp.MustCompile(`(?m)^    k_a +\.param +\.u64 +8 +8 +\.ptr \.global \.align 16$`),
		regexp.MustCompile(`(?m)^  registers: \.b32 4, \.b64 3, \.f32 3, \.pred 2 \(12\)$`),
		regexp.MustCompile(`(?m)^  directives: \.maxntid 128, 1, 1$`),
		regexp.MustCompile(`(?m)^    \.global +load +1$`),
		regexp.MustCompile(`(?m)^    21:2 +ld\.global\.nc\.f32 +load +\.global +ro +k\.cu:4:9$`),
		regexp.MustCompile(`(?m)^    15:2 +ld\.param\.u64 +load +\.param +ro +k\.cu:3:7$`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("output does not match %s:\n%s", want, r.stdout)
		}
	}
	// Columns are aligned: every line of the function table has its
	// second column at the same offset.
	lines := strings.Split(r.stdout, "\n")
	var col int
	for _, l := range lines {
		if strings.HasPrefix(l, "KIND") {
			col = strings.Index(l, "NAME")
		}
		if strings.HasPrefix(l, "entry  ") && col > 0 && strings.Index(l, "k ") != col {
			t.Errorf("misaligned row %q (NAME at %d)", l, col)
		}
	}
	// No trailing spaces.
	for _, l := range lines {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("trailing space in %q", l)
		}
	}
}

func TestInspectJSON(t *testing.T) {
	path := inspectTemp(t, "k.ptx", inspectKernel)
	for _, args := range [][]string{
		{"inspect", "--json", path},
		{"inspect", path, "--json"}, // the flag may follow the file
	} {
		r := inspectCLI(t, "", args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
		var s ptx.Summary
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
			t.Fatalf("%v: output is not a summary: %v\n%s", args, err, r.stdout)
		}
		if len(s.Functions) != 1 || s.Functions[0].Name != "k" || s.Version != "7.8" {
			t.Fatalf("%v: summary = %+v", args, s)
		}
		fs := s.Functions[0]
		if fs.ModuleShared != 512 || fs.Instructions != 11 || len(fs.MemoryAccesses) != 6 {
			t.Errorf("function summary = %+v", fs)
		}
		if a := fs.MemoryAccesses[2]; a.Op != "ld.global.nc.f32" || !a.ReadOnly || a.Source == nil || a.Source.Line != 4 {
			t.Errorf("access 2 = %+v", a)
		}
	}
}

func TestInspectMultipleAndStdin(t *testing.T) {
	a := inspectTemp(t, "a.ptx", inspectKernel)
	b := inspectTemp(t, "b.ptx", inspectKernel)
	r := inspectCLI(t, "", "inspect", "--json", a, b)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var ss []ptx.Summary
	if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil || len(ss) != 2 {
		t.Fatalf("want a JSON array of 2 summaries, got %v:\n%s", err, r.stdout)
	}
	if !strings.HasSuffix(ss[0].File, "a.ptx") || !strings.HasSuffix(ss[1].File, "b.ptx") {
		t.Errorf("files = %q, %q", ss[0].File, ss[1].File)
	}
	r = inspectCLI(t, inspectKernel, "inspect")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "<stdin>: PTX 7.8") {
		t.Errorf("stdin: exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestInspectErrors(t *testing.T) {
	bad := inspectTemp(t, "bad.ptx", ".version 7.0\n.target sm_80\n.visible .entry k()\n{\n\tadd.s32 %r1, ;\n\tret;\n}\n")
	good := inspectTemp(t, "good.ptx", inspectKernel)
	errLine := regexp.MustCompile(`(?m)^\S*bad\.ptx:5:\d+: \S`)

	r := inspectCLI(t, "", "inspect", bad)
	if r.code != 1 || !errLine.MatchString(r.stderr) || r.stdout != "" {
		t.Errorf("parse error: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The other files are still inspected.
	r = inspectCLI(t, "", "inspect", bad, good)
	if r.code != 1 || !errLine.MatchString(r.stderr) || !strings.Contains(r.stdout, "good.ptx: PTX 7.8") {
		t.Errorf("mixed: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = inspectCLI(t, "", "inspect", filepath.Join(t.TempDir(), "missing.ptx"))
	if r.code != 1 || !strings.Contains(r.stderr, "missing.ptx") {
		t.Errorf("missing file: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = inspectCLI(t, "", "inspect", "--frobnicate", good)
	if r.code != 2 {
		t.Errorf("unknown flag: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = inspectCLI(t, "", "inspect", good, "--frobnicate")
	if r.code != 2 || !strings.Contains(r.stderr, "-frobnicate") {
		t.Errorf("unknown flag after file: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = inspectCLI(t, "", "inspect", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--json") {
		t.Errorf("help: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

// TestInspectCorpus runs inspect over the shared corpus, text and JSON.
func TestInspectCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "ptx", "*.ptx"))
	if len(files) == 0 {
		t.Skip("shared corpus absent")
	}
	r := inspectCLI(t, "", append([]string{"inspect"}, files...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = inspectCLI(t, "", append([]string{"inspect", "--json"}, files...)...)
	var ss []ptx.Summary
	if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil || len(ss) != len(files) {
		t.Fatalf("JSON over the corpus: %v, %d summaries for %d files", err, len(ss), len(files))
	}
}
