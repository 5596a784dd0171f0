#pragma once
// The constants of MD5, SHA-256, SHA-512 and Blowfish, generated from their definitions by
// lib/src/hash/tools/gen_hash_tables.py. Host code reads constexpr arrays; device code reads
// __constant__ copies (one per translation unit), which unrolled loops turn into constant-bank
// operands of the arithmetic instructions, so they cost no loads in the hot loops.
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/tables_generated.inc"

namespace wk::hash::tables {

inline constexpr std::uint32_t kMd5T[64] = WK_MD5_T_VALUES;
inline constexpr std::uint32_t kSha256K[64] = WK_SHA256_K_VALUES;
inline constexpr std::uint32_t kSha256H0[8] = WK_SHA256_H0_VALUES;
inline constexpr std::uint64_t kSha512K[80] = WK_SHA512_K_VALUES;
inline constexpr std::uint64_t kSha512H0[8] = WK_SHA512_H0_VALUES;
inline constexpr std::uint32_t kBlowfishInit[18 + 1024] = WK_BLOWFISH_INIT_VALUES;

#if defined(__CUDACC__)
static __constant__ const std::uint32_t kMd5T_dev[64] = WK_MD5_T_VALUES;
static __constant__ const std::uint32_t kSha256K_dev[64] = WK_SHA256_K_VALUES;
static __constant__ const std::uint64_t kSha512K_dev[80] = WK_SHA512_K_VALUES;
static __constant__ const std::uint32_t kBlowfishInit_dev[18 + 1024] = WK_BLOWFISH_INIT_VALUES;
#endif

WK_HD std::uint32_t md5_t(int i) {
#if defined(__CUDA_ARCH__)
  return kMd5T_dev[i];
#else
  return kMd5T[i];
#endif
}
WK_HD std::uint32_t sha256_k(int i) {
#if defined(__CUDA_ARCH__)
  return kSha256K_dev[i];
#else
  return kSha256K[i];
#endif
}
WK_HD std::uint64_t sha512_k(int i) {
#if defined(__CUDA_ARCH__)
  return kSha512K_dev[i];
#else
  return kSha512K[i];
#endif
}
// Blowfish's initial state: P-array words 0..17, then S-box b word i at 18 + 256 * b + i.
WK_HD std::uint32_t blowfish_init(int i) {
#if defined(__CUDA_ARCH__)
  return kBlowfishInit_dev[i];
#else
  return kBlowfishInit[i];
#endif
}

}  // namespace wk::hash::tables
