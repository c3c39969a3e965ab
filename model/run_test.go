package model

import (
	"context"
	"reflect"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// vecAdd is a vector-add-like stream of 22 instructions per thread (the
// shape of c[i] = a[i] + b[i] compiled for sm_20: parameter loads, index
// arithmetic, bounds check, two loads, an add, a store).
func vecAdd(n, block int, concurrent bool) *fakeKernel {
	const (
		aBase = 0x1000_0000
		bBase = 0x2000_0000
		cBase = 0x3000_0000
	)
	idx := func(cta, w, l int) uint64 { return uint64(cta*block + w*WarpSize + l) }
	param := func(off uint64) func(int, int, int) uint64 { return same(off) }
	ldg := func(dst Reg, src Reg) *Inst { return ld(SpaceGlobal, dst, src) }
	prog := []step{
		{in: ld(SpaceParam, 1), addr: param(0)},
		{in: ld(SpaceParam, 2), addr: param(8)},
		{in: ld(SpaceParam, 3), addr: param(16)},
		{in: ld(SpaceParam, 4), addr: param(24)},
		{in: alu(ClassInt, regs(5))},
		{in: alu(ClassInt, regs(6))},
		{in: alu(ClassInt, regs(7))},
		{in: alu(ClassInt, regs(8), 5, 6, 7)},
		{in: alu(ClassInt, regs(20), 8, 4)},
		{in: &Inst{Class: ClassBranch, Src: []Reg{20}, Probe: -1}},
		{in: alu(ClassInt, regs(9), 1)},
		{in: alu(ClassInt, regs(10), 8)},
		{in: alu(ClassInt, regs(11), 9, 10)},
		{in: alu(ClassInt, regs(12), 2)},
		{in: alu(ClassInt, regs(13), 12, 10)},
		{in: ldg(14, 11), addr: func(c, w, l int) uint64 { return aBase + 4*idx(c, w, l) }},
		{in: ldg(15, 13), addr: func(c, w, l int) uint64 { return bBase + 4*idx(c, w, l) }},
		{in: alu(ClassFP32, regs(16), 14, 15)},
		{in: alu(ClassInt, regs(17), 3)},
		{in: alu(ClassInt, regs(18), 17, 10)},
		{in: st(SpaceGlobal, 18, 16), addr: func(c, w, l int) uint64 { return cBase + 4*idx(c, w, l) }},
		{in: &Inst{Class: ClassBranch, Probe: -1}}, // ret
	}
	return &fakeKernel{ctas: n / block, threads: block, regs: 8, prog: prog, concurrent: concurrent}
}

// mixed exercises every path: shared memory with barriers, constant
// loads, strided and coalesced global loads, stores, atomics, texture
// fetches and probes.
func mixed(concurrent bool) *fakeKernel {
	bar := &Inst{Class: ClassBarrier, Probe: -1}
	atom := &Inst{Class: ClassLdSt, Mem: MemAtomic, Space: SpaceGlobal, Size: 4, Dst: []Reg{9}, Src: []Reg{1}, Probe: -1}
	tex := &Inst{Class: ClassLdSt, Mem: MemTex, Space: SpaceTex, Size: 4, Dst: []Reg{10}, Probe: 2}
	probed := ld(SpaceGlobal, 4, 1)
	probed.Probe = 1
	info := TexInfo{Width: 64, Height: 64, Depth: 1, Layers: 1, TexelBytes: 4}
	return &fakeKernel{ctas: 60, threads: 128, regs: 16, shared: 4096, concurrent: concurrent,
		progOf: func(cta, w int) []step {
			base := uint64(cta)*16384 + uint64(w)*1024
			p := []step{
				{in: ld(SpaceConst, 1), addr: same(0)},
				{in: ld(SpaceGlobal, 2, 1), addr: strided(base, 4)},
				{in: st(SpaceShared, 2), addr: strided(uint64(w)*128, 4)},
				{in: bar, bar: true},
				{in: ld(SpaceShared, 3), addr: strided(0, uint64(4*(1+w))), active: 0xffff},
				{in: probed, addr: strided(base+uint64(cta%3)*64, 128)},
				{in: alu(ClassFP32, regs(5), 3, 4)},
				{in: atom, addr: same(0x9000_0000 + uint64(cta%4)*4)},
				{in: tex, tex: info, texels: func(c, w, l int) []Texel {
					return []Texel{{X: int32(l), Y: int32(w + c%8)}}
				}},
				{in: alu(ClassSFU, regs(6), 5, 10)},
				{in: st(SpaceGlobal, 6, 9), addr: strided(0x5000_0000+base, 4)},
				{in: fence()},
			}
			return p
		}}
}

func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range []Spec{GTX480(), RTX3080()} {
		t.Run(s.Name, func(t *testing.T) {
			var ref *Result
			for _, c := range []struct{ procs, workers int }{{1, 1}, {1, 1}, {2, 0}, {4, 4}, {8, 3}} {
				runtime.GOMAXPROCS(c.procs)
				r, err := Run(context.Background(), s, mixed(true), Options{Workers: c.workers})
				if err != nil {
					t.Fatal(err)
				}
				if ref == nil {
					ref = r
					if len(r.Probes) == 0 || r.Cycles == 0 {
						t.Fatalf("empty result %+v", r)
					}
					continue
				}
				if !reflect.DeepEqual(ref, r) {
					t.Fatalf("GOMAXPROCS %d workers %d: result differs:\n%+v\nvs\n%+v", c.procs, c.workers, ref, r)
				}
			}
			// the serial path (a kernel that does not allow concurrency)
			r, err := Run(context.Background(), s, mixed(false), Options{Workers: 4})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ref, r) {
				t.Fatal("serial and parallel results differ")
			}
		})
	}
}

