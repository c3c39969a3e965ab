package model

import (
	"math/bits"
	"strings"
	"testing"
)

func TestPlanChunksTable(t *testing.T) {
	type c = Chunk
	cases := []struct {
		name      string
		src, dst  uint64
		size      int64
		want      []Chunk
		wantError string
	}{
		{"empty", 0, 0, 0, nil, ""},
		{"1B", 0, 0, 1, []Chunk{{0, 0, 8, true}}, ""},
		{"8B", 0x100, 0x200, 8, []Chunk{{0x100, 0x200, 8, false}}, ""},
		{"256B", 0, 0x1000, 256, []Chunk{{0, 0x1000, 256, false}}, ""},
		{"257B", 0, 0, 257, []Chunk{{0, 0, 256, false}, {256, 256, 8, true}}, ""},
		// [4, 304): head block [0,8) RMW, then 8,16,32,64,128 up to 256, then 32+16 to 304.
		{"head", 4, 4, 300, []Chunk{{0, 0, 8, true}, {8, 8, 8, false}, {16, 16, 16, false}, {32, 32, 32, false},
			{64, 64, 64, false}, {128, 128, 128, false}, {256, 256, 32, false}, {288, 288, 16, false}}, ""},
		// dst only 128-aligned: 128-byte chunks although src is 256-aligned.
		{"dst128", 0, 128, 512, []Chunk{{0, 128, 128, false}, {128, 256, 128, false}, {256, 384, 128, false}, {384, 512, 128, false}}, ""},
		{"inside one block", 2, 10, 4, []Chunk{{0, 8, 8, true}}, ""},
		{"two partial blocks", 6, 6, 4, []Chunk{{0, 0, 8, true}, {8, 8, 8, true}}, ""},
		{"tail", 0, 0, 20, []Chunk{{0, 0, 16, false}, {16, 16, 8, true}}, ""},
		{"misaligned pair", 1, 2, 16, nil, "differ modulo 8"},
		{"negative", 0, 0, -1, nil, "out of range"},
		{"too big", 0, 0, MaxTransferBytes + 1, nil, "out of range"},
		{"overflow", ^uint64(0) - 15, 0, 8, nil, "overflows"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanChunks(tc.src, tc.dst, tc.size)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("err = %v, want %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("chunk %d = %+v, want %+v (all %v)", i, got[i], tc.want[i], got)
				}
			}
		})
	}
}

// TestPlanChunksProperties checks sizes 1 B … 1 MB (powers of two and
// their neighbours) at several alignments: the chunks tile the 8-byte
// widened range in order, each is a power of two in [8, 256] aligned on
// both sides, RMW marks exactly the blocks that extend past the range,
// and from a 256-aligned start the count is the binary decomposition of
// the size (size/256 full chunks, one per set bit of bits 3..7 of the
// remainder, one for a partial last block).
func TestPlanChunksProperties(t *testing.T) {
	var sizes []int64
	for s := int64(1); s <= 1<<20; s *= 2 {
		sizes = append(sizes, s-1, s, s+1, s+5*s/8)
	}
	aligns := []struct{ src, dst uint64 }{{0, 0}, {0x1000, 0x7000}, {8, 0x100}, {3, 11}, {0x7f, 0x10ff}, {0x40, 0x80}}
	for _, al := range aligns {
		for _, size := range sizes {
			if size <= 0 {
				continue
			}
			ch, err := PlanChunks(al.src, al.dst, size)
			if err != nil {
				t.Fatalf("src %#x size %d: %v", al.src, size, err)
			}
			lo, hi := al.src&^7, (al.src+uint64(size)+7)&^7
			p := lo
			for i, c := range ch {
				if c.Src != p {
					t.Fatalf("src %#x size %d: chunk %d starts at %#x, want %#x", al.src, size, i, c.Src, p)
				}
				if c.Size < 8 || c.Size > 256 || bits.OnesCount64(uint64(c.Size)) != 1 {
					t.Fatalf("chunk %d size %d not 2^n, 3<=n<=8", i, c.Size)
				}
				if c.Src%uint64(c.Size) != 0 || c.Dst%uint64(c.Size) != 0 || c.Dst-c.Src != al.dst-al.src {
					t.Fatalf("chunk %+v misaligned or displaced", c)
				}
				past := c.Src < al.src || c.Src+uint64(c.Size) > al.src+uint64(size)
				if c.RMW != past || (c.RMW && c.Size != 8) {
					t.Fatalf("src %#x size %d: chunk %+v RMW flag wrong", al.src, size, c)
				}
				p += uint64(c.Size)
			}
			if p != hi {
				t.Fatalf("src %#x size %d: chunks end at %#x, want %#x", al.src, size, p, hi)
			}
			if al.src%256 == 0 && al.dst%256 == 0 {
				r := size % 256
				want := int(size/256) + bits.OnesCount64(uint64(r>>3))
				if r%8 != 0 {
					want++
				}
				if len(ch) != want {
					t.Fatalf("size %d: %d chunks, want %d", size, len(ch), want)
				}
			}
		}
	}
}

