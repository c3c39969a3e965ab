package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/model"
)

// cdpProg parses src (or testdata/cdp/cdp.ptx when src is "").
func cdpProg(t *testing.T, src string) *Program {
	t.Helper()
	name := "cdp.ptx"
	if src == "" {
		b, err := os.ReadFile(filepath.Join("testdata", "cdp", "cdp.ptx"))
		if err != nil {
			t.Fatal(err)
		}
		src = string(b)
	}
	return programOf(t, name, src)
}

// cdpRun launches entry with one pointer parameter (a zeroed buffer of 4096
// int32s) followed by the 4-byte values extra, functionally or (spec non-nil)
// on the model. It returns the buffer as int32s.
func cdpRun(t *testing.T, p *Program, entry string, grid, block [3]int, spec *model.Spec, extra ...uint32) ([]int32, *Result, *model.Result, error) {
	t.Helper()
	c, err := p.Lower(entry)
	if err != nil {
		t.Fatal(err)
	}
	dev := NewDeviceFor(p)
	buf := dev.Alloc("p", 4096*4)
	params := make([]byte, c.ParamSize)
	binary.LittleEndian.PutUint64(params, buf.Base)
	for i, v := range extra {
		binary.LittleEndian.PutUint32(params[c.Params[1+i].Offset:], v)
	}
	k, err := NewKernel(Launch{Code: c, Grid: grid, Block: block, Params: params, Dev: dev})
	if err != nil {
		t.Fatal(err)
	}
	var res *Result
	var mr *model.Result
	if spec != nil {
		mr, res, err = k.RunModel(context.Background(), *spec, model.Options{Workers: 1})
	} else {
		res, err = k.Run(context.Background(), RunOptions{Workers: 2})
	}
	out := make([]int32, 4096)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(buf.Data[4*i:]))
	}
	return out, res, mr, err
}

func wantInts(t *testing.T, got []int32, want map[int]int32) {
	t.Helper()
	for i, g := range got {
		if w := want[i]; g != w {
			t.Errorf("p[%d] = %d, want %d", i, g, w)
		}
	}
}

