package instrument

import (
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// wholeThenStream instruments src both ways: whole (ParseFile, Check,
// Instrument, as the CLI did) and with Stream. It reports whether Stream
// took the module, and fails when it gave anything other than the whole
// path's output, manifest and warnings, or took a module the whole path
// rejects.
func wholeThenStream(t *testing.T, name string, src []byte, opts Options) (streamed bool) {
	t.Helper()
	var want *Result
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, name, src, 0)
	if err == nil {
		err = ptx.Check(fset, f)
	}
	if err == nil {
		want, err = Instrument(fset, f, opts)
	}
	var out bytes.Buffer
	got, serr := Stream(&out, name, src, opts, StreamOptions{})
	if serr != nil {
		if !errors.Is(serr, ErrNotStreamed) {
			t.Errorf("%s %+v: Stream: %v", name, opts, serr)
		}
		return false
	}
	if err != nil {
		t.Errorf("%s %+v: Stream took a module Instrument rejects (%v)", name, opts, err)
		return true
	}
	if !bytes.Equal(out.Bytes(), want.PTX) {
		t.Errorf("%s %+v: streamed output differs at byte %d", name, opts, firstDiff(out.Bytes(), want.PTX))
	}
	var a, b bytes.Buffer
	if err := want.Manifest.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := got.Manifest.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("%s %+v: streamed manifest differs at byte %d", name, opts, firstDiff(a.Bytes(), b.Bytes()))
	}
	if strings.Join(want.Warnings, "\n") != strings.Join(got.Warnings, "\n") {
		t.Errorf("%s %+v: warnings\n%s\nstreamed\n%s", name, opts, strings.Join(want.Warnings, "\n"), strings.Join(got.Warnings, "\n"))
	}
	streamedManifest(t, name, src, opts, want, 0)
	return true
}

// streamedManifest instruments src with Stream and a manifest sink (on
// workers goroutines, 0: GOMAXPROCS) and fails unless the output, the manifest's bytes,
// its summary and the warnings are those of want, the whole module's
// result, whose manifest WriteManifest writes.
func streamedManifest(t *testing.T, name string, src []byte, opts Options, want *Result, workers int) {
	t.Helper()
	streamedManifestBatch(t, name, src, opts, want, workers, 0)
}

// streamedManifestBatch is streamedManifest with batches of batch bytes
// (0: batchBytes).
func streamedManifestBatch(t *testing.T, name string, src []byte, opts Options, want *Result, workers, batch int) {
	t.Helper()
	var out bytes.Buffer
	var sink memSink
	got, err := Stream(&out, name, src, opts, StreamOptions{Manifest: &sink, Workers: workers, batch: batch})
	if err != nil {
		t.Errorf("%s %+v: Stream with a manifest sink: %v", name, opts, err)
		return
	}
	if got.Manifest != nil || got.Summary == nil {
		t.Errorf("%s %+v: streamed manifest: Result.Manifest %v, Summary %v", name, opts, got.Manifest != nil, got.Summary)
		return
	}
	if !bytes.Equal(out.Bytes(), want.PTX) {
		t.Errorf("%s %+v: output with a manifest sink differs at byte %d", name, opts, firstDiff(out.Bytes(), want.PTX))
	}
	var a bytes.Buffer
	if err := WriteManifest(&a, want.Manifest); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), sink.b) {
		t.Errorf("%s %+v: manifest written to a sink differs at byte %d (%d and %d bytes)", name, opts, firstDiff(a.Bytes(), sink.b), a.Len(), len(sink.b))
	}
	if s := SummaryOf(want.Manifest); !reflect.DeepEqual(s, got.Summary) {
		t.Errorf("%s %+v: summary\n%+v\nwant\n%+v", name, opts, got.Summary, s)
	}
	if strings.Join(want.Warnings, "\n") != strings.Join(got.Warnings, "\n") {
		t.Errorf("%s %+v: warnings with a manifest sink\n%s\nwant\n%s", name, opts, strings.Join(got.Warnings, "\n"), strings.Join(want.Warnings, "\n"))
	}
}

// memSink is a ManifestSink in memory.
type memSink struct{ b []byte }

func (s *memSink) Write(b []byte) (int, error) {
	s.b = append(s.b, b...)
	return len(b), nil
}

func (s *memSink) WriteAt(b []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(b)) > int64(len(s.b)) {
		return 0, fmt.Errorf("memSink: WriteAt %d+%d past %d bytes", off, len(b), len(s.b))
	}
	return copy(s.b[off:], b), nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// streamVariants are the options every input is instrumented with both
// ways: every mode with every staging, and site selections.
func streamVariants() []Options {
	var vs []Options
	for _, mode := range []string{"naive", "fence", "dummy", "auto"} {
		for _, st := range []string{"auto", "shared", "global"} {
			vs = append(vs, Options{Mode: mode, Staging: st, Tool: "test"})
		}
	}
	vs = append(vs,
		Options{Spaces: []string{"global"}, Tool: "test"},
		Options{Timer: "globaltimer", Regs: 40, Tool: "test"},
		Options{Lines: &Range{From: 1, To: 60}, Tool: "test"},
		Options{Src: &SrcRange{Lines: Range{From: 1, To: 40}}, Tool: "test"},
		Options{NoLoads: true, Tool: "test"},
		Options{Kernel: "x", Tool: "test"})
	return vs
}

