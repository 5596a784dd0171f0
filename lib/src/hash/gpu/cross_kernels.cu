// The crossed batch's kernels (cross.hpp): the candidates made from words and rules, the per-job
// arrays expanded from the candidates and accounts, and the hash characters compared with the
// accounts' on the device.
#include "cross.hpp"
#include "hash/hd/rules.hpp"
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

constexpr std::uint16_t kRejected = 0xffff;

// Candidate j of the run into w (kRuleLengths bytes, thread-local): its length, or -1.
__device__ int rule_candidate(const RuleInput& in, std::uint32_t j, std::uint8_t* w) {
  const std::uint64_t index = in.first + j;
  const std::uint32_t word = std::uint32_t(index / in.rules - in.first / in.rules), rule = std::uint32_t(index % in.rules);
  const std::uint32_t w0 = in.word_at[word], n = in.word_at[word + 1] - w0;  // at most 511 (candidate_run)
  for (std::uint32_t i = 0; i < n; ++i) w[i] = in.words[w0 + i];
  const std::uint32_t r0 = in.rule_at[rule];
  return hd::apply_rule(in.ops + r0, int(in.rule_at[rule + 1] - r0), w, int(n));
}

__global__ void rule_lengths_kernel(RuleInput in, std::uint16_t* len, std::uint32_t* hist) {
  __shared__ std::uint32_t local[kRuleLengths];
  for (int i = threadIdx.x; i < kRuleLengths; i += blockDim.x) local[i] = 0;
  __syncthreads();
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < in.count) {
    std::uint8_t w[kRuleLengths];
    const int n = rule_candidate(in, j, w);
    len[j] = n < 0 ? kRejected : std::uint16_t(n);
    if (n >= 0) atomicAdd(&local[n], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kRuleLengths; i += blockDim.x)
    if (local[i]) atomicAdd(&hist[i], local[i]);
}

__global__ void rule_place_kernel(RuleInput in, const std::uint16_t* len, RulePlacement out) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  const bool made = j < in.count && len[j] != kRejected;
  // One atomic per length per warp: the lanes with the same length take consecutive slots.
  const unsigned active = __ballot_sync(0xffffffffu, made);
  if (!made) return;
  const std::uint32_t l = len[j];
  const unsigned same = __match_any_sync(active, l);
  const int leader = __ffs(same) - 1, lane = int(threadIdx.x % 32);
  std::uint32_t base = 0;
  if (lane == leader) base = atomicAdd(&out.cursor[l], std::uint32_t(__popc(same)));
  base = __shfl_sync(same, base, leader);
  const std::uint32_t slot = base + std::uint32_t(__popc(same & ((1u << lane) - 1u)));
  std::uint8_t w[kRuleLengths];
  rule_candidate(in, j, w);
  const std::uint32_t at = out.byte0[l] + slot * l, c = out.c0[l] + slot;
  for (std::uint32_t i = 0; i < l; ++i) out.cand[at + i] = w[i];
  out.cand_at[c] = at;
  out.cand_index[c] = j;
}

}  // namespace

void launch_rule_lengths(const RuleInput& in, std::uint16_t* len, std::uint32_t* hist, cudaStream_t stream) {
  if (in.count == 0) return;
  rule_lengths_kernel<<<grid(int(in.count)), kThreads, 0, stream>>>(in, len, hist);
  WK_CUDA_CHECK_LAUNCH();
}

void launch_rule_place(const RuleInput& in, const std::uint16_t* len, const RulePlacement& out, cudaStream_t stream) {
  if (in.count == 0) return;
  rule_place_kernel<<<grid(int(in.count)), kThreads, 0, stream>>>(in, len, out);
  WK_CUDA_CHECK_LAUNCH();
}

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
