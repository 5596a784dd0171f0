#pragma once
// sha256crypt's kernels on the round engine (sha256crypt.cu), for its module (sha256crypt.cpp).
#include "hash/gpu/crypt_launch.hpp"

namespace wk::hash::gpu::detail {

const ShaKernels& sha256crypt_kernels();

}  // namespace wk::hash::gpu::detail
