package instrument

import (
	"go/token"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// pipeKernel is a two-stage cp.async pipeline: stage 0 in the prologue,
// stage i+1 issued in iteration i, waited for by wait_group 1 in
// iteration i+1; TAIL is replaced to vary the kernel.
const pipeKernel = `.version 8.0
.target sm_80
.address_size 64
.shared .align 16 .b8 buf[1024];

.visible .entry k(.param .u64 pin)
{
	.reg .b32 %s, %i;
	.reg .b64 %in;
	.reg .pred %p;
	ld.param.u64 %in, [pin];
	mov.u32 %s, buf;
	mov.u32 %i, 0;
	cp.async.ca.shared.global [%s], [%in], 4;
	cp.async.commit_group;
$Lloop:
	cp.async.ca.shared.global [%s+16], [%in+16], 4;
	cp.async.commit_group;
	WAIT
	add.u32 %i, %i, 1;
	setp.lt.u32 %p, %i, 4;
	@%p bra $Lloop;
	cp.async.wait_all;
	ret;
}
`

func instrumentPipe(t *testing.T, src string, o Options) *Result {
	t.Helper()
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, "pipe.ptx", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(fset, f, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPipelineSites checks run-time pairing's instrumentation (pipeline.go):
// the two copies become group_seq sites with begin probes only, each of
// the two waits an end probe closing both regions; the commit count goes
// up after each commit_group and wait_all; the end record's tag is
// max(count − N, 0), or the new count after wait_all; the manifest is
// version 1.2. A guarded wait or a call leaves the copies unprobed, and
// naive mode does not probe them.
func TestPipelineSites(t *testing.T) {
	src := strings.Replace(pipeKernel, "WAIT", "cp.async.wait_group 1;", 1)
	res := instrumentPipe(t, src, Options{Mode: "auto"})
	m := res.Manifest
	if m.Version != manifest.VersionGroupSeq {
		t.Errorf("version %s, want %s", m.Version, manifest.VersionGroupSeq)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	var begins, ends []manifest.Probe
	for _, p := range m.Kernel("k").Probes {
		if p.Mode != manifest.ModeGroupSeq {
			t.Errorf("probe %+v: want mode group_seq", p)
		}
		if p.Kind == manifest.KindBegin {
			begins = append(begins, p)
		} else {
			ends = append(ends, p)
		}
	}
	if len(begins) != 2 || begins[0].Line != 14 || begins[1].Line != 17 {
		t.Fatalf("begin probes %+v, want the copies of lines 14 and 17", begins)
	}
	if len(ends) != 2 || ends[0].Line != 19 || ends[1].Line != 23 {
		t.Fatalf("end probes %+v, want the waits of lines 19 and 23", ends)
	}
	for _, e := range ends {
		if len(e.Closes) != 2 || e.Closes[0] != begins[0].Region || e.Closes[1] != begins[1].Region || e.Region != begins[0].Region {
			t.Errorf("end probe %d: region %d closes %v, want %d [%d %d]", e.ID, e.Region, e.Closes, begins[0].Region, begins[0].Region, begins[1].Region)
		}
	}
	out := string(res.PTX)
	for _, want := range []string{
		"cp.async.commit_group;\n\tadd.u32 %__pt_q0, %__pt_q0, 1;",
		"cp.async.wait_group 1;\n\tmov.u64 %__pt_rd2, %clock64;\n\tsub.s32 %__pt_q1, %__pt_q0, 1;\n\tmax.s32 %__pt_q1, %__pt_q1, 0;",
		"cp.async.wait_all;\n\tmov.u64 %__pt_rd2, %clock64;\n\tadd.u32 %__pt_q0, %__pt_q0, 1;\n\tmov.u32 %__pt_q1, %__pt_q0;",
		"mov.u64 %__pt_rd1, %clock64;\n\tcp.async.ca.shared.global [%s], [%in], 4;",
		"mov.u32 %__pt_q0, 0;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if n := strings.Count(out, "cvt.u64.u32 %__pt_qd0"); n != 4 {
		t.Errorf("%d tagged records, want 4 (2 copies, 2 waits)", n)
	}

	for name, o := range map[string]struct {
		src  string
		mode string
	}{
		"guarded wait": {strings.Replace(pipeKernel, "WAIT", "@%p cp.async.wait_group 1;", 1), "auto"},
		"call":         {strings.Replace(strings.Replace(pipeKernel, "WAIT", "cp.async.wait_group 1;\n\tcall f;", 1), ".visible .entry", ".func f()\n{\n\tret;\n}\n.visible .entry", 1), "auto"},
		"naive":        {src, "naive"},
	} {
		res := instrumentPipe(t, o.src, Options{Mode: o.mode})
		if res.Manifest.Version != manifest.Version {
			t.Errorf("%s: version %s, want %s", name, res.Manifest.Version, manifest.Version)
		}
		for _, k := range res.Manifest.Kernels {
			for _, p := range k.Probes {
				if p.Mode == manifest.ModeGroupSeq {
					t.Errorf("%s: probe %+v", name, p)
				}
			}
		}
	}
}
