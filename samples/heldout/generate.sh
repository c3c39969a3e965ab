#!/usr/bin/env bash
# Regenerates the PTX of every held-out kernel in samples/heldout/<name>/<name>.cu:
#   <name>/<name>.sm_52.ptx, <name>/<name>.sm_80.ptx   nvcc -ccbin clang-14 -ptx -O3 -arch=sm_XX
#   histogram/histogram.sm_52-G.ptx                    ... -arch=sm_52 -G (device debug)
#   stencil2d/stencil2d.sm_80-lineinfo.ptx             ... -arch=sm_80 -lineinfo
# Sources are compiled from a copy under a fixed staging directory
# ($PTXTRACE_GEN_STAGE, default /tmp/ptxtrace) so that the .file paths of the
# -G and -lineinfo output do not depend on the checkout. Without nvcc it
# prints a message and exits 0, leaving the committed files alone.
set -euo pipefail
if ! command -v nvcc >/dev/null 2>&1; then
    echo "generate.sh: nvcc not found; leaving the committed PTX files unchanged" >&2
    exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stage="${PTXTRACE_GEN_STAGE:-/tmp/ptxtrace}/heldout"
ccbin="${CCBIN:-clang-14}"
rm -rf "$stage"
for d in "$here"/*/; do
    n="$(basename "$d")"
    [[ -f "$d/$n.cu" ]] || continue
    mkdir -p "$stage/$n"
    cp "$d/$n.cu" "$stage/$n/$n.cu"
    (
        cd "$stage/$n"
        for arch in sm_52 sm_80; do
            nvcc -ccbin "$ccbin" -ptx -O3 -arch="$arch" "$n.cu" -o "$d/$n.$arch.ptx"
        done
        case $n in
        histogram) nvcc -ccbin "$ccbin" -ptx -O3 -arch=sm_52 -G "$n.cu" -o "$d/$n.sm_52-G.ptx" ;;
        stencil2d) nvcc -ccbin "$ccbin" -ptx -O3 -arch=sm_80 -lineinfo "$n.cu" -o "$d/$n.sm_80-lineinfo.ptx" ;;
        esac
    )
    for f in "$d"/*.ptx; do
        arch="$(basename "$f" | grep -o 'sm_[0-9]*' | head -n1)"
        ptxas -arch="$arch" "$f" -o /dev/null
    done
done
rm -rf "$stage"
echo "generate.sh: PTX regenerated and accepted by ptxas"
