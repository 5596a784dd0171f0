#pragma once
// sha512crypt's kernels on the round engine (sha512crypt.cu), for its module (sha512crypt.cpp).
#include "hash/gpu/crypt_launch.hpp"

namespace wk::hash::gpu::detail {

const ShaKernels& sha512crypt_kernels();

}  // namespace wk::hash::gpu::detail
