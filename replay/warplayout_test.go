package replay

import (
	"testing"
	"unsafe"
)

// TestWarpLayout checks what the warp struct's field order is for: the
// fields every instruction touches lie in its first six host cache lines,
// and a warp is a whole number of lines (so that those six lines are the
// same in every warp of a slab).
func TestWarpLayout(t *testing.T) {
	var w warp
	if s := unsafe.Sizeof(w); s%64 != 0 {
		t.Errorf("warp is %d bytes, not a multiple of 64", s)
	}
	hot := []struct {
		name     string
		off, len uintptr
	}{
		{"c", unsafe.Offsetof(w.c), unsafe.Sizeof(w.c)},
		{"k", unsafe.Offsetof(w.k), unsafe.Sizeof(w.k)},
		{"frames", unsafe.Offsetof(w.frames), unsafe.Sizeof(w.frames)},
		{"regs", unsafe.Offsetof(w.regs), unsafe.Sizeof(w.regs)},
		{"icount", unsafe.Offsetof(w.icount), unsafe.Sizeof(w.icount)},
		{"spinAt", unsafe.Offsetof(w.spinAt), unsafe.Sizeof(w.spinAt)},
		{"fault", unsafe.Offsetof(w.fault), unsafe.Sizeof(w.fault)},
		{"clk", unsafe.Offsetof(w.clk), unsafe.Sizeof(w.clk)},
		{"exited", unsafe.Offsetof(w.exited), unsafe.Sizeof(w.exited)},
		{"cur", unsafe.Offsetof(w.cur), unsafe.Sizeof(w.cur)},
		{"done", unsafe.Offsetof(w.done), unsafe.Sizeof(w.done)},
		{"redPend", unsafe.Offsetof(w.redPend), unsafe.Sizeof(w.redPend)},
		{"frame0", unsafe.Offsetof(w.frame0), unsafe.Sizeof(w.frame0)},
		{"eff", unsafe.Offsetof(w.eff), unsafe.Sizeof(w.eff)},
		{"stack0[0]", unsafe.Offsetof(w.stack0), unsafe.Sizeof(w.stack0[0])},
	}
	for _, f := range hot {
		if f.off+f.len > 6*64 {
			t.Errorf("hot field %s at bytes [%d, %d) is beyond the first six cache lines", f.name, f.off, f.off+f.len)
		}
	}
}
