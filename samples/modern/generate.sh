#!/usr/bin/env bash
# Regenerates the PTX of every CUDA sample in samples/modern/<name>/<name>.cu:
#   <name>/<name>.sm_80.ptx   nvcc -ccbin clang-14 -ptx -O3 -arch=sm_80
# and checks every .ptx (the hand-written wgmmagemm.sm_90a.ptx included) with
# ptxas for the architecture in its name, where this ptxas knows it (CUDA 11.8
# has no sm_90a: that file is then only reported). Sources are compiled from
# a copy under a fixed staging directory ($PTXTRACE_GEN_STAGE, default
# /tmp/ptxtrace). Without nvcc it prints a message and exits 0, leaving the
# committed files alone.
set -euo pipefail
if ! command -v nvcc >/dev/null 2>&1; then
    echo "generate.sh: nvcc not found; leaving the committed PTX files unchanged" >&2
    exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stage="${PTXTRACE_GEN_STAGE:-/tmp/ptxtrace}/modern"
ccbin="${CCBIN:-clang-14}"
rm -rf "$stage"
mkdir -p "$stage"
for d in "$here"/*/; do
    n="$(basename "$d")"
    if [[ -f "$d/$n.cu" ]]; then
        mkdir -p "$stage/$n"
        cp "$d/$n.cu" "$stage/$n/$n.cu"
        (cd "$stage/$n" && nvcc -ccbin "$ccbin" -ptx -O3 -arch=sm_80 "$n.cu" -o "$d/$n.sm_80.ptx")
    fi
    for f in "$d"/*.ptx; do
        arch="$(basename "$f" | grep -o 'sm_[0-9]*a\?' | head -n1)"
        if ptxas -arch="$arch" "$f" -o /dev/null 2>"$stage/ptxas.txt"; then
            echo "generate.sh: $(basename "$f"): ptxas -arch=$arch ok"
        elif grep -q "not defined for option 'gpu-name'\|Unsupported .version\|unknown" "$stage/ptxas.txt"; then
            echo "generate.sh: $(basename "$f"): this ptxas cannot check $arch: $(head -n1 "$stage/ptxas.txt")"
        else
            cat "$stage/ptxas.txt" >&2
            exit 1
        fi
    done
done
rm -rf "$stage"
mkdir -p "$stage"