// TestCDPParentWritesChildReads: the parent's write before the launch is
// visible to the child (p[1] = p[0] + 1 = 42).
func TestCDPParentWritesChildReads(t *testing.T) {
	p := cdpProg(t, "")
	got, res, _, err := cdpRun(t, p, "_Z12parentWritesPi", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantInts(t, got, map[int]int32{0: 41, 1: 42})
	if len(res.Children) != 1 || res.Children[0].Kernel != "_Z9readChildPi" || res.Children[0].Parent != -1 || res.Children[0].Depth != 1 || res.Children[0].CTAs != 1 {
		t.Errorf("children %+v, want one readChild grid of depth 1 launched by the host grid", res.Children)
	}
}

// TestCDPNested: top -> mid -> leaf (depth 2): p = {1, 10, 21}; the leaf
// grid is launched by the mid grid (child 0).
func TestCDPNested(t *testing.T) {
	p := cdpProg(t, "")
	got, res, _, err := cdpRun(t, p, "_Z3topPi", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantInts(t, got, map[int]int32{0: 1, 1: 10, 2: 21})
	if len(res.Children) != 2 {
		t.Fatalf("%d children, want 2", len(res.Children))
	}
	c0, c1 := res.Children[0], res.Children[1]
	if c0.Kernel != "_Z3midPii" || c0.Depth != 1 || c0.Parent != -1 || c1.Kernel != "_Z4leafPii" || c1.Depth != 2 || c1.Parent != 0 || c1.Index != 1 {
		t.Errorf("children %+v %+v", c0, c1)
	}
}

// TestCDPPerThread: 2 blocks of 32 threads, each thread g launches a grid of
// 4 threads writing p[4g+t] = 100g + t; child i is launched by thread i.
func TestCDPPerThread(t *testing.T) {
	p := cdpProg(t, "")
	got, res, _, err := cdpRun(t, p, "_Z9perThreadPi", [3]int{2, 1, 1}, [3]int{32, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int32{}
	for g := 0; g < 64; g++ {
		for tt := 0; tt < 4; tt++ {
			want[4*g+tt] = int32(100*g + tt)
		}
	}
	wantInts(t, got, want)
	if len(res.Children) != 64 {
		t.Fatalf("%d children, want 64", len(res.Children))
	}
	for i, c := range res.Children {
		if c.Index != i || c.By.CTA[0] != i/32 || c.By.Thread[0] != i%32 || c.By.Lane != i%32 || c.By.Line == 0 {
			t.Errorf("child %d: %+v", i, c)
		}
	}
}

// TestCDPInvalidConfig: a 2048-thread block is cudaErrorInvalidConfiguration
// (9): the child does not run, cudaPeekAtLastError and the first
// cudaGetLastError return 9, the second 0 (cudaGetLastError resets).
func TestCDPInvalidConfig(t *testing.T) {
	p := cdpProg(t, "")
	got, res, _, err := cdpRun(t, p, "_Z9badConfigPi", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantInts(t, got, map[int]int32{100: 9, 101: 9, 102: 0})
	if len(res.Children) != 0 {
		t.Errorf("children %+v, want none", res.Children)
	}
}

// TestCDPDims: a child grid (2,1,2) of blocks (2,2,2) with 64 bytes of
// dynamic shared memory: p[8b+t] = 1000b + t for linear block b, thread t.
func TestCDPDims(t *testing.T) {
	p := cdpProg(t, "")
	got, res, _, err := cdpRun(t, p, "_Z4dimsPi", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int32{}
	for b := 0; b < 4; b++ {
		for tt := 0; tt < 8; tt++ {
			want[8*b+tt] = int32(1000*b + tt)
		}
	}
	wantInts(t, got, want)
	if len(res.Children) != 1 || res.Children[0].Grid != [3]int{2, 1, 2} || res.Children[0].Block != [3]int{2, 2, 2} || res.Children[0].DynShared != 64 || res.Children[0].CTAs != 4 {
		t.Errorf("children %+v", res.Children)
	}
}

// TestCDPMaxDepth: rec launches itself unconditionally; the grid at depth 24
// (the 24th child) writes p[24] = 24 and its launch of depth 25 faults.
func TestCDPMaxDepth(t *testing.T) {
	p := cdpProg(t, "")
	got, _, _, err := cdpRun(t, p, "_Z3recPii", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil, 0)
	var f *Fault
	if !errors.As(err, &f) || !strings.Contains(f.Msg, "cudaErrorLaunchMaxDepthExceeded") || !strings.Contains(f.Grid, "grid 23 (depth 24)") || f.Lane != 0 {
		t.Fatalf("err %v, want a depth fault in device-launched grid 23", err)
	}
	want := map[int]int32{}
	for d := 1; d <= 24; d++ {
		want[d] = int32(d)
	}
	wantInts(t, got, want)
}

// TestCDPPendingLimit: 65 blocks of 32 threads each launch one grid; the
// 2049th launch (block 64, thread 0) exceeds the 2048 outstanding launches.
func TestCDPPendingLimit(t *testing.T) {
	p := cdpProg(t, "")
	_, _, _, err := cdpRun(t, p, "_Z9perThreadPi", [3]int{65, 1, 1}, [3]int{32, 1, 1}, nil)
	var f *Fault
	if !errors.As(err, &f) || !strings.Contains(f.Msg, "cudaErrorLaunchPendingCountExceeded") || f.CTA != [3]int{64, 0, 0} || f.Lane != 0 || f.Grid != "" {
		t.Fatalf("err %v, want a pending-count fault in block 64, lane 0 of the host grid", err)
	}
}

// TestCDPDeviceSynchronizeRefused: device-side cudaDeviceSynchronize is
// refused (warning at lowering, unsupported fault when reached).
func TestCDPDeviceSynchronizeRefused(t *testing.T) {
	p := cdpProg(t, "")
	_, _, _, err := cdpRun(t, p, "_Z10syncParentPi", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultUnsupported || !strings.Contains(err.Error(), "cudaDeviceSynchronize") {
		t.Fatalf("err %v, want cudaDeviceSynchronize refused", err)
	}
}

// TestCDPTiming: on the model the children run after the host grid, one
// after another, each Spec.DeviceLaunchNs after the previous grid ends;
// memory is the functional result.
func TestCDPTiming(t *testing.T) {
	for _, c := range []struct {
		ns  int        // spec.device_launch_ns (0: the preset's)
		lat model.Time // by hand: ns × 700 MHz / 1000
	}{{0, 3500}, {1000, 700}, {1, 1}} { // gtx480's 5000 ns, then overrides
		t.Run(fmt.Sprint(c.ns), func(t *testing.T) { testCDPTiming(t, c.ns, c.lat) })
	}
}

func testCDPTiming(t *testing.T, ns int, lat model.Time) {
	p := cdpProg(t, "")
	spec := model.GTX480()
	if ns != 0 {
		spec.DeviceLaunchNs = ns
	}
	got, res, mr, err := cdpRun(t, p, "_Z3topPi", [3]int{1, 1, 1}, [3]int{1, 1, 1}, &spec)
	if err != nil {
		t.Fatal(err)
	}
	wantInts(t, got, map[int]int32{0: 1, 1: 10, 2: 21})
	if len(res.Children) != 2 {
		t.Fatalf("%d children", len(res.Children))
	}
	end := mr.Cycles
	for i, c := range res.Children {
		if c.Timing == nil || c.Timing.CTAs != 1 || c.Timing.Cycles == 0 {
			t.Fatalf("child %d timing %+v", i, c.Timing)
		}
		if c.Start != end+lat || c.End != c.Start+c.Timing.Cycles {
			t.Errorf("child %d: start %d end %d, want start %d end %d", i, c.Start, c.End, end+lat, end+lat+c.Timing.Cycles)
		}
		end = c.End
	}
	if res.EndCycle != end {
		t.Errorf("EndCycle %d, want %d", res.EndCycle, end)
	}
}

// v1Src is a launch through cudaGetParameterBuffer/cudaLaunchDevice as
// nvcc (CUDA 5-11, -rdc) emits it: child(out, 7) on 3 threads; the launch's
// return value goes to out[10]; the child stores its %gridid (u64) at
// out[20], the parent its own at out[22]. $GET, $LAUNCH name the functions, $STREAM
// and $FUNC the stream and kernel operands.
const v1Src = `.version 7.0
.target sm_52
.address_size 64
.extern .func (.param .b64 func_retval0) $GET(.param .b64 a, .param .b64 b);
.extern .func (.param .b32 func_retval0) $LAUNCH(.param .b64 f, .param .b64 pb,
	.param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 sh, .param .b64 st);
.visible .entry child(.param .u64 p, .param .u32 v)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [v];
	mov.u32 %r2, %tid.x;
	add.s32 %r3, %r1, %r2;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	mov.u64 %rd4, %gridid;
	st.global.u64 [%rd1+80], %rd4;
	ret;
}
.visible .entry parent(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<9>;
	ld.param.u64 %rd3, [out];
	mov.u64 %rd8, %gridid;
	st.global.u64 [%rd3+88], %rd8;
	mov.u64 %rd2, 8;
	mov.u64 %rd4, 12;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd2;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd4;
	.param .b64 retval0;
	call.uni (retval0), $GET, (param0, param1);
	ld.param.b64 %rd1, [retval0+0];
	}
	st.u64 [%rd1], %rd3;
	mov.u32 %r1, 7;
	st.u32 [%rd1+8], %r1;
	mov.u32 %r5, 1;
	mov.u32 %r3, 3;
	mov.u32 %r6, 0;
	mov.u64 %rd6, $STREAM;
	mov.u64 %rd7, $FUNC;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd7;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd1;
	.param .align 4 .b8 param2[12];
	st.param.b32 [param2+0], %r5;
	st.param.b32 [param2+4], %r5;
	st.param.b32 [param2+8], %r5;
	.param .align 4 .b8 param3[12];
	st.param.b32 [param3+0], %r3;
	st.param.b32 [param3+4], %r5;
	st.param.b32 [param3+8], %r5;
	.param .b32 param4;
	st.param.b32 [param4+0], %r6;
	.param .b64 param5;
	st.param.b64 [param5+0], %rd6;
	.param .b32 retval0;
	call.uni (retval0), $LAUNCH, (param0, param1, param2, param3, param4, param5);
	ld.param.b32 %r7, [retval0+0];
	}
	st.global.u32 [%rd3+40], %r7;
	ret;
}
`

// v2Src is the CUDA 11+ form: cudaGetParameterBufferV2 takes the
// configuration, cudaLaunchDeviceV2 the buffer and stream.
const v2Src = `.version 7.0
.target sm_52
.address_size 64
.extern .func (.param .b64 func_retval0) cudaGetParameterBufferV2(.param .b64 f,
	.param .align 4 .b8 g[12], .param .align 4 .b8 b[12], .param .b32 sh);
.extern .func (.param .b32 func_retval0) $LAUNCH(.param .b64 pb, .param .b64 st);
.visible .entry child(.param .u64 p, .param .u32 v)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.param.u32 %r1, [v];
	mov.u32 %r2, %tid.x;
	add.s32 %r3, %r1, %r2;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}
.visible .entry parent(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd3, [out];
	mov.u64 %rd7, $FUNC;
	mov.u32 %r5, 1;
	mov.u32 %r3, 3;
	mov.u32 %r6, 0;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd7;
	.param .align 4 .b8 param1[12];
	st.param.b32 [param1+0], %r5;
	st.param.b32 [param1+4], %r5;
	st.param.b32 [param1+8], %r5;
	.param .align 4 .b8 param2[12];
	st.param.b32 [param2+0], %r3;
	st.param.b32 [param2+4], %r5;
	st.param.b32 [param2+8], %r5;
	.param .b32 param3;
	st.param.b32 [param3+0], %r6;
	.param .b64 retval0;
	call.uni (retval0), cudaGetParameterBufferV2, (param0, param1, param2, param3);
	ld.param.b64 %rd1, [retval0+0];
	}
	st.u64 [%rd1], %rd3;
	mov.u32 %r1, 7;
	st.u32 [%rd1+8], %r1;
	mov.u64 %rd6, $STREAM;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd6;
	.param .b32 retval0;
	call.uni (retval0), $LAUNCH, (param0, param1);
	ld.param.b32 %r7, [retval0+0];
	}
	st.global.u32 [%rd3+40], %r7;
	ret;
}
`

// TestCDPSpellings runs a launch through every accepted spelling of the
// launch functions: child(out, 7) on 3 threads gives out = {7, 8, 9} and the
// launch returns cudaSuccess (out[10] = 0). In the V1 source the host grid
// has %gridid 1 and the child, the first device launch, 2. A non-NULL
// stream and a launch of a non-kernel are refused.
func TestCDPSpellings(t *testing.T) {
	cases := []struct {
		name, src, get, launch, stream, fn string
		fault                              FaultKind
	}{
		{"v1", v1Src, "cudaGetParameterBuffer", "cudaLaunchDevice", "0", "child", ""},
		{"v1-ptsz", v1Src, "cudaGetParameterBuffer", "cudaLaunchDevice_ptsz", "0", "child", ""},
		{"v2", v2Src, "", "cudaLaunchDeviceV2", "0", "child", ""},
		{"v2-ptsz", v2Src, "", "cudaLaunchDeviceV2_ptsz", "0", "child", ""},
		{"v1-stream", v1Src, "cudaGetParameterBuffer", "cudaLaunchDevice", "1", "child", FaultUnsupported},
		{"v2-stream", v2Src, "", "cudaLaunchDeviceV2", "4", "child", FaultUnsupported},
		{"v1-not-a-kernel", v1Src, "cudaGetParameterBuffer", "cudaLaunchDevice", "0", "12345", FaultInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.NewReplacer("$GET", tc.get, "$LAUNCH", tc.launch, "$STREAM", tc.stream, "$FUNC", tc.fn).Replace(tc.src)
			p := cdpProg(t, src)
			got, res, _, err := cdpRun(t, p, "parent", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
			if tc.fault != "" {
				var f *Fault
				if !errors.As(err, &f) || f.Kind != tc.fault {
					t.Fatalf("err %v, want a %s fault", err, tc.fault)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[int]int32{0: 7, 1: 8, 2: 9}
			if tc.src == v1Src {
				want[20], want[22] = 2, 1
			}
			wantInts(t, got, want)
			if len(res.Children) != 1 || res.Children[0].Block != [3]int{3, 1, 1} {
				t.Errorf("children %+v", res.Children)
			}
		})
	}
}

// TestCDPBadSignature: a device-runtime function declared with another
// signature is refused at lowering.
func TestCDPBadSignature(t *testing.T) {
	src := strings.NewReplacer("$GET", "cudaGetParameterBuffer", "$LAUNCH", "cudaLaunchDevice", "$STREAM", "0", "$FUNC", "child",
		".param .b32 sh, .param .b64 st", ".param .b64 sh, .param .b64 st").Replace(v1Src)
	p := cdpProg(t, src)
	c, err := p.Lower("parent")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) == 0 || !strings.Contains(strings.Join(c.Warnings, "\n"), "not the CUDA device runtime's") {
		t.Errorf("warnings %q, want the signature refused", c.Warnings)
	}
}

// TestCDPCorpusCNP runs the corpus' dynamic-parallelism file (gpuocelot's
// cnp.ptx, nvcc 5.0): mainKernel launches nestedCall(10), and nestedCall(n)
// writes array[n] = n and launches nestedCall(n-1) while n >= 1, so 11
// child grids of depths 1..11 write array[10..0]. Its array has 10
// elements, so array[10] is out of bounds (the corpus run reports that
// fault); here the declaration is widened to 11 elements.
func TestCDPCorpusCNP(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "corpus", "ptx", "gtcasl__gpuocelot__cnp.ptx")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join("..", "..", "..", "shared", "corpus", "ptx", "gtcasl__gpuocelot__cnp.ptx")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("corpus file absent: %v", err)
	}
	src := strings.Replace(string(b), "array[40]", "array[44]", 1)
	p := cdpProg(t, src)
	c, err := p.Lower("_Z10mainKernelv")
	if err != nil {
		t.Fatal(err)
	}
	dev := NewDeviceFor(p)
	k, err := NewKernel(Launch{Code: c, Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}, Dev: dev, Globals: dev.LoadModule(p)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := k.Run(context.Background(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var arr *Alloc
	for _, a := range dev.Allocs() {
		if a.Name == "array" {
			arr = a
		}
	}
	for i := 0; i < 11; i++ {
		if v := binary.LittleEndian.Uint32(arr.Data[4*i:]); v != uint32(i) {
			t.Errorf("array[%d] = %d, want %d", i, v, i)
		}
	}
	if len(res.Children) != 11 {
		t.Fatalf("%d children, want 11", len(res.Children))
	}
	for i, ch := range res.Children {
		if ch.Depth != i+1 || ch.Parent != i-1 || ch.Kernel != "_Z10nestedCalli" {
			t.Errorf("child %d: depth %d parent %d %s", i, ch.Depth, ch.Parent, ch.Kernel)
		}
	}
}

// TestCDPFileScopedTexture: the device runtime does not launch a kernel
// that uses a file-scoped texture (or surface) reference: the launch
// returns cudaErrorLaunchFileScopedTex (66) / ...Surf (67) and the child
// does not run.
func TestCDPFileScopedTexture(t *testing.T) {
	refs := `.global .texref tr;
.global .surfref sr;
.visible .entry texchild(.param .u64 p, .param .u32 v)
{
	.reg .b32 %r<6>;
	.reg .f32 %f<5>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, 0;
	tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tr, {%r1}];
	st.global.f32 [%rd1], %f1;
	ret;
}
.visible .entry surfchild(.param .u64 p, .param .u32 v)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, 0;
	suld.b.1d.b32.trap {%r2}, [sr, {%r1}];
	st.global.u32 [%rd1], %r2;
	ret;
}
`
	for _, tc := range []struct {
		fn   string
		want int32
	}{{"texchild", 66}, {"surfchild", 67}} {
		src := strings.NewReplacer("$GET", "cudaGetParameterBuffer", "$LAUNCH", "cudaLaunchDevice", "$STREAM", "0", "$FUNC", tc.fn,
			".address_size 64\n", ".address_size 64\n"+refs).Replace(v1Src)
		p := cdpProg(t, src)
		got, res, _, err := cdpRun(t, p, "parent", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantInts(t, got, map[int]int32{10: tc.want, 22: 1})
		if len(res.Children) != 0 {
			t.Errorf("%s: children %+v, want none", tc.fn, res.Children)
		}
	}
}

// BenchmarkCDPPerThread: 64 threads each launch a 4-thread grid (the
// device-runtime path: parameter buffers, queue, child lowering cached).
func BenchmarkCDPPerThread(b *testing.B) {
	f, err := os.ReadFile(filepath.Join("testdata", "cdp", "cdp.ptx"))
	if err != nil {
		b.Fatal(err)
	}
	p := programOf(b, "cdp.ptx", string(f))
	c, err := p.Lower("_Z9perThreadPi")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		dev := NewDeviceFor(p)
		buf := dev.Alloc("p", 4096*4)
		params := make([]byte, 8)
		binary.LittleEndian.PutUint64(params, buf.Base)
		k, err := NewKernel(Launch{Code: c, Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, Params: params, Dev: dev})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := k.Run(context.Background(), RunOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCDPDeterministic: worker counts change neither the memory nor the
// child-grid records, functionally or on the model.
func TestCDPDeterministic(t *testing.T) {
	p := cdpProg(t, "")
	c, err := p.Lower("_Z9perThreadPi")
	if err != nil {
		t.Fatal(err)
	}
	run := func(workers int, timed bool) ([]byte, string) {
		dev := NewDeviceFor(p)
		buf := dev.Alloc("p", 4096)
		params := make([]byte, 8)
		binary.LittleEndian.PutUint64(params, buf.Base)
		k, err := NewKernel(Launch{Code: c, Grid: [3]int{2, 1, 1}, Block: [3]int{4, 1, 1}, Params: params, Dev: dev})
		if err != nil {
			t.Fatal(err)
		}
		var res *Result
		if timed {
			_, res, err = k.RunModel(context.Background(), model.A100(), model.Options{Workers: workers})
		} else {
			res, err = k.Run(context.Background(), RunOptions{Workers: workers})
		}
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for _, ch := range res.Children {
			sb.WriteString(strings.TrimSpace(strings.ReplaceAll(fmtChild(ch), "\n", " ")))
			sb.WriteString("\n")
		}
		return append([]byte(nil), buf.Data...), sb.String()
	}
	for _, timed := range []bool{false, true} {
		m1, r1 := run(1, timed)
		m8, r8 := run(8, timed)
		if string(m1) != string(m8) || r1 != r8 || r1 == "" {
			t.Errorf("timed=%v: results differ between 1 and 8 workers:\n%s\n%s", timed, r1, r8)
		}
	}
}

func fmtChild(c ChildGrid) string {
	var cyc model.Time
	if c.Timing != nil {
		cyc = c.Timing.Cycles
	}
	return strings.Join([]string{c.Kernel, itoa(c.Index), itoa(c.Parent), itoa(c.Depth), itoa(int(c.WarpInsts)), itoa(int(cyc)), itoa(int(c.Start)), itoa(int(c.End))}, " ")
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestCDPCallArity: a call passing fewer arguments than the declaration
// faults (no panic).
func TestCDPCallArity(t *testing.T) {
	src := strings.NewReplacer("$GET", "cudaGetParameterBuffer", "$LAUNCH", "cudaLaunchDevice", "$STREAM", "0", "$FUNC", "child",
		"(param0, param1, param2, param3, param4, param5)", "(param0, param1, param2, param3, param4)").Replace(v1Src)
	p := cdpProg(t, src)
	_, _, _, err := cdpRun(t, p, "parent", [3]int{1, 1, 1}, [3]int{1, 1, 1}, nil)
	var f *Fault
	if !errors.As(err, &f) || !strings.Contains(f.Msg, "passes 5 arguments") {
		t.Fatalf("err %v, want an arity fault", err)
	}
}
