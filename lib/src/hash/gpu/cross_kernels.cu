// The crossed batch's kernels (cross.hpp): the per-job arrays expanded from the candidates and
// accounts, and the hash characters compared with the accounts' on the device.
#include "cross.hpp"
#include "wk/core/cuda_check.hpp"

namespace wk::hash::gpu::detail {

namespace {

constexpr int kThreads = 256;

__global__ void cross_expand_kernel(CrossInput in, CrossJobArrays out) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= out.n) return;
  // The block holding p: the last whose p0 <= p (a few dozen blocks at most).
  int lo = 0, hi = in.block_count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (in.blocks[mid].p0 <= std::uint32_t(p)) lo = mid;
    else hi = mid - 1;
  }
  const CrossBlock blk = in.blocks[lo];
  const std::uint32_t j = std::uint32_t(p) - blk.p0;
  const std::uint32_t c = blk.c0 + j / blk.k, a = blk.a0 + j % blk.k;
  const std::uint64_t at = blk.byte0 + std::uint64_t(j) * blk.pl;
  if (in.mask_len > 0) {
    // The mask's candidate: a mixed-radix number, the last position its fastest digit.
    std::uint64_t x = in.mask_first + c;
    for (int i = in.mask_len - 1; i >= 0; --i) {
      const uint2 set = in.mask_sets[i];
      out.pw[at + i] = in.mask_chars[set.x + std::uint32_t(x % set.y)];
      x /= set.y;
    }
  } else {
    const std::uint8_t* src = in.cand + in.cand_at[c];
    for (std::uint32_t i = 0; i < blk.pl; ++i) out.pw[at + i] = src[i];
  }
  out.pw_off[p] = std::uint32_t(at);
  out.pl[p] = std::uint16_t(blk.pl);
  reinterpret_cast<uint4*>(out.salt)[p] = reinterpret_cast<const uint4*>(in.salt)[a];
  out.sl[p] = in.sl[a];
  out.rounds[p] = in.rounds[a];
  out.pair[2 * p] = in.acc_index[a];
  out.pair[2 * p + 1] = in.mask_len > 0 ? c : in.cand_index[c];
}

__global__ void cross_compare_kernel(const char* out, int stride, int n, const char* expected, const std::uint32_t* pair,
                                     std::uint32_t* count, uint2* matches) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const std::uint32_t a = pair[2 * p];
  const auto* x = reinterpret_cast<const unsigned long long*>(out + std::size_t(p) * stride);
  const auto* y = reinterpret_cast<const unsigned long long*>(expected + std::size_t(a) * stride);
  unsigned long long diff = 0;
  for (int w = 0; w < stride / 8; ++w) diff |= x[w] ^ y[w];
  if (diff) return;
  matches[atomicAdd(count, 1u)] = make_uint2(a, pair[2 * p + 1]);
}

int grid(int n) { return (n + kThreads - 1) / kThreads; }

}  // namespace

void launch_cross_expand(const CrossInput& in, const CrossJobArrays& jobs, cudaStream_t stream) {
  if (jobs.n == 0) return;
  cross_expand_kernel<<<grid(jobs.n), kThreads, 0, stream>>>(in, jobs);
  WK_CUDA_CHECK_LAUNCH();
}

void launch_cross_compare(const char* out, int stride, int n, const char* expected, const std::uint32_t* pair,
                          std::uint32_t* count, uint2* matches, cudaStream_t stream) {
  if (n == 0) return;
  cross_compare_kernel<<<grid(n), kThreads, 0, stream>>>(out, stride, n, expected, pair, count, matches);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::hash::gpu::detail
