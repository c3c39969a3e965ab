package heldout

import (
	"bytes"
	"context"
	"go/token"
	"io/fs"
	"strings"
	"testing"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/launch"
	"github.com/ptxtrace/ptxtrace/manifest"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/ptx"
	"github.com/ptxtrace/ptxtrace/replay"
)

func loadSpec(t *testing.T, k Kernel) *launch.Spec {
	t.Helper()
	b, err := fs.ReadFile(FS(), k.Spec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := launch.ParseSpec(b)
	if err != nil {
		t.Fatalf("%s: %v", k.Spec, err)
	}
	return s
}

func parse(t *testing.T, name string, src []byte) (*token.FileSet, *ptx.File) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := ptx.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f
}

func prepare(t *testing.T, name string, src []byte, spec *launch.Spec, man *manifest.Manifest, ms *model.Spec) *launch.Prepared {
	t.Helper()
	_, f := parse(t, name, src)
	prog, err := replay.NewProgram(f)
	if err != nil {
		t.Fatal(err)
	}
	o := launch.PrepareOptions{Manifest: man, Registry: Registry()}
	if ms != nil {
		o.NumSMs = ms.NumSMs
	}
	prep, err := spec.Prepare(prog, o)
	if err != nil {
		t.Fatal(err)
	}
	return prep
}

// fits reports whether the prepared (single-launch) kernel's CTA fits the
// model's shared memory.
func fits(t *testing.T, name string, src []byte, spec *launch.Spec, man *manifest.Manifest, ms *model.Spec) bool {
	need := prepare(t, name, src, spec, man, ms).Kernel.SharedPerCTA()
	split, _ := ms.ForShared(need) // the carveout the runtime would pick
	return need <= split.Shared.Bytes
}

// run replays spec on src (functional when ms is nil), checks every
// output against the references and returns the outputs by buffer name.
func run(t *testing.T, name string, src []byte, spec *launch.Spec, man *manifest.Manifest, ms *model.Spec) map[string][]byte {
	t.Helper()
	prep := prepare(t, name, src, spec, man, ms)
	if _, err := prep.Run(context.Background(), launch.ExecOptions{Model: ms}); err != nil {
		t.Fatal(err)
	}
	rs := prep.Check(Registry(), "")
	if len(rs) == 0 {
		t.Errorf("%s: no checks", name)
	}
	for _, r := range rs {
		if !r.OK {
			t.Errorf("%s: check %s: %s", name, r.Buffer, r.Msg)
		}
	}
	out := map[string][]byte{}
	for _, b := range prep.Buffers {
		if b.Output {
			out[b.Name] = append([]byte(nil), b.Alloc.Data...)
		}
	}
	return out
}

func sameOutputs(t *testing.T, what string, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d outputs, want %d", what, len(b), len(a))
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			t.Errorf("%s: output %s differs", what, k)
		}
	}
}

// TestHeldout replays every PTX of every held-out kernel functionally and
// on the gtx480 model, original and instrumented in auto mode: every run
// passes the independent references and all four give the same bytes.
// scan's CTA (24 KB of shared memory) runs with gtx480's 48 KB shared /
// 16 KB L1 carveout. Exceptions, logged: a CTA that fits no split of
// gtx480 runs on rtx3080; where auto staging put the
// trace slots in shared memory the preset lacks (instrument sizes staging
// for the PTX's target), the kernel is instrumented with global staging.
func TestHeldout(t *testing.T) {
	ks := List()
	if len(ks) < 10 {
		t.Fatalf("%d held-out kernels, want at least 10", len(ks))
	}
	gtx480, _ := model.Preset("gtx480")
	rtx3080, _ := model.Preset("rtx3080")
	for _, k := range ks {
		for _, p := range k.PTX {
			t.Run(strings.TrimSuffix(p[len(k.Name)+1:], ".ptx"), func(t *testing.T) {
				src, err := fs.ReadFile(FS(), p)
				if err != nil {
					t.Fatal(err)
				}
				spec := loadSpec(t, k)
				fset, f := parse(t, p, src)
				res, err := instrument.Instrument(fset, f, instrument.Options{Mode: "auto", Output: p})
				if err != nil {
					t.Fatalf("instrument: %v", err)
				}
				ms := &gtx480
				if !fits(t, p, src, spec, nil, ms) {
					t.Logf("the CTA fits no shared-memory split of gtx480: timing on rtx3080")
					ms = &rtx3080
				}
				if !fits(t, p, res.PTX, spec, res.Manifest, ms) {
					t.Logf("auto staging (%s) does not fit %s: global staging", res.Manifest.Kernels[0].Staging.Where, ms.Name)
					fset, f = parse(t, p, src)
					if res, err = instrument.Instrument(fset, f, instrument.Options{Mode: "auto", Staging: "global", Output: p}); err != nil {
						t.Fatalf("instrument: %v", err)
					}
				}
				want := run(t, p, src, spec, nil, nil)
				sameOutputs(t, "timing", want, run(t, p, src, spec, nil, ms))
				sameOutputs(t, "instrumented, functional", want, run(t, p, res.PTX, spec, res.Manifest, nil))
				sameOutputs(t, "instrumented, timing", want, run(t, p, res.PTX, spec, res.Manifest, ms))
			})
		}
	}
}

// TestVerifiersDetect: every check of every held-out spec fails when one
// element of the checked buffer is changed (the references can fail).
func TestVerifiersDetect(t *testing.T) {
	reg := Registry()
	for _, k := range List() {
		p, _ := k.PTXFor("sm_52")
		src, err := fs.ReadFile(FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		spec := loadSpec(t, k)
		prep := prepare(t, p, src, spec, nil, nil)
		if _, err := prep.Run(context.Background(), launch.ExecOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range spec.Checks {
			v := reg.Verify[c.Reference]
			if v == nil {
				t.Fatalf("%s: no verifier %q", k.Name, c.Reference)
			}
			got := append([]byte(nil), prep.Buffer(c.Buffer).Alloc.Data...)
			if err := v(prep.RefInput(), got); err != nil {
				t.Errorf("%s: %s: %v", k.Name, c.Reference, err)
			}
			got[len(got)/2&^3+1] ^= 0x40 // an element in the middle, bit 14
			if err := v(prep.RefInput(), got); err == nil {
				t.Errorf("%s: %s accepts a changed element", k.Name, c.Reference)
			}
		}
	}
}
