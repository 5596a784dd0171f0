#pragma once
// IDEA (Lai and Massey, 1991), written once for host and device: the GPU kernels and the CPU
// path both call idea_crypt_words(), so CI (no GPU) tests exactly the arithmetic the GPU runs.
//
// Standard IDEA: 64-bit blocks of four big-endian 16-bit words, 52 16-bit subkeys, 8 rounds and an
// output transform; multiplication modulo 2^16+1 with the word 0 standing for 2^16. (The book's
// downloadable crypt.c differs in word order, key rotation and the zero rule; it is followed here
// only for method.)
#include <cstdint>

#include "wk/core/hd.hpp"

namespace wk::cipher {

inline constexpr int kIdeaRounds = 8;
inline constexpr int kIdeaSubkeys = 6 * kIdeaRounds + 4;  // 52

// One key schedule (encryption or decryption). Each 16-bit subkey is held in a 32-bit word: the
// GPU kernels then use them directly as instruction operands (from constant memory or registers)
// with no 16-bit extraction. Invariant: every k[i] <= 0xFFFF (idea_mul relies on it).
struct IdeaSubkeys {
  std::uint32_t k[kIdeaSubkeys];
  WK_HD std::uint32_t operator[](int i) const { return k[i]; }
};

// a (x) b modulo 2^16+1, 0 standing for 2^16. `a` may carry garbage above bit 15 (it is masked
// here, which the compiler usually fuses into the preceding XOR); `b` must be <= 0xFFFF (a subkey
// or a masked value). Only the low 16 bits of the result are meaningful.
//
// No branch, no 64-bit value, and mostly multiply-adds, which the GPU issues to its FMA pipe
// while the integer ALU pipe runs the XORs and adds of the round:
//   p = a*b fits 32 bits. If a and b are both non-zero, p is not a multiple of the prime 65537,
//   and then q = floor(p*65535 / 2^32) equals floor(p / 65537): the two quotients differ by
//   p / (65537 * 2^32) < 1/65537, less than the distance p mod 65537 >= 1 keeps p/65537 above
//   an integer. So r = p - 65537*q = p mod 65537, in 1..65536 (65536 becomes 0 in 16 bits).
//   If p == 0, a or b was 0 (= 2^16 = -1): the product is 1-a-b (mod 2^16) in all three cases
//   (a=0: 1-b; b=0: 1-a; both: 2^32 mod 65537 = 1).
// On the GPU: IMAD, IMAD.HI, IMAD (FMA pipe); IADD3, ISETP, SEL (ALU pipe).
WK_HD std::uint32_t idea_mul(std::uint32_t a, std::uint32_t b) {
  a &= 0xFFFFu;
  const std::uint32_t p = a * b;
#if defined(__CUDA_ARCH__)
  const std::uint32_t q = __umulhi(p, 65535u);
#else
  const std::uint32_t q = static_cast<std::uint32_t>((std::uint64_t(p) * 65535u) >> 32);
#endif
  const std::uint32_t r = p - q * 65537u;
  return p != 0 ? r : 1u - a - b;
}

// Multiplicative inverse modulo 2^16+1 (0 <-> 2^16, which is its own inverse), by Fermat:
// x^(65537-2). Only used in the key schedule (52 times per key), so clarity wins over speed.
WK_HD std::uint32_t idea_mul_inverse(std::uint32_t x) {
  std::uint32_t result = 1, base = x & 0xFFFFu;
  for (std::uint32_t e = 65535u; e != 0; e >>= 1) {
    if (e & 1u) result = idea_mul(result, base) & 0xFFFFu;
    base = idea_mul(base, base) & 0xFFFFu;
  }
  return result;
}

// N blocks side by side ("lanes"), each as four words x1..x4 (the big-endian 16-bit words of
// the block, in order). The GPU runs one lane per call (its parallelism is threads); the CPU runs
// several, because one block is a chain of dependent multiplies (~40 cycles a round) that would
// leave most of an out-of-order core idle, while independent lanes fill it (and let the compiler
// vectorize). The words may carry garbage above bit 15 on input; on output only the low 16 bits
// are meaningful.
template <int N>
struct IdeaLanes {
  std::uint32_t x1[N], x2[N], x3[N], x4[N];
};

// The whole cipher: 8 rounds and the output transform. `K` is anything indexable by int giving
// subkeys: IdeaSubkeys (a kernel parameter = constant memory, or registers) or
// `const std::uint32_t*` (global memory).
#if defined(__CUDA_ARCH__)
#define WK_IDEA_UNROLL _Pragma("unroll")
#else
#define WK_IDEA_UNROLL
#endif
template <int N, class K>
WK_HD void idea_crypt_lanes(IdeaLanes<N>& s, const K& key) {
  WK_IDEA_UNROLL
  for (int r = 0; r < kIdeaRounds; ++r) {
    const int b = 6 * r;
    WK_IDEA_UNROLL
    for (int l = 0; l < N; ++l) {
      std::uint32_t x1 = s.x1[l], x2 = s.x2[l], x3 = s.x3[l], x4 = s.x4[l];
      x1 = idea_mul(x1, key[b + 0]);
      x2 += key[b + 1];
      x3 += key[b + 2];
      x4 = idea_mul(x4, key[b + 3]);
      // The multiplication-addition structure.
      std::uint32_t t0 = idea_mul(x1 ^ x3, key[b + 4]);
      const std::uint32_t t1 = idea_mul((x2 ^ x4) + t0, key[b + 5]);
      t0 += t1;
      // Mix, with the swap of the middle words folded in.
      s.x1[l] = x1 ^ t1;
      s.x4[l] = x4 ^ t0;
      s.x2[l] = x3 ^ t1;
      s.x3[l] = x2 ^ t0;
    }
  }
  // Output transform; the middle words swap back (the last round's swap is undone).
  WK_IDEA_UNROLL
  for (int l = 0; l < N; ++l) {
    const std::uint32_t y1 = idea_mul(s.x1[l], key[48]);
    const std::uint32_t y2 = s.x3[l] + key[49];
    const std::uint32_t y3 = s.x2[l] + key[50];
    const std::uint32_t y4 = idea_mul(s.x4[l], key[51]);
    s.x1[l] = y1;
    s.x2[l] = y2;
    s.x3[l] = y3;
    s.x4[l] = y4;
  }
}
#undef WK_IDEA_UNROLL

// One block as four words (the lane-1 case, what each GPU thread runs per block).
template <class K>
WK_HD void idea_crypt_words(std::uint32_t& x1, std::uint32_t& x2, std::uint32_t& x3, std::uint32_t& x4,
                            const K& key) {
  IdeaLanes<1> s{{x1}, {x2}, {x3}, {x4}};
  idea_crypt_lanes(s, key);
  x1 = s.x1[0];
  x2 = s.x2[0];
  x3 = s.x3[0];
  x4 = s.x4[0];
}

// Big-endian packing between 8 block bytes and two 32-bit halves: hi = words 1,2; lo = words 3,4.
// (Used by the CPU path and the tests; the kernels do the same with byte permutes on the
// little-endian loads.)
WK_HD std::uint64_t idea_load_be64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}
WK_HD void idea_store_be64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

