package texture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ptxtrace/ptxtrace/internal/fpx"
)

// ChannelKind is the element type of one channel of a texel.
type ChannelKind uint8

const (
	U8 ChannelKind = iota
	U16
	U32
	S8
	S16
	S32
	F16
	F32
)

var kindNames = [...]string{U8: "u8", U16: "u16", U32: "u32", S8: "s8", S16: "s16", S32: "s32", F16: "f16", F32: "f32"}

func (k ChannelKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ChannelKind(%d)", uint8(k))
}

// Size returns the size of one channel in bytes (0 for an invalid kind).
func (k ChannelKind) Size() int {
	switch k {
	case U8, S8:
		return 1
	case U16, S16, F16:
		return 2
	case U32, S32, F32:
		return 4
	}
	return 0
}

func (k ChannelKind) isInt() bool    { return k <= S32 }
func (k ChannelKind) isSigned() bool { return k == S8 || k == S16 || k == S32 }

// Format is a texel format: Channels channels of one kind (1, 2 or 4; CUDA
// channel descriptors with three channels are not supported for textures).
type Format struct {
	Kind     ChannelKind
	Channels int
}

// AddressMode selects how out-of-range coordinates are handled, per
// dimension (cudaTextureAddressMode).
type AddressMode uint8

const (
	Wrap AddressMode = iota
	Clamp
	Mirror
	Border
)

var addrNames = [...]string{Wrap: "wrap", Clamp: "clamp", Mirror: "mirror", Border: "border"}

func (a AddressMode) String() string {
	if int(a) < len(addrNames) {
		return addrNames[a]
	}
	return fmt.Sprintf("AddressMode(%d)", uint8(a))
}

// FilterMode selects nearest-point sampling or linear filtering
// (cudaTextureFilterMode).
type FilterMode uint8

const (
	Point FilterMode = iota
	Linear
)

