package texture

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// Expected values are computed by hand from the Programming Guide rules; the
// arithmetic is in the comments. Notation: xB = x - 0.5, q = floor(256 xB +
// 1/2), i = q >> 8, a = q & 255, α = a/256.

func f32Data(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func u16Data(vals ...uint16) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

// clampAll avoids the zero AddressMode (Wrap), which needs normalized
// coordinates.
var clampAll = [3]AddressMode{Clamp, Clamp, Clamp}

func mustNew(t *testing.T, d Desc, data []byte) *Texture {
	t.Helper()
	tx, err := New(d, data)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tx
}

type coord struct{ x, y, z, l int }

// recorder collects touched calls.
type recorder struct{ calls []coord }

func (r *recorder) fn(x, y, z, l int) { r.calls = append(r.calls, coord{x, y, z, l}) }

func tex1D(t *testing.T, a AddressMode, f FilterMode, norm bool) *Texture {
	d := Desc{Dims: 1, Width: 4, Format: Format{F32, 1}, Filter: f, NormalizedCoords: norm}
	d.Address[0] = a
	d.Border = [4]float32{-1, -1, -1, -1}
	if f == Linear {
		d.Border = [4]float32{}
	}
	return mustNew(t, d, f32Data(10, 20, 30, 40))
}

func TestPoint1D(t *testing.T) {
	cases := []struct {
		mode AddressMode
		norm bool
		x    float32
		want float32
		tx   int // touched x
	}{
		// Element coordinates: i = floor(x).
		{Clamp, false, 0, 10, 0},
		{Clamp, false, 0.99, 10, 0},
		{Clamp, false, 1, 20, 1},
		{Clamp, false, 3.5, 40, 3},
		{Clamp, false, -0.5, 10, 0}, // floor -1, clamped to 0
		{Clamp, false, 4, 40, 3},    // 4 clamped to 3
		{Clamp, false, 100, 40, 3},
		{Clamp, false, float32(math.NaN()), 10, 0}, // NaN acts as 0
		{Clamp, false, float32(math.Inf(1)), 40, 3},
		{Border, false, -0.5, -1, -1}, // out of range: border color, raw index reported
		{Border, false, 4, -1, 4},
		{Border, false, 3.99, 40, 3},
		// Normalized: x = 4u.
		{Clamp, true, 0, 10, 0},
		{Clamp, true, 0.3, 20, 1},    // 0.3f*4 = 1.2000000477 -> 1
		{Clamp, true, 0.999, 40, 3},  // 3.996 -> 3
		{Clamp, true, 1, 40, 3},      // 4 -> clamped 3
		{Wrap, true, 1, 10, 0},       // 4 mod 4 = 0
		{Wrap, true, 1.3, 20, 1},     // 5.1999998 -> 5 mod 4 = 1
		{Wrap, true, -0.1, 40, 3},    // -0.4 -> -1 mod 4 = 3
		{Mirror, true, 1.1, 40, 3},   // 4.4 -> 4: period 8, 4 -> 8-1-4 = 3
		{Mirror, true, 1.3, 30, 2},   // 5 -> 8-1-5 = 2
		{Mirror, true, -0.1, 10, 0},  // -1 -> 7 -> 8-1-7 = 0
		{Mirror, true, 2.1, 10, 0},   // 8.4 -> 8 -> 0
		{Border, true, 1.0, -1, 4},   // 4 is outside [0, 4)
		{Border, true, 0.875, 40, 3}, // 3.5 -> 3
	}
	for _, c := range cases {
		tx := tex1D(t, c.mode, Point, c.norm)
		var rec recorder
		got := tx.SampleF(c.x, 0, 0, 0, rec.fn)
		if got != [4]float32{c.want, 0, 0, 1} {
			t.Errorf("%s norm=%v x=%v: got %v, want %v", c.mode, c.norm, c.x, got, c.want)
		}
		if len(rec.calls) != 1 || rec.calls[0] != (coord{c.tx, 0, 0, 0}) {
			t.Errorf("%s norm=%v x=%v: touched %v, want x=%d", c.mode, c.norm, c.x, rec.calls, c.tx)
		}
	}
}

func TestLinear1D(t *testing.T) {
	cases := []struct {
		name string
		mode AddressMode
		norm bool
		x    float32
		want float32
		taps [2]int
	}{
		// x=1: xB=0.5, q=128: i=0, α=1/2: (10+20)/2.
		{"mid", Clamp, false, 1, 15, [2]int{0, 1}},
		// x=0.5: xB=0, i=0, α=0: T0 (T1 read with weight 0).
		{"center", Clamp, false, 0.5, 10, [2]int{0, 1}},
		// x=1.8f = 1.79999995: xB = 1.29999995, 256 xB = 332.79999; q =
		// 333: i = 1, a = 77. The exact weight 0.3 becomes 77/256:
		// 179/256*20 + 77/256*30 = 13.984375 + 9.0234375 = 23.0078125
		// (unquantized weights would give 23).
		{"0.3->77/256", Clamp, false, 1.8, 23.0078125, [2]int{1, 2}},
		// Quantization tie: x = 1.501953125, xB = 1 + 1/512, 256 xB =
		// 256.5 -> q = 257 (ties up): i = 1, a = 1: 255/256*20 + 1/256*30
		// = 19.921875 + 0.1171875 = 20.0390625.
		{"tie up", Clamp, false, 1.501953125, 20.0390625, [2]int{1, 2}},
		// x = 1.498046875: 256 xB = 255.5 -> q = 256: i = 1, a = 0: T1.
		{"tie to next", Clamp, false, 1.498046875, 20, [2]int{1, 2}},
		// The Guide's tex2Dgather example: x = 2.49805, xB = 1.99805,
		// 256 xB = 511.50079 -> q = 512: i = 2, α = 0: T2 = 30 (indices 2, 3).
		{"guide 2.49805", Clamp, false, 2.49805, 30, [2]int{2, 3}},
		// Left edge x=0: xB=-0.5, q=floor(-127.5)=-128: i=-1, a=128.
		{"clamp left", Clamp, false, 0, 10, [2]int{0, 0}},    // (T0+T0)/2
		{"border left", Border, false, 0, 5, [2]int{-1, 0}},  // (0+10)/2
		{"clamp right", Clamp, false, 4, 40, [2]int{3, 3}},   // xB=3.5: i=3, α=1/2, T4->T3
		{"border right", Border, false, 4, 20, [2]int{3, 4}}, // (40+0)/2
		{"wrap left", Wrap, true, 0, 25, [2]int{3, 0}},       // i=-1 -> 3: (40+10)/2
		{"wrap right", Wrap, true, 1, 25, [2]int{3, 0}},      // x=4: i=3, 4 -> 0
		{"mirror left", Mirror, true, 0, 10, [2]int{0, 0}},   // -1 -> 0
		{"mirror right", Mirror, true, 1, 40, [2]int{3, 3}},  // 4 -> 3
		{"norm mid", Clamp, true, 0.25, 15, [2]int{0, 1}},    // x = 1
		{"norm 0.375", Clamp, true, 0.375, 20, [2]int{1, 2}}, // x = 1.5: i = 1, α = 0
	}
	for _, c := range cases {
		tx := tex1D(t, c.mode, Linear, c.norm)
		var rec recorder
		got := tx.SampleF(c.x, 0, 0, 0, rec.fn)
		if got[0] != c.want || got[3] != 1 {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
		want := []coord{{c.taps[0], 0, 0, 0}, {c.taps[1], 0, 0, 0}}
		if len(rec.calls) != 2 || rec.calls[0] != want[0] || rec.calls[1] != want[1] {
			t.Errorf("%s: touched %v, want %v", c.name, rec.calls, want)
		}
	}
}

func TestLinear2DAnd3D(t *testing.T) {
	d := Desc{Dims: 2, Width: 2, Height: 2, Format: Format{F32, 1}, Filter: Linear}
	d.Address = [3]AddressMode{Clamp, Clamp, Clamp}
	tx := mustNew(t, d, f32Data(1, 2, 3, 4)) // row y=0: 1 2; row y=1: 3 4
	var rec recorder
	// (1,1): α = β = 1/2: (1+2+3+4)/4 = 2.5; taps in Guide order.
	if got := tx.SampleF(1, 1, 0, 0, rec.fn); got[0] != 2.5 {
		t.Errorf("bilinear center = %v, want 2.5", got)
	}
	want := []coord{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}}
	if len(rec.calls) != 4 {
		t.Fatalf("touched %v", rec.calls)
	}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Errorf("tap %d = %v, want %v", i, rec.calls[i], want[i])
		}
	}
	// (1.25, 0.75): α = 192/256, β = 64/256. Weights (of 65536):
	// (1-α)(1-β) = 64*192 = 12288, α(1-β) = 36864, (1-α)β = 4096, αβ = 12288.
	// (12288*1 + 36864*2 + 4096*3 + 12288*4)/65536 = 147456/65536 = 2.25.
	if got := tx.SampleF(1.25, 0.75, 0, 0, nil); got[0] != 2.25 {
		t.Errorf("bilinear (1.25,0.75) = %v, want 2.25", got)
	}

	// 3D: T(x,y,z) = x + 2y + 4z on 2x2x2.
	d3 := Desc{Dims: 3, Width: 2, Height: 2, Depth: 2, Format: Format{F32, 1}, Filter: Linear}
	d3.Address = [3]AddressMode{Clamp, Clamp, Clamp}
	vals := make([]float32, 8)
	for z := 0; z < 2; z++ {
		for y := 0; y < 2; y++ {
			for x := 0; x < 2; x++ {
				vals[z*4+y*2+x] = float32(x + 2*y + 4*z)
			}
		}
	}
	t3 := mustNew(t, d3, f32Data(vals...))
	rec = recorder{}
	// Center (1,1,1): all weights 1/8: mean of 0..7 = 3.5.
	if got := t3.SampleF(1, 1, 1, 0, rec.fn); got[0] != 3.5 {
		t.Errorf("trilinear center = %v", got)
	}
	if len(rec.calls) != 8 {
		t.Fatalf("trilinear touched %d texels", len(rec.calls))
	}
	want3 := []coord{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 1, 0}, {0, 1, 1, 0}, {1, 1, 1, 0}}
	for i := range want3 {
		if rec.calls[i] != want3[i] {
			t.Errorf("3D tap %d = %v, want %v", i, rec.calls[i], want3[i])
		}
	}
	// (1.25, 0.75, 1.5): α = 3/4, β = 1/4, zB = 1: k = 1, γ = 0 (k+1 = 2
	// clamps to 1). T is linear, so the result is 0.75 + 2*0.25 + 4*1 = 5.25.
	rec = recorder{}
	if got := t3.SampleF(1.25, 0.75, 1.5, 0, rec.fn); got[0] != 5.25 {
		t.Errorf("trilinear (1.25,0.75,1.5) = %v, want 5.25", got)
	}
	for i, c := range rec.calls {
		if c.z != 1 {
			t.Errorf("3D tap %d z = %d, want 1 (clamped)", i, c.z)
		}
	}
}

