package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/trace"
)

func TestTransferCommand(t *testing.T) {
	r := runCLI(t, "", "transfer", "--csv", "--min", "8", "--max", "1KB")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// header + 2 directions × 13 series × 8 sizes (8 B … 1 KB)
	if n := strings.Count(r.stdout, "\n"); n != 1+2*13*8 {
		t.Errorf("%d CSV lines, want %d", n, 1+2*13*8)
	}
	svg := filepath.Join(t.TempDir(), "t.svg")
	r = runCLI(t, "", "transfer", "--model", "h100", "--recommend", "--svg", svg)
	if r.code != exitOK || !strings.Contains(r.stdout, "recommendation per size band") {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") {
		t.Errorf("svg: %v", err)
	}
	r = runCLI(t, "", "transfer")
	if r.code != exitOK || !strings.Contains(r.stdout, "d2h single at 256B") {
		t.Errorf("default table: exit %d, %s", r.code, r.stderr)
	}
}

// TestTransferGPURefused: --gpu exits 1 saying no GPU backend exists.
func TestTransferGPURefused(t *testing.T) {
	r := runCLI(t, "", "transfer", "--gpu")
	if r.code != exitError || !strings.Contains(r.stderr, "no GPU backend is available") || r.stdout != "" {
		t.Errorf("--gpu: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestTransferCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"transfer", "--model", "gtx999"},
		{"transfer", "--min", "0"},
		{"transfer", "--min", "1MB", "--max", "1KB"},
		{"transfer", "--csv", "--recommend"},
		{"transfer", "extra"},
	} {
		if r := runCLI(t, "", args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stderr)
		}
	}
}

