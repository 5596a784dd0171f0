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

// One function of a rule on the device (hd::apply_rule's Op).
struct RuleOp {
  std::uint8_t fn = ':', a = 0, b = 0, unused = 0;
};

// Words through rules on the device (a CandidateRun of rules): candidate j < count is rule
// (first + j) % rules applied to word (first + j) / rules - first / rules of `words`.
struct RuleInput {
  const std::uint8_t* words = nullptr;     // the run's words, back to back
  const std::uint32_t* word_at = nullptr;  // word i is words[word_at[i], word_at[i + 1])
  const RuleOp* ops = nullptr;             // every rule's functions, back to back
  const std::uint32_t* rule_at = nullptr;  // rule r is ops[rule_at[r], rule_at[r + 1])
  std::uint64_t first = 0;
  std::uint32_t count = 0, rules = 0;
};

// Lengths a candidate may have: 0 .. hd::kMaxRuleBytes.
inline constexpr int kRuleLengths = 512;

// Pass 1: len[j] = candidate j's length, or 0xffff when a rule rejects it; hist[L] += the
// candidates of length L (hist: kRuleLengths counters, zeroed by the caller).
void launch_rule_lengths(const RuleInput& in, std::uint16_t* len, std::uint32_t* hist, cudaStream_t stream);

// Pass 2: the candidates sorted by length, as CrossInput's strings. For length L, c0[L] is the
// first sorted index and byte0[L] the first byte of its run (each candidate L bytes); cursor holds
// kRuleLengths zeroed counters. Within a length the order is the device's (the pairs carry each
// job's candidate number, so nothing depends on it).
struct RulePlacement {
  const std::uint32_t* c0 = nullptr;
  const std::uint32_t* byte0 = nullptr;
  std::uint32_t* cursor = nullptr;
  std::uint8_t* cand = nullptr;
  std::uint32_t* cand_at = nullptr;
  std::uint32_t* cand_index = nullptr;
};
void launch_rule_place(const RuleInput& in, const std::uint16_t* len, const RulePlacement& out, cudaStream_t stream);

// For every job p whose stride bytes of hash characters at out + p * stride equal those of its
// account (expected + pair[2p] * stride; both zero-padded), appends (account, candidate) to
// `matches` at the position atomicAdd(count, 1) gives. `matches` holds n entries.
void launch_cross_compare(const char* out, int stride, int n, const char* expected, const std::uint32_t* pair,
                          std::uint32_t* count, uint2* matches, cudaStream_t stream);

}  // namespace wk::hash::gpu::detail