func TestReadModes(t *testing.T) {
	type c struct {
		name string
		kind ChannelKind
		norm bool
		raw  []byte
		want float32
		wi   uint32
	}
	cases := []c{
		{"u8 255", U8, true, []byte{255}, 1, 255},
		{"u8 0", U8, true, []byte{0}, 0, 0},
		{"u8 128", U8, true, []byte{128}, float32(128.0 / 255), 128}, // correctly rounded 128/255
		{"u8 elem", U8, false, []byte{200}, 200, 200},
		{"s8 127", S8, true, []byte{127}, 1, 127},
		{"s8 -127", S8, true, []byte{0x81}, -1, 0xffffff81},
		{"s8 -128", S8, true, []byte{0x80}, -1, 0xffffff80}, // -128/127 clamped to -1
		{"s8 64", S8, true, []byte{64}, float32(64.0 / 127), 64},
		{"s8 -5 elem", S8, false, []byte{0xfb}, -5, 0xfffffffb}, // sign-extended
		{"u16 65535", U16, true, u16Data(65535), 1, 65535},
		{"u16 1", U16, true, u16Data(1), float32(1.0 / 65535), 1},
		{"s16 -32768", S16, true, u16Data(0x8000), -1, 0xffff8000},
		{"s16 32767", S16, true, u16Data(32767), 1, 32767},
		{"s16 -16384", S16, true, u16Data(0xc000), float32(-16384.0 / 32767), 0xffffc000},
		{"u32 elem", U32, false, []byte{0xff, 0xff, 0xff, 0xff}, 4294967296, 0xffffffff}, // float32(2^32-1) = 2^32
		{"s32 elem", S32, false, []byte{0xfe, 0xff, 0xff, 0xff}, -2, 0xfffffffe},
		{"f16 1.0", F16, false, u16Data(0x3c00), 1, 0x3f800000},
		{"f16 1/3", F16, false, u16Data(0x3555), 0.333251953125, 0x3eaaa000},
		{"f32", F32, false, f32Data(-2.5), -2.5, 0xc0200000},
	}
	for _, tc := range cases {
		d := Desc{Dims: 1, Width: 1, Format: Format{tc.kind, 1}, ReadNormalized: tc.norm, Address: clampAll}
		tx := mustNew(t, d, tc.raw)
		if got := tx.SampleF(0.5, 0, 0, 0, nil); got != [4]float32{tc.want, 0, 0, 1} {
			t.Errorf("%s SampleF = %v, want %v", tc.name, got, tc.want)
		}
		if got := tx.FetchF(0, 0, 0, 0); got[0] != tc.want {
			t.Errorf("%s FetchF = %v", tc.name, got)
		}
		wantI := [4]uint32{tc.wi, 0, 0, 1}
		if !tc.kind.isInt() {
			wantI[3] = math.Float32bits(1)
		}
		if got := tx.SampleI(0.5, 0, 0, 0, nil); got != wantI {
			t.Errorf("%s SampleI = %#x, want %#x", tc.name, got, wantI)
		}
		if got := tx.FetchI(0, 0, 0, 0); got != wantI {
			t.Errorf("%s FetchI = %#x", tc.name, got)
		}
	}
	// Linear filtering of normalized u8: (0 + 255/255)/2 = 0.5.
	d := Desc{Dims: 1, Width: 2, Format: Format{U8, 1}, ReadNormalized: true, Filter: Linear, Address: clampAll}
	tx := mustNew(t, d, []byte{0, 255})
	if got := tx.SampleF(1, 0, 0, 0, nil); got[0] != 0.5 {
		t.Errorf("linear u8 = %v", got)
	}
	// Two channels: (v0, v1, 0, 1).
	d2 := Desc{Dims: 1, Width: 1, Format: Format{U8, 2}, ReadNormalized: true, Address: clampAll}
	if got := mustNew(t, d2, []byte{0, 255}).SampleF(0, 0, 0, 0, nil); got != [4]float32{0, 1, 0, 1} {
		t.Errorf("2-channel = %v", got)
	}
}

