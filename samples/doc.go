// Package samples holds the CUDA sample kernels that ship with ptxtrace and the
// PTX generated from them, embedded in the binary so that commands such as
// `ptxtrace demo` work on a machine with no CUDA toolkit.
//
// Each sample lives in its own directory: <name>/<name>.cu is the CUDA C++
// source (every kernel is extern "C", so PTX entry names are unmangled), and
// <name>/<name>.sm_52.ptx and <name>/<name>.sm_80.ptx are the unmodified output
// of `nvcc -ccbin clang-14 -ptx -O3 -arch=sm_XX`. The header comment of each
// source documents the kernels' parameters, outputs and launch shapes; its first
// paragraph ("<name>: <description>") is the sample's description.
//
// generate.sh regenerates the PTX (and the parser test variants under
// ptx/testdata/gen) when nvcc is installed. README.md lists the samples and the
// seed-paper workloads they stand for.
//
// The volrender sample is the volume-rendering workload of seed 003; bfs,
// hotspot, pathfinder, nn, gaussian and lud are the Rodinia-style workloads of
// seeds 000 and 002; vecadd, matmul and reduce are small extra kernels.
package samples