func (f FilterMode) String() string {
	switch f {
	case Point:
		return "point"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("FilterMode(%d)", uint8(f))
}

// Desc describes a texture: its shape, texel format and sampler state.
// Height is used when Dims >= 2 and Depth when Dims == 3 (otherwise they
// must be 0 or 1); Layers is used when Layered (otherwise 0 or 1). Border is
// the border color, one value per channel (CUDA's cudaTextureDesc
// borderColor; zero by default, as the CUDA Programming Guide describes).
type Desc struct {
	Dims                 int
	Layered              bool
	Width, Height, Depth int
	Layers               int
	Format               Format
	Address              [3]AddressMode
	Filter               FilterMode
	ReadNormalized       bool
	NormalizedCoords     bool
	Border               [4]float32
}

// Texture is an immutable texture with its sampler state. Methods are safe
// for concurrent use.
type Texture struct {
	d        Desc
	data     []byte
	w, h, dp int // sizes with unused dimensions 1
	layers   int // 1 when not layered
	csize    int // bytes per channel
	tsize    int // bytes per texel
	dims     int
}

// maxTexels bounds the total texel count (and New also requires the byte
// size to fit in an int) so that index arithmetic cannot overflow.
const maxTexels = 1 << 31

// New validates d and wraps a copy of data, which holds the texels in
// x-fastest order (then y, then z), layers outermost, each texel Channels
// channel values of Kind's size, little-endian.
func New(d Desc, data []byte) (*Texture, error) {
	return newTexture(d, data, true)
}

// NewShared is New without the copy: the texture reads data itself, so a
// large texel array (a 512³ volume) costs its size once however many
// textures wrap it. The caller must not modify data afterwards.
func NewShared(d Desc, data []byte) (*Texture, error) {
	return newTexture(d, data, false)
}

func newTexture(d Desc, data []byte, copyData bool) (*Texture, error) {
	if d.Dims < 1 || d.Dims > 3 {
		return nil, fmt.Errorf("texture: Dims must be 1, 2 or 3, got %d", d.Dims)
	}
	if d.Layered && d.Dims == 3 {
		return nil, errors.New("texture: layered textures are 1D or 2D (CUDA has no layered 3D textures)")
	}
	if d.Width < 1 {
		return nil, fmt.Errorf("texture: Width must be >= 1, got %d", d.Width)
	}
	h, dp, layers := d.Height, d.Depth, d.Layers
	if d.Dims >= 2 {
		if h < 1 {
			return nil, fmt.Errorf("texture: %dD texture needs Height >= 1, got %d", d.Dims, h)
		}
	} else if h > 1 || h < 0 {
		return nil, fmt.Errorf("texture: 1D texture must have Height 0 or 1, got %d", h)
	} else {
		h = 1
	}
	if d.Dims == 3 {
		if dp < 1 {
			return nil, fmt.Errorf("texture: 3D texture needs Depth >= 1, got %d", dp)
		}
	} else if dp > 1 || dp < 0 {
		return nil, fmt.Errorf("texture: %dD texture must have Depth 0 or 1, got %d", d.Dims, dp)
	} else {
		dp = 1
	}
	if d.Layered {
		if layers < 1 {
			return nil, fmt.Errorf("texture: layered texture needs Layers >= 1, got %d", layers)
		}
	} else if layers > 1 || layers < 0 {
		return nil, fmt.Errorf("texture: non-layered texture must have Layers 0 or 1, got %d", layers)
	} else {
		layers = 1
	}
	k := d.Format.Kind
	if k.Size() == 0 {
		return nil, fmt.Errorf("texture: invalid channel kind %d", uint8(k))
	}
	switch d.Format.Channels {
	case 1, 2, 4:
	case 3:
		return nil, errors.New("texture: 3-channel formats are not supported (CUDA textures have 1, 2 or 4 channels)")
	default:
		return nil, fmt.Errorf("texture: Channels must be 1, 2 or 4, got %d", d.Format.Channels)
	}
	for i := 0; i < 3; i++ {
		a := d.Address[i]
		if a > Border {
			return nil, fmt.Errorf("texture: invalid address mode %d in dimension %d", uint8(a), i)
		}
		if i < d.Dims && (a == Wrap || a == Mirror) && !d.NormalizedCoords {
			return nil, fmt.Errorf("texture: address mode %s in dimension %d requires normalized coordinates (CUDA Programming Guide: wrap and mirror are only supported for normalized texture coordinates)", a, i)
		}
	}
	if d.Filter > Linear {
		return nil, fmt.Errorf("texture: invalid filter mode %d", uint8(d.Filter))
	}
	if d.ReadNormalized && !(k == U8 || k == U16 || k == S8 || k == S16) {
		return nil, fmt.Errorf("texture: normalized-float read mode is only defined for 8- and 16-bit integer channels, not %s", k)
	}
	if d.Filter == Linear && k.isInt() && !d.ReadNormalized {
		return nil, fmt.Errorf("texture: linear filtering of %s channels requires the normalized-float read mode (linear filtering is only available for textures that return floating-point data)", k)
	}
	n := int64(d.Width) * int64(h) * int64(dp) * int64(layers)
	if int64(d.Width) > maxTexels || int64(h) > maxTexels || int64(dp) > maxTexels ||
		int64(layers) > maxTexels || n > maxTexels || n*int64(k.Size()*d.Format.Channels) > math.MaxInt {
		return nil, fmt.Errorf("texture: %d x %d x %d x %d texels is too large", d.Width, h, dp, layers)
	}
	tsize := k.Size() * d.Format.Channels
	if want := n * int64(tsize); int64(len(data)) != want {
		return nil, fmt.Errorf("texture: data has %d bytes, want %d (%d texels of %d x %s)", len(data), want, n, d.Format.Channels, k)
	}
	for i, b := range d.Border {
		if b != b {
			return nil, fmt.Errorf("texture: border color component %d is NaN", i)
		}
	}
	if copyData {
		data = append([]byte(nil), data...)
	}
	t := &Texture{
		d:      d,
		data:   data[:len(data):len(data)],
		w:      d.Width,
		h:      h,
		dp:     dp,
		layers: layers,
		csize:  k.Size(),
		tsize:  tsize,
		dims:   d.Dims,
	}
	return t, nil
}

// Desc returns the descriptor the texture was created with.
func (t *Texture) Desc() Desc { return t.d }

// size returns the extent of dimension i.
func (t *Texture) size(i int) int {
	switch i {
	case 0:
		return t.w
	case 1:
		return t.h
	}
	return t.dp
}

// addr maps texel index i of dimension dim to an in-range index, or
// reports ok=false for a Border-mode index outside [0, n).
//
//   - Clamp: the index is clamped to [0, n-1] (cudaAddressModeClamp).
//   - Border: indices outside [0, n) read the border color.
//   - Wrap: the index is taken modulo n; for normalized coordinates this is
//     the Programming Guide's frac(x) applied to the coordinate, evaluated
//     on the exact texel-space value.
//   - Mirror: the index is reflected with period 2n (n..2n-1 map to
//     n-1..0), the index form of the Guide's "frac(x) if floor(x) is even,
//     1-frac(x) otherwise".
func (t *Texture) addr(i int64, dim int) (int, bool) {
	n := int64(t.size(dim))
	switch t.d.Address[dim] {
	case Clamp:
		if i < 0 {
			return 0, true
		}
		if i >= n {
			return int(n - 1), true
		}
	case Border:
		if i < 0 || i >= n {
			return int(i), false
		}
	case Wrap:
		i %= n
		if i < 0 {
			i += n
		}
	case Mirror:
		p := 2 * n
		i %= p
		if i < 0 {
			i += p
		}
		if i >= n {
			i = p - 1 - i
		}
	}
	return int(i), true
}

// coordLimit bounds texel-space coordinates so that the fixed-point
// arithmetic below stays exact in float64 and int64.
const coordLimit = 0x1p40

// texelCoord converts a sampling coordinate to texel space: scaled by the
// size for normalized coordinates (exactly, in float64), NaN as 0 and
// infinities (and huge values) clamped to ±2^40.
func (t *Texture) texelCoord(c float32, dim int) float64 {
	v := float64(c)
	if t.d.NormalizedCoords {
		v *= float64(t.size(dim)) // exact: 24-bit significand times < 2^31
	}
	switch {
	case v != v:
		return 0
	case v > coordLimit:
		return coordLimit
	case v < -coordLimit:
		return -coordLimit
	}
	return v
}

// pointIndex is nearest-point sampling: i = floor(x) (Programming Guide,
// Texture Fetching, "Nearest-Point Sampling").
func (t *Texture) pointIndex(c float32, dim int) int64 {
	return int64(math.Floor(t.texelCoord(c, dim)))
}

// linearIndex implements the linear-filtering coordinate rule of the CUDA
// Programming Guide (Texture Fetching, "Linear Filtering"): xB = x - 0.5,
// i = floor(xB), α = frac(xB), where "α, β, and γ are stored in 9-bit fixed
// point format with 8 bits of fractional value (so 1.0 is exactly
// represented)". This model quantizes xB itself to a multiple of 1/256 by
// rounding to nearest (ties toward +inf: q = floor(256·xB + 1/2)) and takes
// i and α from the quantized value, so α = a/256 with a in 0..255 and the
// weights (256-a)/256 and a/256 are exact in 9 bits. This is the rounding
// the Guide's tex2Dgather note spells out: for x = 2.49805, xB = 1.99805 is
// "closer to 256.f/256.f than it is to 255.f/256.f" so "xB has the value 2"
// and the footprint is indices 2 and 3. It returns i and a.
func (t *Texture) linearIndex(c float32, dim int) (int64, int64) {
	xb := t.texelCoord(c, dim) - 0.5 // exact: |x| <= 2^40
	q := int64(math.Floor(xb*256 + 0.5))
	return q >> 8, q & 255
}

// channel reads channel c of texel (x, y, z, layer) (all in range) as raw
// bits: zero-extended for unsigned kinds, sign-extended to 32 bits for
// signed kinds, the binary16 or binary32 pattern for float kinds.
func (t *Texture) channel(off int, c int) uint32 {
	p := t.data[off+c*t.csize:]
	switch t.d.Format.Kind {
	case U8:
		return uint32(p[0])
	case S8:
		return uint32(int32(int8(p[0])))
	case U16, F16:
		return uint32(binary.LittleEndian.Uint16(p))
	case S16:
		return uint32(int32(int16(binary.LittleEndian.Uint16(p))))
	}
	return binary.LittleEndian.Uint32(p)
}

func (t *Texture) offset(x, y, z, layer int) int {
	return (((layer*t.dp+z)*t.h+y)*t.w + x) * t.tsize
}

// toFloat converts raw channel bits to the float a float-returning fetch
// yields:
//   - normalized-float read mode (CUDA cudaReadModeNormalizedFloat):
//     unsigned v maps to v/(2^n-1) in [0, 1]; signed v maps to v/(2^(n-1)-1)
//     clamped to -1 (so the most negative value, e.g. -128, also reads as
//     -1.0, and the range is symmetric [-1, 1]); each is the correctly
//     rounded binary32 quotient;
//   - f16 channels widen exactly; f32 channels are returned as stored;
//   - integer channels in element-type mode convert to the nearest binary32
//     (this package's choice for a float fetch of an integer texture; PTX
//     tex with a .s32/.u32 destination uses SampleI instead).
func (t *Texture) toFloat(v uint32) float32 {
	switch k := t.d.Format.Kind; k {
	case F32:
		return math.Float32frombits(v)
	case F16:
		return fpx.F16ToF32(uint16(v))
	case U8, U16:
		if t.d.ReadNormalized {
			den := 255.0
			if k == U16 {
				den = 65535
			}
			return float32(float64(v) / den) // one rounding (53 >= 2*24+2)
		}
		return float32(v)
	case S8, S16:
		if t.d.ReadNormalized {
			den := 127.0
			if k == S16 {
				den = 32767
			}
			f := float64(int32(v)) / den
			if f < -1 {
				f = -1
			}
			return float32(f)
		}
		return float32(int32(v))
	case S32:
		return float32(int32(v))
	}
	return float32(v) // U32
}

// defaultComp is the value of a component the format does not have: 0 for
// the second and third, 1 for the fourth (the usual (x, 0, 0, 1)
// expansion; the CUDA documentation does not specify it).
func defaultComp(c int) float32 {
	if c == 3 {
		return 1
	}
	return 0
}

// texelF returns the four float components of texel (x, y, z, layer) after
// addressing; inRange false selects the border color.
func (t *Texture) texelF(x, y, z, layer int, inRange bool) [4]float32 {
	var out [4]float32
	nc := t.d.Format.Channels
	if !inRange {
		for c := 0; c < 4; c++ {
			if c < nc {
				out[c] = t.d.Border[c]
			} else {
				out[c] = defaultComp(c)
			}
		}
		return out
	}
	off := t.offset(x, y, z, layer)
	if t.d.Format.Kind == F32 {
		p := t.data[off : off+4*nc]
		for c := 0; c < nc; c++ {
			out[c] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*c:]))
		}
	} else {
		for c := 0; c < nc; c++ {
			out[c] = t.toFloat(t.channel(off, c))
		}
	}
	for c := nc; c < 4; c++ {
		out[c] = defaultComp(c)
	}
	return out
}