func TestLayered(t *testing.T) {
	// 2 x 1 texels, 3 layers: T = 10*layer + x.
	d := Desc{Dims: 2, Layered: true, Width: 2, Height: 1, Layers: 3, Format: Format{F32, 1}}
	d.Address = [3]AddressMode{Clamp, Clamp, Clamp}
	data := f32Data(0, 1, 10, 11, 20, 21)
	tx := mustNew(t, d, data)
	var rec recorder
	if got := tx.SampleF(0.5, 0.5, 0, 2, rec.fn); got[0] != 20 || rec.calls[0] != (coord{0, 0, 0, 2}) {
		t.Errorf("layer 2: %v %v", got, rec.calls)
	}
	if got := tx.SampleF(1.5, 0.5, 0, 5, nil); got[0] != 21 { // clamped to layer 2
		t.Errorf("layer 5 (clamped): %v", got)
	}
	if got := tx.SampleF(0.5, 0.5, 0, -1, nil); got[0] != 0 {
		t.Errorf("layer -1 (clamped): %v", got)
	}
	// Linear filtering stays within the layer: x=1: (10+11)/2.
	dl := d
	dl.Filter = Linear
	tl := mustNew(t, dl, data)
	rec = recorder{}
	if got := tl.SampleF(1, 0.5, 0, 1, rec.fn); got[0] != 10.5 {
		t.Errorf("linear layer 1 = %v", got)
	}
	for _, c := range rec.calls {
		if c.l != 1 {
			t.Errorf("tap in layer %d", c.l)
		}
	}
	// Layered 1D.
	d1 := Desc{Dims: 1, Layered: true, Width: 2, Layers: 2, Format: Format{F32, 1}, Address: clampAll}
	t1 := mustNew(t, d1, f32Data(1, 2, 3, 4))
	if got := t1.FetchF(1, 0, 0, 1); got[0] != 4 {
		t.Errorf("layered 1D fetch = %v", got)
	}
	if n, _ := t1.Query(".array_size"); n != 2 {
		t.Errorf("array_size = %d", n)
	}
}

