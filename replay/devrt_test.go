package replay

import (
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// TestDeviceLaunchRefused: a device-side launch (dynamic parallelism, as
// nvcc -rdc emits it: cudaGetParameterBuffer then cudaLaunchDevice from the
// CUDA device runtime) is refused with a message naming it, when the call
// executes.
func TestDeviceLaunchRefused(t *testing.T) {
	const src = `.version 7.0
.target sm_52
.address_size 64
.extern .func (.param .b64 func_retval0) cudaGetParameterBuffer(.param .b64 a, .param .b64 b);
.visible .entry k(.param .u64 out)
{
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd3, [out];
	st.global.u32 [%rd3], 7;
	mov.u64 %rd1, 4;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd1;
	.param .b64 retval0;
	call.uni (retval0), cudaGetParameterBuffer, (param0, param1);
	ld.param.b64 %rd2, [retval0+0];
	}
	ret;
}
`
	f, err := ptx.ParseFile(token.NewFileSet(), "dp.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	o := runCorpusKernel(prog, "k", []byte(src))
	if o.class != "refused" || !strings.Contains(o.detail, "dynamic parallelism") || !strings.Contains(o.detail, "cudaGetParameterBuffer") {
		t.Fatalf("%s: %s, want a refusal naming dynamic parallelism", o.class, o.detail)
	}
}
