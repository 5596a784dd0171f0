#pragma once
// One traits type per digest used by the crypt formats, so md5crypt and both sha-crypts share a
// single round engine (their round structure is the same; only the digest differs).
//
// Stream words: the message is handled as 32-bit words in the digest's byte order (MD5 little-
// endian, SHA-2 big-endian; a SHA-512 64-bit word is two big-endian 32-bit words, high first).
// The digest C of a round is then exactly kDigestWords stream words, taken from the state.
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/md5.hpp"
#include "hash/primitives/sha256.hpp"
#include "hash/primitives/sha512.hpp"

namespace wk::hash::hd {

struct Md5Traits {
  using Context = md5::Context;
  using StateWord = std::uint32_t;
  static constexpr int kDigestBytes = 16;
  static constexpr int kBlockBytes = 64;
  static constexpr int kLengthBytes = 8;
  static constexpr bool kBigEndian = false;
  static constexpr int kStateWords = 4;
  static constexpr int kBlockWords = kBlockBytes / 4;    // stream words per block
  static constexpr int kDigestWords = kDigestBytes / 4;  // stream words per digest

  WK_HD static void init(StateWord s[kStateWords]) { md5::init(s); }
  // w: one block of stream words; may be clobbered.
  WK_HD static void compress(StateWord s[kStateWords], std::uint32_t w[kBlockWords]) { md5::compress(s, w); }
  WK_HD static std::uint32_t digest_word(const StateWord s[kStateWords], int k) { return s[k]; }
  // The message length in bits goes into the last block's final stream words.
  WK_HD static void put_length(std::uint32_t w[kBlockWords], std::uint32_t bits) {
    w[14] = bits;
    w[15] = 0;
  }
  WK_HD static std::uint32_t put_byte(std::uint8_t b, unsigned k) { return bits::put_byte_le(b, k); }
  // A stream shifted right by r bytes: word k takes the tail of prev and the head of cur.
  WK_HD static std::uint32_t shift_join(std::uint32_t prev, std::uint32_t cur, unsigned r) {
    return bits::funnel_left(prev, cur, 8 * r);
  }
};

struct Sha256Traits {
  using Context = sha256::Context;
  using StateWord = std::uint32_t;
  static constexpr int kDigestBytes = 32;
  static constexpr int kBlockBytes = 64;
  static constexpr int kLengthBytes = 8;
  static constexpr bool kBigEndian = true;
  static constexpr int kStateWords = 8;
  static constexpr int kBlockWords = kBlockBytes / 4;
  static constexpr int kDigestWords = kDigestBytes / 4;

  WK_HD static void init(StateWord s[kStateWords]) { sha256::init(s); }
  WK_HD static void compress(StateWord s[kStateWords], std::uint32_t w[kBlockWords]) {
    sha256::compress_inplace(s, w);
  }
  WK_HD static std::uint32_t digest_word(const StateWord s[kStateWords], int k) { return s[k]; }
  WK_HD static void put_length(std::uint32_t w[kBlockWords], std::uint32_t bits) {
    w[14] = 0;
    w[15] = bits;
  }
  WK_HD static std::uint32_t put_byte(std::uint8_t b, unsigned k) { return bits::put_byte_be(b, k); }
  WK_HD static std::uint32_t shift_join(std::uint32_t prev, std::uint32_t cur, unsigned r) {
    return bits::funnel_right(cur, prev, 8 * r);
  }
};

struct Sha512Traits {
  using Context = sha512::Context;
  using StateWord = std::uint64_t;
  static constexpr int kDigestBytes = 64;
  static constexpr int kBlockBytes = 128;
  static constexpr int kLengthBytes = 16;
  static constexpr bool kBigEndian = true;
  static constexpr int kStateWords = 8;
  static constexpr int kBlockWords = kBlockBytes / 4;
  static constexpr int kDigestWords = kDigestBytes / 4;

  WK_HD static void init(StateWord s[kStateWords]) { sha512::init(s); }
  WK_HD static void compress(StateWord s[kStateWords], std::uint32_t w[kBlockWords]) {
    std::uint64_t w64[16];
WK_HASH_UNROLL
    for (int k = 0; k < 16; ++k) w64[k] = (std::uint64_t(w[2 * k]) << 32) | w[2 * k + 1];
    sha512::compress_inplace(s, w64);
  }
  WK_HD static std::uint32_t digest_word(const StateWord s[kStateWords], int k) {
    return (k & 1) ? std::uint32_t(s[k >> 1]) : std::uint32_t(s[k >> 1] >> 32);
  }
  WK_HD static void put_length(std::uint32_t w[kBlockWords], std::uint32_t bits) {
    w[28] = 0;
    w[29] = 0;
    w[30] = 0;
    w[31] = bits;
  }
  WK_HD static std::uint32_t put_byte(std::uint8_t b, unsigned k) { return bits::put_byte_be(b, k); }
  WK_HD static std::uint32_t shift_join(std::uint32_t prev, std::uint32_t cur, unsigned r) {
    return bits::funnel_right(cur, prev, 8 * r);
  }
};

}  // namespace wk::hash::hd