func TestGather(t *testing.T) {
	// 4 x 3 texels, T = 10*y + x.
	d := Desc{Dims: 2, Width: 4, Height: 3, Format: Format{F32, 1}}
	d.Address = [3]AddressMode{Clamp, Clamp, Clamp}
	var vals []float32
	for y := 0; y < 3; y++ {
		for x := 0; x < 4; x++ {
			vals = append(vals, float32(10*y+x))
		}
	}
	tx := mustNew(t, d, f32Data(vals...))
	var rec recorder
	// (1,1): i0 = j0 = 0. Order (i0,j1), (i1,j1), (i1,j0), (i0,j0).
	if got := tx.Gather(0, 1, 1, 0, rec.fn); got != [4]float32{10, 11, 1, 0} {
		t.Errorf("gather (1,1) = %v", got)
	}
	want := []coord{{0, 1, 0, 0}, {1, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Errorf("gather tap %d = %v, want %v", i, rec.calls[i], want[i])
		}
	}
	// The Guide's example: x = 2.49805 gives indices 2 and 3, not 1 and 2.
	if got := tx.Gather(0, 2.49805, 1, 0, nil); got != [4]float32{12, 13, 3, 2} {
		t.Errorf("gather (2.49805,1) = %v", got)
	}
	// Missing component: comp 3 of a 1-channel texture reads 1; bad comp 0s.
	if got := tx.Gather(3, 1, 1, 0, nil); got != [4]float32{1, 1, 1, 1} {
		t.Errorf("gather comp 3 = %v", got)
	}
	if got := tx.Gather(4, 1, 1, 0, nil); got != [4]float32{} {
		t.Errorf("gather comp 4 = %v", got)
	}
	// The Guide's component example: texels (253,20,31,255),
	// (250,25,29,254), (249,16,37,253), (251,22,30,250) at (i0,j1),
	// (i1,j1), (i1,j0), (i0,j0); comp 2 gives (31, 29, 37, 30).
	dq := Desc{Dims: 2, Width: 2, Height: 2, Format: Format{U8, 4}}
	dq.Address = [3]AddressMode{Clamp, Clamp, Clamp}
	raw := []byte{
		251, 22, 30, 250, // (0,0) = (i0,j0)
		249, 16, 37, 253, // (1,0) = (i1,j0)
		253, 20, 31, 255, // (0,1) = (i0,j1)
		250, 25, 29, 254, // (1,1) = (i1,j1)
	}
	tq := mustNew(t, dq, raw)
	if got := tq.Gather(2, 1, 1, 0, nil); got != [4]float32{31, 29, 37, 30} {
		t.Errorf("guide gather = %v", got)
	}
	if got := tq.GatherI(2, 1, 1, 0, nil); got != [4]uint32{31, 29, 37, 30} {
		t.Errorf("guide GatherI = %v", got)
	}
	// Gather on a 1D texture reads nothing.
	t1 := tex1D(t, Clamp, Point, false)
	rec = recorder{}
	if got := t1.Gather(0, 1, 1, 0, rec.fn); got != [4]float32{} || len(rec.calls) != 0 {
		t.Errorf("1D gather = %v, %v", got, rec.calls)
	}
}