// TestStreamSameAsWhole: over the corpus, the samples, the golden input
// and generated modules, in every mode and staging, Stream writes the
// bytes, manifest and warnings Instrument gives, or refuses.
func TestStreamSameAsWhole(t *testing.T) {
	files := inputFiles(t)
	if testing.Short() {
		files = nil // the generated modules only
	}
	files = append(files, "testdata/small.ptx")
	taken, total := 0, 0
	all := os.Getenv("PTXTRACE_STREAM_ALL") != ""
	vs := streamVariants()
	for i, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// The samples and the golden input in every variant; the
		// corpus and generated test files (130) in three each, in
		// turn, so that every variant meets many of them and the
		// package's tests stay within go test's time limit
		// (PTXTRACE_STREAM_ALL=1: every variant).
		for j, opts := range vs {
			sample := strings.HasPrefix(name, "../samples/") || name == "testdata/small.ptx"
			if !all && !sample && (j-3*i)%len(vs) != 0 && (j-3*i-1)%len(vs) != 0 && (j-3*i-2)%len(vs) != 0 {
				continue
			}
			total++
			if wholeThenStream(t, name, src, opts) {
				taken++
			}
		}
	}
	for name, src := range map[string][]byte{"gen.ptx": genModule(256 << 10), "calls.ptx": []byte(callsModule)} {
		for _, opts := range streamVariants() {
			total++
			ok := wholeThenStream(t, name, src, opts)
			if ok {
				taken++
			}
			if !ok && opts.Kernel == "" && !opts.NoLoads && opts.Lines == nil && opts.Src == nil {
				t.Errorf("%s with %+v not streamed", name, opts)
			}
		}
	}
	t.Logf("%d of %d streamed", taken, total)
	if taken < total/2 {
		t.Errorf("only %d of %d inputs×options streamed", taken, total)
	}
}

// callsModule has function sites called across the file: G declared
// first (the staging declaration goes before it), called by kernel A and
// defined last; F defined between A and B, called by B (no sites of its
// own) and by H, a function without sites called by C. Kernel D has
// sites and no calls. The segments join A..G and F..C.
const callsModule = `.version 7.8
.target sm_80
.address_size 64

.func (.param .b32 r) G(.param .b64 p);

.visible .entry A(.param .u64 a)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [a];
	ld.global.u32 %r1, [%rd1];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), G, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	st.global.u32 [%rd1], %r2;
	ret;
}

.func (.param .b32 r) F(.param .b64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	st.param.b32 [r+0], %r1;
	ret;
}

.visible .entry B(.param .u64 b)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [b];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), F, (param0);
	ld.param.b32 %r1, [retval0+0];
	}
	st.global.u32 [%rd1], %r1;
	ret;
}

.func (.param .b32 r) H(.param .b64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), F, (param0);
	ld.param.b32 %r1, [retval0+0];
	}
	st.param.b32 [r+0], %r1;
	ret;
}

.visible .entry C(.param .u64 c)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [c];
	ld.global.u32 %r2, [%rd1+4];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), H, (param0);
	ld.param.b32 %r1, [retval0+0];
	}
	add.u32 %r1, %r1, %r2;
	st.global.u32 [%rd1], %r1;
	ret;
}

.visible .entry D(.param .u64 d)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [d];
	ld.global.u32 %r1, [%rd1];
	st.global.u32 [%rd1+4], %r1;
	ret;
}

.func (.param .b32 r) G(.param .b64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	st.param.b32 [r+0], %r1;
	ret;
}
`

