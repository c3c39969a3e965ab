#!/usr/bin/env bash
# Compiles each samples/<name>/<name>.cu as host C++ on top of emu.h (one std::thread per
# CUDA thread) and checks it against a plain CPU reference. Needs clang++ (C++20).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
cxx="${CXX:-clang++-14}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for t in t_*.cc; do
    "$cxx" -std=c++20 -O1 -pthread -Wno-everything "$t" -o "$out/${t%.cc}"
    "$out/${t%.cc}"
done
