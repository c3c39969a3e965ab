package instrument

import (
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/ptx"
)

// asyncKernel holds copies whose site status TestAsyncSites checks (by
// line: the string's first line is line 1).
const asyncKernel = `.version 8.0
.target sm_90a
.address_size 64
.shared .align 128 .b8 buf[1024];
.shared .align 8 .b64 bar;
.shared .align 8 .b64 bar2;

.visible .entry k(.param .u64 pin, .param .align 128 .b8 tmap[128])
{
	.reg .b32 %s, %mb, %c, %ph, %mb2, %mb3, %mb4;
	.reg .b64 %in, %tm;
	.reg .pred %p, %ok;
	ld.param.u64 %in, [pin];
	mov.u32 %s, buf;
	mov.u32 %mb, bar;
	mov.b64 %tm, tmap;
	mov.u32 %c, 0;
	mov.u32 %ph, 0;
	setp.eq.u32 %p, %c, 0;
	cp.async.ca.shared.global [%s], [%in], 4;
	cp.async.commit_group;
	cp.async.wait_group 0;
	cp.async.cg.shared.global [%s+16], [%in+16], 16;
	cp.async.commit_group;
	cp.async.wait_group 1;
	cp.async.ca.shared.global [%s+32], [%in+32], 8;
	cp.async.ca.shared.global [%s+40], [%in+40], 8;
	cp.async.wait_all;
	cp.async.ca.shared.global [%s+48], [%in+48], 8;
	cp.async.commit_group;
	cp.async.commit_group;
	cp.async.wait_group 1;
	cp.async.ca.shared.global [%s+64], [%in+64], 4;
	@%p bra $Lskip;
	cp.async.wait_all;
$Lskip:
	@%p mbarrier.arrive.expect_tx.shared.b64 _, [%mb], 256;
	@%p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%tm, {%c, %c}], [%mb];
$Lwait:
	mbarrier.try_wait.parity.shared.b64 %ok, [%mb], %ph;
	@!%ok bra $Lwait;
	@%p cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%in], 256, [%mb];
	mbarrier.try_wait.parity.shared.b64 %ok, [%mb], %ph;
	@!%p bra $Ljoin;
	mbarrier.arrive.expect_tx.shared.b64 _, [%mb], 256;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%tm, {%c, %c}], [%mb];
$Ljoin:
$Lwait2:
	mbarrier.try_wait.parity.shared.b64 %ok, [%mb], %ph;
	@!%ok bra $Lwait2;
	mov.u32 %mb2, bar2;
	@%p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%tm, {%c, %c}], [%mb];
$Lwait3:
	mbarrier.try_wait.parity.shared.b64 %ok, [%mb2], %ph;
	@!%ok bra $Lwait3;
	mov.u32 %mb3, bar;
	@%p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%tm, {%c, %c}], [%mb3];
	mov.u32 %mb4, bar;
$Lwait4:
	mbarrier.try_wait.parity.shared.b64 %ok, [%mb4], %ph;
	@!%ok bra $Lwait4;
	ret;
}
`

