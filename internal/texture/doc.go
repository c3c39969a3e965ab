// Package texture models CUDA texture fetches (PTX tex, tld4, txq) on the
// CPU, following the CUDA C++ Programming Guide appendix "Texture Fetching"
// and the PTX ISA texture instructions.
//
// Model: a Texture is an immutable array of texels (1D, 2D or 3D, optionally
// layered for 1D/2D) plus the sampler state of a CUDA texture object:
// per-dimension address modes, point or linear filtering, element-type or
// normalized-float read mode, normalized or texel coordinates and a border
// color. A fetch converts each coordinate to texel space (normalized
// coordinates are multiplied by the size, exactly), selects texel indices
// (point: floor(x); linear: xB = x - 0.5 quantized to 1/256, i = floor(xB),
// α = frac(xB) in 9-bit fixed point), maps each index through the
// dimension's address mode, reads the texels (border color for Border taps
// outside the texture) and, for linear filtering, combines them with the
// Guide's weights in a fixed binary32 evaluation order.
//
// Invariants:
//   - Deterministic: the same texture and coordinates give the same bits on
//     every platform (binary32 products are explicitly rounded before each
//     addition, so no FMA contraction can occur).
//   - The touched callback sees exactly the texel reads the fetch performs,
//     one call per filter term in the documented order: 1 (point), 2, 4 or
//     8 (linear 1D, 2D, 3D), 4 (gather). Zero-weight terms are reported.
//   - Linear weights are multiples of 1/256 per dimension and sum to exactly
//     1; for float data the result lies in the convex hull of the touched
//     texel values up to binary32 rounding of the products and sums.
//   - New copies the data and rejects the combinations CUDA rejects: three
//     channels, Wrap or Mirror without normalized coordinates, linear
//     filtering of integer data without the normalized-float read mode,
//     normalized-float reads of 32-bit or float channels, data of the wrong
//     size. NewShared checks the same but wraps the caller's data without
//     a copy (the caller keeps it unmodified): one large volume, one copy.
//
// Choices the documentation leaves open (this package's model, not verified
// on hardware): the fraction rounding of the 1/256 quantization (nearest,
// ties toward +inf); components a format lacks read (0, 0, 0, 1); the border
// color is a virtual texel of the texture's format (Border[c] for existing
// channels); NaN coordinates act as 0; layer indices are clamped to
// [0, Layers-1]; float fetches of integer data in element-type mode convert
// to the nearest binary32; txq reports CUDA driver array-format codes for
// .channel_data_type and the channel count for .channel_order.
package texture