// TestRunTransfersEndToEnd: an instrumented vecadd run with transfers
// writes them to summary.json and the bundle (the same values), the
// outputs equal a run without transfers, and every timeline export
// (perfetto, chrome, clog2, otlp) carries one span per transfer on the
// copy engine track.
func TestRunTransfersEndToEnd(t *testing.T) {
	dir := t.TempDir()
	inst := filepath.Join(dir, "vecadd.ptx")
	if r := runCLI(t, "", "instrument", "--mode", "auto", "--no-ptxas", "-o", inst, "../../samples/vecadd/vecadd.sm_52.ptx"); r.code != 0 {
		t.Fatalf("instrument: %s", r.stderr)
	}
	base := `inputs:
  - {name: g, generator: vecadd, args: {n: 2000, seed: 3}}
kernel: vecadd
grid: [8]
block: [256]
params:
  - {name: a, buffer: {type: f32, init: {from: g.a}}}
  - {name: b, buffer: {type: f32, init: {from: g.b}}}
  - {name: c, buffer: {type: f32, count: 2000, output: true}}
  - {name: n, value: g.n}
checks:
  - {buffer: c, reference: vecadd}
`
	xfer := base + `transfers:
  - {buffer: a, dir: in, method: iorw}
  - {buffer: b, dir: in}
  - {buffer: c, dir: out, method: auto}
`
	outs := map[string][]byte{}
	for name, spec := range map[string]string{"plain": base, "xfer": xfer} {
		p := filepath.Join(dir, name+".yaml")
		os.WriteFile(p, []byte(spec), 0o644)
		if r := runCLI(t, "", "run", "--launch", p, "-o", filepath.Join(dir, name), inst); r.code != 0 {
			t.Fatalf("run %s: %s", name, r.stderr)
		}
		outs[name], _ = os.ReadFile(filepath.Join(dir, name, "c.bin"))
	}
	mf := filepath.Join(dir, "m.yaml")
	os.WriteFile(mf, []byte("base: gtx480\nnum_sms: 4\n"), 0o644)
	if r := runCLI(t, "", "run", "--launch", filepath.Join(dir, "xfer.yaml"), "--model", mf, "-o", filepath.Join(dir, "m"), inst); r.code != exitError || !strings.Contains(r.stderr, "no transfer parameters") {
		t.Errorf("transfers on a model file: exit %d, %s", r.code, r.stderr)
	}
	if len(outs["plain"]) != 8000 || !bytes.Equal(outs["plain"], outs["xfer"]) {
		t.Fatalf("output c differs with transfers (%d vs %d bytes)", len(outs["plain"]), len(outs["xfer"]))
	}
	js, _ := os.ReadFile(filepath.Join(dir, "xfer", "summary.json"))
	var sum struct {
		TransferPs int64 `json:"transfer_ps"`
		Launches   []struct {
			Transfers []trace.Transfer `json:"transfers"`
		} `json:"launches"`
	}
	if err := json.Unmarshal(js, &sum); err != nil || len(sum.Launches) != 1 {
		t.Fatalf("summary: %v %s", err, js)
	}
	xs := sum.Launches[0].Transfers
	if len(xs) != 3 || xs[0].Method != "iorw" || xs[0].Bytes != 8000 || xs[2].Dir != "d2h" {
		t.Fatalf("summary transfers %+v", xs)
	}
	var total int64
	for _, x := range xs {
		total += x.EndPs - x.StartPs
	}
	if total != sum.TransferPs {
		t.Errorf("transfer_ps %d, transfers sum to %d", sum.TransferPs, total)
	}
	// gtx480: 8000 B by IORW h2d = API 1000 + ⌈8000/64⌉·16 + flush 1000 ns.
	if d := xs[0].EndPs - xs[0].StartPs; d != (1000+125*16+1000)*1000 {
		t.Errorf("iorw 8000 B: %d ps, want 4000 ns", d)
	}
	b, err := trace.OpenBundleFile(filepath.Join(dir, "xfer"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.Meta.Transfers) != 3 || b.Meta.Transfers[1] != xs[1] {
		t.Errorf("bundle transfers %+v, summary %+v", b.Meta.Transfers, xs)
	}
	for _, f := range []struct{ format, want string }{
		{"chrome", `"cat":"transfer"`}, {"perfetto", "copy engine"}, {"clog2", "h2d transfer"}, {"otlp", `"copy engine"`},
	} {
		out := filepath.Join(dir, "x."+f.format)
		args := []string{"export", "-f", f.format, "-o", out}
		if f.format == "otlp" {
			args = append(args, "--base-time", "2026-01-02T15:04:05Z")
		}
		if r := runCLI(t, "", append(args, filepath.Join(dir, "xfer"))...); r.code != 0 {
			t.Fatalf("export %s: %s", f.format, r.stderr)
		}
		data, _ := os.ReadFile(out)
		if n := bytes.Count(data, []byte(f.want)); n == 0 {
			t.Errorf("export %s: no %q", f.format, f.want)
		}
		for _, x := range xs {
			if f.format != "clog2" && !bytes.Contains(data, []byte(trace.TransferName(&x))) {
				t.Errorf("export %s: no span %q", f.format, trace.TransferName(&x))
			}
		}
	}
}

// TestTransferDocCommands: every command line of docs/transfer.md runs
// with exit status 0 (--gpu: 1, as documented), and the chart in docs/img is what the documented
// command writes today.
func TestTransferDocCommands(t *testing.T) {
	lines := docCommandLines(t, "../../docs/transfer.md")
	if len(lines) < 4 {
		t.Fatalf("%d command lines in docs/transfer.md", len(lines))
	}
	want, err := os.ReadFile("../../docs/img/transfer-gtx480.svg")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	os.MkdirAll(filepath.Join("docs", "img"), 0o755)
	for _, l := range lines {
		args := docConcrete(l)
		code := exitOK
		if strings.Contains(l, "--gpu") {
			code = exitError
		}
		if r := runCLI(t, "", args[1:]...); r.code != code {
			t.Errorf("%q: exit %d: %s", l, r.code, r.stderr)
		}
	}
	got, err := os.ReadFile(filepath.Join("docs", "img", "transfer-gtx480.svg"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("docs/img/transfer-gtx480.svg is stale (rerun the documented command): %v", err)
	}
}