func TestBorderColor(t *testing.T) {
	d := Desc{Dims: 2, Width: 2, Height: 2, Format: Format{F32, 4}, Border: [4]float32{0.5, 0.25, 0, 1}}
	d.Address = [3]AddressMode{Border, Border, Border}
	data := f32Data(1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4)
	tx := mustNew(t, d, data)
	if got := tx.SampleF(-1, 0.5, 0, 0, nil); got != [4]float32{0.5, 0.25, 0, 1} {
		t.Errorf("point border = %v", got)
	}
	if got := tx.FetchF(0, 2, 0, 0); got != [4]float32{0.5, 0.25, 0, 1} {
		t.Errorf("fetch border = %v", got)
	}
	if got := tx.FetchF(1, 1, 0, 0); got != [4]float32{4, 4, 4, 4} {
		t.Errorf("fetch in range = %v", got)
	}
	// Linear at (0, 0.5): xB = -0.5 -> i = -1, α = 1/2; yB = 0 -> β = 0.
	// 0.5*border + 0.5*T(0,0): (0.75, 0.625, 0.5, 1).
	dl := d
	dl.Filter = Linear
	tl := mustNew(t, dl, data)
	if got := tl.SampleF(0, 0.5, 0, 0, nil); got != [4]float32{0.75, 0.625, 0.5, 1} {
		t.Errorf("linear border = %v", got)
	}
	// Integer border in element mode: truncated toward zero.
	di := Desc{Dims: 1, Width: 1, Format: Format{S32, 1}, Border: [4]float32{-7.9}}
	di.Address[0] = Border
	if got := mustNew(t, di, []byte{1, 0, 0, 0}).FetchI(3, 0, 0, 0); got != [4]uint32{0xfffffff9, 0, 0, 1} {
		t.Errorf("integer border = %#x", got)
	}
	// Fetch with Clamp clamps integer coordinates.
	tc := tex1D(t, Clamp, Point, false)
	if got := tc.FetchF(-3, 0, 0, 0); got[0] != 10 {
		t.Errorf("clamped fetch = %v", got)
	}
	if got := tc.FetchF(9, 0, 0, 0); got[0] != 40 {
		t.Errorf("clamped fetch = %v", got)
	}
}

