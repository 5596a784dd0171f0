#pragma once
// Kernels shared by md5crypt, sha256crypt and sha512crypt (one instantiation per digest, in
// md5crypt.cu / sha256crypt.cu / sha512crypt.cu). One thread per password; the round logic is
// hash/hd/block_rounds.hpp (host/device, tested on the CPU against libxcrypt).
//
//   setup_kernel             C0, the P and S sequences, the 8 layout templates (once per job)
//   rounds_reference_kernel  the reference rung: the host code's byte-streaming hasher per round
//   rounds_block_kernel      the block rungs: whole message blocks in registers from templates
//                            in global memory or staged in shared memory
//   final_kernel             the crypt base-64 of C
// The round loop is split into launches of at most kDefaultRoundsPerLaunch rounds (device_batch.cpp);
// C lives in global memory only between launches. Every launch covers the jobs [first, last) of a
// range: DeviceBatch runs a range's parts on separate streams.
#include <cuda_runtime.h>

#include <cstdint>
#include <array>
#include <utility>

#include "crypt_launch.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "hash/hd/block_rounds.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/hash_traits.hpp"
#include "hash/hd/shacrypt.hpp"

namespace wk::hash::gpu::detail {

// Minimum resident blocks per SM for the block kernels (__launch_bounds__), measured on the H100
// (docs/apod/hash.md). sha512crypt's one-block kernel took 209 registers when left alone (2
// blocks of 128 threads per SM); capped at 168 (3 blocks) it spilled ~140 bytes to L1 and ran 8 %
// faster. Since its one-block rounds are straight-line code it fits 168 without spills, and 4 or 5
// blocks were 1-4 % slower. md5crypt's shared-template kernels took 122-168 registers (4 blocks);
// at 6 blocks (80 registers) md5crypt ran 4-9 % faster; 5 and 7 blocks measure within 1 % of 6.
// sha256crypt is best left alone. The macros exist for that experiment.
#ifndef WK_SHA512_MIN_BLOCKS
#define WK_SHA512_MIN_BLOCKS 3
#endif
#ifndef WK_MD5_MIN_BLOCKS
#define WK_MD5_MIN_BLOCKS 6
#endif
#ifndef WK_SHA256_MIN_BLOCKS
#define WK_SHA256_MIN_BLOCKS 1
#endif
template <class H>
inline constexpr int kRoundMinBlocks = H::kDigestBytes == 64   ? WK_SHA512_MIN_BLOCKS
                                       : H::kDigestBytes == 16 ? WK_MD5_MIN_BLOCKS
                                                               : WK_SHA256_MIN_BLOCKS;

template <class H>
inline constexpr bool kIsMd5 = H::kDigestBytes == 16;

template <class H>
__global__ void setup_kernel(ShaBatch b, int begin, int count, int first, int last, int nw, std::uint32_t* tmpl) {
  const int j = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= last) return;
  const int g = begin + j;
  const int pl = b.pl[g], sl = b.sl[g];
  const std::uint8_t* pw = b.pw + b.pw_off[g];
  const std::uint8_t* salt = b.salt + 16 * g;
  std::uint8_t c[H::kDigestBytes];
  const std::uint8_t* P;
  const std::uint8_t* S;
  if constexpr (kIsMd5<H>) {
    hd::md5crypt_setup(pw, pl, salt, sl, c);
    P = pw;
    S = salt;
  } else {
    std::uint8_t* pseq = b.pseq + b.pw_off[g];
    std::uint8_t* sseq = b.sseq + 16 * g;
    std::uint8_t s_local[hd::kMaxShaSaltBytes];
    hd::shacrypt_setup<H>(pw, pl, salt, sl, c, pseq, s_local);
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

template <class H>
__global__ void rounds_reference_kernel(ShaBatch b, int begin, int first, int last, std::uint32_t r0, std::uint32_t r1) {
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
  const std::uint8_t* P = kIsMd5<H> ? b.pw + b.pw_off[g] : b.pseq + b.pw_off[g];
  const std::uint8_t* S = kIsMd5<H> ? b.salt + 16 * g : b.sseq + 16 * g;
  hd::crypt_rounds_reference<H>(c, P, b.pl[g], S, b.sl[g], r0, end);
  for (int k = 0; k < H::kDigestWords; ++k) b.state[k * b.n + g] = hd::bytes_to_word<H>(c + 4 * k);
}

template <class H, int NBLK, int NW, bool SHARED>
__global__ void __launch_bounds__(kRoundThreads, kRoundMinBlocks<H>)
    rounds_block_kernel(ShaBatch b, int begin, int count, int first, int last, const std::uint32_t* __restrict__ tmpl,
                        std::uint32_t r0, std::uint32_t r1) {
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

template <class H>
__global__ void final_kernel(ShaBatch b, int g0, int g1) {
  const int g = g0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= g1) return;
  std::uint8_t c[H::kDigestBytes];
  for (int k = 0; k < H::kDigestWords; ++k) {
    const std::uint32_t w = b.state[k * b.n + g];
    for (int q = 0; q < 4; ++q) c[4 * k + q] = hd::word_byte<H>(w, q);
  }
  char* out = b.out + std::size_t(g) * b.out_stride;
  if constexpr (H::kDigestBytes == 16) hd::encode_md5crypt(c, out);
  else if constexpr (H::kDigestBytes == 32) hd::encode_sha256crypt(c, out);
  else hd::encode_sha512crypt(c, out);
}

// ---- launchers --------------------------------------------------------------------------------
inline int blocks_for(int count, int threads) { return (count + threads - 1) / threads; }

template <class H>
void launch_setup(const ShaBatch& b, const ShaRange& r, cudaStream_t stream) {
  if (r.last <= r.first) return;
  setup_kernel<H><<<blocks_for(r.last - r.first, 128), 128, 0, stream>>>(b, r.begin, r.count, r.first, r.last, r.nw, r.tmpl);
  WK_CUDA_CHECK_LAUNCH();
}

template <class H>
void launch_final(const ShaBatch& b, int g0, int g1, cudaStream_t stream) {
  if (g1 <= g0) return;
  final_kernel<H><<<blocks_for(g1 - g0, 128), 128, 0, stream>>>(b, g0, g1);
  WK_CUDA_CHECK_LAUNCH();
}

template <class H, int NBLK, int NW, bool SHARED>
void launch_block(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  constexpr std::size_t smem = SHARED ? std::size_t(hd::kLayouts) * NW * kRoundThreads * sizeof(std::uint32_t) : 0;
  if constexpr (smem > 48 * 1024) {
    // Above 48 KB needs an opt-in. Set before every launch (a cheap driver call next to a launch
    // of up to 1000 rounds): attributes are per device, and several threads may launch at once.
    WK_CUDA_CHECK(cudaFuncSetAttribute(rounds_block_kernel<H, NBLK, NW, SHARED>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  rounds_block_kernel<H, NBLK, NW, SHARED>
      <<<blocks_for(r.last - r.first, kRoundThreads), kRoundThreads, smem, stream>>>(b, r.begin, r.count, r.first, r.last,
                                                                                   r.tmpl, r0, r1);
  WK_CUDA_CHECK_LAUNCH();
}

template <class H>
void launch_reference(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  rounds_reference_kernel<H><<<blocks_for(r.last - r.first, 128), 128, 0, stream>>>(b, r.begin, r.first, r.last, r0, r1);
  WK_CUDA_CHECK_LAUNCH();
}

// One launcher per entry of hd::BlockConfigs<H>::list (shared staging only where shared_ok).
template <class H, std::size_t I>
bool launch_config(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  constexpr hd::BlockConfig c = hd::BlockConfigs<H>::list[I];
  if (r.nblk != c.nblk || r.nw != c.nw) return false;
  if constexpr (c.shared_ok) {
    if (r.shared) {
      launch_block<H, c.nblk, c.nw, true>(b, r, r0, r1, stream);
      return true;
    }
  }
  launch_block<H, c.nblk, c.nw, false>(b, r, r0, r1, stream);
  return true;
}

template <class H, std::size_t... I>
void launch_rounds_impl(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream,
                        std::index_sequence<I...>) {
  if (r.last <= r.first) return;
  if (r.nblk == 0) return launch_reference<H>(b, r, r0, r1, stream);
  if (!(launch_config<H, I>(b, r, r0, r1, stream) || ...))
    throw Error(ErrorCategory::internal, "no round kernel for this block configuration");
}

template <class H>
void launch_rounds(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream) {
  constexpr std::size_t count = sizeof(hd::BlockConfigs<H>::list) / sizeof(hd::BlockConfig);
  launch_rounds_impl<H>(b, r, r0, r1, stream, std::make_index_sequence<count>{});
}

template <class H>
bool config_fits(const ShaConfig& c, int pl, int sl) {
  return hd::block_config_fits<H>(c.nblk, c.nw, pl, sl);
}

template <class H>
const ShaKernels& make_kernels(int hash_chars) {
  static const auto configs = [] {
    constexpr std::size_t count = sizeof(hd::BlockConfigs<H>::list) / sizeof(hd::BlockConfig);
    std::array<ShaConfig, count> out{};
    for (std::size_t i = 0; i < count; ++i)
      out[i] = {hd::BlockConfigs<H>::list[i].nblk, hd::BlockConfigs<H>::list[i].nw, hd::BlockConfigs<H>::list[i].shared_ok};
    return out;
  }();
  static const ShaKernels kernels{H::kDigestBytes, hash_chars,          configs.data(),  int(configs.size()),
                                  config_fits<H>,  launch_setup<H>,     launch_rounds<H>, launch_final<H>};
  return kernels;
}

}  // namespace wk::hash::gpu::detail
