package replay

import (
	"slices"
	"testing"
)

// TestEntryTemplate: warps whose entry frame starts from the kernel's
// register template (immediates, a module global's address, a .local
// array's frame address, then the special registers per warp) start with
// exactly the registers of the register-by-register initialisation, for
// every warp of two CTAs (the last warp partial); with the partial copy
// (entryCopy), the registers it copies and the specials it fills are
// those of the full initialisation (the movs from specials compute them
// themselves: execMovSpecial, so only %laneid, read by an add, is filled).
func TestEntryTemplate(t *testing.T) {
	src := `.version 8.5
.target sm_90
.address_size 64
.global .align 4 .b32 g[4];
.visible .entry k(.param .u64 p)
{
	.local .align 4 .b8 loc[16];
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %laneid;
	mov.u64 %rd1, g;
	mov.u64 %rd2, loc;
	add.s32 %r5, %r1, 12345;
	add.s64 %rd3, %rd1, 77;
	add.s32 %r6, %laneid, 1;
	ret;
}
`
	code := lowerK(t, "t.ptx", src)
	mk := func(template, part bool) *Kernel {
		k, err := NewKernel(Launch{Code: code, Grid: [3]int{2, 1, 1}, Block: [3]int{80, 1, 1}, Params: make([]byte, code.ParamSize), Dev: NewDeviceFor(code.Prog)})
		if err != nil {
			t.Fatal(err)
		}
		if !template {
			k.entryRegs = nil
		}
		k.entryPart = k.entryPart && part
		return k
	}
	kr := mk(false, false)
	for _, part := range []bool{false, true} {
		kt := mk(true, part)
		if kt.entryRegs == nil || kt.entryPart != part {
			t.Fatalf("no entry template (partial %v) for a small kernel", part)
		}
		kt.l.Globals = kr.l.Globals // the same module addresses
		var regs []int32            // the registers to compare
		if part {
			for _, r := range kt.entryRuns {
				for o := r[0]; o < r[1]; o += 32 {
					regs = append(regs, o)
				}
			}
			for _, ri := range kt.entryFill {
				regs = append(regs, ri.reg)
			}
			if len(kt.entryFill) != 1 || special(kt.entryFill[0].idx) != srLaneid {
				t.Errorf("specials filled %+v, want %%laneid alone", kt.entryFill)
			}
		}
		compareEntry(t, kt, kr, regs)
	}
}

// compareEntry compares the entry registers of the warps of two CTAs of
// kt and kr: all of them, or those at offsets regs when not nil.
func compareEntry(t *testing.T, kt, kr *Kernel, regs []int32) {
	t.Helper()
	for cta := 0; cta < 2; cta++ {
		ct, err := kt.NewCTA(cta, 0)
		if err != nil {
			t.Fatal(err)
		}
		cr, err := kr.NewCTA(cta, 0)
		if err != nil {
			t.Fatal(err)
		}
		ct.Warps() // (the model builds a CTA's warps when it starts it)
		cr.Warps()
		wt, wr := ct.(*CTA).warps, cr.(*CTA).warps
		if len(wt) != 3 || len(wr) != 3 {
			t.Fatalf("CTA %d: %d and %d warps, want 3", cta, len(wt), len(wr))
		}
		for i := range wt {
			if regs == nil && !slices.Equal(wt[i].regs, wr[i].regs) {
				t.Errorf("CTA %d warp %d: template registers\n%v\nwant\n%v", cta, i, wt[i].regs, wr[i].regs)
			}
			for _, o := range regs {
				if g, w := wt[i].regs[o:o+32], wr[i].regs[o:o+32]; !slices.Equal(g, w) {
					t.Errorf("CTA %d warp %d: register at %d\n%v\nwant\n%v", cta, i, o, g, w)
				}
			}
		}
	}
}
