package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExprLimits: deep nesting and long expressions are refused with a
// message, quickly and without exhausting the stack.
func TestExprLimits(t *testing.T) {
	p := &Prepared{}
	for _, tc := range []struct{ src, want string }{
		{strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000), "longer than the 4096-byte limit"},
		{strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), "nested more than 64 deep"},
		{strings.Repeat("-", 1000) + "1", "nested more than 64 deep"},
		{strings.Repeat("(", 60) + "7" + strings.Repeat(")", 60), ""},
	} {
		start := time.Now()
		v, err := p.eval(tc.src)
		if d := time.Since(start); d > time.Second {
			t.Errorf("eval of %d bytes took %v", len(tc.src), d)
		}
		if tc.want == "" {
			if err != nil || v.int() != 7 {
				t.Errorf("eval of 60 nested parentheses = %v, %v; want 7", v, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("eval of %d bytes: err = %v, want %q", len(tc.src), err, tc.want)
		}
	}
}

// TestGridLimitMessage: a grid dimension over 2^31-1 is reported as too
// large, not as "must be positive".
func TestGridLimitMessage(t *testing.T) {
	_, err := ParseSpec([]byte("kernel: k\ngrid: [2147483648]\nblock: [32]\n"))
	if err == nil || strings.Contains(err.Error(), "positive") || !strings.Contains(err.Error(), "2147483647") {
		t.Errorf("grid 2^31: err = %v, want one naming the limit 2147483647", err)
	}
}

// TestReadInitFile: exactly count elements are read; short and
// non-regular files are errors.
func TestReadInitFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "in.bin")
	os.WriteFile(p, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0o644)
	b, err := readInitFile(p, 2, 4)
	if err != nil || len(b) != 8 || b[7] != 8 {
		t.Errorf("count 2 of 4 bytes: %v, %v; want the first 8 bytes", b, err)
	}
	if _, err := readInitFile(p, 3, 4); err == nil || !strings.Contains(err.Error(), "holds 10 bytes, count 3 needs 12") {
		t.Errorf("short file: err = %v", err)
	}
	if _, err := readInitFile(p, 0, 4); err == nil || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("no count, 10 bytes of u32: err = %v", err)
	}
	if _, err := readInitFile("/dev/zero", 4, 4); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: err = %v", err)
	}
	if _, err := readInitFile(dir, 4, 4); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: err = %v", err)
	}
}

// FuzzEval: the expression evaluator never panics or recurses without
// bound, whatever the text.
func FuzzEval(f *testing.F) {
	for _, s := range []string{"1+2*3", "n/16 - 1", "((((1))))", "-(-(-1))", "!0 && 1 || 2", "1 <= 2", "g.n", "1/0", "2.5*4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p := &Prepared{}
		p.eval(src)
	})
}

// TestBufferBytesLimit: the buffers' total size is checked before each is
// allocated; the error names the buffer, its size and the limit.
func TestBufferBytesLimit(t *testing.T) {
	prog := loadPTX(t, "../samples/vecadd/vecadd.sm_52.ptx")
	spec, err := ParseSpec([]byte(`kernel: vecadd
grid: [1]
block: [32]
params:
  - {name: a, buffer: {type: f32, count: 256}}
  - {name: b, buffer: {type: f32, count: 256}}
  - {name: c, buffer: {type: f64, count: 256, output: true}}
  - {name: n, value: 256}
`))
	if err != nil {
		t.Fatal(err)
	}
	// a and b take 1024 bytes each, c 2048: 4096 in all
	if _, err := spec.Prepare(prog, PrepareOptions{MaxBufferBytes: 4096}); err != nil {
		t.Errorf("4096 bytes within a 4096-byte limit: %v", err)
	}
	_, err = spec.Prepare(prog, PrepareOptions{MaxBufferBytes: 4095})
	if want := "params[2] (c): 2048 bytes, with the 2048 bytes of the buffers and textures before it, exceed the 4095-byte limit"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}