// texelI returns the four raw components of a texel; the border color of an
// integer texture is converted toward zero with saturation to the channel's
// 32-bit range, of a float texture it is the binary32 pattern (f16 textures
// included: components are delivered as binary32).
func (t *Texture) texelI(x, y, z, layer int, inRange bool) [4]uint32 {
	var out [4]uint32
	nc := t.d.Format.Channels
	k := t.d.Format.Kind
	for c := 0; c < 4; c++ {
		switch {
		case c >= nc:
			if c == 3 {
				if k.isInt() {
					out[c] = 1
				} else {
					out[c] = math.Float32bits(1)
				}
			}
		case !inRange:
			b := t.d.Border[c]
			if k.isInt() {
				out[c] = uint32(fpx.FloatToInt(float64(b), fpx.RZ, 32, k.isSigned()))
			} else {
				out[c] = math.Float32bits(b)
			}
		default:
			v := t.channel(t.offset(x, y, z, layer), c)
			if k == F16 {
				v = math.Float32bits(fpx.F16ToF32(uint16(v)))
			}
			out[c] = v
		}
	}
	return out
}

func (t *Texture) layerIndex(layer int) int {
	if !t.d.Layered || layer < 0 {
		return 0
	}
	if layer >= t.layers {
		return t.layers - 1
	}
	return layer
}

