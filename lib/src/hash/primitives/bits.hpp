#pragma once
// Bit helpers for the hash primitives, written once for host and device (WK_HD). On the device
// they map to single instructions (SHF funnel shifts, PRMT byte permutes).
#include <cstdint>

#include "wk/core/hd.hpp"

// Out-of-line host/device functions: the streaming contexts' block step. Inlining an unrolled
// compression at every update() call site multiplies code size and compile time for no gain in
// the set-up kernels.
#if defined(__CUDACC__)
#define WK_HD_NOINLINE __host__ __device__ __noinline__
#else
#define WK_HD_NOINLINE inline
#endif

// Full unrolling in host and device compilers: the compression functions rely on it so that
// message-word and constant indices are compile-time (registers on the GPU, no local memory).
#if defined(__CUDA_ARCH__)
#define WK_HASH_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define WK_HASH_UNROLL  // host pass of a .cu file: the host copies are not hot
#elif defined(__GNUC__) && !defined(__clang__)
#define WK_HASH_UNROLL _Pragma("GCC unroll 128")
#elif defined(__clang__)
#define WK_HASH_UNROLL _Pragma("unroll")
#else
#define WK_HASH_UNROLL
#endif

namespace wk::hash::bits {

WK_HD std::uint32_t rotl32(std::uint32_t x, int s) { return (x << s) | (x >> ((32 - s) & 31)); }
WK_HD std::uint32_t rotr32(std::uint32_t x, int s) { return (x >> s) | (x << ((32 - s) & 31)); }
WK_HD std::uint64_t rotr64(std::uint64_t x, int s) { return (x >> s) | (x << ((64 - s) & 63)); }

WK_HD std::uint32_t bswap32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, 0, 0x0123);
#else
  return __builtin_bswap32(x);
#endif
}
WK_HD std::uint64_t bswap64(std::uint64_t x) {
  return (std::uint64_t(bswap32(std::uint32_t(x))) << 32) | bswap32(std::uint32_t(x >> 32));
}

// Upper 32 bits of (hi:lo) << s, s in [0, 31]: s == 0 gives hi.
WK_HD std::uint32_t funnel_left(std::uint32_t lo, std::uint32_t hi, unsigned s) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(lo, hi, s);
#else
  return s == 0 ? hi : (hi << s) | (lo >> (32 - s));
#endif
}
// Lower 32 bits of (hi:lo) >> s, s in [0, 31]: s == 0 gives lo.
WK_HD std::uint32_t funnel_right(std::uint32_t lo, std::uint32_t hi, unsigned s) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, s);
#else
  return s == 0 ? lo : (lo >> s) | (hi << (32 - s));
#endif
}

// Byte access to 32-bit words in either byte order: MD5 streams are little-endian, SHA-2 streams
// big-endian. `k` is the byte's position in the stream word (0 = first byte).
WK_HD std::uint32_t put_byte_le(std::uint8_t b, unsigned k) { return std::uint32_t(b) << (8 * k); }
WK_HD std::uint32_t put_byte_be(std::uint8_t b, unsigned k) { return std::uint32_t(b) << (24 - 8 * k); }

}  // namespace wk::hash::bits
