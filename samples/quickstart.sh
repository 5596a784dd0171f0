#!/usr/bin/env bash
# Quick start, command 1: install the dependencies, build warpkit into build/, generate a small
# folder of photos and convert it to gray (on the GPU when one is usable, else on the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/install-deps.sh
if ! command -v nvcc >/dev/null 2>&1; then export PATH="/usr/local/cuda/bin:$PATH"; fi

GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
cmake -S . -B build "${GEN[@]}" ${WK_CMAKE_ARGS:-}
cmake --build build --parallel "$(nproc)"

build/samples/wk-make-images -o demo/photos --count 12 --size 1280x720 --formats jpg,png
build/apps/wk-image gray -o demo/gray demo/photos
echo "quickstart: gray images are in demo/gray/"
