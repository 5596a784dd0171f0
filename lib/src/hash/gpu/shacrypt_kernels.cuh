#pragma once
// The round engine's kernels, shared by md5crypt, sha256crypt and sha512crypt: each method's .cu
// (lib/src/hash/methods/<method>/) instantiates them with make_kernels<M>() for a policy M that
// describes the method to them:
//
//   using H = hd::Sha512Traits;              the digest (hash/hd/hash_traits.hpp)
//   static constexpr int kHashChars;         characters of the encoded hash
//   static constexpr int kMinBlocks;         __launch_bounds__ minimum resident blocks per SM of
//                                            the block kernels (measured per method)
//   static constexpr bool kDerivedSequences; the rounds hash the P and S sequences of the set-up
//                                            (sha-crypt), not the password and salt (md5crypt)
//   WK_HD static void setup(pw, pl, salt, sl, c, pseq, sseq);   C0, and the P and S sequences
//                                            when derived (pseq: pl bytes, sseq: sl bytes)
//   WK_HD static void encode(const std::uint8_t* c, char* out); the crypt base-64 of C
//
// One thread per password; the round logic is hash/hd/block_rounds.hpp (host/device, tested on
// the CPU against libxcrypt).
//
//   setup_kernel             C0, the P and S sequences, the 8 layout templates (once per job)
//   rounds_reference_kernel  the reference rung: the host code's byte-streaming hasher per round
//   rounds_block_kernel      the block rungs: whole message blocks in registers from templates
//                            in global memory or staged in shared memory
//   final_kernel             the crypt base-64 of C
// The round loop is split into launches of at most 1000 rounds by default (round_batch.cpp); C
// lives in global memory only between launches. Every launch covers the jobs [first, last) of a
// range: the round batch runs a range's parts on separate streams.
#include <cuda_runtime.h>

#include <cstdint>
#include <array>
#include <utility>

#include "crypt_launch.hpp"
#include "hash/hd/block_rounds.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/hash_traits.hpp"
#include "hash/hd/shacrypt.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::hash::gpu::detail {

template <class M>
__global__ void setup_kernel(ShaBatch b, int begin, int count, int first, int last, int nw, std::uint32_t* tmpl) {
  using H = typename M::H;
  const int j = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= last) return;
  const int g = begin + j;
  const int pl = b.pl[g], sl = b.sl[g];
  const std::uint8_t* pw = b.pw + b.pw_off[g];
  const std::uint8_t* salt = b.salt + 16 * g;
  std::uint8_t c[H::kDigestBytes];
  const std::uint8_t* P;
  const std::uint8_t* S;
  if constexpr (!M::kDerivedSequences) {
    M::setup(pw, pl, salt, sl, c, nullptr, nullptr);
    P = pw;
    S = salt;
  } else {
    std::uint8_t* pseq = b.pseq + b.pw_off[g];
    std::uint8_t* sseq = b.sseq + 16 * g;
    std::uint8_t s_local[hd::kMaxShaSaltBytes];
    M::setup(pw, pl, salt, sl, c, pseq, s_local);
    for (int i = 0; i < sl; ++i) sseq[i] = s_local[i];
    P = pseq;
    S = sseq;
  }
  for (int k = 0; k < H::kDigestWords; ++k) b.state[k * b.n + g] = hd::bytes_to_word<H>(c + 4 * k);
  if (nw > 0)
    hd::build_templates<H>(P, pl, S, sl, nw, [&](int lay, int k, std::uint32_t w) {
      tmpl[(lay * nw + k) * count + j] = w;  // word-major over the range: coalesced in the rounds
    });
}

template <class M>
__global__ void rounds_reference_kernel(ShaBatch b, int begin, int first, int last, std::uint32_t r0, std::uint32_t r1) {
  using H = typename M::H;
  const int j = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= last) return;
  const int g = begin + j;
  const std::uint32_t end = min(r1, b.rounds[g]);
  if (r0 >= end) return;
  std::uint8_t c[H::kDigestBytes];
  for (int k = 0; k < H::kDigestWords; ++k) {
    const std::uint32_t w = b.state[k * b.n + g];
    for (int q = 0; q < 4; ++q) c[4 * k + q] = hd::word_byte<H>(w, q);
  }
  const std::uint8_t* P = M::kDerivedSequences ? b.pseq + b.pw_off[g] : b.pw + b.pw_off[g];
  const std::uint8_t* S = M::kDerivedSequences ? b.sseq + 16 * g : b.salt + 16 * g;
  hd::crypt_rounds_reference<H>(c, P, b.pl[g], S, b.sl[g], r0, end);
  for (int k = 0; k < H::kDigestWords; ++k) b.state[k * b.n + g] = hd::bytes_to_word<H>(c + 4 * k);
}

template <class M, int NBLK, int NW, bool SHARED>
__global__ void __launch_bounds__(kRoundThreads, M::kMinBlocks)
    rounds_block_kernel(ShaBatch b, int begin, int count, int first, int last, const std::uint32_t* __restrict__ tmpl,
                        std::uint32_t r0, std::uint32_t r1) {
  using H = typename M::H;
  extern __shared__ std::uint32_t smem[];
  const int j = first + blockIdx.x * kRoundThreads + threadIdx.x;
  const bool valid = j < last;
  if constexpr (SHARED) {
    // Each thread stages its own 8 * NW words into its own column: no sharing, no barrier, and
    // consecutive threads hit consecutive banks.
    if (valid)
      for (int idx = 0; idx < hd::kLayouts * NW; ++idx) smem[idx * kRoundThreads + threadIdx.x] = tmpl[idx * count + j];
  }
  if (!valid) return;
  const int g = begin + j;
  const std::uint32_t end = min(r1, b.rounds[g]);
  if (r0 >= end) return;
  std::uint32_t c[H::kDigestWords];
#pragma unroll
  for (int k = 0; k < H::kDigestWords; ++k) c[k] = b.state[k * b.n + g];
  auto templates = [&](int idx) -> std::uint32_t {
    if constexpr (SHARED) return smem[idx * kRoundThreads + threadIdx.x];
    else return __ldg(&tmpl[idx * count + j]);
  };
  hd::block_rounds<H, NBLK, NW>(c, b.pl[g], b.sl[g], r0, end, templates);
#pragma unroll
  for (int k = 0; k < H::kDigestWords; ++k) b.state[k * b.n + g] = c[k];
}

