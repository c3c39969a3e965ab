package ref

import (
	"fmt"
	"math"
)

// Sample geometry and loop constants of d_render.
const (
	volStep     = 0.01
	volMaxSteps = 500
	volOpaque   = 0.95
)

// TexWeightQuantum is the resolution of the hardware's linear-filtering
// weights: the CUDA programming guide specifies 9-bit fixed point with 8
// fractional bits, so a weight may be off by up to 1/256 (truncation; 1/512
// if rounded). The reference filters exactly and budgets for this.
const TexWeightQuantum = 1.0 / 256

// RenderParams are the scalar arguments of d_render plus the constant matrix.
type RenderParams struct {
	W, H           int
	Density        float32
	Brightness     float32
	TransferOffset float32
	TransferScale  float32
	View           [12]float32 // c_invViewMatrix, see ViewMatrix
}

// DefaultRenderParams returns a w×h render of the view (alpha, beta, gamma)
// at distance 4 with density 0.05, brightness 1, transfer offset 0, scale 1.
func DefaultRenderParams(w, h int, alpha, beta, gamma float64) RenderParams {
	return RenderParams{W: w, H: h, Density: 0.05, Brightness: 1, TransferOffset: 0, TransferScale: 1,
		View: ViewMatrix(alpha, beta, gamma, 4)}
}

// Image is the expected d_render output: packed RGBA8 pixels (r | g<<8 |
// b<<16 | a<<24, row-major, W·H entries) and, per pixel and channel (r, g, b,
// a), the largest |got − want| in 8-bit levels that the error bound allows.
type Image struct {
	W, H int
	Want []uint32
	Tol  [][4]uint8
}

// MaxTol returns the largest per-channel tolerance over the image.
func (im Image) MaxTol() [4]int {
	var m [4]int
	for _, t := range im.Tol {
		for c := range 4 {
			m[c] = max(m[c], int(t[c]))
		}
	}
	return m
}

// CompareRGBA8 checks a d_render output image channel by channel against the
// reference with its per-pixel tolerances.
func CompareRGBA8(got []uint32, want Image) error {
	if len(got) != len(want.Want) {
		return fmt.Errorf("length %d, want %d", len(got), len(want.Want))
	}
	var m mismatches
	for i, g := range got {
		w := want.Want[i]
		for c := range 4 {
			gc, wc := int(g>>(8*c)&255), int(w>>(8*c)&255)
			if d := gc - wc; d > int(want.Tol[i][c]) || -d > int(want.Tol[i][c]) {
				m.add("pixel (%d,%d) channel %c: got %d want %d (tolerance %d)",
					i%want.W, i/want.W, "rgba"[c], gc, wc, want.Tol[i][c])
			}
		}
	}
	return m.err("RGBA8 image", len(got))
}

// volTex is the reference 3D texture: exact trilinear filtering of the
// normalized 8-bit volume with normalized coordinates and clamp addressing.
type volTex struct {
	v []uint8
	n int
}

func (t volTex) at(x, y, z int) float64 {
	x = min(max(x, 0), t.n-1)
	y = min(max(y, 0), t.n-1)
	z = min(max(z, 0), t.n-1)
	return float64(t.v[(z*t.n+y)*t.n+x]) / 255
}

// sample returns the filtered value at normalized coordinates c and an
// upper bound on how far a hardware fetch may be from it when the texel-space
// coordinates are each off by up to dg texels: per axis, the largest texel
// difference along that axis times (weight quantum + dg).
func (t volTex) sample(c [3]float64, dg float64) (float64, float64) {
	var i [3]int
	var f [3]float64
	for k := range 3 {
		g := c[k]*float64(t.n) - 0.5
		fl := math.Floor(g)
		i[k], f[k] = int(fl), g-fl
	}
	var v float64
	for dz := range 2 {
		for dy := range 2 {
			for dx := range 2 {
				v += pick(dx, f[0]) * pick(dy, f[1]) * pick(dz, f[2]) * t.at(i[0]+dx, i[1]+dy, i[2]+dz)
			}
		}
	}
	var eps float64
	for k := range 3 {
		lo, hi := 0, 0 // cells along axis k whose edges may be used
		if f[k] < dg {
			lo = -1
		}
		if f[k] > 1-dg {
			hi = 1
		}
		var d float64
		for s := lo; s <= hi; s++ {
			for a := range 2 {
				for b := range 2 {
					p := i
					p[k] += s
					q := p
					q[k]++
					p[(k+1)%3] += a
					q[(k+1)%3] += a
					p[(k+2)%3] += b
					q[(k+2)%3] += b
					d = max(d, math.Abs(t.at(q[0], q[1], q[2])-t.at(p[0], p[1], p[2])))
				}
			}
		}
		eps += d * (TexWeightQuantum + dg)
	}
	return v, eps + 8*u
}