func TestMixedCounters(t *testing.T) {
	r := run1(t, GTX480(), mixed(false))
	if r.Const.Accesses == 0 || r.Tex.Accesses == 0 || r.L2.Accesses == 0 || r.DRAM.Reads == 0 ||
		r.Shared.Insts == 0 || r.Mem.AtomicTxns == 0 || r.Icnt.Requests == 0 {
		t.Errorf("a memory path was not exercised: %+v", r)
	}
	if r.Shared.Cycles <= r.Shared.Insts {
		t.Errorf("no bank conflicts counted (%d cycles for %d insts)", r.Shared.Cycles, r.Shared.Insts)
	}
	if r.Stalls.Barrier == 0 || r.Stalls.Memory == 0 || r.Stalls.Fence == 0 {
		t.Errorf("stalls %+v: want barrier, memory and fence stalls", r.Stalls)
	}
	for i, p := range r.Probes {
		if p.Complete < p.Issue {
			t.Fatalf("probe %d completes before it issues: %+v", i, p)
		}
		if i > 0 {
			q := r.Probes[i-1]
			if q.CTA == p.CTA && q.Warp == p.Warp && q.Issue >= p.Issue {
				t.Fatalf("probes of a warp out of issue order: %+v, %+v", q, p)
			}
		}
	}
	if got, want := len(r.Probes), 60*4*2; got != want {
		t.Errorf("%d probe records, want %d", got, want)
	}
}

func TestVectorAddCongestion(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	s := GTX480()
	r := run1(t, s, vecAdd(1<<16, 256, false))
	bw := float64(r.DRAM.BytesRead+r.DRAM.BytesWritten) / float64(r.Cycles) * s.CoreMHz * 1e6
	t.Logf("cycles %d, IPC %.2f, DRAM %.1f GB/s of %.1f, L2 hit %.2f, stalls %+v, icnt %+v",
		r.Cycles, r.IPC, bw/1e9, s.DRAM.Bandwidth()/1e9, r.L2.HitRate(), r.Stalls, r.Icnt)
	if bw > s.DRAM.Bandwidth()*1.001 {
		t.Errorf("DRAM bandwidth %.1f GB/s exceeds the peak %.1f", bw/1e9, s.DRAM.Bandwidth()/1e9)
	}
	if r.Stalls.Memory == 0 {
		t.Error("a memory-bound kernel shows no memory stalls")
	}
}

func benchVecAdd(b *testing.B, workers int) {
	s := GTX480()
	var insts uint64
	var elapsed, cpu time.Duration
	for i := 0; i < b.N; i++ {
		k := vecAdd(1<<20, 256, true)
		k.norecord = true
		t0 := time.Now()
		c0 := cpuTime()
		r, err := Run(context.Background(), s, k, Options{Workers: workers})
		elapsed += time.Since(t0)
		cpu += cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		insts += r.ThreadInsts
		if i == 0 {
			b.ReportMetric(float64(r.Cycles), "sim-cycles")
		}
	}
	b.ReportMetric(float64(insts)/elapsed.Seconds(), "thread-insts/s")
	// CPU time is robust against a loaded machine; with one worker it is
	// the one-core rate.
	b.ReportMetric(float64(insts)/cpu.Seconds(), "thread-insts/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkVectorAdd simulates a 1M-thread vector add (22M thread
// instructions) on the gtx480 preset; GPGPU-Sim takes 96 s for it.
func BenchmarkVectorAdd(b *testing.B) {
	b.Run("workers=1", func(b *testing.B) { benchVecAdd(b, 1) })
	b.Run("workers=GOMAXPROCS", func(b *testing.B) { benchVecAdd(b, 0) })
}
