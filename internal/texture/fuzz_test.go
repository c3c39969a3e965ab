package texture

import (
	"math"
	"testing"
)

// FuzzSample builds a texture from fuzzed parameters and data and samples
// it: New must not panic (it may reject), sampling must not panic, the
// callback must see 1 or 2^Dims taps, and for linear filtering of float data
// each result component must lie in the convex hull of the touched texel
// values (border color included), up to binary32 rounding.
func FuzzSample(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(2), uint8(1), uint8(6), uint8(1), uint16(0x0101), true, false, []byte{1, 2, 3, 4, 5, 6, 7, 8}, float32(1.3), float32(0.7), float32(0.2), 0)
	f.Add(uint8(3), uint8(2), uint8(2), uint8(2), uint8(7), uint8(4), uint16(0x0313), true, true, make([]byte, 512), float32(-0.1), float32(1.9), float32(0.5), 1)
	f.Add(uint8(1), uint8(4), uint8(1), uint8(1), uint8(0), uint8(2), uint16(0x0202), false, true, []byte{0, 255, 7, 9, 1, 1, 1, 1}, float32(2.49805), float32(0), float32(0), 0)
	f.Fuzz(func(t *testing.T, dims, w, h, dp, kind, ch uint8, modes uint16, linear, norm bool, data []byte, x, y, z float32, layer int) {
		d := Desc{
			Dims:             int(dims % 4),
			Width:            int(w % 9),
			Height:           int(h % 9),
			Depth:            int(dp % 5),
			Format:           Format{ChannelKind(kind % 9), int(ch % 6)},
			NormalizedCoords: norm,
			ReadNormalized:   modes&0x4000 != 0,
			Layered:          modes&0x8000 != 0,
			Layers:           int(modes>>10) & 3,
			Border:           [4]float32{float32(modes & 3), -1, 0.5, 2},
		}
		if linear {
			d.Filter = Linear
		}
		for i := 0; i < 3; i++ {
			d.Address[i] = AddressMode(modes >> (2 * i) & 3)
		}
		// Pad or trim the data to the expected size half of the time so
		// that New gets past the size check.
		if modes&0x0100 != 0 && d.Format.Kind.Size() > 0 {
			n := d.Width * max(d.Height, 1) * max(d.Depth, 1) * max(d.Layers, 1) * d.Format.Kind.Size() * d.Format.Channels
			if n >= 0 && n < 1<<16 {
				buf := make([]byte, n)
				copy(buf, data)
				data = buf
			}
		}
		tx, err := New(d, data)
		if err != nil {
			return
		}
		var vals [][4]float32
		touched := func(ix, iy, iz, l int) {
			vals = append(vals, tx.texelForTest(ix, iy, iz, l))
		}
		got := tx.SampleF(x, y, z, layer, touched)
		wantTaps := 1
		if d.Filter == Linear {
			wantTaps = 1 << d.Dims
		}
		if len(vals) != wantTaps {
			t.Fatalf("%d taps, want %d", len(vals), wantTaps)
		}
		tx.SampleI(x, y, z, layer, nil)
		tx.Gather(int(kind%5), x, y, layer, nil)
		tx.FetchF(int(x), int(y), int(z), layer)
		tx.FetchI(int(w)-3, int(h)-3, int(dp)-3, layer)
		if d.Filter != Linear {
			if got != vals[0] && !hasNaN(vals[0]) {
				t.Fatalf("point sample %v != touched texel %v", got, vals[0])
			}
			return
		}
		for c := 0; c < 4; c++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			skip := false
			for _, v := range vals {
				f := float64(v[c])
				if f != f || math.IsInf(f, 0) || math.Abs(f) > 1e30 {
					skip = true
				}
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
			if skip {
				continue
			}
			// Relative rounding of the products and sums, plus an absolute term
			// for products that underflow into the subnormal range.
			tol := 16*math.Max(math.Abs(lo), math.Abs(hi))*0x1p-24 + 16*0x1p-149
			if g := float64(got[c]); g < lo-tol || g > hi+tol {
				t.Fatalf("component %d = %v outside hull [%v, %v] of %v", c, g, lo, hi, vals)
			}
		}
	})
}

func hasNaN(v [4]float32) bool {
	for _, f := range v {
		if f != f {
			return true
		}
	}
	return false
}

// texelForTest returns the value of a touched texel as SampleF sees it:
// in-range indices read the texture, out-of-range ones (Border) the border.
func (t *Texture) texelForTest(x, y, z, l int) [4]float32 {
	in := x >= 0 && x < t.w && y >= 0 && y < t.h && z >= 0 && z < t.dp
	return t.texelF(x, y, z, l, in)
}