// handSpec has round numbers so that every time below is computed by hand:
// 1 cycle = 1 ns on the HUB, 2 ns on a GPC, 1 byte = 1 ns at 1000 MB/s.
func handSpec() TransferSpec {
	return TransferSpec{
		Name: "hand", Link: LinkSpec{Gen: 3, Lanes: 16}, APINs: 1000,
		DMA:  DMASpec{SetupNs: 2000, H2DMBps: 1000, D2HMBps: 500},
		IORW: IORWSpec{WriteBytes: 64, WriteNs: 10, FlushNs: 500, ReadBytes: 8, ReadNs: 100},
		Micro: MicroSpec{
			HUB:  ControllerSpec{ClockMHz: 1000, DispatchCycles: 100, CallCycles: 10, MergeCycles: 5},
			GPC:  ControllerSpec{ClockMHz: 500, DispatchCycles: 100, CallCycles: 10, MergeCycles: 5},
			GPCs: 4, SetupNs: 200, CmdNs: 50, PollNs: 300,
			HostReadNs: 400, HostWriteNs: 30, DevNs: 20, XferMBps: 1000,
		},
	}
}

func TestTransferTimeByHand(t *testing.T) {
	ts := handSpec()
	if err := ts.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		m      TransferMethod
		d      Direction
		host   uint64
		dev    uint64
		size   int64
		wantNs int64
		why    string
	}{
		{MethodDMA, HostToDevice, 0, 0, 4096, 1000 + 2000 + 4096, "API + setup + 4096 B at 1 B/ns"},
		{MethodDMA, DeviceToHost, 0, 0, 4096, 1000 + 2000 + 8192, "D2H at 0.5 B/ns"},
		{MethodDMA, HostToDevice, 0, 0, 0, 0, "nothing to copy"},
		{MethodIORW, HostToDevice, 0, 0, 100, 1000 + 2*10 + 500, "2 write bursts + flush"},
		{MethodIORW, DeviceToHost, 0, 0, 20, 1000 + 3*100, "3 reads of 8 B"},
		// 2 chunks of 256: call 10 + host read 400 + 256 + dev 20 + 256 = 942 each.
		{MethodHUB, HostToDevice, 0, 0, 512, 1000 + 200 + 50 + 100 + 2*942 + 300, "API, setup, cmd, dispatch, 2 chunks, poll"},
		// chunk 16: 10+20+16+30+16 = 92; RMW 8: 10+20+8+30+8 + 400+8+5 = 489.
		{MethodHUB, DeviceToHost, 0, 0, 20, 1000 + 250 + 100 + 92 + 489 + 300, "16-byte chunk + RMW tail"},
		// GPC cycles are 2 ns: chunk 256 d2h = 20+20+256+30+256 = 582, dispatch 200.
		{MethodGPC1, DeviceToHost, 0, 0, 512, 1000 + 250 + 200 + 2*582 + 300, "one GPC, two chunks"},
		// four GPCs, one chunk each; the last command arrives at 1000+4*250.
		{MethodGPC4, DeviceToHost, 0, 0, 1024, 1000 + 4*250 + 200 + 582 + 4*300, "four GPCs in parallel"},
		// 8 chunks on 4 GPCs: GPC 3 gets two, done at 2000+200+2*582.
		{MethodGPC4, DeviceToHost, 0, 0, 2048, 1000 + 4*250 + 200 + 2*582 + 4*300, "two rounds"},
		// host 0x100, device 0x80: 128-byte chunks: call 10+20+128+30+128 = 316 each, 4 of them.
		{MethodHUB, DeviceToHost, 0x100, 0x80, 512, 1000 + 250 + 100 + 4*316 + 300, "alignment limits the chunk"},
	}
	for _, c := range cases {
		got, err := ts.TransferTime(c.m, c.d, c.host, c.dev, c.size)
		if err != nil {
			t.Fatalf("%s %s %d: %v", c.m, c.d, c.size, err)
		}
		if got != c.wantNs*1000 {
			t.Errorf("%s %s %d B (%s): %d ps, want %d ns", c.m, c.d, c.size, c.why, got, c.wantNs)
		}
	}
	if _, err := ts.TransferTime(MethodHUB, HostToDevice, 1, 2, 16); err == nil {
		t.Error("HUB with src/dst differing mod 8: no error")
	}
	if _, err := ts.TransferTime("pio", HostToDevice, 0, 0, 16); err == nil {
		t.Error("unknown method: no error")
	}
}