// tap is one texel read of a filter footprint.
type tap struct {
	x, y, z int
	in      bool
}

func (t *Texture) tapAt(ix, iy, iz int64) tap {
	var p tap
	p.in = true
	var ok bool
	p.x, ok = t.addr(ix, 0)
	p.in = p.in && ok
	if t.dims >= 2 {
		p.y, ok = t.addr(iy, 1)
		p.in = p.in && ok
	}
	if t.dims == 3 {
		p.z, ok = t.addr(iz, 2)
		p.in = p.in && ok
	}
	return p
}

// SampleF performs a float-returning texture fetch (PTX tex with an .f32
// destination; CUDA tex1D/2D/3D and the layered forms) at coordinates (x,
// y, z) in layer layer; y is ignored below 2D, z below 3D, layer for
// non-layered textures (and clamped to [0, Layers-1] otherwise).
//
// Point filtering reads texel floor(x) (addressed per dimension). Linear
// filtering reads the 2, 4 or 8 texels of the footprint and returns
//
//	Σ w_n · T_n, with w_n the products of (1-α) or α, (1-β) or β, ...
//
// evaluated in binary32 in the Programming Guide's term order: for 2D
// (i,j), (i+1,j), (i,j+1), (i+1,j+1); for 3D the same four at k then at
// k+1. Each weight is an exact binary32 value (a product of 9-bit
// fractions), each product w_n·T_n is rounded to binary32, and the
// products are added left to right into an accumulator starting at +0,
// each addition rounded to binary32 (no fused multiply-add). The hardware's
// internal filter precision is not documented; this fixed order makes the
// result reproducible.
//
// touched, when not nil, is called once per texel read, in that order
// (zero-weight terms included), with the addressed texel indices (unused
// dimensions 0). A Border-mode tap outside the texture reports its raw,
// out-of-range index and contributes the border color.
func (t *Texture) SampleF(x, y, z float32, layer int, touched func(x, y, z, layer int)) [4]float32 {
	layer = t.layerIndex(layer)
	if t.d.Filter == Point {
		p := t.tapAt(t.pointIndex(x, 0), t.pointIndexDim(y, 1), t.pointIndexDim(z, 2))
		if touched != nil {
			touched(p.x, p.y, p.z, layer)
		}
		return t.texelF(p.x, p.y, p.z, layer, p.in)
	}
	i, a := t.linearIndex(x, 0)
	var j, b, k, g int64
	nj, nk := 1, 1
	if t.dims >= 2 {
		j, b = t.linearIndex(y, 1)
		nj = 2
	}
	if t.dims == 3 {
		k, g = t.linearIndex(z, 2)
		nk = 2
	}
	wx := [2]int64{256 - a, a}
	wy := [2]int64{256 - b, b}
	wz := [2]int64{256 - g, g}
	scale := float32(1.0 / 256)
	if t.dims == 2 {
		scale = 1.0 / 65536
	} else if t.dims == 3 {
		scale = 1.0 / 16777216
	}
	// Address each dimension's two indices once.
	var xs, ys, zs [2]int
	xin, yin, zin := [2]bool{true, true}, [2]bool{true, true}, [2]bool{true, true}
	for n := 0; n < 2; n++ {
		xs[n], xin[n] = t.addr(i+int64(n), 0)
		if t.dims >= 2 {
			ys[n], yin[n] = t.addr(j+int64(n), 1)
		}
		if t.dims == 3 {
			zs[n], zin[n] = t.addr(k+int64(n), 2)
		}
	}
	var acc [4]float32
	for dk := 0; dk < nk; dk++ {
		for dj := 0; dj < nj; dj++ {
			for di := 0; di < 2; di++ {
				w := wx[di]
				if t.dims >= 2 {
					w *= wy[dj]
				}
				if t.dims == 3 {
					w *= wz[dk]
				}
				wf := float32(w) * scale // exact: w <= 2^24, power-of-two scale
				px, py, pz := xs[di], ys[dj], zs[dk]
				if touched != nil {
					touched(px, py, pz, layer)
				}
				v := t.texelF(px, py, pz, layer, xin[di] && yin[dj] && zin[dk])
				for c := 0; c < 4; c++ {
					acc[c] = float32(acc[c] + float32(wf*v[c]))
				}
			}
		}
	}
	return acc
}

