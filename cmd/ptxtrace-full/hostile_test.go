package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The hostile-input suite: every input surface of every command, given
// broken or adversarial input, must answer with the documented exit status
// (1 bad input, 2 usage) and a message naming the problem, within a bounded
// time, leaving no temporary or mixed output behind. Each case names the
// finding of issue 12 it reproduces (the number in brackets).

const hostileLaunch = `kernel: vecadd
grid: [4]
block: [64]
params:
  - {name: a, buffer: {type: f32, count: 256, init: {ramp: {start: 0, step: 1}}}}
  - {name: b, buffer: {type: f32, count: 256, init: {const: 2}}}
  - {name: c, buffer: {type: f32, count: 256, output: true}}
  - {name: n, value: 256}
`

const hostileBigLocal = `.version 7.0
.target sm_52
.address_size 64

.visible .entry big(.param .u64 out)
{
	.local .align 4 .b8 arr[2097152];
	.reg .u64 %rd<4>;
	.reg .u32 %r<4>;
	mov.u64 %rd1, arr;
	mov.u32 %r1, 7;
	st.local.u32 [%rd1+2000000], %r1;
	ld.local.u32 %r2, [%rd1+2000000];
	ld.param.u64 %rd2, [out];
	cvta.to.global.u64 %rd3, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
`