// N 64-bit blocks (as big-endian integers) through the cipher, in place.
template <int N, class K>
WK_HD void idea_crypt_u64_lanes(std::uint64_t (&blocks)[N], const K& key) {
  IdeaLanes<N> s;
  for (int l = 0; l < N; ++l) {
    s.x1[l] = static_cast<std::uint32_t>(blocks[l] >> 48);
    s.x2[l] = static_cast<std::uint32_t>(blocks[l] >> 32) & 0xFFFFu;
    s.x3[l] = static_cast<std::uint32_t>(blocks[l] >> 16) & 0xFFFFu;
    s.x4[l] = static_cast<std::uint32_t>(blocks[l]) & 0xFFFFu;
  }
  idea_crypt_lanes(s, key);
  for (int l = 0; l < N; ++l)
    blocks[l] = (std::uint64_t(s.x1[l] & 0xFFFFu) << 48) | (std::uint64_t(s.x2[l] & 0xFFFFu) << 32) |
                (std::uint64_t(s.x3[l] & 0xFFFFu) << 16) | std::uint64_t(s.x4[l] & 0xFFFFu);
}

// One 64-bit block (as a big-endian integer) through the cipher.
template <class K>
WK_HD std::uint64_t idea_crypt_u64(std::uint64_t block, const K& key) {
  std::uint64_t b[1] = {block};
  idea_crypt_u64_lanes(b, key);
  return b[0];
}

}  // namespace wk::cipher
