#pragma once
// Accounts crossed with candidates on the device (the audit's pairs): the round engine's per-job
// arrays expanded on the GPU from one copy of each candidate and one of each account's salt and
// round count, and every job's hash characters compared there with its account's. Nothing per
// pair is made, copied or compared on the host; only the matches come back. Plain header: the
// kernels are in cross_kernels.cu.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "crypt_launch.hpp"

namespace wk::hash::gpu::detail {

// Jobs [p0, p0 + count) of a crossed batch: the sorted candidates [c0, c0 + count / k), all of
// length pl, each crossed with the sorted accounts [a0, a0 + k) (one salt length): job p0 + j is
// candidate c0 + j / k with account a0 + j % k, its password bytes at byte0 + j * pl.
struct CrossBlock {
  std::uint32_t p0 = 0, count = 0, c0 = 0, a0 = 0, k = 0, pl = 0;
  std::uint64_t byte0 = 0;
};

// What the expansion reads: the candidates and accounts in sorted order, once each. The
// candidates are strings (cand, cand_at, cand_index) or a mask's, made here (mask_len > 0:
// candidate c is the mask's candidate mask_first + c, of mask_len bytes, in the caller's order).
struct CrossInput {
  const CrossBlock* blocks = nullptr;  // by p0
  int block_count = 0;
  const std::uint8_t* cand = nullptr;       // candidate bytes, back to back
  const std::uint32_t* cand_at = nullptr;   // where each sorted candidate starts in cand
  const std::uint32_t* cand_index = nullptr;  // its index in the caller's candidates
  int mask_len = 0;
  std::uint64_t mask_first = 0;
  const std::uint8_t* mask_chars = nullptr;  // the positions' charsets, back to back
  const uint2* mask_sets = nullptr;          // per position: where its charset starts, its size
  const std::uint8_t* salt = nullptr;       // 16 bytes per sorted account
  const std::uint8_t* sl = nullptr;         // its salt length
  const std::uint32_t* rounds = nullptr;    // its round count
  const std::uint32_t* acc_index = nullptr;  // its index in the caller's accounts
};

// What it writes: the round engine's per-job arrays (ShaBatch's, device memory the batch owns) of
// jobs [0, n), and pair[2p], pair[2p + 1] = job p's account and candidate as the caller numbers
// them.
struct CrossJobArrays {
  int n = 0;
  std::uint8_t* pw = nullptr;
  std::uint32_t* pw_off = nullptr;
  std::uint16_t* pl = nullptr;
  std::uint8_t* salt = nullptr;  // 16 bytes per job
  std::uint8_t* sl = nullptr;
  std::uint32_t* rounds = nullptr;
  std::uint32_t* pair = nullptr;
};

void launch_cross_expand(const CrossInput& in, const CrossJobArrays& jobs, cudaStream_t stream);

// For every job p whose stride bytes of hash characters at out + p * stride equal those of its
// account (expected + pair[2p] * stride; both zero-padded), appends (account, candidate) to
// `matches` at the position atomicAdd(count, 1) gives. `matches` holds n entries.
void launch_cross_compare(const char* out, int stride, int n, const char* expected, const std::uint32_t* pair,
                          std::uint32_t* count, uint2* matches, cudaStream_t stream);

}  // namespace wk::hash::gpu::detail