// pointIndexDim is pointIndex for dimension dim, 0 for unused dimensions.
func (t *Texture) pointIndexDim(c float32, dim int) int64 {
	if dim >= t.dims {
		return 0
	}
	return t.pointIndex(c, dim)
}

// SampleI performs an element-type fetch (PTX tex with .s32/.u32
// destination; cudaReadModeElementType of an integer texture): always
// point sampling at floor(x) (linear filtering is undefined for integer
// results). Integer channels are returned zero-extended (unsigned) or
// sign-extended (signed) to 32 bits; float channels as binary32 patterns.
// Missing channels read (0, 0, 0, 1). touched is called once.
func (t *Texture) SampleI(x, y, z float32, layer int, touched func(x, y, z, layer int)) [4]uint32 {
	layer = t.layerIndex(layer)
	p := t.tapAt(t.pointIndex(x, 0), t.pointIndexDim(y, 1), t.pointIndexDim(z, 2))
	if touched != nil {
		touched(p.x, p.y, p.z, layer)
	}
	return t.texelI(p.x, p.y, p.z, layer, p.in)
}

// gatherTaps returns the bilinear footprint of (x, y) in tld4 order:
// (i0,j1), (i1,j1), (i1,j0), (i0,j0). PTX ISA (tld4): "The four texel
// samples are placed into destination vector d in counter-clockwise order
// starting at lower left"; with rows growing downward, (i0, j1) is the
// lower left, and counter-clockwise continues to (i1, j1), (i1, j0),
// (i0, j0) — the same order as OpenGL's textureGather. The footprint uses
// the Programming Guide's 8-bit fixed-point coordinate (see linearIndex),
// whatever the filter mode.
func (t *Texture) gatherTaps(x, y float32) [4]tap {
	i, _ := t.linearIndex(x, 0)
	j, _ := t.linearIndex(y, 1)
	return [4]tap{t.tapAt(i, j+1, 0), t.tapAt(i+1, j+1, 0), t.tapAt(i+1, j, 0), t.tapAt(i, j, 0)}
}