template <class M>
__global__ void final_kernel(ShaBatch b, int g0, int g1) {
  using H = typename M::H;
  const int g = g0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= g1) return;
  std::uint8_t c[H::kDigestBytes];
  for (int k = 0; k < H::kDigestWords; ++k) {
    const std::uint32_t w = b.state[k * b.n + g];
    for (int q = 0; q < 4; ++q) c[4 * k + q] = hd::word_byte<H>(w, q);
  }
  char* out = b.out + std::size_t(g) * b.out_stride;
  M::encode(c, out);
}

// ---- launchers --------------------------------------------------------------------------------
inline int blocks_for(int count, int threads) { return (count + threads - 1) / threads; }

template <class M>
void launch_setup(const ShaBatch& b, const ShaRange& r, cudaStream_t stream) {
  if (r.last <= r.first) return;
  setup_kernel<M><<<blocks_for(r.last - r.first, 128), 128, 0, stream>>>(b, r.begin, r.count, r.first, r.last, r.nw, r.tmpl);
  WK_CUDA_CHECK_LAUNCH();
}

template <class M>
void launch_final(const ShaBatch& b, int g0, int g1, cudaStream_t stream) {
  if (g1 <= g0) return;
  final_kernel<M><<<blocks_for(g1 - g0, 128), 128, 0, stream>>>(b, g0, g1);
  WK_CUDA_CHECK_LAUNCH();
}

template <class M, int NBLK, int NW, bool SHARED>
void launch_block(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  constexpr std::size_t smem = SHARED ? std::size_t(hd::kLayouts) * NW * kRoundThreads * sizeof(std::uint32_t) : 0;
  if constexpr (smem > 48 * 1024) {
    // Above 48 KB needs an opt-in. Set before every launch (a cheap driver call next to a launch
    // of up to 1000 rounds): attributes are per device, and several threads may launch at once.
    WK_CUDA_CHECK(cudaFuncSetAttribute(rounds_block_kernel<M, NBLK, NW, SHARED>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  rounds_block_kernel<M, NBLK, NW, SHARED>
      <<<blocks_for(r.last - r.first, kRoundThreads), kRoundThreads, smem, stream>>>(b, r.begin, r.count, r.first, r.last,
                                                                                   r.tmpl, r0, r1);
  WK_CUDA_CHECK_LAUNCH();
}

template <class M>
void launch_reference(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  rounds_reference_kernel<M><<<blocks_for(r.last - r.first, 128), 128, 0, stream>>>(b, r.begin, r.first, r.last, r0, r1);
  WK_CUDA_CHECK_LAUNCH();
}

// One launcher per entry of hd::BlockConfigs<H>::list (shared staging only where shared_ok).
template <class M, std::size_t I>
bool launch_config(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  constexpr hd::BlockConfig c = hd::BlockConfigs<typename M::H>::list[I];
  if (r.nblk != c.nblk || r.nw != c.nw) return false;
  if constexpr (c.shared_ok) {
    if (r.shared) {
      launch_block<M, c.nblk, c.nw, true>(b, r, r0, r1, stream);
      return true;
    }
  }
  launch_block<M, c.nblk, c.nw, false>(b, r, r0, r1, stream);
  return true;
}

template <class M, std::size_t... I>
void launch_rounds_impl(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream,
                        std::index_sequence<I...>) {
  if (r.last <= r.first) return;
  if (r.nblk == 0) return launch_reference<M>(b, r, r0, r1, stream);
  if (!(launch_config<M, I>(b, r, r0, r1, stream) || ...))
    throw Error(ErrorCategory::internal, "no round kernel for this block configuration");
}

template <class M>
void launch_rounds(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  using H = typename M::H;
  constexpr std::size_t count = sizeof(hd::BlockConfigs<H>::list) / sizeof(hd::BlockConfig);
  launch_rounds_impl<M>(b, r, r0, r1, stream, std::make_index_sequence<count>{});
}

template <class H>
bool config_fits(const ShaConfig& c, int pl, int sl) {
  return hd::block_config_fits<H>(c.nblk, c.nw, pl, sl);
}

// The round engine's kernels for the method M (see the top of this file).
template <class M>
const ShaKernels& make_kernels() {
  using H = typename M::H;
  static const auto configs = [] {
    constexpr std::size_t count = sizeof(hd::BlockConfigs<H>::list) / sizeof(hd::BlockConfig);
    std::array<ShaConfig, count> out{};
    for (std::size_t i = 0; i < count; ++i)
      out[i] = {hd::BlockConfigs<H>::list[i].nblk, hd::BlockConfigs<H>::list[i].nw, hd::BlockConfigs<H>::list[i].shared_ok};
    return out;
  }();
  static const ShaKernels kernels{H::kDigestBytes, M::kHashChars,      configs.data(),   int(configs.size()),
                                  config_fits<H>,  launch_setup<M>,     launch_rounds<M>, launch_final<M>};
  return kernels;
}

}  // namespace wk::hash::gpu::detail
