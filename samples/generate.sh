#!/usr/bin/env bash
# Regenerates the PTX of every sample in samples/<name>/<name>.cu:
#   samples/<name>/<name>.sm_52.ptx, samples/<name>/<name>.sm_80.ptx   (embedded in the binary)
#   ptx/testdata/gen/<name>.<variant>.ptx                              (parser round-trip tests)
#   ptx/testdata/gen/README.md                                          (how they were made + ptxas results)
# Needs nvcc (CUDA 11.8 as packaged by Debian), clang-14 and ptxas. Without nvcc it
# prints a message and exits 0, leaving the committed files alone.
#
# Sources are compiled from a copy under a fixed staging directory
# ($PTXTRACE_GEN_STAGE, default /tmp/ptxtrace), because -G and -lineinfo output
# records the absolute source path in .file directives; a fixed path keeps the
# output identical whichever checkout runs the script. Nothing is stripped: every
# .ptx file is exactly what the tool wrote.
set -euo pipefail

if ! command -v nvcc >/dev/null 2>&1; then
    echo "generate.sh: nvcc not found; leaving the committed PTX files unchanged" >&2
    exit 0
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
gen="$root/ptx/testdata/gen"
stage="${PTXTRACE_GEN_STAGE:-/tmp/ptxtrace}"
ccbin="${CCBIN:-clang-14}"
clang="${CLANG:-clang-14}"
# Debian installs CUDA under /usr (headers in /usr/include, libdevice under
# /usr/lib/nvidia-cuda-toolkit); /usr/lib/cuda is the CUDA-style tree that points there.
cuda_path="${CUDA_PATH_FOR_CLANG:-/usr/lib/cuda}"

for tool in "$ccbin" "$clang" ptxas; do
    command -v "$tool" >/dev/null 2>&1 || { echo "generate.sh: $tool not found" >&2; exit 1; }
done

