package sweep

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseShard: no panic; an accepted shard prints back to its input's
// value and satisfies 0 ≤ I < N.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/7", "7/7", "-1/2", "a/b", "1/0", "999/1000", "0/9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.I < 0 || sh.I >= sh.N {
			t.Fatalf("%q gave %v", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("%q: %v does not round-trip", s, sh)
		}
	})
}

// FuzzReadPlan: no panic; an accepted plan writes back to a plan that
// reads the same.
func FuzzReadPlan(f *testing.F) {
	p, err := MakePlan(smallSpec(), testTool)
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	p.Write(&b)
	f.Add(b.Bytes())
	f.Add([]byte(`{"plan":1,"tool":"t","entries":0}` + "\n"))
	f.Add([]byte("{}\n{}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "plan.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		q, err := ReadPlan(path)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := q.Write(&out); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, out.Bytes(), 0o644)
		r, err := ReadPlan(path)
		if err != nil {
			t.Fatalf("a plan read and written back fails: %v", err)
		}
		var again bytes.Buffer
		r.Write(&again)
		if again.String() != out.String() {
			t.Fatal("the plan changed on a round trip")
		}
	})
}

// BenchmarkMakePlan expands a 40×25×3 = 3000-entry vr spec.
func BenchmarkMakePlan(b *testing.B) {
	s := &Spec{VR: &VRSpec{Image: 16, Volume: 8}}
	for a := range 40 {
		s.VR.Views = append(s.VR.Views, fmt.Sprintf("%d,0,0", a))
	}
	for x := 1; x <= 25; x++ {
		s.VR.Blocks = append(s.VR.Blocks, fmt.Sprintf("%dx4", x))
	}
	for b.Loop() {
		if _, err := MakePlan(s, testTool); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadPlan reads a 3000-entry plan back (ids re-checked).
func BenchmarkReadPlan(b *testing.B) {
	s := &Spec{VR: &VRSpec{Image: 16, Volume: 8}}
	for a := range 40 {
		s.VR.Views = append(s.VR.Views, fmt.Sprintf("%d,0,0", a))
	}
	for x := 1; x <= 25; x++ {
		s.VR.Blocks = append(s.VR.Blocks, fmt.Sprintf("%dx4", x))
	}
	p, err := MakePlan(s, testTool)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "plan.jsonl")
	var buf bytes.Buffer
	p.Write(&buf)
	os.WriteFile(path, buf.Bytes(), 0o644)
	for b.Loop() {
		if _, err := ReadPlan(path); err != nil {
			b.Fatal(err)
		}
	}
}
