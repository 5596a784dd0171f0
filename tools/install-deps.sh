#!/usr/bin/env bash
# Installs warpkit's build dependencies from Debian/Ubuntu packages (skips what is installed).
# The CUDA toolkit (nvcc, 12.x or 13.x) is not a Debian package here: it must already be there.
#   tools/install-deps.sh          what the build and the tests need
#   tools/install-deps.sh --fuzz   also clang 14 and libFuzzer, for -DWARPKIT_FUZZ=ON (tests/fuzz)
set -euo pipefail

PACKAGES=(cmake ninja-build g++ pkg-config libopencv-dev catch2 libssl-dev libcrypt-dev
          libcli11-dev nlohmann-json3-dev libfmt-dev libgcrypt20-dev libopenmpi-dev openmpi-bin python3
          libexiv2-dev exiv2 icc-profiles-free  # the metadata tests: exiv2's CLI, a real ICC profile
          help2man)  # the apps' man pages, made from their --help-all at build time
if [ "${1:-}" = "--fuzz" ]; then
  PACKAGES+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all Debian packages present"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: error: the CUDA toolkit (nvcc) is required to build warpkit, even on a machine" >&2
  echo "  without a GPU. Install it from https://developer.nvidia.com/cuda-downloads." >&2
  exit 1
fi
