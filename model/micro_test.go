package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
)

// Microbenchmarks on synthetic warps. Every expected value is computed from
// Spec fields here, following the timing rules documented in doc.go, never
// copied from the model's output.

func run1(t *testing.T, s Spec, k *fakeKernel) *Result {
	t.Helper()
	r, err := Run(context.Background(), s, k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func presetList() []Spec { return []Spec{GTX480(), RTX3080(), A100(), H100()} }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Derived latencies, from the Spec.
func agen(s Spec) int { return s.SM.Classes.LdSt.Latency }

// l2HitLatency: address generation, the request's flits into the
// interconnect, the trip there and back, the slice's latency.
func l2HitLatency(s Spec) int {
	return agen(s) + ceilDiv(s.Icnt.HeaderBytes, s.Icnt.FlitBytes) + 2*s.Icnt.Latency + s.L2.Latency
}

func dramCycles(s Spec, n int) int {
	return int(math.Ceil(float64(n) * s.CoreMHz / s.DRAM.ClockMHz))
}

// dramLatency of an access to a closed bank moving bytes.
func dramLatency(s Spec, bytes int) int {
	burst := int(math.Ceil(float64(bytes) * s.CoreMHz / (s.DRAM.ClockMHz * float64(s.DRAM.BytesPerClock))))
	return l2HitLatency(s) + dramCycles(s, s.DRAM.TRCD) + dramCycles(s, s.DRAM.TCL) + burst + s.DRAM.Latency
}

func bypassL1(s Spec) Spec {
	s.L1D.CachesGlobal = false
	return s
}

// chase builds n dependent loads r1 <- [r1] of one lane at addrs(i).
func chase(n int, addr func(i int) uint64) []step {
	var p []step
	for i := 0; i < n; i++ {
		a := addr(i)
		p = append(p, step{in: ld(SpaceGlobal, 1, 1), addr: same(a), active: 1})
	}
	return p
}

func TestPointerChase(t *testing.T) {
	const n = 16
	for _, s := range presetList() {
		t.Run(s.Name+"/L1", func(t *testing.T) {
			k := oneWarp(chase(n, func(int) uint64 { return 0x1000 }))
			run1(t, s, k)
			is := k.made[0].issues
			want := agen(s) + s.L1D.Latency
			for i := 2; i < n; i++ { // the first load misses
				if got := int(is[i] - is[i-1]); got != want {
					t.Fatalf("load %d: dependent L1-hit latency %d, want %d", i, got, want)
				}
			}
		})
		t.Run(s.Name+"/L2", func(t *testing.T) {
			// pass 1 brings the lines into L2, pass 2 (bypassing L1) hits
			p := chase(n, func(i int) uint64 { return uint64(i) * 4096 })
			p = append(p, chase(n, func(i int) uint64 { return uint64(i) * 4096 })...)
			k := oneWarp(p)
			run1(t, bypassL1(s), k)
			is := k.made[0].issues
			want := l2HitLatency(s)
			for i := n + 1; i < 2*n; i++ {
				if got := int(is[i] - is[i-1]); got != want {
					t.Fatalf("load %d: dependent L2-hit latency %d, want %d", i, got, want)
				}
			}
		})
		t.Run(s.Name+"/DRAM", func(t *testing.T) {
			// cold accesses to closed banks, one per launch
			want := dramLatency(s, max(s.L2.SectorBytes, unitBytes))
			for _, a := range []uint64{0, 1 << 20, 3<<24 + 512} {
				p := []step{{in: ld(SpaceGlobal, 1), addr: same(a), active: 1}, {in: alu(ClassInt, regs(2), 1)}}
				k := oneWarp(p)
				run1(t, bypassL1(s), k)
				is := k.made[0].issues
				if got := int(is[1] - is[0]); got != want {
					t.Fatalf("addr %#x: DRAM latency %d, want %d", a, got, want)
				}
			}
		})
	}
}

func TestMemoryLevelParallelism(t *testing.T) {
	const n = 8
	for _, s := range presetList() {
		t.Run(s.Name, func(t *testing.T) {
			addr := func(i int) uint64 { return uint64(i) * 8192 }
			// independent: n loads to different registers, then one consumer
			var ind []step
			var srcs []Reg
			for i := 0; i < n; i++ {
				ind = append(ind, step{in: ld(SpaceGlobal, Reg(1+i), 20), addr: same(addr(i)), active: 1})
				srcs = append(srcs, Reg(1+i))
			}
			ind = append(ind, step{in: alu(ClassInt, regs(30), srcs...)})
			ki := oneWarp(ind)
			run1(t, bypassL1(s), ki)
			tInd := int(ki.made[0].issues[n] - ki.made[0].issues[0])

			kd := oneWarp(append(chase(n, addr), step{in: alu(ClassInt, regs(30), 1)}))
			run1(t, bypassL1(s), kd)
			tDep := int(kd.made[0].issues[n] - kd.made[0].issues[0])

			one := dramLatency(s, max(s.L2.SectorBytes, unitBytes))
			if tInd > one+n*8 {
				t.Errorf("%d independent loads took %d cycles, want about one latency (%d) plus issue", n, tInd, one)
			}
			if tDep < n*one*9/10 {
				t.Errorf("%d dependent loads took %d cycles, want about %d", n, tDep, n*one)
			}
			t.Logf("independent %d, dependent %d, one access %d", tInd, tDep, one)
		})
	}
}

func TestBankConflicts(t *testing.T) {
	const k = 16
	for _, s := range []Spec{GTX480(), RTX3080()} {
		for _, ways := range []int{1, 2, 4, 8, 16, 32} {
			t.Run(fmt.Sprintf("%s/%d-way", s.Name, ways), func(t *testing.T) {
				// lane l reads word l*ways: banks l*ways mod 32, so `ways`
				// distinct words share each used bank
				stride := uint64(ways * s.Shared.BankBytes)
				var p []step
				var srcs []Reg
				for i := 0; i < k; i++ {
					p = append(p, step{in: ld(SpaceShared, Reg(1+i)), addr: strided(0, stride)})
					srcs = append(srcs, Reg(1+i))
				}
				p = append(p, step{in: alu(ClassInt, regs(30), srcs...)})
				kn := oneWarp(p)
				kn.shared = 8192
				r := run1(t, s, kn)
				is := kn.made[0].issues
				cpw := s.Shared.CyclesPerWay
				// a warp's loads follow each other at the slower of the
				// LD/ST unit's occupancy and the bank-conflict passes
				u := s.SM.Units.LdSt
				occ := ceilDiv(WarpSize, u.Lanes*u.ClockMul) * s.SM.Classes.LdSt.Interval
				period := max(occ, ways*cpw)
				want := (k-1)*period + agen(s) + s.Shared.Latency + (ways-1)*cpw
				if got := int(is[k] - is[0]); got != want {
					t.Errorf("consumer after %d cycles, want %d", got, want)
				}
				if got, want := r.Shared.Cycles, uint64(k*ways*cpw); got != want {
					t.Errorf("shared pipeline cycles %d, want %d (n-way -> n x)", got, want)
				}
			})
		}
	}
}

func TestCoalescing(t *testing.T) {
	for _, s := range presetList() {
		for _, c := range []struct {
			name   string
			stride uint64
			txns   int
		}{
			{"coalesced", 4, 1},
			{"stride32", 32, 32 * 32 / s.L1D.LineBytes},
			{"stride128", 128, 32},
		} {
			t.Run(s.Name+"/"+c.name, func(t *testing.T) {
				// warm the lines, then time an all-hit access
				p := []step{
					{in: ld(SpaceGlobal, 1), addr: strided(0x10000, c.stride)},
					{in: alu(ClassInt, regs(2), 1)},
					{in: ld(SpaceGlobal, 3), addr: strided(0x10000, c.stride)},
					{in: alu(ClassInt, regs(4), 3)},
				}
				k := oneWarp(p)
				r := run1(t, s, k)
				if got := r.Mem.LoadTxns; got != uint64(2*c.txns) {
					t.Fatalf("transactions %d, want %d per load", got, c.txns)
				}
				is := k.made[0].issues
				want := agen(s) + ceilDiv(c.txns, s.L1D.PerCycle) - 1 + s.L1D.Latency
				if got := int(is[3] - is[2]); got != want {
					t.Errorf("all-hit access of %d lines took %d cycles, want %d", c.txns, got, want)
				}
			})
		}
	}
}

func TestFence(t *testing.T) {
	for _, s := range presetList() {
		t.Run(s.Name+"/idle", func(t *testing.T) {
			k := oneWarp([]step{{in: clk(1)}, {in: fence()}, {in: clk(2)}})
			run1(t, s, k)
			c := k.made[0].clocks
			if got, want := int(c[1]-c[0]), 1+s.SM.FenceLatency; got != want {
				t.Errorf("clock; membar; clock = %d, want %d", got, want)
			}
		})
		t.Run(s.Name+"/after-store", func(t *testing.T) {
			store := st(SpaceGlobal, 5)
			store.Probe = 0
			k := oneWarp([]step{{in: clk(1)}, {in: store, addr: strided(0x4000, 4)}, {in: fence()}, {in: clk(2)}})
			r := run1(t, s, k)
			c := k.made[0].clocks
			ack := r.Probes[0].Complete
			if got, want := c[1], ack+Time(s.SM.FenceLatency); got != want {
				t.Errorf("clock after fence at %d, want store ack %d + fence latency %d", got, ack, s.SM.FenceLatency)
			}
			// the ack comes back from L2: request flits carry the data
			flits := ceilDiv(s.Icnt.HeaderBytes+128, s.Icnt.FlitBytes)
			want := Time(agen(s) + flits + 2*s.Icnt.Latency + s.L2.Latency)
			if got := r.Probes[0].Latency(); got != want {
				t.Errorf("store ack latency %d, want %d", got, want)
			}
		})
	}
}

func TestIssueLimitedIPC(t *testing.T) {
	// Independent instructions of classes whose units together accept one
	// warp instruction per scheduler per cycle (A100's 16-lane FP32 and
	// INT32 datapaths each take a warp in 2 cycles, so they alternate).
	for _, c := range []struct {
		s       Spec
		classes []Class
	}{
		{GTX480(), []Class{ClassInt}}, {GTX480(), []Class{ClassFP32}},
		{RTX3080(), []Class{ClassFP32}}, {A100(), []Class{ClassFP32, ClassInt}}, {H100(), []Class{ClassFP32}},
	} {
		t.Run(fmt.Sprint(c.s.Name, c.classes), func(t *testing.T) {
			const n = 400
			var p []step
			for i := 0; i < n; i++ {
				p = append(p, step{in: alu(c.classes[i%len(c.classes)], regs(Reg(i%8)))})
			}
			k := &fakeKernel{ctas: 1, threads: 512, regs: 16, prog: p}
			r := run1(t, c.s, k)
			want := float64(c.s.SM.Schedulers)
			if r.IPC < 0.97*want || r.IPC > want {
				t.Errorf("IPC %.3f, want %v (schedulers x 1)", r.IPC, want)
			}
		})
	}
}

func TestPaperEffect(t *testing.T) {
	for _, s := range presetList() {
		for _, level := range []string{"L2", "DRAM"} {
			for _, method := range []string{"naive", "fence", "dummy"} {
				t.Run(s.Name+"/"+level+"/"+method, func(t *testing.T) {
					load := ld(SpaceGlobal, 1, 20)
					load.Probe = 0
					a := uint64(0x2_0000)
					var p []step
					if level == "L2" {
						// bring the line into L2 first; bypass L1
						p = append(p, step{in: ld(SpaceGlobal, 2, 20), addr: same(a), active: 1}, step{in: alu(ClassInt, regs(3), 2)})
					}
					p = append(p, step{in: alu(ClassInt, regs(21))}, // setp p, dummy, 0
						step{in: clk(10)}, step{in: load, addr: same(a), active: 1})
					own := 0
					switch method {
					case "fence":
						p = append(p, step{in: fence()})
						own = 1 + s.SM.FenceLatency
					case "dummy":
						p = append(p, step{in: alu(ClassInt, regs(22), 1, 21), off: true}) // @p add r22, r1, 1
						own = 2
					}
					p = append(p, step{in: clk(11)})
					k := oneWarp(p)
					r := run1(t, bypassL1(s), k)
					c := k.made[0].clocks
					measured := int(c[1] - c[0])
					truth := int(r.Probes[0].Latency())
					t.Logf("measured %d, true %d", measured, truth)
					if method == "naive" {
						if measured > truth/5 {
							t.Errorf("naive probe measured %d of a true %d: want at least an 80%% underestimate", measured, truth)
						}
						return
					}
					if d := math.Abs(float64(measured - own - truth)); d > 0.05*float64(truth) {
						t.Errorf("%s probe measured %d, want true %d + own cost %d within 5%%", method, measured, truth, own)
					}
				})
			}
		}
	}
}

func TestBarrier(t *testing.T) {
	s := GTX480()
	bar := &Inst{Class: ClassBarrier, Probe: -1}
	k := &fakeKernel{ctas: 1, threads: 64, regs: 16, progOf: func(_, w int) []step {
		var p []step
		if w == 0 {
			for i := 0; i < 50; i++ {
				p = append(p, step{in: alu(ClassInt, regs(1), 1)})
			}
		}
		return append(p, step{in: bar, bar: true}, step{in: alu(ClassInt, regs(2))})
	}}
	run1(t, s, k)
	w0, w1 := k.made[0], k.made[1]
	arrive := w0.issues[50]
	if got, want := w1.issues[1], arrive+Time(s.SM.BarrierLatency); got != want {
		t.Errorf("warp 1 left the barrier at %d, want last arrival %d + %d", got, arrive, s.SM.BarrierLatency)
	}
	if w0.issues[51] != w1.issues[1] {
		t.Errorf("warps left the barrier at %d and %d", w0.issues[51], w1.issues[1])
	}
}

func TestTextureBlockShape(t *testing.T) {
	s := GTX480()
	tex := &Inst{Class: ClassLdSt, Mem: MemTex, Space: SpaceTex, Size: 4, Dst: []Reg{1}, Probe: -1}
	info := TexInfo{Width: 256, Height: 256, Depth: 1, Layers: 1, TexelBytes: 4}
	misses := func(bx int) uint64 {

		k := &fakeKernel{ctas: 1, threads: 128, regs: 16, prog: []step{{in: tex, tex: info,
			texels: func(_, w, l int) []Texel {
				i := w*WarpSize + l
				return []Texel{{X: int32(i % bx), Y: int32(i / bx)}}
			}}}}
		return run1(t, s, k).Tex.Misses
	}
	row, col, square := misses(128), misses(1), misses(16)
	t.Logf("texture-cache misses: 128x1 %d, 1x128 %d, 16x8 %d", row, col, square)
	if !(square < row && row < col) {
		t.Errorf("misses 16x8 %d, 128x1 %d, 1x128 %d: want the tiled layout to favour square blocks", square, row, col)
	}
}

func TestKernelFault(t *testing.T) {
	k := oneWarp([]step{{in: alu(ClassInt, regs(1))}, {in: alu(ClassInt, regs(2)), fault: true}})
	_, err := Run(context.Background(), GTX480(), k, Options{})
	if err == nil || !errors.Is(err, errFault) {
		t.Fatalf("err = %v, want the kernel fault", err)
	}
}

func TestCTAResourceLimits(t *testing.T) {
	s := GTX480()
	for _, c := range []struct {
		name                  string
		threads, regs, shared int
		want                  int // resident CTAs per SM
	}{
		{"cta slots", 64, 8, 0, s.SM.MaxCTAs},
		{"threads", 512, 8, 0, s.SM.MaxThreads / 512},
		{"registers", 256, 32, 0, s.SM.Registers / roundUp(32*WarpSize, s.SM.RegAllocUnit) / 8},
		{"shared", 64, 8, 6000, s.Shared.Bytes / roundUp(6000, s.SM.SharedAllocUnit)},
	} {
		t.Run(c.name, func(t *testing.T) {
			warpsPer := ceilDiv(c.threads, WarpSize)
			sm := newSM(0, &s, nil, nil)
			n := 0
			for sm.fits(c.threads, regsPerCTA(&s, c.regs, c.threads), roundUp(c.shared, s.SM.SharedAllocUnit)) {
				sm.reserve(0, n, nil, c.threads, regsPerCTA(&s, c.regs, c.threads), roundUp(c.shared, s.SM.SharedAllocUnit))
				n++
			}
			if n != c.want {
				t.Errorf("%d CTAs of %d warps fit, want %d", n, warpsPer, c.want)
			}
		})
	}
	t.Run("too big", func(t *testing.T) {
		most := s.Shared.Bytes
		for _, c := range s.Shared.Carveouts {
			most = max(most, c.SharedBytes)
		}
		k := &fakeKernel{ctas: 1, threads: 64, regs: 8, shared: most + 1, prog: []step{{in: alu(ClassInt, regs(1))}}}
		if _, err := Run(context.Background(), s, k, Options{}); err == nil {
			t.Fatal("want an error for a CTA that fits no SM")
		}
	})
}

// TestProbeStamps checks the ground truth's begin and end stamp cycles:
// they are the cycles the marked timer reads issued, i.e. the values the
// warp's clock reads returned, and they split the measurement into issue
// wait (Issue − Begin) and post wait (End − Complete). The timer reads,
// the address ALU and the consumer are all INT-class here: an INT
// instruction holds its unit ceil(32 / (lanes × clock_mul)) × interval
// cycles (at least 1: one issue per warp per cycle), so the address ALU
// issues that long after the begin read and the load when the address is
// ready (INT latency later); the end read issues that long after the
// consumer, which issues when the loaded register is written (Complete).
func TestProbeStamps(t *testing.T) {
	for _, s := range presetList() {
		t.Run(s.Name, func(t *testing.T) {
			load := ld(SpaceGlobal, 1, 20)
			load.Probe = 0
			begin, end := clk(10), clk(11)
			begin.Stamp, end.Stamp = StampBegin, StampEnd
			k := oneWarp([]step{{in: alu(ClassInt, regs(21))}, {in: begin}, {in: alu(ClassInt, regs(20))},
				{in: load, addr: same(0x2_0000), active: 1}, {in: alu(ClassInt, regs(22), 1, 21), off: true}, {in: end}})
			r := run1(t, s, k)
			c := k.made[0].clocks
			p := r.Probes[0]
			if p.Begin != c[0] || p.End != c[1] {
				t.Errorf("stamps %d, %d; the clock reads returned %d, %d", p.Begin, p.End, c[0], c[1])
			}
			u := s.SM.Units.list()[unitIndex(s.SM.Classes.Int.Unit)]
			hold := Time(max(1, (WarpSize+u.Lanes*u.ClockMul-1)/(u.Lanes*u.ClockMul)*s.SM.Classes.Int.Interval))
			if got, want := p.Issue-p.Begin, hold+Time(s.SM.Classes.Int.Latency); got != want {
				t.Errorf("issue wait %d, want %d", got, want)
			}
			if got := p.End - p.Complete; got != hold {
				t.Errorf("post wait %d, want %d (consumer at completion, then the timer read)", got, hold)
			}
		})
	}
}

// TestCarveout checks the runtime's switch of Fermi's on-chip split: a CTA
// that fits 16 KB of shared memory runs with 16 KB shared / 48 KB L1, one
// that needs more with 48 KB / 16 KB. A warp reads 160 distinct 128-byte
// lines (20 KB) twice: with 48 KB of L1 (384 lines) the second pass hits
// every line, with 16 KB (128 lines, LRU, sequential) it hits none; and two
// 20 KB CTAs are resident per SM (48 / 20) where one 20 KB CTA could not
// run at all before.
func TestCarveout(t *testing.T) {
	s := GTX480()
	const lines = 160
	var prog []step
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < lines; i++ {
			a := uint64(1<<20 + 128*i)
			prog = append(prog, step{in: ld(SpaceGlobal, 1, 2), addr: func(_, _, l int) uint64 { return a + uint64(4*l) }})
		}
	}
	for _, c := range []struct {
		shared     int
		carveout   bool
		secondHits uint64
	}{{0, false, lines}, {16 << 10, false, lines}, {20 << 10, true, 0}} {
		k := oneWarp(prog)
		k.shared = c.shared
		r := run1(t, s, k)
		if (r.Carveout != nil) != c.carveout {
			t.Fatalf("shared %d: carveout %+v, want one: %v", c.shared, r.Carveout, c.carveout)
		}
		if c.carveout && (r.Carveout.SharedBytes != 48<<10 || r.Carveout.L1DSets*r.Carveout.L1DWays*s.L1D.LineBytes != 16<<10) {
			t.Errorf("shared %d: carveout %+v, want 48 KB shared / 16 KB L1", c.shared, *r.Carveout)
		}
		if r.L1D.Hits != c.secondHits {
			t.Errorf("shared %d: %d L1 hits, want %d", c.shared, r.L1D.Hits, c.secondHits)
		}
	}
	if _, c := s.ForShared(8 << 10); c != nil {
		t.Errorf("8 KB takes carveout %+v", *c)
	}
	cs, c := s.ForShared(20 << 10)
	if c == nil {
		t.Fatal("no carveout for 20 KB")
	}
	sm := newSM(0, &cs, nil, nil)
	n := 0
	for sm.fits(64, regsPerCTA(&cs, 8, 64), 20<<10) {
		sm.reserve(0, n, nil, 64, regsPerCTA(&cs, 8, 64), 20<<10)
		n++
	}
	if n != 2 {
		t.Errorf("%d CTAs of 20 KB fit, want 2", n)
	}
}

func TestCarveoutValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		cs    []Carveout
		field string
	}{
		{"not positive", []Carveout{{SharedBytes: 0, L1DSets: 32, L1DWays: 4}}, "shared.carveouts[0].shared_bytes"},
		{"not increasing", []Carveout{{SharedBytes: 48 << 10, L1DSets: 32, L1DWays: 4}, {SharedBytes: 32 << 10, L1DSets: 32, L1DWays: 4}}, "shared.carveouts[1].shared_bytes"},
		{"no sets", []Carveout{{SharedBytes: 48 << 10, L1DWays: 4}}, "shared.carveouts[0].l1d_sets"},
		{"no ways", []Carveout{{SharedBytes: 48 << 10, L1DSets: 32}}, "shared.carveouts[0].l1d_ways"},
		{"too big", []Carveout{{SharedBytes: MaxSharedBytes + 1, L1DSets: 32, L1DWays: 4}}, "shared.carveouts[0].shared_bytes"},
	} {
		s := GTX480()
		s.Shared.Carveouts = c.cs
		err := s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: err = %v, want a FieldError on %s", c.name, err, c.field)
		}
	}
}