// TestAsyncSites checks which copies become async sites and where their
// probes go (async.go's rules):
//   - line 20 (4-byte cp.async, commit, wait_group 0): site, end after the
//     wait (line 22);
//   - line 23 (commit, wait_group 1: its group may still be pending): no
//     straight-line site; paired at run time (group_seq) but in naive mode;
//   - lines 26, 27 (two copies, wait_all): the second is the site, the
//     first is paired at run time;
//   - line 29 (two commits, wait_group 1 covers the older group): site;
//   - line 33 (a branch before the wait): paired at run time (not naive);
//   - line 38 (TMA, then the wait loop): site, end after "@!%ok bra";
//   - line 42 (bulk copy, a wait outside a loop): none;
//   - line 46 (TMA in an if-block joined by other paths before the wait
//     loop): a joined site, its record guarded by the thread's flag;
//   - line 52 (TMA on bar, the loop waits on bar2): none;
//   - line 57 (TMA on %mb3 = bar, the loop on %mb4 = bar): site.
func TestAsyncSites(t *testing.T) {
	for _, mode := range []string{"auto", "naive"} {
		fset := token.NewFileSet()
		f, err := ptx.ParseFile(fset, "async.ptx", []byte(asyncKernel), 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Instrument(fset, f, Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		k := res.Manifest.Kernel("k")
		type want struct {
			line int
			mode string
		}
		wants := []want{{20, manifest.ModeWaitGroup}, {27, manifest.ModeWaitGroup}, {29, manifest.ModeWaitGroup}, {38, manifest.ModeMbarrier},
			{46, manifest.ModeMbarrier}, {57, manifest.ModeMbarrier}}
		if mode != "naive" {
			// the cp.async copies without a straight-line wait are
			// paired at run time (pipeline.go)
			wants = []want{{20, manifest.ModeWaitGroup}, {23, manifest.ModeGroupSeq}, {26, manifest.ModeGroupSeq}, {27, manifest.ModeWaitGroup},
				{29, manifest.ModeWaitGroup}, {33, manifest.ModeGroupSeq}, {38, manifest.ModeMbarrier}, {46, manifest.ModeMbarrier}, {57, manifest.ModeMbarrier}}
		}
		var got []want
		for _, p := range k.Probes {
			if p.Kind == manifest.KindBegin {
				got = append(got, want{p.Line, p.Mode})
				if p.Space != "global" || p.RegionKind != manifest.RegionLoad {
					t.Errorf("%s: probe %+v: want a global load region", mode, p)
				}
			}
		}
		if mode == "naive" {
			for i := range wants {
				wants[i].mode = manifest.ModeNaive
			}
		}
		if len(got) != len(wants) {
			t.Fatalf("%s: sites %v, want %v", mode, got, wants)
		}
		for i := range wants {
			if got[i] != wants[i] {
				t.Errorf("%s: site %d = %v, want %v", mode, i, got[i], wants[i])
			}
		}
		// the begin read right before the copy, the end read right after
		// the wait (naive: after the copy)
		out := string(res.PTX)
		norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		lines := strings.Split(out, "\n")
		timer := regexp.MustCompile(`mov\.u64\s+%__pt_rd(\d), %clock64`)
		for _, c := range []struct {
			copy, wait string
		}{
			{"cp.async.ca.shared.global [%s], [%in], 4;", "cp.async.wait_group 0;"},
			{"cp.async.ca.shared.global [%s+40], [%in+40], 8;", "cp.async.wait_all;"},
			{"cp.async.ca.shared.global [%s+48], [%in+48], 8;", "cp.async.wait_group 1;"},
			{"@%p cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%tm, {%c, %c}], [%mb];", "@!%ok bra $Lwait;"},
		} {
			at := -1
			for i, l := range lines {
				if norm(l) == c.copy {
					at = i
					break
				}
			}
			if at < 1 {
				t.Fatalf("%s: copy %q not in the output", mode, c.copy)
			}
			if m := timer.FindStringSubmatch(lines[at-1]); m == nil || m[1] != "3" {
				t.Errorf("%s: before %q: %q, want the async begin read into %%__pt_rd3", mode, c.copy, lines[at-1])
			}
			end := at + 1
			if mode != "naive" {
				for end < len(lines) && norm(lines[end]) != c.wait {
					end++
				}
				end++
			}
			if end >= len(lines) {
				t.Fatalf("%s: wait %q not found after %q", mode, c.wait, c.copy)
			}
			if m := timer.FindStringSubmatch(lines[end]); m == nil || m[1] != "2" {
				t.Errorf("%s: after the wait of %q: %q, want the end read", mode, c.copy, lines[end])
			}
		}
		if !strings.Contains(out, "%__pt_rd<4>") {
			t.Errorf("%s: the async begin register is not declared", mode)
		}
		// the joined site: flag cleared in the prologue, set at its begin,
		// tested (the end read before the test) and cleared at its end
		flag := regexp.MustCompile(`(?s)mov\.pred\s+%__pt_p7, 0;.*` +
			`mov\.pred\s+%__pt_p7, 1;\s*cp\.async\.bulk\.tensor[^\n]*\n\$Ljoin:.*` +
			`@!%ok bra \$Lwait2;\s*mov\.u64\s+%__pt_rd2, %clock64;\s*@!%__pt_p7 bra \$__pt_async\d+;.*` +
			`mov\.pred\s+%__pt_p7, 0;\s*\$__pt_async\d+:`)
		if mode != "naive" && (!flag.MatchString(out) || !strings.Contains(out, "%__pt_p<8>")) {
			t.Errorf("%s: the joined site's flag code is missing:\n%s", mode, out)
		}
	}
}

// TestAsyncSitesSASS: in the nvcc 11.8 cp.async kernels of the accuracy
// test (analysis/accuracy/testdata/async), at sm_80 and sm_90, ptxas keeps
// every async site's end timer read after the DEPBAR that implements its
// cp.async.wait_group (VerifySASS), and the load sites stay in order.
func TestAsyncSitesSASS(t *testing.T) {
	tools := cudatool.Find()
	if !tools.CanDisassemble() {
		t.Skip("ptxas/nvdisasm not installed")
	}
	name := filepath.Join("..", "analysis", "accuracy", "testdata", "async", "cpasync.sm_80.ptx")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"sm_80", "sm_90"} {
		checks, _, err := compileVerify(t, tools, "cpasync.ptx", src, arch, Options{})
		if err != nil {
			t.Fatal(err)
		}
		waits := 0
		for _, c := range checks {
			if !c.OK {
				t.Errorf("%s: %s probe %d (%s): %s", arch, c.Kernel, c.Probe, c.Mode, c.Detail)
			}
			if c.Mode == manifest.ModeWaitGroup {
				waits++
			}
		}
		// cpasync_sum: the loop unrolled 4× plus its remainder copy; cpasync_tile: 1
		if waits != 6 {
			t.Errorf("%s: %d wait_group probes checked, want 6", arch, waits)
		}
	}
}