// Gather implements tld4 / tex2Dgather for 2D (and layered 2D) textures:
// component comp (0..3) of the four footprint texels, in the order of
// gatherTaps, converted as SampleF converts texels (read mode applies). For
// textures that are not 2D, or comp outside 0..3, it returns zeros and
// reads nothing. touched is called once per texel, in order.
func (t *Texture) Gather(comp int, x, y float32, layer int, touched func(x, y, z, layer int)) [4]float32 {
	var out [4]float32
	if t.dims != 2 || comp < 0 || comp > 3 {
		return out
	}
	layer = t.layerIndex(layer)
	for n, p := range t.gatherTaps(x, y) {
		if touched != nil {
			touched(p.x, p.y, 0, layer)
		}
		out[n] = t.texelF(p.x, p.y, 0, layer, p.in)[comp]
	}
	return out
}

// GatherI is Gather with element-type results (tld4 with .u32/.s32
// destination): raw components as SampleI returns them.
func (t *Texture) GatherI(comp int, x, y float32, layer int, touched func(x, y, z, layer int)) [4]uint32 {
	var out [4]uint32
	if t.dims != 2 || comp < 0 || comp > 3 {
		return out
	}
	layer = t.layerIndex(layer)
	for n, p := range t.gatherTaps(x, y) {
		if touched != nil {
			touched(p.x, p.y, 0, layer)
		}
		out[n] = t.texelI(p.x, p.y, 0, layer, p.in)[comp]
	}
	return out
}