func TestPairTimeByHand(t *testing.T) {
	ts := handSpec()
	cases := []struct {
		p      Pair
		d      Direction
		size   int64
		wantNs int64
	}{
		{Pair{A: MethodIORW, B: MethodIORW}, HostToDevice, 100, 2 * 1520},
		{Pair{A: MethodDMA, B: MethodDMA}, DeviceToHost, 512, 2 * (3000 + 1024)},
		// host issues HUB by 1250, then DMA d2h 512 B (4024) ends at 5274;
		// HUB: 1250+100+2*(10+20+256+30+256) = 2494 ends first; + poll 300.
		{Pair{A: MethodDMA, B: MethodHUB, Overlap: true}, DeviceToHost, 512, 1250 + 4024 + 300},
		// IORW h2d 64 B = 1000+10+500 = 1510 from 1250: 2760; HUB 64 B h2d:
		// 1350 + 10+400+64+20+64 = 1908; max 2760 + 300.
		{Pair{A: MethodIORW, B: MethodHUB, Overlap: true}, HostToDevice, 64, 2760 + 300},
		// GPC4 8 KB d2h: 32 chunks, 8 per GPC; GPC 3 starts 2000+200, ends 2200+8*582 = 6856;
		// IORW d2h 8 KB = 1000+1024*100 = 103400 from 2000: 105400 wins; + 4 polls.
		{Pair{A: MethodIORW, B: MethodGPC4, Overlap: true}, DeviceToHost, 8192, 105400 + 1200},
	}
	for _, c := range cases {
		got, err := ts.PairTime(c.p, c.d, c.size)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.wantNs*1000 {
			t.Errorf("%s %s %d: %d ps, want %d ns", c.p, c.d, c.size, got, c.wantNs)
		}
	}
	if _, err := ts.PairTime(Pair{A: MethodHUB, B: MethodDMA, Overlap: true}, HostToDevice, 8); err == nil {
		t.Error("overlap with a microcontroller as A: no error")
	}
	if n := len(TransferPairs()); n != 8 {
		t.Errorf("%d pairs, seed Fig. 12 has 8", n)
	}
}