// TestStreamRefuses: what Stream does not handle like Instrument is
// refused, before any output.
func TestStreamRefuses(t *testing.T) {
	gen := genModule(16 << 10)
	for _, tc := range []struct {
		name string
		src  string
		opts Options
	}{
		{"regions", string(gen), Options{Regions: []Region{{Begin: 20, End: 22}}}},
		{"kernel", string(gen), Options{Kernel: "_Z9axpy_0PKfS0_Pfif"}},
		{"parse error", ".version 7.8\n.target sm_80\n.entry k() { ld.global.f32 %f1, [%rd1] }\n", Options{}},
		{"check error", ".version 7.8\n.entry k() { ret; }\n", Options{}},
		{"no sites", ".version 7.8\n.target sm_80\n.entry k() { ret; }\n", Options{}},
		{"late header", ".version 7.8\n.target sm_80\n.entry k() { ret; }\n.file 1 \"a.cu\"\n", Options{}},
	} {
		var out bytes.Buffer
		_, err := Stream(&out, "in.ptx", []byte(tc.src), tc.opts, StreamOptions{})
		if !errors.Is(err, ErrNotStreamed) {
			t.Errorf("%s: err %v, want ErrNotStreamed", tc.name, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: %d bytes written", tc.name, out.Len())
		}
	}
}

// TestStreamGoldens: the golden cases streamed give the golden output.
func TestStreamGoldens(t *testing.T) {
	src, err := os.ReadFile("testdata/small.ptx")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range goldenCases {
		in := src
		if strings.Contains(tc.name, "sm52") {
			in = bytes.Replace(src, []byte(".target sm_80"), []byte(".target sm_52"), 1)
		}
		opts := tc.opts
		opts.Tool = "test"
		var out bytes.Buffer
		res, err := Stream(&out, "testdata/small.ptx", in, opts, StreamOptions{})
		if errors.Is(err, ErrNotStreamed) {
			t.Logf("%s: %v", tc.name, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("\n// ---- manifest ----\n")
		if err := res.Manifest.Write(&out); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(fmt.Sprintf("testdata/golden/%s.golden", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: streamed output differs from the golden file at byte %d", tc.name, firstDiff(out.Bytes(), want))
		}
	}
}

// TestPlainKernel: the pieces the first pass leaves to the second are
// exactly comments and one kernel with a body that calls nothing.
func TestPlainKernel(t *testing.T) {
	body := "{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %tid.x;\n\t{ .reg .b32 t; mov.b32 t, %r1; }\n\tret;\n}\n"
	for _, c := range []struct {
		piece string
		want  bool
	}{
		{"\t// .globl\tk\n.visible .entry k(\n\t.param .u64 a\n)\n" + body, true},
		{".entry k()\n" + body, true},
		{".weak .entry k() .maxntid 256, 1, 1\n" + body, true},
		{"/* lead { */\n.entry k()\n{\n\t// a } in a comment\n\t/* { */ ret;\n} // trailing }\n", true},
		{"\n\n.visible .entry k()\n" + body + "\n\t// after\n", true},
		{".visible .func f()\n" + body, false},                                     // a function
		{".visible .entry k();\n.visible .entry j()\n" + body, false},              // a prototype first
		{".global .u32 x;\n.visible .entry k()\n" + body, false},                   // a variable first
		{".visible .entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n", false},          // a call
		{".visible .entry _Z8callbackv()\n" + body, false},                         // "call" in a name: not taken
		{".visible .entry k()\n{\n\tret;\n} .global .u32 x;\n", false},             // a variable after
		{".visible .entry k()\n{\n\tret;\n}\n.visible .entry j()\n" + body, false}, // two kernels
		{".visible .entry k()\n{\n\tret;\n", false},                                // no closing brace
		{".visible .entry k() /* never closed\n", false},                           // a comment that does not end (looped for ever)
		{".visible .entry k()\n{\n\tret; /* never closed\n", false},
		{".visible .entryk()\n" + body, false},
		{".version 7.8\n.visible .entry k()\n" + body, false}, // a directive first
	} {
		if got := plainKernel([]byte(c.piece)); got != c.want {
			t.Errorf("plainKernel(%q) = %v, want %v", c.piece, got, c.want)
		}
	}
	// In a generated module, the kernels that call nothing (four of the
	// five kinds) are left to the second pass.
	src := genModule(64 << 10)
	cuts := ptx.Split(src)
	n, lo := 0, 0
	for _, hi := range cuts {
		if plainKernel(src[lo:hi]) {
			n++
		}
		lo = hi
	}
	if n < len(cuts)/2 {
		t.Errorf("%d of %d pieces are plain kernels, want at least half", n, len(cuts))
	}
}

// TestStreamRefusesLater: the kernels the first pass leaves to the
// second (plainKernel) are still parsed and checked, and refused (after
// some output: the caller discards it) when they do not parse or check,
// or when no kernel at all has sites.
func TestStreamRefusesLater(t *testing.T) {
	const head = ".version 7.8\n.target sm_80\n.address_size 64\n"
	const loads = ".visible .entry a(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
	const none = ".visible .entry n()\n{\n\tret;\n}\n"
	for _, tc := range []struct{ name, src, want string }{
		{"parse error", head + loads + ".visible .entry b()\n{\n\tret\n}\n", "parse"},
		{"check error", head + loads + ".visible .entry b()\n{\nL:\n\tret;\nL:\n\tret;\n}\n", "check"},
		{"duplicate", head + loads + ".visible .entry a()\n{\n\tret;\n}\n", "check"},
		{"no sites", head + none + ".visible .entry m()\n{\n\tret;\n}\n", "no sites"},
	} {
		if !plainKernel([]byte(tc.src[strings.LastIndex(tc.src, ".visible"):])) {
			t.Fatalf("%s: the last kernel is not left to the second pass", tc.name)
		}
		_, err := Stream(io.Discard, "in.ptx", []byte(tc.src), Options{}, StreamOptions{})
		if !errors.Is(err, ErrNotStreamed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrNotStreamed (%s)", tc.name, err, tc.want)
		}
	}
}