func (t *Texture) fetchTap(ix, iy, iz int) tap {
	if t.dims < 2 {
		iy = 0
	}
	if t.dims < 3 {
		iz = 0
	}
	return t.tapAt(int64(ix), int64(iy), int64(iz))
}

// FetchF reads the texel at integer coordinates (PTX tex/tld with integer
// coordinates, CUDA tex1Dfetch): no filtering; the address modes apply to
// the indices (Clamp clamps, Border reads the border color, Wrap and Mirror
// act on the index as for sampling); the read mode converts as in SampleF.
func (t *Texture) FetchF(ix, iy, iz, layer int) [4]float32 {
	p := t.fetchTap(ix, iy, iz)
	return t.texelF(p.x, p.y, p.z, t.layerIndex(layer), p.in)
}

// FetchI is FetchF with element-type results as in SampleI.
func (t *Texture) FetchI(ix, iy, iz, layer int) [4]uint32 {
	p := t.fetchTap(ix, iy, iz)
	return t.texelI(p.x, p.y, p.z, t.layerIndex(layer), p.in)
}

// CUDA driver CUarray_format values, returned for .channel_data_type (PTX
// txq returns "the source language's channel data type enumeration").
var arrayFormat = [...]int{U8: 0x01, U16: 0x02, U32: 0x03, S8: 0x08, S16: 0x09, S32: 0x0a, F16: 0x10, F32: 0x20}

// PTX txq address-mode enumeration: { wrap, mirror, clamp_ogl,
// clamp_to_edge, clamp_to_border }.
var txqAddr = [...]int{Wrap: 0, Mirror: 1, Clamp: 3, Border: 4}

// Query answers txq (PTX ISA, txq). what is the query name with or without
// the leading dot:
//   - .width, .height, .depth: extent in elements; 0 for dimensions the
//     texture does not have (CUDA array descriptors use 0 there);
//   - .array_size: number of layers of a layered texture, 0 otherwise;
//   - .channel_data_type: the CUDA driver CUarray_format value of the
//     channel kind (0x01 u8, 0x02 u16, 0x03 u32, 0x08 s8, 0x09 s16,
//     0x0a s32, 0x10 f16, 0x20 f32);
//   - .channel_order: the number of channels (CUDA has no channel-order
//     enumeration; its array descriptor records NumChannels);
//   - .normalized_coords: 1 or 0; .force_unnormalized_coords: 0;
//   - .filter_mode: 0 nearest, 1 linear;
//   - .addr_mode_0/1/2: 0 wrap, 1 mirror, 3 clamp_to_edge, 4 clamp_to_border;
//   - .num_mipmap_levels, .num_samples: 0 ("for a mipmapped texture, number
//     of levels ..., 0 otherwise"; "for a multi-sample texture, number of
//     samples, 0 otherwise").
//
// Unknown queries return ok = false.
func (t *Texture) Query(what string) (int, bool) {
	switch strings.TrimPrefix(what, ".") {
	case "width":
		return t.d.Width, true
	case "height":
		if t.dims < 2 {
			return 0, true
		}
		return t.h, true
	case "depth":
		if t.dims < 3 {
			return 0, true
		}
		return t.dp, true
	case "array_size":
		if !t.d.Layered {
			return 0, true
		}
		return t.layers, true
	case "channel_data_type":
		return arrayFormat[t.d.Format.Kind], true
	case "channel_order":
		return t.d.Format.Channels, true
	case "normalized_coords":
		if t.d.NormalizedCoords {
			return 1, true
		}
		return 0, true
	case "force_unnormalized_coords":
		return 0, true
	case "filter_mode":
		return int(t.d.Filter), true
	case "addr_mode_0":
		return txqAddr[t.d.Address[0]], true
	case "addr_mode_1":
		return txqAddr[t.d.Address[1]], true
	case "addr_mode_2":
		return txqAddr[t.d.Address[2]], true
	case "num_mipmap_levels", "num_samples":
		return 0, true
	}
	return 0, false
}
