package ref

import (
	"fmt"
	"math"
)

// VolumeKinds returns the names of the procedural volumes Volume can build.
func VolumeKinds() []string { return []string{"sphere", "torus", "noise"} }

// Volume returns a procedural n×n×n density volume as unsigned 8-bit voxels,
// x fastest: voxel (x, y, z) is at index (z·n + y)·n + x. Voxel centres sit at
// object coordinates ((2x+1)/n − 1, …) inside the box [-1,1]³, matching the
// texture's normalized coordinates (texel x covers [x/n, (x+1)/n)). The launch
// binds it as a 3D cudaArray of cudaChannelFormatKindUnsigned 8-bit texels read
// with cudaReadModeNormalizedFloat (voxel v reads as v/255).
//
// Kinds (all are 0 on the outermost layer of voxels, so rays enter and leave
// through empty space):
//
//	sphere  255·max(0, 1 − r/0.8), r the distance from the centre; seed unused
//	torus   255·max(0, 1 − q/0.25), q the distance from the circle of radius
//	        0.55 in the z = 0 plane; seed unused
//	noise   smooth value noise: seeded random values on a 9×9×9 lattice,
//	        interpolated with smoothstep weights, times a window
//	        w = Π (1 − c⁸) over the three coordinates c that falls to 0 at the faces
func Volume(kind string, n int, seed uint64) ([]uint8, error) {
	if n < 2 || n > 1024 {
		return nil, fmt.Errorf("volume size %d out of range [2, 1024]", n)
	}
	var f func(x, y, z float64) float64
	switch kind {
	case "sphere":
		f = func(x, y, z float64) float64 { return 1 - math.Sqrt(x*x+y*y+z*z)/0.8 }
	case "torus":
		f = func(x, y, z float64) float64 {
			q := math.Hypot(math.Hypot(x, y)-0.55, z)
			return 1 - q/0.25
		}
	case "noise":
		const g = 9
		r := newRNG(seed)
		lat := make([]float64, g*g*g)
		for i := range lat {
			lat[i] = float64(r.unit())
		}
		smooth := func(t float64) float64 { return t * t * (3 - 2*t) }
		win := func(c float64) float64 { c *= c; c *= c; return 1 - c*c }
		f = func(x, y, z float64) float64 {
			gx, gy, gz := (x+1)/2*(g-1), (y+1)/2*(g-1), (z+1)/2*(g-1)
			ix, iy, iz := min(int(gx), g-2), min(int(gy), g-2), min(int(gz), g-2)
			fx, fy, fz := smooth(gx-float64(ix)), smooth(gy-float64(iy)), smooth(gz-float64(iz))
			var v float64
			for dz := range 2 {
				for dy := range 2 {
					for dx := range 2 {
						w := pick(dx, fx) * pick(dy, fy) * pick(dz, fz)
						v += w * lat[((iz+dz)*g+iy+dy)*g+ix+dx]
					}
				}
			}
			return v * win(x) * win(y) * win(z)
		}
	default:
		return nil, fmt.Errorf("unknown volume kind %q (have %v)", kind, VolumeKinds())
	}
	out := make([]uint8, n*n*n)
	for z := range n {
		oz := (2*float64(z)+1)/float64(n) - 1
		for y := range n {
			oy := (2*float64(y)+1)/float64(n) - 1
			for x := range n {
				if x == 0 || y == 0 || z == 0 || x == n-1 || y == n-1 || z == n-1 {
					continue
				}
				ox := (2*float64(x)+1)/float64(n) - 1
				v := math.Round(255 * min(max(f(ox, oy, oz), 0), 1))
				out[(z*n+y)*n+x] = uint8(v)
			}
		}
	}
	return out, nil
}

func pick(d int, f float64) float64 {
	if d == 0 {
		return 1 - f
	}
	return f
}

// TransferFunction returns the default transfer function: 8 RGBA float
// entries, bound as a 1D cudaArray of float4 (normalizedCoords = 1,
// cudaFilterModeLinear, cudaAddressModeClamp). Entry 0 is fully transparent,
// so empty space (density 0) contributes nothing; opacity rises with density,
// colour goes from violet through green to white.
func TransferFunction() [][4]float32 {
	return [][4]float32{
		{0, 0, 0, 0},
		{0.25, 0.125, 0.5, 0.0625},
		{0.125, 0.375, 0.875, 0.1875},
		{0.125, 0.75, 0.625, 0.375},
		{0.5, 0.875, 0.25, 0.5625},
		{0.875, 0.625, 0.125, 0.75},
		{1, 0.375, 0.125, 0.875},
		{1, 1, 1, 1},
	}
}

// ViewMatrix returns the 3×4 row-major inverse view matrix (eye space to
// object space) that the host copies to c_invViewMatrix for the view point
// (alpha, beta, gamma) in degrees at the given eye distance.
//
// Convention: the volume is rotated by alpha about the x axis, then by beta
// about the y axis, then by gamma about the z axis (R = Rz(γ)·Ry(β)·Rx(α),
// right-handed, positive angles counter-clockwise looking down the axis
// towards the origin), and then moved to z = −distance in eye space, where
// the camera sits at the origin looking down −z: p_eye = R·p_obj − (0,0,d).
// The inverse is p_obj = Rᵀ·p_eye + Rᵀ·(0,0,d), so the matrix is
// [Rᵀ | Rᵀ·(0,0,d)]; for (0, 0, 0, 4) it is the identity with translation
// (0, 0, 4), the eye on the +z axis. Computed in float64, rounded to float32.
func ViewMatrix(alpha, beta, gamma, distance float64) [12]float32 {
	rad := math.Pi / 180
	ca, sa := math.Cos(alpha*rad), math.Sin(alpha*rad)
	cb, sb := math.Cos(beta*rad), math.Sin(beta*rad)
	cg, sg := math.Cos(gamma*rad), math.Sin(gamma*rad)
	rx := [3][3]float64{{1, 0, 0}, {0, ca, -sa}, {0, sa, ca}}
	ry := [3][3]float64{{cb, 0, sb}, {0, 1, 0}, {-sb, 0, cb}}
	rz := [3][3]float64{{cg, -sg, 0}, {sg, cg, 0}, {0, 0, 1}}
	r := mul3(rz, mul3(ry, rx))
	var m [12]float32
	for i := range 3 {
		for j := range 3 {
			m[4*i+j] = float32(snap(r[j][i])) // transpose
		}
		m[4*i+3] = float32(snap(r[2][i] * distance))
	}
	return m
}

// snap removes the rounding noise of cos/sin at multiples of 90° (cos 90° is
// 6e-17 in float64), so axis-aligned views give exact 0 and ±1 entries.
func snap(x float64) float64 {
	if math.Abs(x) < 1e-12 {
		return 0
	}
	return x
}

func mul3(a, b [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}