func TestNormalizedVsElement(t *testing.T) {
	// Width 8: normalized u = 0.5 is x = 4.
	d := Desc{Dims: 1, Width: 8, Format: Format{U8, 1}, Address: clampAll}
	raw := []byte{0, 1, 2, 3, 4, 5, 6, 7}
	te := mustNew(t, d, raw)
	d.NormalizedCoords = true
	tn := mustNew(t, d, raw)
	if a, b := te.SampleI(4, 0, 0, 0, nil), tn.SampleI(0.5, 0, 0, 0, nil); a[0] != 4 || b[0] != 4 {
		t.Errorf("element %v, normalized %v", a, b)
	}
	if got := tn.SampleI(0.0624, 0, 0, 0, nil); got[0] != 0 { // 0.4992 -> 0
		t.Errorf("normalized 0.0624 -> %v", got)
	}
}

func TestTouchedCounts(t *testing.T) {
	mk := func(dims int, f FilterMode) *Texture {
		d := Desc{Dims: dims, Width: 3, Height: 3, Depth: 3, Format: Format{F16, 2}, Filter: f, Address: clampAll}
		if dims < 3 {
			d.Depth = 0
		}
		if dims < 2 {
			d.Height = 0
		}
		n := 3
		for i := 1; i < dims; i++ {
			n *= 3
		}
		return mustNew(t, d, make([]byte, n*4))
	}
	for dims := 1; dims <= 3; dims++ {
		for _, f := range []FilterMode{Point, Linear} {
			var rec recorder
			mk(dims, f).SampleF(1.3, 1.3, 1.3, 0, rec.fn)
			want := 1
			if f == Linear {
				want = 1 << dims
			}
			if len(rec.calls) != want {
				t.Errorf("%dD %s: %d taps, want %d", dims, f, len(rec.calls), want)
			}
		}
	}
}

func TestQuery(t *testing.T) {
	d := Desc{Dims: 2, Layered: true, Width: 5, Height: 3, Layers: 4, Format: Format{S16, 2},
		Filter: Linear, ReadNormalized: true, NormalizedCoords: true}
	d.Address = [3]AddressMode{Wrap, Mirror, Border}
	tx := mustNew(t, d, make([]byte, 5*3*4*4))
	want := map[string]int{
		".width": 5, ".height": 3, ".depth": 0, ".array_size": 4,
		".channel_data_type": 0x09, ".channel_order": 2, ".normalized_coords": 1,
		".filter_mode": 1, ".addr_mode_0": 0, ".addr_mode_1": 1, ".addr_mode_2": 4,
		".num_mipmap_levels": 0, ".num_samples": 0, "width": 5, ".force_unnormalized_coords": 0,
	}
	for q, w := range want {
		if got, ok := tx.Query(q); !ok || got != w {
			t.Errorf("Query(%s) = %d, %v; want %d", q, got, ok, w)
		}
	}
	if _, ok := tx.Query(".bogus"); ok {
		t.Error("Query(.bogus) succeeded")
	}
	t1 := tex1D(t, Clamp, Point, false)
	for q, w := range map[string]int{".height": 0, ".array_size": 0, ".addr_mode_0": 3, ".filter_mode": 0, ".channel_data_type": 0x20, ".normalized_coords": 0} {
		if got, _ := t1.Query(q); got != w {
			t.Errorf("1D Query(%s) = %d, want %d", q, got, w)
		}
	}
	if tx.Desc() != d {
		t.Error("Desc() differs")
	}
}

