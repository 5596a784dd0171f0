#pragma once
// md5crypt's kernels on the round engine (md5crypt.cu), for its module (md5crypt.cpp).
#include "hash/gpu/crypt_launch.hpp"

namespace wk::hash::gpu::detail {

const ShaKernels& md5crypt_kernels();

}  // namespace wk::hash::gpu::detail