// tfTex is the reference 1D transfer texture (linear, clamp, normalized).
type tfTex [][4]float32

// sample returns the filtered RGBA at normalized coordinate x and, per
// channel, a bound on the hardware's deviation when x is off by dx: the
// largest adjacent-entry difference in reach times (weight quantum + dx·M).
func (t tfTex) sample(x, dx float64) ([4]float64, [4]float64) {
	m := len(t)
	g := x*float64(m) - 0.5
	fl := math.Floor(g)
	i, f := int(fl), g-fl
	at := func(k, c int) float64 { return float64(t[min(max(k, 0), m-1)][c]) }
	dg := dx * float64(m)
	span := int(math.Ceil(dg)) + 1
	var v, e [4]float64
	for c := range 4 {
		v[c] = (1-f)*at(i, c) + f*at(i+1, c)
		var d float64
		for k := i - span; k <= i+span; k++ {
			d = max(d, math.Abs(at(k+1, c)-at(k, c)))
		}
		e[c] = d*(TexWeightQuantum+dg) + 4*u
	}
	return v, e
}

// Render is the reference ray caster for d_render over vol (n³ voxels, see
// Volume) with transfer function tf. It follows the sample's definition in
// float64: eye = M·(0,0,0,1); the ray of pixel (x, y) has direction
// M·(2x/W−1, 2y/H−1, −2, 0), normalized; it is clipped to the box [-1,1]³
// (slab test, NaN-ignoring min/max as fminf/fmaxf), starting at max(tnear, 0);
// samples are taken at t = tnear + k·0.01 for k = 0, 1, … while t ≤ tfar and
// k < 500; each sample reads s = tex3D(p·0.5 + 0.5) with exact trilinear
// filtering, c = tex1D((s − offset)·scale) with exact linear filtering,
// multiplies c.a by density and composites front to back
// (w = c.a·(1 − A); rgb += c.rgb·w; A += w), stopping after the sample that
// makes A > 0.95. The result is brightness·(r, g, b, A), clamped to [0, 1],
// times 255, truncated, packed. A ray that misses the box gives 0.
//
// Tolerance (Image.Tol), per pixel and channel, from a first-order error
// bound accumulated along the ray:
//   - each texture fetch may differ by (largest texel difference along each
//     axis)·(1/256 + position error in texels): the hardware's 8-bit filter
//     weights, plus the float32 sample position (t accumulated by repeated
//     float32 additions of 0.01f, rsqrt.approx direction), at most
//     (k+16)·u·(t+|eye|) plus 2⁻²⁰·t object units at sample k;
//   - that error, scaled by the transfer scale, moves the transfer lookup;
//     the transfer fetch has its own 8-bit weights;
//   - colour and opacity errors of sample k reach the result weighted by the
//     transmittance T_k = 1 − A_{k−1}: Δrgb ≤ Σ T_k(a_k·Δc_k + cmax·Δa_k),
//     ΔA ≤ Σ T_k·Δa_k (cmax: the largest transfer value of the channel);
//   - discrete decisions taken within their error margin (A near 0.95, the
//     last t near tfar, a grazing ray near hit/miss) may add or drop one
//     sample: + ΔA + amax·(T + ΔA) in alpha, times cmax in colour (amax =
//     density·max transfer alpha);
//   - the channel tolerance is the number of 8-bit levels spanned by
//     brightness·(value ± bound), which includes the ±1 of truncation.
func Render(vol []uint8, n int, tf [][4]float32, p RenderParams) (Image, error) {
	if len(vol) != n*n*n {
		return Image{}, fmt.Errorf("volume has %d voxels, want %d³", len(vol), n)
	}
	if len(tf) == 0 {
		return Image{}, fmt.Errorf("empty transfer function")
	}
	im := Image{W: p.W, H: p.H, Want: make([]uint32, p.W*p.H), Tol: make([][4]uint8, p.W*p.H)}
	vt := volTex{v: vol, n: n}
	tt := tfTex(tf)
	var cmax [4]float64
	for _, e := range tf {
		for c := range 4 {
			cmax[c] = max(cmax[c], math.Abs(float64(e[c])))
		}
	}
	density := float64(p.Density)
	amax := math.Abs(density) * cmax[3]
	var m [12]float64
	for i, v := range p.View {
		m[i] = float64(v)
	}
	eye := [3]float64{m[3], m[7], m[11]}
	eyeMag := max(math.Abs(eye[0]), math.Abs(eye[1]), math.Abs(eye[2]))
	for y := range p.H {
		for x := range p.W {
			uu := 2*float64(x)/float64(p.W) - 1
			vv := 2*float64(y)/float64(p.H) - 1
			var dir [3]float64
			for r := range 3 {
				dir[r] = m[4*r]*uu + m[4*r+1]*vv - 2*m[4*r+2]
			}
			l := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])
			for r := range 3 {
				dir[r] /= l
			}
			px := y*p.W + x
			rgba, bound := castRay(vt, tt, eye, eyeMag, dir, p, cmax, amax)
			var packed uint32
			for c := range 4 {
				b := float64(p.Brightness)
				val := b * rgba[c]
				e := math.Abs(b)*bound[c] + 8*u
				want := level(val)
				lo, hi := level(val-e), level(val+e)
				packed |= uint32(want) << (8 * c)
				im.Tol[px][c] = uint8(min(255, max(want-lo, hi-want)))
			}
			im.Want[px] = packed
		}
	}
	return im, nil
}