// hostileFixture builds the shared inputs: the vecadd module k.ptx, its
// launch spec k.yaml, an instrumented copy ki.ptx (+ ki.probes.json, auto
// mode) and kn.ptx (naive), a functional run r.run of ki.ptx, two copies
// of it whose directories share a base name (exp1/r.run, exp2/r.run), and
// the broken inputs the cases name.
func hostileFixture(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "vecadd.ptx"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) {
		p := filepath.Join(d, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("k.ptx", string(src))
	write("k.yaml", hostileLaunch)
	must := func(args ...string) {
		if r := runCLI(t, "", args...); r.code != 0 {
			t.Fatalf("fixture %v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	must("instrument", "--no-ptxas", "-o", filepath.Join(d, "ki.ptx"), filepath.Join(d, "k.ptx"))
	must("instrument", "--no-ptxas", "--mode", "naive", "-o", filepath.Join(d, "kn.ptx"), filepath.Join(d, "k.ptx"))
	must("run", "--functional", "--launch", filepath.Join(d, "k.yaml"), "-o", filepath.Join(d, "r.run"), filepath.Join(d, "ki.ptx"))
	for _, e := range []string{"exp1", "exp2"} {
		must("run", "--functional", "--launch", filepath.Join(d, "k.yaml"), "-o", filepath.Join(d, e, "r.run"), filepath.Join(d, "ki.ptx"))
	}
	// a manifest whose added parameter index is out of range (id intact)
	var man map[string]any
	mb, _ := os.ReadFile(filepath.Join(d, "ki.probes.json"))
	if err := json.Unmarshal(mb, &man); err != nil {
		t.Fatal(err)
	}
	k0 := man["kernels"].([]any)[0].(map[string]any)
	k0["params_added"].([]any)[0].(map[string]any)["index"] = 99
	bogus, _ := json.Marshal(man)
	write("idx99.probes.json", string(bogus))
	// hand edits that keep the instrumentation id: probe ids, capacity, timer
	edit := func(name string, f func(m map[string]any)) {
		var e map[string]any
		json.Unmarshal(mb, &e)
		f(e)
		b, _ := json.Marshal(e)
		write(name, string(b))
	}
	edit("ids.probes.json", func(m map[string]any) {
		for _, p := range m["kernels"].([]any)[0].(map[string]any)["probes"].([]any) {
			p.(map[string]any)["id"] = p.(map[string]any)["id"].(float64) + 100
		}
	})
	edit("cap.probes.json", func(m map[string]any) {
		m["buffer"].(map[string]any)["records_per_warp"] = 8
		m["buffer"].(map[string]any)["segment_bytes"] = 32 + 8*16
	})
	edit("timer.probes.json", func(m map[string]any) {
		m["timer"] = "globaltimer"
		m["buffer"].(map[string]any)["timer_code"] = 2
	})
	write("garbage.probes.json", "{\"version\": \"1.0\", \"kernels\": [")

	write("targett.ptx", ".version 7.0\n.targett sm_52\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n")
	write("nolabel.ptx", ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry k()\n{\n\tbra $L_missing;\n\tret;\n}\n")
	write("duplabel.ptx", ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry k()\n{\nL1:\n\tbra L1;\nL1:\n\tret;\n}\n")
	write("syntax.ptx", ".version 7.0\n.target sm_52\n.visible .entry k(\n{\n")
	// a kernel that a block comment never closed: instrument had looped
	// for ever deciding whether the piece was a plain kernel
	write("unterm.ptx", ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n.visible .entry k2() /* never closed\n")
	write("big.ptx", hostileBigLocal)
	write("spin.ptx", ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry spin()\n{\n\t.reg .u32 %r<2>;\n\t.reg .pred %p;\n\tmov.u32 %r1, 0;\n$L_loop:\n\tadd.u32 %r1, %r1, 0;\n\tsetp.eq.u32 %p, %r1, 0;\n\t@%p bra $L_loop;\n\tret;\n}\n")
	write("count.ptx", ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry count(.param .u64 out)\n{\n\t.reg .u32 %r<2>;\n\t.reg .u64 %rd<2>;\n\t.reg .pred %p;\n\tmov.u32 %r1, 0;\n$L_loop:\n\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p, %r1, 200000;\n\t@%p bra $L_loop;\n\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n")
	write("count.yaml", "kernel: count\ngrid: [2]\nblock: [32]\nparams:\n  - {name: out, buffer: {type: u32, count: 1, output: true}}\n")
	write("spin.yaml", "kernel: spin\ngrid: [2]\nblock: [32]\nparams: []\n")
	write("big.yaml", "kernel: big\ngrid: [1]\nblock: [1]\nparams:\n  - {name: out, buffer: {type: u32, count: 1, output: true}}\n")
	// polling loops (replay/spinmem.go): the flag is word 1 of out, word 0
	// the result; poll, apoll and shpoll wait for a flag nobody writes
	// (the polling load is on line 11), handoff's warp 1 and xhandoff's
	// CTA 1 set it after a delay loop
	pollPTX := func(name, decl, poll string) string {
		return ".version 7.0\n.target sm_52\n.address_size 64\n" + decl + ".visible .entry " + name + "(.param .u64 out)\n{\n\t.reg .u32 %r<4>;\n\t.reg .u64 %rd<2>;\n\t.reg .pred %p<4>;\n\tld.param.u64 %rd1, [out];\n$L_poll:\n\t" + poll + "\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra $L_poll;\n\tret;\n}\n"
	}
	write("poll.ptx", pollPTX("poll", "", "ld.volatile.global.u32 %r1, [%rd1+4];"))
	write("apoll.ptx", pollPTX("apoll", "", "atom.global.add.u32 %r1, [%rd1+4], 0;"))
	write("shpoll.ptx", pollPTX("shpoll", ".shared .align 4 .u32 fl;\n", "ld.volatile.shared.u32 %r1, [fl];"))
	handoff := func(name, who string) string {
		return ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry " + name + "(.param .u64 out)\n{\n\t.reg .u32 %r<4>;\n\t.reg .u64 %rd<2>;\n\t.reg .pred %p<4>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, " + who + ";\n\tsetp.lt.u32 %p1, %r1, 1;\n\t@%p1 bra $L_wait;\n\tmov.u32 %r2, 0;\n$L_delay:\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, 100000;\n\t@%p2 bra $L_delay;\n\tst.volatile.global.u32 [%rd1+4], 1;\n\tret;\n$L_wait:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra $L_wait;\n\tst.global.u32 [%rd1], 7;\n\tret;\n}\n"
	}
	write("handoff.ptx", handoff("handoff", "%warpid"))
	write("xhandoff.ptx", handoff("xhandoff", "%ctaid.x"))
	for _, k := range []string{"poll", "apoll", "shpoll"} {
		write(k+".yaml", "kernel: "+k+"\ngrid: [2]\nblock: [64]\nparams:\n  - {name: out, buffer: {type: u32, count: 2, output: true}}\n")
	}
	write("handoff.yaml", "kernel: handoff\ngrid: [1]\nblock: [64]\nparams:\n  - {name: out, buffer: {type: u32, count: 2, output: true}}\n")
	write("xhandoff.yaml", "kernel: xhandoff\ngrid: [2]\nblock: [32]\nparams:\n  - {name: out, buffer: {type: u32, count: 2, output: true}}\n")

	write("m_l2sets.yaml", "base: gtx480\nl2: {sets: 1000000000}\n")
	write("m_sms.yaml", "num_sms: 100000000\n")
	write("m_mhz.yaml", "core_mhz: 1e30\n")
	write("m_lat.yaml", "l2: {latency: 1000000000000}\n")
	write("m_state.yaml", "num_sms: 1024\nshared: {bytes: 16777216}\n")
	write("fast.yaml", "base: gtx480\nnum_sms: 4\n")

	spec := func(name, params string, extra string) {
		write(name, "kernel: vecadd\ngrid: [4]\nblock: [64]\n"+extra+"params:\n"+params)
	}
	abc := "  - {name: a, buffer: {type: f32, count: 256}}\n  - {name: b, buffer: {type: f32, count: 256}}\n  - {name: c, buffer: {type: f32, count: 256, output: true}}\n"
	spec("l_deep.yaml", abc+"  - {name: n, value: \""+strings.Repeat("(", 1_000_000)+"1"+strings.Repeat(")", 1_000_000)+"\"}\n", "")
	spec("l_nest.yaml", abc+"  - {name: n, value: \""+strings.Repeat("(", 200)+"1"+strings.Repeat(")", 200)+"\"}\n", "")
	write("short.bin", "12345678")
	spec("l_short.yaml", "  - {name: a, buffer: {type: f32, count: 256, init: {file: short.bin}}}\n"+abc[strings.Index(abc, "  - {name: b"):]+"  - {name: n, value: 256}\n", "")
	spec("l_zero.yaml", "  - {name: a, buffer: {type: f32, count: 256, init: {file: /dev/zero}}}\n"+abc[strings.Index(abc, "  - {name: b"):]+"  - {name: n, value: 256}\n", "")
	write("l_grid.yaml", "kernel: vecadd\ngrid: [2147483648]\nblock: [64]\nparams: []\n")
	write("l_block.yaml", "kernel: vecadd\ngrid: [1]\nblock: [2048]\nparams: []\n")
	write("l_bomb.yaml", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nkernel: vecadd\n")
	spec("l_count.yaml", "  - {name: a, buffer: {type: f32, count: 100000000000}}\n"+abc[strings.Index(abc, "  - {name: b"):]+"  - {name: n, value: 256}\n", "")
	spec("l_tex.yaml", abc+"  - {name: n, value: 256}\n", "textures:\n  - {name: vol, dims: 3, width: 65536, height: 65536, depth: 4096, format: f32x4}\n")
	write("sw_image.yaml", "vr:\n  views: [\"0,0,0\"]\n  blocks: [32x4]\n  image: 100000\n  volume: 100000\n")
	views := make([]string, 300)
	for i := range views {
		views[i] = fmt.Sprintf("\"%d,0,0\"", i)
	}
	blocks := make([]string, 200)
	for i := range blocks {
		blocks[i] = fmt.Sprintf("%dx1", i+1)
	}
	write("sw_many.yaml", "vr:\n  views: ["+strings.Join(views, ",")+"]\n  blocks: ["+strings.Join(blocks, ",")+"]\n  image: 16\n  volume: 8\n")
	write("l_gen.yaml", "kernel: vecadd\ngrid: [4]\nblock: [64]\ninputs:\n  - {name: g, generator: vecadd, args: {n: 2147483648}}\nparams:\n  - {name: a, buffer: {type: f32, count: 256, init: {from: g.a}}}\n  - {name: b, buffer: {type: f32, count: 256, init: {from: g.b}}}\n  - {name: c, buffer: {type: f32, count: 256, output: true}}\n  - {name: n, value: 256}\n")
	write("l_params.yaml", "kernel: vecadd\ngrid: [1]\nblock: [32]\nparams:\n  - {value: 1}\n")

	os.MkdirAll(filepath.Join(d, "foreign"), 0o755)
	write("foreign/thesis.tex", "mine")
	write("notadir", "x")
	write("corrupt.bundle", "PTXTRACEBUNDLE but not really")
	return d
}

type hostileCase struct {
	name  string
	args  []string // "$D" is replaced by the fixture directory
	code  int
	want  []string // substrings of stderr (or stdout when code 0 and out set)
	out   bool     // match want against stdout
	after func(t *testing.T, d string)
	// within bounds the command's wall-clock time (0: 20 s)
	within time.Duration
}

func hostileCases() []hostileCase {
	exists := func(rel ...string) func(t *testing.T, d string) {
		return func(t *testing.T, d string) {
			for _, r := range rel {
				if _, err := os.Stat(filepath.Join(d, r)); err != nil {
					t.Errorf("want %s: %v", r, err)
				}
			}
		}
	}
	absent := func(rel ...string) func(t *testing.T, d string) {
		return func(t *testing.T, d string) {
			for _, r := range rel {
				if _, err := os.Stat(filepath.Join(d, r)); err == nil {
					t.Errorf("%s exists, want none", r)
				}
			}
		}
	}
	return []hostileCase{
		// [1] flags after positional arguments, "--"
		{name: "instrument flags after file", args: []string{"instrument", "$D/k.ptx", "-o", "$D/o1.ptx", "--mode", "fence", "--no-ptxas"}, code: 0, after: exists("o1.ptx", "o1.probes.json")},
		{name: "inspect --json after file", args: []string{"inspect", "$D/k.ptx", "--json"}, code: 0, out: true, want: []string{`"file":`}},
		{name: "run flags after file", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "-o", "$D/r2.run"}, code: 0, after: exists("r2.run/summary.json", "r2.run/run.bundle")},
		{name: "export format after run", args: []string{"export", "$D/r.run", "--format", "csv", "-o", "$D/x.csv"}, code: 0, after: exists("x.csv")},
		{name: "report flags after run", args: []string{"report", "$D/r.run", "--top", "2", "--json"}, code: 0, out: true, want: []string{`"kernel"`}},
		{name: "fmt flag after file", args: []string{"fmt", "$D/k.ptx", "--canonical"}, code: 0, out: true, want: []string{".entry vecadd"}},
		{name: "verify flags after file", args: []string{"verify", "$D/ki.ptx", "--sass", "--manifest", "$D/garbage.probes.json"}, code: 1, want: []string{"garbage.probes.json"}},
		{name: "double dash ends flags", args: []string{"inspect", "--", "-weird.ptx"}, code: 1, want: []string{"-weird.ptx", "no such file"}},
		{name: "value flag without value", args: []string{"convert", "--out", "$D/ds0", "$D/r.run", "--to"}, code: 2, want: []string{"flag needs an argument: --to"}},
		{name: "unknown flag after file", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--frobnicate"}, code: 2, want: []string{"frobnicate"}},
		{name: "samples extract -o after name", args: []string{"samples", "extract", "vecadd", "-o", "$D/s"}, code: 0, after: exists("s/vecadd/vecadd.sm_52.ptx", "s/vecadd/launch.yaml")},
		// [2] convert output names
		{name: "convert same base names", args: []string{"convert", "$D/exp1/r.run", "$D/exp2/r.run", "--to", "csv", "--out", "$D/ds2"}, code: 0, want: []string{"2 converted"},
			after: func(t *testing.T, d string) {
				m, _ := filepath.Glob(filepath.Join(d, "ds2", "kernel=vecadd", "run=r.run-*", "part-0.csv"))
				if len(m) != 2 {
					t.Errorf("convert of two runs named r.run wrote %d files, want 2: %v", len(m), m)
				}
			}},
		{name: "convert run given twice", args: []string{"convert", "--to", "csv", "--out", "$D/ds3", "$D/r.run", "$D/../" + "X/../" + "r.run"}, code: 1},
		// [3] manifest against PTX
		{name: "manifest of another PTX", args: []string{"run", "$D/k.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/ki.probes.json", "-o", "$D/r3.run"}, code: 1, want: []string{"instrumentation_id", "does not match the PTX"}, after: absent("r3.run")},
		{name: "naive manifest with auto PTX", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/kn.probes.json", "-o", "$D/r4.run"}, code: 1, want: []string{"kn.probes.json", "does not match"}},
		{name: "params_added index 99", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/idx99.probes.json", "-o", "$D/r5.run"}, code: 1, want: []string{"params_added index 99 is out of range"}},
		{name: "manifest probe ids edited", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/ids.probes.json", "-o", "$D/r18.run"}, code: 1, want: []string{"ids.probes.json", "records probe id 0, which no probe of the manifest has"}, after: absent("r18.run")},
		{name: "manifest capacity edited", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/cap.probes.json", "-o", "$D/r19.run"}, code: 1, want: []string{"records_per_warp 8 does not match the PTX", "64 records per warp"}, after: absent("r19.run")},
		{name: "manifest timer edited", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/timer.probes.json", "-o", "$D/r20.run"}, code: 1, after: absent("r20.run"), want: []string{`timer "globaltimer" does not match the PTX`}},
		{name: "truncated manifest", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "$D/garbage.probes.json"}, code: 1, want: []string{"garbage.probes.json"}},
		// [4] runaway kernels: the watchdog names a spinning warp within seconds
		{name: "spinning warp functional", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml", "--functional", "-o", "$D/r15.run"}, code: 1, want: []string{"warp is spinning", "spin.ptx:1", "block (0,0,0)", "warp 0", "kind runaway"}, after: absent("r15.run"), within: 5 * time.Second},
		{name: "spinning warp timing", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml", "--model", "$D/fast.yaml", "-o", "$D/r16.run"}, code: 1, want: []string{"warp is spinning", "spin.ptx:1", "block (", "warp 0"}, after: absent("r16.run"), within: 5 * time.Second},
		{name: "spinning warp default model", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml"}, code: 1, want: []string{"warp is spinning", "spin.ptx:1"}, after: absent("spin.run"), within: 5 * time.Second},
		{name: "spin check off", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml", "--functional", "--spin-check", "0", "--max-warp-insts", "300000"}, code: 1, want: []string{"more than 300000 instructions", "spin.ptx:1"}},
		{name: "spin check spares a long loop", args: []string{"run", "$D/count.ptx", "--launch", "$D/count.yaml", "--functional", "--spin-check", "50", "-o", "$D/r17.run"}, code: 0, after: func(t *testing.T, d string) {
			// 200000 little-endian: the loop ran to its end
			if b, err := os.ReadFile(filepath.Join(d, "r17.run", "out.bin")); err != nil || string(b) != "\x40\x0d\x03\x00" {
				t.Errorf("out.bin = %q, %v; want 200000", b, err)
			}
		}},
		{name: "watchdog functional", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml", "--functional", "--spin-check", "0", "--timeout", "1s", "-o", "$D/r12.run"}, code: 1, want: []string{"watchdog", "spin.ptx:1", "block (", "warp 0"}, after: absent("r12.run")},
		{name: "watchdog timing", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml", "--model", "$D/fast.yaml", "--spin-check", "0", "--timeout", "1s", "-o", "$D/r13.run"}, code: 1, want: []string{"watchdog", "spin.ptx:1", "block (", "simulated cycle"}, after: absent("r13.run")},
		{name: "instruction budget", args: []string{"run", "$D/spin.ptx", "--launch", "$D/spin.yaml", "--functional", "--max-warp-insts", "100000"}, code: 1, want: []string{"more than 100000 instructions", "spin.ptx:1"}},
		{name: "watchdog spares a finishing run", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--model", "$D/fast.yaml", "--timeout", "60s", "-o", "$D/r14.run"}, code: 0, after: exists("r14.run/run.bundle")},
		// [5] run directories as a whole
		{name: "run into a foreign directory", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "-o", "$D/foreign"}, code: 1, want: []string{"not a run directory"}, after: exists("foreign/thesis.tex")},
		{name: "run into a file", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "-o", "$D/notadir"}, code: 1, want: []string{"not a directory"}},
		{name: "failed re-run keeps the old run", args: []string{"run", "$D/ki.ptx", "--launch", "$D/l_short.yaml", "--functional", "-o", "$D/r.run"}, code: 1, want: []string{"short.bin"}, after: exists("r.run/summary.json", "r.run/run.bundle", "r.run/c.bin")},
		// [6] model specs
		{name: "model l2.sets 1e9", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--model", "$D/m_l2sets.yaml"}, code: 1, want: []string{"l2.sets", "at most"}},
		{name: "model num_sms 1e8", args: []string{"model", "show", "$D/m_sms.yaml"}, code: 1, want: []string{"num_sms", "at most 1024"}},
		{name: "model core_mhz 1e30", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--model", "$D/m_mhz.yaml"}, code: 1, want: []string{"core_mhz"}},
		{name: "model l2.latency 1e12", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--model", "$D/m_lat.yaml"}, code: 1, want: []string{"l2.latency"}},
		{name: "model total state", args: []string{"model", "show", "$D/m_state.yaml"}, code: 1, want: []string{"MiB limit"}},
		{name: "model override named by file", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--model", "$D/fast.yaml", "-o", "$D/r6.run"}, code: 0, want: []string{"on fast.yaml"}},
		{name: "model show /dev/zero", args: []string{"model", "show", "/dev/zero"}, code: 1, want: []string{"/dev/zero", "limit"}},
		// [7] unbounded memory
		{name: "launch /dev/zero", args: []string{"run", "$D/ki.ptx", "--launch", "/dev/zero", "--functional"}, code: 1, want: []string{"/dev/zero", "limit"}},
		{name: "model /dev/zero", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--model", "/dev/zero"}, code: 1, want: []string{"/dev/zero", "limit"}},
		{name: "manifest /dev/zero", args: []string{"run", "$D/ki.ptx", "--launch", "$D/k.yaml", "--functional", "--manifest", "/dev/zero"}, code: 1, want: []string{"/dev/zero", "limit"}},
		{name: "PTX /dev/zero", args: []string{"instrument", "--no-ptxas", "-o", "$D/z.ptx", "/dev/zero"}, code: 1, want: []string{"/dev/zero", "limit"}},
		{name: "init file /dev/zero", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_zero.yaml", "--functional", "-o", "$D/r7.run"}, code: 1, want: []string{"not a regular file"}},
		{name: "init file short", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_short.yaml", "--functional", "-o", "$D/r8.run"}, code: 1, want: []string{"holds 8 bytes, count 256 needs 1024"}},
		// [8] a kernel that cannot run
		{name: "local array over the limit", args: []string{"run", "$D/big.ptx", "--launch", "$D/big.yaml", "--functional", "-o", "$D/r9.run"}, code: 1, want: []string{".local memory per thread exceed"}, after: absent("r9.run")},
		// [9] crashes
		{name: "expression 10^6 parentheses", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_deep.yaml", "--functional", "-o", "$D/r10.run"}, code: 1, want: []string{"limit"}},
		{name: "expression 200 deep", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_nest.yaml", "--functional", "-o", "$D/r11.run"}, code: 1, want: []string{"nested more than"}},
		{name: "grid over 2^31-1", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_grid.yaml", "--functional"}, code: 1, want: []string{"2147483647"}},
		{name: "block over 1024", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_block.yaml", "--functional"}, code: 1, want: []string{"1024"}},
		{name: "YAML anchor bomb", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_bomb.yaml", "--functional"}, code: 1, want: []string{"l_bomb.yaml"}},
		{name: "buffer count 1e11", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_count.yaml", "--functional"}, code: 1, want: []string{"l_count.yaml", "params[0]", "count 100000000000", "2^28 elements"}},
		{name: "texture of 2^48 bytes", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_tex.yaml", "--functional"}, code: 1, want: []string{"textures[0] (vol)", "281474976710656 bytes", "limit"}},
		{name: "generator of 2^31 elements", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_gen.yaml", "--functional"}, code: 1, want: []string{"l_gen.yaml: inputs g (vecadd): argument n = 2147483648 exceeds the limit of 268435456"}},
		{name: "sweep image 1e5", args: []string{"sweep", "plan", "$D/sw_image.yaml", "-o", "$D/p1.jsonl"}, code: 1, want: []string{"image must be 1 … 8192"}, after: absent("p1.jsonl")},
		{name: "sweep 180000 entries", args: []string{"sweep", "plan", "$D/sw_many.yaml", "-o", "$D/p2.jsonl"}, code: 1, want: []string{"180000 entries exceed the limit of 100000"}, after: absent("p2.jsonl")},
		{name: "sweep spec /dev/zero", args: []string{"sweep", "plan", "/dev/zero", "-o", "$D/p3.jsonl"}, code: 1, want: []string{"/dev/zero", "16 MiB limit"}, after: absent("p3.jsonl")},
		{name: "wrong parameter count", args: []string{"run", "$D/k.ptx", "--launch", "$D/l_params.yaml", "--functional"}, code: 1, want: []string{"parameters"}},
		// [10] PTX semantic errors
		{name: "instrument .targett", args: []string{"instrument", "--no-ptxas", "-o", "$D/t1.ptx", "$D/targett.ptx"}, code: 1, want: []string{"targett.ptx:2:1: unknown directive .targett", "missing .target"}, after: absent("t1.ptx", "t1.probes.json")},
		{name: "instrument undefined label", args: []string{"instrument", "--no-ptxas", "-o", "$D/t2.ptx", "$D/nolabel.ptx"}, code: 1, want: []string{"nolabel.ptx:6:6: branch to undefined label $L_missing"}, after: absent("t2.ptx")},
		{name: "run duplicate label", args: []string{"run", "$D/duplabel.ptx", "--launch", "$D/k.yaml", "--functional"}, code: 1, want: []string{"duplabel.ptx:8:1: duplicate label L1"}},
		{name: "syntax error", args: []string{"inspect", "$D/syntax.ptx"}, code: 1, want: []string{"syntax.ptx:"}},
		{name: "instrument unterminated comment", args: []string{"instrument", "--no-ptxas", "-o", "$D/t3.ptx", "$D/unterm.ptx"}, code: 1, want: []string{"unterm.ptx:8:22: comment not terminated"}, after: absent("t3.ptx", "t3.probes.json"), within: 5 * time.Second},
		// [11] small gaps
		{name: "instrument over its input", args: []string{"instrument", "--no-ptxas", "-o", "$D/k.ptx", "$D/k.ptx"}, code: 2, want: []string{"pass -w"}},
		{name: "export unreachable OTLP", args: []string{"export", "$D/r.run", "--format", "otlp-grpc", "--endpoint", "127.0.0.1:9", "--timeout", "300ms"}, code: 1, want: []string{"127.0.0.1:9"}},
		{name: "export into an unwritable place", args: []string{"export", "$D/r.run", "--format", "csv", "-o", "$D/notadir/x.csv"}, code: 1, want: []string{"notadir"}},
		// more of our own
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, want: []string{"unknown command"}},
		{name: "run without PTX", args: []string{"run", "--launch", "$D/k.yaml"}, code: 2, want: []string{"expected one PTX file"}},
		{name: "report missing run", args: []string{"report", "$D/nope.run"}, code: 1, want: []string{"nope.run"}},
		{name: "export corrupt bundle", args: []string{"export", "$D/corrupt.bundle"}, code: 1, want: []string{"corrupt.bundle"}},
		{name: "convert corrupt bundle", args: []string{"convert", "--to", "csv", "--out", "$D/ds4", "$D/corrupt.bundle"}, code: 1, want: []string{"corrupt.bundle", "1 failed"}},
		// polling loops: memory nobody writes any more is proven, within
		// seconds, at the polling load's line; a flag another warp or CTA
		// sets after a delay loop is waited for
		{name: "spinning warp polls a global flag functional", args: []string{"run", "$D/poll.ptx", "--launch", "$D/poll.yaml", "--functional", "-o", "$D/p1.run"}, code: 1, want: []string{"polls memory that nothing can change", "poll.ptx:1", "block (0,0,0)", "kind runaway"}, after: absent("p1.run"), within: 5 * time.Second},
		{name: "spinning warp polls a global flag timing", args: []string{"run", "$D/poll.ptx", "--launch", "$D/poll.yaml", "--model", "$D/fast.yaml", "-o", "$D/p2.run"}, code: 1, want: []string{"polls memory that nothing can change", "poll.ptx:1", "other 1 CTAs of the grid"}, after: absent("p2.run"), within: 5 * time.Second},
		{name: "spinning warp polls with atomics", args: []string{"run", "$D/apoll.ptx", "--launch", "$D/apoll.yaml", "--model", "$D/fast.yaml"}, code: 1, want: []string{"polls memory that nothing can change", "apoll.ptx:1"}, within: 5 * time.Second},
		{name: "spinning warp polls a shared flag", args: []string{"run", "$D/shpoll.ptx", "--launch", "$D/shpoll.yaml", "--functional"}, code: 1, want: []string{"polls memory that nothing can change", "shpoll.ptx:1"}, within: 5 * time.Second},
		{name: "polling spares a flag set by another warp functional", args: []string{"run", "$D/handoff.ptx", "--launch", "$D/handoff.yaml", "--functional", "--spin-check", "50", "-o", "$D/p3.run"}, code: 0, after: outWords("p3.run", 7, 1)},
		{name: "polling spares a flag set by another warp timing", args: []string{"run", "$D/handoff.ptx", "--launch", "$D/handoff.yaml", "--model", "$D/fast.yaml", "--spin-check", "50", "-o", "$D/p4.run"}, code: 0, after: outWords("p4.run", 7, 1)},
		{name: "polling spares a flag set by another CTA timing", args: []string{"run", "$D/xhandoff.ptx", "--launch", "$D/xhandoff.yaml", "--model", "$D/fast.yaml", "--spin-check", "50", "-o", "$D/p5.run"}, code: 0, after: outWords("p5.run", 7, 1)},
		// functional execution never shows CTA 0 what CTA 1 writes: it says so
		{name: "polling for another CTA functional", args: []string{"run", "$D/xhandoff.ptx", "--launch", "$D/xhandoff.yaml", "--functional", "-o", "$D/p6.run"}, code: 1, want: []string{"polls memory", "xhandoff.ptx:2", "timing model"}, after: absent("p6.run"), within: 5 * time.Second},
	}
}

// TestHostile runs the hostile-input suite.
func TestHostile(t *testing.T) {
	d := hostileFixture(t)
	cases := hostileCases()
	if len(cases) < 40 {
		t.Fatalf("%d cases, want at least 40", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "$D", d)
			}
			start := time.Now()
			r := runCLI(t, "", args...)
			limit := tc.within
			if limit == 0 {
				limit = 20 * time.Second
			}
			if el := time.Since(start); el > limit {
				t.Errorf("took %v, want at most %v", el, limit)
			}
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, tc.code, truncate(r.stderr))
			}
			got := r.stderr
			if tc.out {
				got = r.stdout
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, truncate(got))
				}
			}
			if strings.Contains(r.stderr, ".atomicfile-") || strings.Contains(r.stderr, ".new-") {
				t.Errorf("message leaks a temporary file name:\n%s", truncate(r.stderr))
			}
			if strings.Contains(r.stderr, "internal error") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("crash report on stderr:\n%s", truncate(r.stderr))
			}
			if tc.after != nil {
				tc.after(t, d)
			}
			filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
				if err == nil && (strings.Contains(fi.Name(), ".new-") || strings.Contains(fi.Name(), ".old-") || strings.Contains(fi.Name(), ".atomicfile-")) {
					t.Errorf("temporary file left behind: %s", p)
				}
				return nil
			})
		})
	}
}

func truncate(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// TestRunProgress: the progress line appears after the delay on a terminal
// only; a buffer (as in tests, pipes, files) is no terminal.
func TestRunProgress(t *testing.T) {
	var b strings.Builder
	if isTerminal(&b) {
		t.Fatal("a strings.Builder is a terminal")
	}
	if f, err := os.CreateTemp(t.TempDir(), "x"); err == nil {
		if isTerminal(f) {
			t.Error("a regular file is a terminal")
		}
		f.Close()
	}
	p := newRunProgress(&b, "k", time.Now().Add(-3*time.Second), true)
	p.cycles(5_000_000, 3, 8)
	p.finish()
	if got := b.String(); !strings.Contains(got, "\rrun k: cycle 5000000, 3/8 CTAs started") || !strings.HasSuffix(got, "\n") {
		t.Errorf("progress line = %q", got)
	}
	b.Reset()
	p = newRunProgress(&b, "k", time.Now(), true)
	p.ctas(1, 8)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("progress before 2 s: %q", b.String())
	}
	p = newRunProgress(&b, "k", time.Now().Add(-3*time.Second), false)
	p.ctas(1, 8)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("disabled progress printed %q", b.String())
	}
}

// outWords checks the little-endian u32 words of out.bin in run directory
// run.
func outWords(run string, words ...uint32) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		b, err := os.ReadFile(filepath.Join(d, run, "out.bin"))
		want := make([]byte, 4*len(words))
		for i, w := range words {
			want[4*i], want[4*i+1], want[4*i+2], want[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		}
		if err != nil || string(b) != string(want) {
			t.Errorf("out.bin = %q, %v; want %q", b, err, want)
		}
	}
}
