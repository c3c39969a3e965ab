package vr

import "fmt"

// The embedded workload.
const (
	Sample = "volrender" // samples name
	Arch   = "sm_52"     // the PTX target used
	Kernel = "d_render"  // the kernel rendered
)

// DummyProbeCost is the own cost in cycles of a dummy completion probe on
// the gtx480 preset (docs/model.md, "The paper's effect, measured").
const DummyProbeCost = 2

// Shape is a thread-block shape X×Y threads.
type Shape struct{ X, Y int }

func (s Shape) String() string { return fmt.Sprintf("%d×%d", s.X, s.Y) }

// Stem is the shape in file names: "8x16".
func (s Shape) Stem() string { return fmt.Sprintf("%dx%d", s.X, s.Y) }

// SeedShapes returns seed 003's eight block shapes of 128 threads, 1×128
// to 128×1.
func SeedShapes() []Shape {
	return []Shape{{1, 128}, {2, 64}, {4, 32}, {8, 16}, {16, 8}, {32, 4}, {64, 2}, {128, 1}}
}

// View is a viewpoint (α, β, γ): rotations of the volume about x, y, z in
// degrees (seed 003 §6.1).
type View struct{ A, B, G float64 }

func (v View) String() string { return fmt.Sprintf("(%g,%g,%g)", v.A, v.B, v.G) }

// Stem is the view in file names: "v90_0_90".
func (v View) Stem() string { return fmt.Sprintf("v%g_%g_%g", v.A, v.B, v.G) }

// DefaultViews returns the sweep's default viewpoints (0,0,0) and
// (90,0,90).
func DefaultViews() []View { return []View{{0, 0, 0}, {90, 0, 90}} }

// Scene bounds: an 8192² image is 256 MiB of RGBA8 and weeks of simulated
// rays; the volume generator makes at most 1024³ voxels (1 GiB).
const (
	MaxImage  = 8192
	MaxVolume = 1024
)

// Scene is what a run renders.
type Scene struct {
	Image  int    // image width = height in pixels
	Volume int    // volume n (n³ voxels)
	Kind   string // volume kind (samples/ref VolumeKinds), e.g. "sphere"
}

// Validate rejects a scene that cannot be rendered.
func (sc Scene) Validate() error {
	if sc.Image <= 0 || sc.Volume < 2 || sc.Image > MaxImage || sc.Volume > MaxVolume {
		return fmt.Errorf("vr: image must be 1 … %d and volume 2 … %d (got %d, %d)", MaxImage, MaxVolume, sc.Image, sc.Volume)
	}
	if sc.Kind == "" {
		return fmt.Errorf("vr: scene has no volume kind")
	}
	return nil
}

// Capacity is the records per warp a render needs: a ray crosses the box
// [-1,1]³ in at most 2√3/0.01 < 347 steps of two tex fetches (two records
// each), plus the user region's two records; rounded up.
func Capacity() int { return 2*2*347 + 2 + 14 }

// LaunchSpec is the launch spec (docs/launch.md) of one render: the
// volume, transfer function and view matrix from the samples/ref
// generators, a grid covering the image with blocks of shape s, and a
// check of the image against the CPU reference.
func LaunchSpec(sc Scene, v View, s Shape) string {
	w := sc.Image
	return fmt.Sprintf(`inputs:
  - {name: vol, generator: volume, args: {kind: %s, n: %d, seed: 1}}
  - {name: tf, generator: transfer}
  - {name: view, generator: view, args: {alpha: %g, beta: %g, gamma: %g}}
kernel: d_render
grid: [%d, %d]
block: [%d, %d]
params:
  - {name: d_output, buffer: {type: u32, count: %d, output: true}}
  - {name: imageW, value: %d}
  - {name: imageH, value: %d}
  - {name: density, value: 0.05}
  - {name: brightness, value: 1}
  - {name: transferOffset, value: 0}
  - {name: transferScale, value: 1}
  - {texture: volume}
  - {texture: transfer}
textures:
  - {name: volume, dims: 3, width: %[2]d, height: %[2]d, depth: %[2]d, format: u8, read_mode: normalized, normalized_coords: true, filter: linear, address: [clamp, clamp, clamp], init: {from: vol.volume}}
  - {name: transfer, dims: 1, width: 8, format: f32x4, normalized_coords: true, filter: linear, address: [clamp], init: {from: tf.transfer}}
constants:
  - {name: c_invViewMatrix, type: f32, from: view.c_invViewMatrix}
checks:
  - {buffer: d_output, reference: volrender}
`, sc.Kind, sc.Volume, v.A, v.B, v.G, (w+s.X-1)/s.X, (w+s.Y-1)/s.Y, s.X, s.Y, w*w, w, w)
}
