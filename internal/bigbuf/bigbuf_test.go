package bigbuf

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

func TestBytes(t *testing.T) {
	for _, n := range []int{0, 1, 4095, MinBytes - 1, MinBytes, MinBytes + 1, 3*HugePage + 12345} {
		b := Bytes(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Bytes(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("Bytes(%d)[%d] = %d, want 0", n, i, v)
			}
		}
		if n >= MinBytes {
			if a := uintptr(unsafe.Pointer(&b[0])) % HugePage; a != 0 {
				t.Errorf("Bytes(%d) starts %d bytes past a huge page boundary", n, a)
			}
		}
		for i := range b {
			b[i] = byte(i)
		}
		if n > 0 && b[n-1] != byte(n-1) {
			t.Errorf("Bytes(%d): last byte not written", n)
		}
	}
	if b := Bytes(-3); len(b) != 0 {
		t.Errorf("Bytes(-3) has length %d", len(b))
	}
}

func TestSlice(t *testing.T) {
	for _, n := range []int{0, 7, MinBytes/4 - 1, MinBytes / 4, MinBytes/4 + 3} {
		f := Slice[float32](n)
		if len(f) != n || cap(f) != n {
			t.Fatalf("Slice[float32](%d): len %d cap %d", n, len(f), cap(f))
		}
		for i := range f {
			if f[i] != 0 {
				t.Fatalf("Slice[float32](%d)[%d] = %v", n, i, f[i])
			}
			f[i] = float32(i)
		}
		if n > 0 && f[n-1] != float32(n-1) {
			t.Errorf("Slice[float32](%d): last element not written", n)
		}
	}
	d := Slice[float64](MinBytes / 8)
	if a := uintptr(unsafe.Pointer(&d[0])) % HugePage; a != 0 {
		t.Errorf("Slice[float64] starts %d bytes past a huge page boundary", a)
	}
}

// TestAdvised reads the kernel's flags of the mapping holding a large
// buffer: on Linux with transparent huge pages available it carries "hg"
// (VM_HUGEPAGE, set by the advice).
func TestAdvised(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the huge page advice is Linux only")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("transparent huge pages are not available")
	}
	b := Bytes(MinBytes)
	addr := uintptr(unsafe.Pointer(&b[0]))
	flags, err := vmFlags(addr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("mapping of %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", addr, flags)
	}
	runtime.KeepAlive(b)
}

// vmFlags returns the VmFlags line of the /proc/self/smaps mapping that
// contains addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") && !strings.Contains(strings.Fields(line)[0], ":") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping contains %#x", addr)
}