names=()
for d in "$here"/*/; do
    n="$(basename "$d")"
    [[ -f "$d/$n.cu" ]] && names+=("$n")
done

rm -rf "$stage/samples"
mkdir -p "$stage/samples" "$gen"
rm -f "$gen"/*.ptx

nvcc_flags=(-ccbin "$ccbin" -ptx -O3)
clang_flags=(--cuda-device-only -S --cuda-path="$cuda_path" -Wno-unknown-cuda-version)

# variant name | compiler | extra flags (the target architecture is the sm_XX in the name)
variants=(
    "sm_35|nvcc|-arch=sm_35 -Wno-deprecated-gpu-targets"
    "sm_70|nvcc|-arch=sm_70"
    "sm_90|nvcc|-arch=sm_90"
    "sm_52-G|nvcc|-arch=sm_52 -G"
    "sm_80-lineinfo|nvcc|-arch=sm_80 -lineinfo"
    "clang14-sm_52|clang|--cuda-gpu-arch=sm_52 -nocudalib"
    "clang14-sm_80-O3|clang|--cuda-gpu-arch=sm_80 -O3"
)

outputs=()    # every generated .ptx (absolute path)
commands=()   # one line per generated file, for the README
failures=()   # compile failures, for the README

for n in "${names[@]}"; do
    mkdir -p "$stage/samples/$n"
    cp "$here/$n/$n.cu" "$stage/samples/$n/$n.cu"
    src="$stage/samples/$n/$n.cu"
    (
        cd "$stage/samples/$n"
        for arch in sm_52 sm_80; do
            nvcc "${nvcc_flags[@]}" -arch="$arch" "$n.cu" -o "$here/$n/$n.$arch.ptx"
        done
    )
    outputs+=("$here/$n/$n.sm_52.ptx" "$here/$n/$n.sm_80.ptx")
    for v in "${variants[@]}"; do
        IFS='|' read -r vname tool extra <<<"$v"
        out="$gen/$n.$vname.ptx"
        # shellcheck disable=SC2206
        extra_arr=($extra)
        if [[ $tool == nvcc ]]; then
            cmd=(nvcc "${nvcc_flags[@]}" "${extra_arr[@]}" "$src" -o "$out")
        else
            cmd=("$clang" "${clang_flags[@]}" "${extra_arr[@]}" "$src" -o "$out")
        fi
        if (cd "$stage/samples/$n" && "${cmd[@]}" 2>"$stage/err.txt"); then
            outputs+=("$out")
        else
            rm -f "$out"
            first="$(grep -m1 'error' "$stage/err.txt" || head -n1 "$stage/err.txt")"
            failures+=("$n.$vname: ${first#"$stage/"}")
            echo "generate.sh: $n.$vname failed: $first" >&2
        fi
    done
done

# ptxas acceptance for every file, against the architecture in its name.
ptxas_rows=()
ptxas_bad=0
ptxas_with_c=0
for f in "${outputs[@]}"; do
    arch="$(basename "$f" | grep -o 'sm_[0-9]*' | head -n1)"
    rel="${f#"$root/"}"
    if ptxas -arch="$arch" "$f" -o /dev/null 2>"$stage/ptxas.txt"; then
        ptxas_rows+=("| \`$rel\` | $arch | ok |")
    elif grep -q 'Unresolved extern function' "$stage/ptxas.txt" &&
        ptxas -c -arch="$arch" "$f" -o /dev/null 2>/dev/null; then
        # -nocudalib output calls libdevice (__nv_*) without defining it: a whole-program
        # ptxas run must reject it, a relocatable (-c) one accepts it.
        sym="$(grep -o "Unresolved extern function '[^']*'" "$stage/ptxas.txt" | head -n1 | cut -d"'" -f2)"
        ptxas_with_c=$((ptxas_with_c + 1))
        ptxas_rows+=("| \`$rel\` | $arch | ok with \`-c\` only (unresolved extern \`$sym\`) |")
    else
        ptxas_bad=$((ptxas_bad + 1))
        ptxas_rows+=("| \`$rel\` | $arch | FAILED: $(head -n1 "$stage/ptxas.txt") |")
    fi
done

nvcc_version="$(nvcc --version)"
clang_version="$("$clang" --version | head -n1)"
ptxas_version="$(ptxas --version | tail -n2 | head -n1)"

{
    echo "# Generated PTX for parser round-trip tests"
    echo
    echo "Every \`.ptx\` file here is the unmodified output of a compiler run on a sample in"
    echo "\`samples/<name>/<name>.cu\`, written by \`samples/generate.sh\` (do not edit by hand;"
    echo "rerun the script). Names are \`<sample>.<variant>.ptx\`; the target architecture is"
    echo "the \`sm_XX\` inside the variant."
    echo
    echo "## Tools"
    echo
    echo '```'
    echo "$nvcc_version"
    echo
    echo "$clang_version"
    echo "ptxas: $ptxas_version"
    echo '```'
    echo
    echo "nvcc is the Debian \`nvidia-cuda-toolkit\` package, used with \`-ccbin $ccbin\` as the host compiler;"
    echo "clang gets \`--cuda-path=$cuda_path\` (the Debian CUDA layout: headers in \`/usr/include\`,"
    echo "libdevice in \`/usr/lib/nvidia-cuda-toolkit/libdevice\`). Sources are copied to"
    echo "\`$stage/samples/<name>/<name>.cu\` and compiled there, so the \`.file\` paths in the"
    echo "\`-G\` and \`-lineinfo\` variants name that directory."
    echo
    echo "## Variants"
    echo
    echo "| variant | command (run in the staging directory of the sample) |"
    echo "| --- | --- |"
    for v in "${variants[@]}"; do
        IFS='|' read -r vname tool extra <<<"$v"
        if [[ $tool == nvcc ]]; then
            echo "| \`$vname\` | \`nvcc ${nvcc_flags[*]} $extra <name>.cu -o <name>.$vname.ptx\` |"
        else
            echo "| \`$vname\` | \`$clang ${clang_flags[*]} $extra <name>.cu -o <name>.$vname.ptx\` |"
        fi
    done
    echo
    echo "Notes:"
    echo
    echo "- \`sm_35\` is deprecated in CUDA 11.8; \`-Wno-deprecated-gpu-targets\` only silences the warning."
    echo "- \`-G\` (device debug) output carries DWARF sections (\`.section .debug_*\`) and \`.loc\` lines;"
    echo "  \`-lineinfo\` carries \`.file\`/\`.loc\` only."
    echo "- \`clang14-sm_52\` has no \`-O\`, so it is clang's \`-O0\` code (a \`__local_depot\`"
    echo "  stack frame, \`.local\` loads and stores, no inlining)."
    echo "- With \`-nocudalib\` clang 14 sets no PTX version feature (it only does so when it links"
    echo "  libdevice), so \`clang14-sm_52\` files say \`.version 4.1\`, the minimum for sm_52."
    echo "  Intrinsics that need PTX 6.0, such as \`__shfl_down_sync\`, then fail to compile (see"
    echo "  below). Math functions (\`sqrtf\`, \`rsqrtf\`, integer \`min\`/\`max\`) become calls to"
    echo "  libdevice's \`__nv_*\` functions, declared \`.extern .func\` and left undefined, so a"
    echo "  whole-program \`ptxas\` run rejects those files; they are checked with \`ptxas -c\`"
    echo "  (relocatable) instead. They are kept because extern declarations and calls are PTX the"
    echo "  parser must handle."
    echo "- \`clang14-sm_80-O3\` links libdevice from the Debian layout"
    echo "  (\`$cuda_path/nvvm/libdevice/libdevice.10.bc\`). clang 14 does not know CUDA 11.8"
    echo "  (hence \`-Wno-unknown-cuda-version\`) and treats it as the newest version it knows,"
    echo "  emitting \`.version 7.5\`. Texture objects (\`tex3D<float>\`, \`tex1D<float4>\`) compile"
    echo "  with clang 14."
    echo
    echo "## Compile failures"
    echo
    if ((${#failures[@]} == 0)); then
        echo "None."
    else
        echo "These variants could not be produced (the file is absent):"
        echo
        for f in "${failures[@]}"; do echo "- $f"; done
    fi
    echo
    echo "## ptxas acceptance"
    echo
    echo "Each file was checked with \`ptxas -arch=<sm_XX> FILE -o /dev/null\`"
    echo "(this table also covers the embedded \`samples/<name>/<name>.sm_52.ptx\` and \`.sm_80.ptx\`)."
    echo "Failures: $ptxas_bad. Accepted only as relocatable code (\`ptxas -c\`): $ptxas_with_c."
    echo
    echo "| file | arch | ptxas |"
    echo "| --- | --- | --- |"
    printf '%s\n' "${ptxas_rows[@]}"
} >"$gen/README.md"

rm -rf "$stage/samples" "$stage/err.txt" "$stage/ptxas.txt"
rmdir "$stage" 2>/dev/null || true

echo "generate.sh: ${#outputs[@]} PTX files, ${#failures[@]} compile failures, $ptxas_bad ptxas failures, $ptxas_with_c accepted only with ptxas -c"
((ptxas_bad == 0))
