#pragma once
// Plain interface between the yescrypt / scrypt device batch (yescrypt_batch.cpp) and its kernels
// (yescrypt.cu). No CUDA kernel code here.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "hash/gpu/crypt_launch.hpp"
#include "wk/core/hd.hpp"

namespace wk::hash::gpu::detail {

// One job: where its password and KDF salt lie in the batch's byte blob, and its parameters.
struct YescryptJob {
  std::uint32_t pw_off, pw_len, salt_off, salt_len;
  std::uint32_t flags, n_log2, r, p, t;
};

// Words of global scratch per slot (a hash in flight), the most any job of the batch needs.
struct YescryptSlotWords {
  std::size_t V = 0, B = 0, XY = 0, S = 0, pwx = 0;  // pwx: words of p hd::yescrypt::Pwx records
  WK_HD std::size_t total() const { return V + B + XY + S + pwx; }
};

struct YescryptBatch {
  int n = 0;
  const YescryptJob* jobs = nullptr;
  const std::uint8_t* bytes = nullptr;  // passwords and salts
  std::uint32_t* scratch = nullptr;     // slots * slot.total() words
  YescryptSlotWords slot;
  int slots = 0;                        // hashes in flight: each takes the next job (next)
  unsigned* next = nullptr;             // the jobs handed out so far (zero before a launch)
  char* out = nullptr;                  // out_stride bytes per job
  int out_stride = kOutStride;
};

enum class YescryptKernel { reference, lanes, scrypt_lanes };
// Hashes in flight that fill the device for the kernel (its blocks resident on every SM).
int yescrypt_resident_slots(YescryptKernel kernel, std::uint32_t max_r);
// Whether `lanes` takes a job: RW mode (yescrypt's default flavour), p = 1, r up to kLanesMaxR.
inline constexpr std::uint32_t kLanesMaxR = 32;
inline bool yescrypt_lanes_take(const YescryptJob& j) { return j.flags == 0xb6 && j.p == 1 && j.r <= kLanesMaxR; }
// Whether `scrypt_lanes` takes a job: classic scrypt with r = 1, 2, 4 or 8.
inline bool scrypt_lanes_take(const YescryptJob& j) {
  return j.flags == 0 && j.t == 0 && (j.r == 1 || j.r == 2 || j.r == 4 || j.r == 8);
}
// Every job of the batch (b.slots hashes in flight); b.next must be zero.
void yescrypt_launch(YescryptKernel kernel, const YescryptBatch& b, std::uint32_t max_r, cudaStream_t stream);

}  // namespace wk::hash::gpu::detail