func TestTransferPresetsValid(t *testing.T) {
	for _, name := range PresetNames() {
		ts, ok := TransferPreset(name)
		if !ok {
			t.Fatalf("no transfer preset for GPU preset %s", name)
		}
		if err := ts.Validate(); err != nil {
			t.Fatal(err)
		}
		if len(ts.Notes) == 0 {
			t.Errorf("%s: no sources/assumptions", name)
		}
	}
	bad := GTX480Transfer()
	bad.DMA.H2DMBps = 9000 // PCIe 2.0 x16 carries 8000 MB/s
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "exceeds the link") {
		t.Errorf("DMA faster than the link: %v", err)
	}
	bad = GTX480Transfer()
	bad.Micro.HUB.ClockMHz = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "micro.hub.clock_mhz") {
		t.Errorf("zero clock: %v", err)
	}
	if got := (LinkSpec{Gen: 4, Lanes: 16}).RawMBps(); got != 1969*16 {
		t.Errorf("PCIe 4 x16 = %d MB/s", got)
	}
}

// winners returns, for sizes 8 B … 64 MB, the name of the fastest single
// method (pairs false) or pair (pairs true).
func winners(t *testing.T, ts *TransferSpec, d Direction, pairs bool) (sizes []int64, names []string) {
	for s := int64(8); s <= 64<<20; s *= 2 {
		best, bt := "", int64(-1)
		if pairs {
			for _, p := range TransferPairs() {
				ps, err := ts.PairTime(p, d, s)
				if err != nil {
					t.Fatal(err)
				}
				if bt < 0 || ps < bt {
					best, bt = p.String(), ps
				}
			}
		} else {
			m, _, err := ts.BestTransfer(d, s)
			if err != nil {
				t.Fatal(err)
			}
			best = string(m)
		}
		sizes, names = append(sizes, s), append(names, best)
	}
	return sizes, names
}

// firstFrom is the first size from which class(name) holds through the end
// of the sweep (0 if it never does), starting the search at from.
func firstWhere(sizes []int64, names []string, from int64, class func(string) bool) int64 {
	for i, s := range sizes {
		if s >= from && class(names[i]) {
			return s
		}
	}
	return 0
}

func within2x(got, want int64) bool { return got >= want/2 && got <= want*2 }

