#pragma once
// MD5 (RFC 1321) for host and device. The compression function is fully unrolled so that, on the
// GPU, the state and message words stay in registers and the constants fold into instructions.
#include <cstddef>
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/bits.hpp"
#include "hash/primitives/tables.hpp"

namespace wk::hash::md5 {

inline constexpr int kBlockBytes = 64;
inline constexpr int kDigestBytes = 16;
inline constexpr bool kBigEndian = false;  // message words and length are little-endian

WK_HD void init(std::uint32_t s[4]) {
  s[0] = 0x67452301u;
  s[1] = 0xefcdab89u;
  s[2] = 0x98badcfeu;
  s[3] = 0x10325476u;
}

// Per-step rotation amounts (RFC 1321, 3.4): four per round.
WK_HD constexpr int shift(int i) {
  const int r = i >> 4, k = i & 3;
  return r == 0 ? (k == 0 ? 7 : k == 1 ? 12 : k == 2 ? 17 : 22)
       : r == 1 ? (k == 0 ? 5 : k == 1 ? 9 : k == 2 ? 14 : 20)
       : r == 2 ? (k == 0 ? 4 : k == 1 ? 11 : k == 2 ? 16 : 23)
                : (k == 0 ? 6 : k == 1 ? 10 : k == 2 ? 15 : 21);
}
// Message word used by step i.
WK_HD constexpr int word(int i) {
  const int r = i >> 4;
  return r == 0 ? i : r == 1 ? (5 * i + 1) & 15 : r == 2 ? (3 * i + 5) & 15 : (7 * i) & 15;
}

// One 64-byte block; w holds its 16 little-endian words.
WK_HD void compress(std::uint32_t s[4], const std::uint32_t w[16]) {
  std::uint32_t a = s[0], b = s[1], c = s[2], d = s[3];
WK_HASH_UNROLL
  for (int i = 0; i < 64; ++i) {
    std::uint32_t f;
    if (i < 16) f = d ^ (b & (c ^ d));
    else if (i < 32) f = c ^ (d & (b ^ c));
    else if (i < 48) f = b ^ c ^ d;
    else f = c ^ (b | ~d);
    const std::uint32_t t = d;
    d = c;
    c = b;
    b = b + bits::rotl32(a + f + tables::md5_t(i) + w[word(i)], shift(i));
    a = t;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
}

// Streaming MD5 over byte strings: the reference path (host, and the GPU rung that ports it
// unchanged) and the one-off hashes of the crypt set-up phases.
struct Context {
  std::uint32_t state[4];
  std::uint32_t block[16];
  std::uint64_t length;  // bytes so far

  WK_HD void reset() {
    init(state);
    length = 0;
    for (int i = 0; i < 16; ++i) block[i] = 0;
  }
  WK_HD void update_byte(std::uint8_t byte) {
    const unsigned pos = unsigned(length & 63);
    block[pos >> 2] |= bits::put_byte_le(byte, pos & 3);
    ++length;
    if ((length & 63) == 0) compress_block();
  }
  WK_HD_NOINLINE void compress_block() {
    compress(state, block);
    for (int i = 0; i < 16; ++i) block[i] = 0;
  }
  WK_HD_NOINLINE void update(const std::uint8_t* p, std::size_t n) {
    // Whole words while the block position is word-aligned, bytes otherwise.
    while (n > 0) {
      const unsigned pos = unsigned(length & 63);
      if ((pos & 3) == 0 && n >= 4) {
        block[pos / 4] = std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
        length += 4;
        p += 4;
        n -= 4;
        if ((length & 63) == 0) {
          compress_block();
        }
      } else {
        update_byte(*p++);
        --n;
      }
    }
  }
  WK_HD_NOINLINE void final(std::uint8_t out[16]) {
    const std::uint64_t bit_length = length * 8;
    update_byte(0x80);
    while ((length & 63) != 56) update_byte(0);
    block[14] = std::uint32_t(bit_length);
    block[15] = std::uint32_t(bit_length >> 32);
    compress(state, block);
    for (int i = 0; i < 16; ++i) out[i] = std::uint8_t(state[i >> 2] >> (8 * (i & 3)));
  }
};

}  // namespace wk::hash::md5