func TestNewErrors(t *testing.T) {
	ok := Desc{Dims: 2, Width: 2, Height: 2, Format: Format{F32, 1}, Address: clampAll}
	okData := make([]byte, 16)
	if _, err := New(ok, okData); err != nil {
		t.Fatalf("valid desc rejected: %v", err)
	}
	cases := []struct {
		name string
		mod  func(d *Desc)
		data []byte
		msg  string
	}{
		{"dims 0", func(d *Desc) { d.Dims = 0 }, okData, "Dims"},
		{"dims 4", func(d *Desc) { d.Dims = 4 }, okData, "Dims"},
		{"3 channels", func(d *Desc) { d.Format.Channels = 3 }, make([]byte, 48), "3-channel"},
		{"5 channels", func(d *Desc) { d.Format.Channels = 5 }, okData, "Channels"},
		{"bad kind", func(d *Desc) { d.Format.Kind = 99 }, okData, "kind"},
		{"wrap unnormalized", func(d *Desc) { d.Address[0] = Wrap }, okData, "normalized coordinates"},
		{"mirror unnormalized", func(d *Desc) { d.Address[1] = Mirror }, okData, "normalized coordinates"},
		{"bad address", func(d *Desc) { d.Address[2] = 7 }, okData, "address mode"},
		{"bad filter", func(d *Desc) { d.Filter = 3 }, okData, "filter"},
		{"linear u8 element", func(d *Desc) { d.Format.Kind = U8; d.Filter = Linear }, make([]byte, 4), "linear filtering"},
		{"normalized f32", func(d *Desc) { d.ReadNormalized = true }, okData, "normalized-float"},
		{"normalized u32", func(d *Desc) { d.Format.Kind = U32; d.ReadNormalized = true }, okData, "normalized-float"},
		{"short data", func(d *Desc) {}, make([]byte, 15), "want 16"},
		{"long data", func(d *Desc) {}, make([]byte, 17), "want 16"},
		{"width 0", func(d *Desc) { d.Width = 0 }, nil, "Width"},
		{"height 0", func(d *Desc) { d.Height = 0 }, nil, "Height"},
		{"1D height", func(d *Desc) { d.Dims = 1; d.Height = 5 }, okData, "Height"},
		{"2D depth", func(d *Desc) { d.Depth = 2 }, okData, "Depth"},
		{"3D depth 0", func(d *Desc) { d.Dims = 3 }, okData, "Depth"},
		{"layered 3D", func(d *Desc) { d.Dims = 3; d.Depth = 1; d.Layered = true; d.Layers = 1 }, okData, "layered"},
		{"layers 0", func(d *Desc) { d.Layered = true }, okData, "Layers"},
		{"layers unlayered", func(d *Desc) { d.Layers = 2 }, okData, "Layers"},
		{"nan border", func(d *Desc) { d.Border[1] = float32(math.NaN()) }, okData, "NaN"},
		{"huge", func(d *Desc) { d.Width = 1 << 20; d.Height = 1 << 20 }, nil, "too large"},
	}
	for _, c := range cases {
		d := ok
		c.mod(&d)
		_, err := New(d, c.data)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %q lacks %q", c.name, err, c.msg)
		}
	}
	// Wrap on a dimension the texture does not have is ignored.
	d := Desc{Dims: 1, Width: 1, Format: Format{F32, 1}, Address: [3]AddressMode{Clamp, Wrap, Mirror}}
	if _, err := New(d, make([]byte, 4)); err != nil {
		t.Errorf("unused-dimension wrap rejected: %v", err)
	}
	// New copies the data.
	buf := f32Data(1)
	tx, _ := New(Desc{Dims: 1, Width: 1, Format: Format{F32, 1}, Address: clampAll}, buf)
	buf[3] = 0xff
	if got := tx.FetchF(0, 0, 0, 0); got[0] != 1 {
		t.Error("New did not copy data")
	}
}

func TestStrings(t *testing.T) {
	if U8.String() != "u8" || F32.String() != "f32" || ChannelKind(99).String() != "ChannelKind(99)" {
		t.Error("ChannelKind.String")
	}
	if Mirror.String() != "mirror" || AddressMode(9).String() != "AddressMode(9)" {
		t.Error("AddressMode.String")
	}
	if Linear.String() != "linear" || FilterMode(5).String() != "FilterMode(5)" {
		t.Error("FilterMode.String")
	}
}