// TestTransferSeedCrossovers: the gtx480 preset reproduces seed 001's
// crossovers within one power of two. Fig. 11(a) H→D: IORW fastest up to
// 128 KB, DMA after. Fig. 11(b) D→H: IORW slow beyond small sizes, HUB
// fastest from 256 B to 4 KB, DMA after; HUB beats GPC1 and GPC4 (higher
// clock); GPC4 is slow at small sizes and overtakes GPC1 as size grows.
// Fig. 12: H→D IORW pairs fastest (as single), D→H overlapped pairs
// fastest from 256 B to 16 KB.
func TestTransferSeedCrossovers(t *testing.T) {
	ts := GTX480Transfer()
	is := func(n string) func(string) bool { return func(s string) bool { return s == n } }
	overlap := func(s string) bool { return strings.Contains(s, "|") }
	seq := func(s string) bool { return !overlap(s) }

	sz, w := winners(t, &ts, HostToDevice, false)
	if w[0] != "iorw" {
		t.Errorf("H2D 8 B: %s fastest, seed IORW", w[0])
	}
	if x := firstWhere(sz, w, 0, is("dma")); !within2x(x, 256<<10) {
		t.Errorf("H2D: DMA fastest from %d B, seed from 256 KB (IORW up to 128 KB): %v", x, w)
	}
	sz, w = winners(t, &ts, DeviceToHost, false)
	if x := firstWhere(sz, w, 0, is("hub")); !within2x(x, 256) {
		t.Errorf("D2H: HUB fastest from %d B, seed from 256 B: %v", x, w)
	}
	if x := firstWhere(sz, w, 0, is("dma")); !within2x(x, 8<<10) {
		t.Errorf("D2H: DMA fastest from %d B, seed after 4 KB: %v", x, w)
	}
	for i, s := range sz {
		if s >= 512 && s <= 2<<10 && w[i] != "hub" {
			t.Errorf("D2H %d B: %s fastest, seed HUB (256 B … 4 KB)", s, w[i])
		}
		if s >= 16<<10 && w[i] != "dma" {
			t.Errorf("D2H %d B: %s fastest, seed DMA", s, w[i])
		}
	}
	for _, d := range []Direction{HostToDevice, DeviceToHost} {
		for s := int64(8); s <= 64<<20; s *= 2 {
			hub, _ := ts.TransferTime(MethodHUB, d, 0, 0, s)
			g1, _ := ts.TransferTime(MethodGPC1, d, 0, 0, s)
			if hub >= g1 {
				t.Errorf("%s %d B: HUB %d ps not faster than GPC1 %d ps", d, s, hub, g1)
			}
		}
		small1, _ := ts.TransferTime(MethodGPC1, d, 0, 0, 256)
		small4, _ := ts.TransferTime(MethodGPC4, d, 0, 0, 256)
		big1, _ := ts.TransferTime(MethodGPC1, d, 0, 0, 1<<20)
		big4, _ := ts.TransferTime(MethodGPC4, d, 0, 0, 1<<20)
		if small4 <= small1 || big4 >= big1 {
			t.Errorf("%s: GPC4 vs GPC1 at 256 B %d/%d ps, at 1 MB %d/%d: seed GPC4 slower small, faster large", d, small4, small1, big4, big1)
		}
	}

	sz, w = winners(t, &ts, HostToDevice, true)
	for i, s := range sz {
		if s <= 64<<10 && !strings.Contains(w[i], "iorw") {
			t.Errorf("H2D pairs %d B: %s fastest, seed an IORW pair", s, w[i])
		}
	}
	if x := firstWhere(sz, w, 0, is("dma+dma")); !within2x(x, 256<<10) {
		t.Errorf("H2D pairs: DMA+DMA fastest from %d B, seed as Fig. 11(a) (256 KB): %v", x, w)
	}
	sz, w = winners(t, &ts, DeviceToHost, true)
	lo := firstWhere(sz, w, 0, overlap)
	hi := firstWhere(sz, w, lo, seq)
	if !within2x(lo, 256) || !within2x(hi, 32<<10) {
		t.Errorf("D2H pairs: overlap fastest from %d B until %d B, seed 256 B … 16 KB: %v", lo, hi, w)
	}
}

func BenchmarkTransferTimeGPC4_64MB(b *testing.B) {
	ts := GTX480Transfer()
	for b.Loop() {
		if _, err := ts.TransferTime(MethodGPC4, DeviceToHost, 0, 0, 64<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPlanChunks: for any addresses and size up to 64 KB, PlanChunks
// either refuses (addresses differing mod 8, overflow) or tiles the
// 8-byte widened range with aligned 2^n chunks, 8 ≤ 2^n ≤ 256.
func FuzzPlanChunks(f *testing.F) {
	f.Add(uint64(0), uint64(0), int64(1))
	f.Add(uint64(4), uint64(0x104), int64(300))
	f.Add(uint64(0x7f), uint64(0xff), int64(65536))
	f.Fuzz(func(t *testing.T, src, dst uint64, size int64) {
		if size < 0 || size > 1<<16 {
			return
		}
		ch, err := PlanChunks(src, dst, size)
		if err != nil {
			if (src-dst)%8 == 0 && src < 1<<62 && dst < 1<<62 {
				t.Fatalf("refused %#x→%#x %d: %v", src, dst, size, err)
			}
			return
		}
		p := src &^ 7
		for _, c := range ch {
			if c.Src != p || c.Size < 8 || c.Size > 256 || c.Size&(c.Size-1) != 0 || c.Src%uint64(c.Size) != 0 || c.Dst%uint64(c.Size) != 0 {
				t.Fatalf("%#x→%#x %d: bad chunk %+v", src, dst, size, c)
			}
			p += uint64(c.Size)
		}
		if size > 0 && p != (src+uint64(size)+7)&^7 {
			t.Fatalf("%#x→%#x %d: chunks end at %#x", src, dst, size, p)
		}
	})
}
