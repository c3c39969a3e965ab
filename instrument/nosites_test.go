package instrument

import (
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// twoKernels has a kernel with a load and one with only a store.
const twoKernels = `.version 7.8
.target sm_80
.address_size 64

.visible .entry loads(
	.param .u64 loads_p
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [loads_p];
	ld.global.u32 	%r1, [%rd1];
	st.global.u32 	[%rd1+4], %r1;
	ret;

}

.visible .entry stores(
	.param .u64 stores_p
)
{
	.reg .b64 	%rd<2>;

	ld.param.u64 	%rd1, [stores_p];
	st.global.u32 	[%rd1], 7;
	ret;

}
`

// TestKernelWithoutSites: every kernel of the module has a manifest entry;
// one without sites is unchanged, has no added parameters and no probes,
// and is named in a positioned warning.
func TestKernelWithoutSites(t *testing.T) {
	for _, opts := range []Options{{}, {Kernel: "loads"}} {
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, "two.ptx", []byte(twoKernels), 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Instrument(fset, f, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.Manifest.Kernels); n != 2 {
			t.Fatalf("%d manifest kernels, want 2", n)
		}
		if k := res.Manifest.Kernel("loads"); k == nil || len(k.Probes) != 2 || len(k.ParamsAdded) == 0 {
			t.Errorf("kernel loads: %+v", k)
		}
		k := res.Manifest.Kernel("stores")
		if k == nil || len(k.Probes) != 0 || len(k.ParamsAdded) != 0 || k.Staging.Where != manifest.StagingNone {
			t.Fatalf("kernel stores: %+v", k)
		}
		// The kernel's text is the input's (from line 19 of the input).
		in := twoKernels[strings.Index(twoKernels, ".visible .entry stores"):]
		if !strings.Contains(string(res.PTX), strings.TrimSpace(strings.Split(in, "{")[1])) {
			t.Errorf("kernel stores changed:\n%s", res.PTX)
		}
		if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "two.ptx:19:17:") || !strings.Contains(res.Warnings[0], "kernel stores") {
			t.Errorf("warnings %q", res.Warnings)
		}
	}
}
