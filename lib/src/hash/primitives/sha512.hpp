#pragma once
// SHA-512 (FIPS 180-4) for host and device; unrolled compression on 64-bit words (the GPU does
// each 64-bit rotate as two funnel shifts), 16-word rolling schedule.
#include <cstddef>
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/bits.hpp"
#include "hash/primitives/tables.hpp"

namespace wk::hash::sha512 {

inline constexpr int kBlockBytes = 128;
inline constexpr int kDigestBytes = 64;
inline constexpr bool kBigEndian = true;

WK_HD void init(std::uint64_t s[8]) {
  constexpr std::uint64_t h0[8] = WK_SHA512_H0_VALUES;
WK_HASH_UNROLL
  for (int i = 0; i < 8; ++i) s[i] = h0[i];
}

// One 128-byte block; w holds its 16 big-endian 64-bit words and is used as schedule scratch.
WK_HD void compress_inplace(std::uint64_t s[8], std::uint64_t w[16]) {
  using bits::rotr64;
  std::uint64_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
WK_HASH_UNROLL
  for (int i = 0; i < 80; ++i) {
    if (i >= 16) {
      const std::uint64_t x = w[(i - 15) & 15], y = w[(i - 2) & 15];
      w[i & 15] += (rotr64(y, 19) ^ rotr64(y, 61) ^ (y >> 6)) + w[(i - 7) & 15] +
                   (rotr64(x, 1) ^ rotr64(x, 8) ^ (x >> 7));
    }
    const std::uint64_t t1 = h + (rotr64(e, 14) ^ rotr64(e, 18) ^ rotr64(e, 41)) + (g ^ (e & (f ^ g))) +
                             tables::sha512_k(i) + w[i & 15];
    const std::uint64_t t2 = (rotr64(a, 28) ^ rotr64(a, 34) ^ rotr64(a, 39)) + ((a & b) | (c & (a | b)));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
  s[4] += e;
  s[5] += f;
  s[6] += g;
  s[7] += h;
}

WK_HD void compress(std::uint64_t s[8], const std::uint64_t w_in[16]) {
  std::uint64_t w[16];
WK_HASH_UNROLL
  for (int i = 0; i < 16; ++i) w[i] = w_in[i];
  compress_inplace(s, w);
}

struct Context {
  std::uint64_t state[8];
  std::uint64_t block[16];
  std::uint64_t length;

  WK_HD void reset() {
    init(state);
    length = 0;
    for (int i = 0; i < 16; ++i) block[i] = 0;
  }
  WK_HD void update_byte(std::uint8_t byte) {
    const unsigned pos = unsigned(length & 127);
    block[pos >> 3] |= std::uint64_t(byte) << (56 - 8 * (pos & 7));
    ++length;
    if ((length & 127) == 0) compress_block();
  }
  WK_HD_NOINLINE void compress_block() {
    compress_inplace(state, block);
    for (int i = 0; i < 16; ++i) block[i] = 0;
  }
  WK_HD_NOINLINE void update(const std::uint8_t* p, std::size_t n) {
    // Whole words while the block position is word-aligned, bytes otherwise.
    while (n > 0) {
      const unsigned pos = unsigned(length & 127);
      if ((pos & 7) == 0 && n >= 8) {
        block[pos / 8] = (std::uint64_t(p[0]) << 56) | (std::uint64_t(p[1]) << 48) | (std::uint64_t(p[2]) << 40) | (std::uint64_t(p[3]) << 32) | (std::uint64_t(p[4]) << 24) | (std::uint64_t(p[5]) << 16) | (std::uint64_t(p[6]) << 8) | std::uint64_t(p[7]);
        length += 8;
        p += 8;
        n -= 8;
        if ((length & 127) == 0) {
          compress_block();
        }
      } else {
        update_byte(*p++);
        --n;
      }
    }
  }
  WK_HD_NOINLINE void final(std::uint8_t out[64]) {
    const std::uint64_t bit_length = length * 8;
    update_byte(0x80);
    while ((length & 127) != 112) update_byte(0);
    block[14] = 0;
    block[15] = bit_length;
    compress_inplace(state, block);
    for (int i = 0; i < 64; ++i) out[i] = std::uint8_t(state[i >> 3] >> (56 - 8 * (i & 7)));
  }
};

}  // namespace wk::hash::sha512
