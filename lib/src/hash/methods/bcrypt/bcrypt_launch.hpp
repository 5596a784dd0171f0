#pragma once
// Plain interface between bcrypt's device batch (bcrypt_batch.cpp) and its kernels (bcrypt.cu).
// No CUDA kernel code here.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "hash/gpu/crypt_launch.hpp"

namespace wk::hash::gpu::detail {

inline constexpr int kBcryptKeySlot = 72;           // password bytes per job (bcrypt reads 72)
inline constexpr int kBcryptStateWords = 18 + 18 + 1024;  // P, expanded key, S-boxes

struct BcryptBatch {
  int n = 0;
  const std::uint8_t* pw = nullptr;      // kBcryptKeySlot bytes per job
  const std::uint8_t* pl = nullptr;      // lengths, at most 72
  const std::uint32_t* salt = nullptr;   // 4 words per job, word-major: salt[k * n + g]
  const std::uint8_t* cost = nullptr;
  const std::uint8_t* flags = nullptr;   // hd::bcrypt_flags
  std::uint32_t* state = nullptr;        // kBcryptStateWords per job, word-major (between launches)
  char* out = nullptr;                   // out_stride bytes per job
  int out_stride = kOutStride;           // out_stride_for(kBcryptHashChars)
};

enum class BcryptKernel { reference, shared, shared16, shared_bytes, packed };  // the rungs of the same names
// Iterations [it0, it0 + count) of every job's 2^cost loop; it0 == 0 also runs the set-up, and a
// job whose loop ends in this launch is finished and encoded.
void bcrypt_launch(BcryptKernel kernel, const BcryptBatch& b, std::uint64_t it0, std::uint64_t count, cudaStream_t stream);

}  // namespace wk::hash::gpu::detail
