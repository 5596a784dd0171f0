#pragma once
// SHA-256 (FIPS 180-4) for host and device; unrolled compression, 16-word rolling schedule.
#include <cstddef>
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/bits.hpp"
#include "hash/primitives/tables.hpp"

namespace wk::hash::sha256 {

inline constexpr int kBlockBytes = 64;
inline constexpr int kDigestBytes = 32;
inline constexpr bool kBigEndian = true;

WK_HD void init(std::uint32_t s[8]) {
  constexpr std::uint32_t h0[8] = WK_SHA256_H0_VALUES;
WK_HASH_UNROLL
  for (int i = 0; i < 8; ++i) s[i] = h0[i];
}

// One 64-byte block; w holds its 16 big-endian words and is used as schedule scratch
// (it holds garbage afterwards).
WK_HD void compress_inplace(std::uint32_t s[8], std::uint32_t w[16]) {
  using bits::rotr32;
  std::uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
WK_HASH_UNROLL
  for (int i = 0; i < 64; ++i) {
    if (i >= 16) {
      const std::uint32_t x = w[(i - 15) & 15], y = w[(i - 2) & 15];
      w[i & 15] += (rotr32(y, 17) ^ rotr32(y, 19) ^ (y >> 10)) + w[(i - 7) & 15] +
                   (rotr32(x, 7) ^ rotr32(x, 18) ^ (x >> 3));
    }
    const std::uint32_t t1 = h + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) + (g ^ (e & (f ^ g))) +
                             tables::sha256_k(i) + w[i & 15];
    const std::uint32_t t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) + ((a & b) | (c & (a | b)));
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

WK_HD void compress(std::uint32_t s[8], const std::uint32_t w_in[16]) {
  std::uint32_t w[16];
WK_HASH_UNROLL
  for (int i = 0; i < 16; ++i) w[i] = w_in[i];
  compress_inplace(s, w);
}

struct Context {
  std::uint32_t state[8];
  std::uint32_t block[16];
  std::uint64_t length;

  WK_HD void reset() {
    init(state);
    length = 0;
    for (int i = 0; i < 16; ++i) block[i] = 0;
  }
  WK_HD void update_byte(std::uint8_t byte) {
    const unsigned pos = unsigned(length & 63);
    block[pos >> 2] |= bits::put_byte_be(byte, pos & 3);
    ++length;
    if ((length & 63) == 0) compress_block();
  }
  WK_HD_NOINLINE void compress_block() {
    compress_inplace(state, block);
    for (int i = 0; i < 16; ++i) block[i] = 0;
  }
  WK_HD_NOINLINE void update(const std::uint8_t* p, std::size_t n) {
    // Whole words while the block position is word-aligned, bytes otherwise.
    while (n > 0) {
      const unsigned pos = unsigned(length & 63);
      if ((pos & 3) == 0 && n >= 4) {
        block[pos / 4] = (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
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
  WK_HD_NOINLINE void final(std::uint8_t out[32]) {
    const std::uint64_t bit_length = length * 8;
    update_byte(0x80);
    while ((length & 63) != 56) update_byte(0);
    block[14] = std::uint32_t(bit_length >> 32);
    block[15] = std::uint32_t(bit_length);
    compress_inplace(state, block);
    for (int i = 0; i < 32; ++i) out[i] = std::uint8_t(state[i >> 2] >> (24 - 8 * (i & 3)));
  }
};

}  // namespace wk::hash::sha256
