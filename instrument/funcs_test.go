package instrument

import (
	"context"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
)

// funcModule: a recursive .func with a load (declared before its
// definition), called without arguments list from two kernels, and a
// forwarding .func that only calls it.
const funcModule = `.version 7.8
.target sm_80
.address_size 64

.func (.param .b32 r) sum(.param .b64 p, .param .b32 n);

.func (.param .b32 r) sum(.param .b64 p, .param .b32 n)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [p];
	ld.param.u32 	%r1, [n];
	mov.u32 	%r5, 0;
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L_done;
	ld.global.u32 	%r2, [%rd1];
	add.s64 	%rd2, %rd1, 4;
	add.s32 	%r3, %r1, -1;
	call.uni (%r4), sum, (%rd2, %r3);
	add.s32 	%r5, %r2, %r4;
$L_done:
	st.param.b32 	[r], %r5;
	ret;
}

.func (.param .b32 r) fwd(.param .b64 p)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [p];
	call.uni (%r1), sum, (%rd1, 3);
	st.param.b32 	[r], %r1;
	ret;
}

.func nothing()
{
	ret;
}

.visible .entry k1(.param .u64 k1_p)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [k1_p];
	call.uni (%r1), fwd, (%rd1);
	call.uni nothing;
	st.global.u32 	[%rd1], %r1;
	ret;
}

.visible .entry k2(.param .u64 k2_p)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [k2_p];
	call.uni (%r1), sum, (%rd1, 2);
	st.global.u32 	[%rd1], %r1;
	ret;
}
`

func TestFuncSites(t *testing.T) {
	fset, f := parse(t, "funcs.ptx", []byte(funcModule))
	res, err := Instrument(fset, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.PTX)
	for _, k := range []string{"k1", "k2"} {
		mk := res.Manifest.Kernel(k)
		if mk == nil || len(mk.Probes) != 2 || mk.Probes[0].Function != "sum" || mk.Probes[0].Space != "global" {
			t.Fatalf("kernel %s: %+v", k, mk)
		}
	}
	if res.Manifest.Kernel("k1").Probes[0].ID != res.Manifest.Kernel("k2").Probes[0].ID {
		t.Error("the function's probe has different ids under k1 and k2")
	}
	// Every call of sum and fwd passes the context; nothing() is untouched.
	for _, want := range []string{
		"call.uni (%r4), sum, (%rd2, %r3, %__pt_a0, %__pt_r22, %__pt_r9)",
		"call.uni (%r1), sum, (%rd1, 3, %__pt_a0, %__pt_r22, %__pt_r9)",
		"call.uni (%r1), fwd, (%rd1, %__pt_a0, %__pt_r22, %__pt_r9)",
		"call.uni (%r1), sum, (%rd1, 2, %__pt_a0, %__pt_r22, %__pt_r9)",
		"call.uni nothing;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(out, ".param .u32 __pt_fdummy"); n != 3 { // sum's declaration and definition, fwd
		t.Errorf("%d functions declare __pt_fdummy, want 3", n)
	}
	if tools := cudatool.Find(); tools.Ptxas != "" {
		if _, _, err := tools.Compile(context.Background(), "funcs.ptx", res.PTX, "sm_80"); err != nil {
			t.Errorf("ptxas: %v", err)
		}
	}
}

// TestFuncSitesIndirectCall: with an indirect call in the module, function
// bodies are not probed, with a warning.
func TestFuncSitesIndirectCall(t *testing.T) {
	src := strings.Replace(funcModule, "\tcall.uni nothing;\n", "\t.reg .b64 %fp;\n\tmov.u64 %fp, nothing;\n\tprototype_0 : .callprototype ()_ ();\n\tcall.uni %fp, prototype_0;\n", 1)
	fset, f := parse(t, "funcs.ptx", []byte(src))
	res, err := Instrument(fset, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := res.Manifest.Kernel("k2"); k == nil || len(k.Probes) != 0 {
		t.Errorf("k2: %+v", k)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "loads in .func bodies are not probed")
	}
	if !found {
		t.Errorf("warnings %q", res.Warnings)
	}
}