// level converts a channel value to its 8-bit level: clamp to [0, 1], ×255, truncate.
func level(v float64) int {
	return int(min(max(v, 0), 1) * 255)
}

// fmin and fmax ignore a NaN operand, like fminf/fmaxf and PTX min/max.f32.
func fmin(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Min(a, b)
}

func fmax(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}

// castRay composites one ray and returns its RGBA (before brightness) and the
// per-channel error bound described at Render.
func castRay(vt volTex, tt tfTex, eye [3]float64, eyeMag float64, dir [3]float64,
	p RenderParams, cmax [4]float64, amax float64) (rgba, bound [4]float64) {
	tnear, tfar := math.Inf(-1), math.Inf(1)
	for k := range 3 {
		inv := 1 / dir[k]
		a, b := (-1-eye[k])*inv, (1-eye[k])*inv
		tnear = fmax(tnear, fmin(a, b))
		tfar = fmin(tfar, fmax(a, b))
	}
	tmag := math.Abs(tnear) + math.Abs(tfar) + eyeMag
	dt := 32*u*tmag + 1e-12 // error of tnear/tfar: rcp.rn, rsqrt.approx, slab products
	n := float64(vt.n)
	scale := float64(p.TransferScale)
	off := float64(p.TransferOffset)
	density := float64(p.Density)
	// sampleAt returns the transfer colour at ray parameter t (sample index k)
	// with the per-channel bound on a hardware fetch's deviation from it.
	sampleAt := func(t float64, k int) (col, ec [4]float64) {
		// Position error of the float32 ray (object units), then in texels.
		dp := float64(k+16)*u*(math.Abs(t)+eyeMag) + math.Abs(t)/(1<<20) + dt
		var c [3]float64
		for a := range 3 {
			c[a] = (eye[a]+dir[a]*t)*0.5 + 0.5
		}
		s, es := vt.sample(c, dp*n/2+2*u*n)
		x := (s - off) * scale
		ex := math.Abs(scale)*es + 4*u*(math.Abs(x)+math.Abs(s)+math.Abs(off))
		return tt.sample(x, ex)
	}
	var eA float64
	var eC [3]float64
	// addFlip accounts for one sample more or less, taken with transmittance
	// trans and opacity at most amax (before density).
	addFlip := func(trans, amax float64) {
		f := eA + amax*(trans+eA)
		for c := range 3 {
			eC[c] += cmax[c] * f
		}
		eA += f
	}
	extra := func(t float64, k int) float64 { // bound on the opacity of a sample at t
		col, ec := sampleAt(t, k)
		return math.Abs(density) * (math.Abs(col[3]) + ec[3])
	}
	if math.Abs(tfar-tnear) <= 2*dt || math.Abs(tfar) <= dt { // grazing: hit/miss may differ
		addFlip(1, extra(max(tnear, 0), 0))
	}
	if !(tfar > tnear && tfar > 0) {
		return rgba, [4]float64{eC[0], eC[1], eC[2], eA}
	}
	tnear = max(tnear, 0)
	flipped := false
	for k := range volMaxSteps {
		t := tnear + float64(k)*volStep
		col, ec := sampleAt(t, k)
		trans := 1 - rgba[3]
		a := col[3] * density
		ea := math.Abs(density)*ec[3] + u*math.Abs(a)
		w := a * trans
		for ch := range 3 {
			rgba[ch] += col[ch] * w
			eC[ch] += trans*(math.Abs(a)*ec[ch]+cmax[ch]*ea) + 4*u
		}
		rgba[3] += w
		eA += trans*ea + 4*u
		if !flipped && math.Abs(rgba[3]-volOpaque) <= eA {
			flipped = true
			addFlip(1-rgba[3], amax)
		}
		if rgba[3] > volOpaque {
			break
		}
		tn := tnear + float64(k+1)*volStep
		dp := float64(k+17)*u*(math.Abs(tn)+eyeMag) + math.Abs(tn)/(1<<20) + dt
		if math.Abs(tn-tfar) <= dp+dt {
			addFlip(1-rgba[3], extra(tn, k+1))
		}
		if tn > tfar {
			break
		}
	}
	return rgba, [4]float64{eC[0], eC[1], eC[2], eA}
}
