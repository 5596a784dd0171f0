#pragma once
// The two base-64 alphabets of crypt(3) strings, for host and device:
//   crypt alphabet  "./0-9A-Za-z": md5crypt / sha-crypt salts and hashes, little-endian groups
//   bcrypt alphabet "./A-Za-z0-9": bcrypt salts and hashes, big-endian groups (crypt_blowfish)
#include <cstdint>

#include "wk/core/hd.hpp"

namespace wk::hash::hd {

WK_HD char crypt_b64_char(unsigned v) {
  v &= 63;
  return v < 2 ? char('.' + v) : v < 12 ? char('0' + v - 2) : v < 38 ? char('A' + v - 12) : char('a' + v - 38);
}
WK_HD char bcrypt_b64_char(unsigned v) {
  v &= 63;
  return v < 2 ? char('.' + v) : v < 28 ? char('A' + v - 2) : v < 54 ? char('a' + v - 28) : char('0' + v - 54);
}
// -1 for characters outside the bcrypt alphabet.
WK_HD int bcrypt_b64_value(unsigned char c) {
  if (c == '.') return 0;
  if (c == '/') return 1;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 2;
  if (c >= 'a' && c <= 'z') return c - 'a' + 28;
  if (c >= '0' && c <= '9') return c - '0' + 54;
  return -1;
}

// The "b64_from_24bit" step of md5crypt and sha-crypt: three digest bytes, least significant
// 6 bits first, n characters.
WK_HD char* crypt_b64_24(char* out, std::uint8_t b2, std::uint8_t b1, std::uint8_t b0, int n) {
  std::uint32_t w = (std::uint32_t(b2) << 16) | (std::uint32_t(b1) << 8) | b0;
  for (int i = 0; i < n; ++i) {
    *out++ = crypt_b64_char(w);
    w >>= 6;
  }
  return out;
}

inline constexpr int kMd5cryptHashChars = 22;
inline constexpr int kSha256cryptHashChars = 43;
inline constexpr int kSha512cryptHashChars = 86;
inline constexpr int kBcryptHashChars = 31;

// The byte permutations of the published algorithms (md5crypt by P.-H. Kamp; sha-crypt by
// U. Drepper, "Unix crypt using SHA-256 and SHA-512"): groups of three digest bytes.
WK_HD void encode_md5crypt(const std::uint8_t d[16], char out[22]) {
  char* p = out;
  p = crypt_b64_24(p, d[0], d[6], d[12], 4);
  p = crypt_b64_24(p, d[1], d[7], d[13], 4);
  p = crypt_b64_24(p, d[2], d[8], d[14], 4);
  p = crypt_b64_24(p, d[3], d[9], d[15], 4);
  p = crypt_b64_24(p, d[4], d[10], d[5], 4);
  crypt_b64_24(p, 0, 0, d[11], 2);
}

WK_HD void encode_sha256crypt(const std::uint8_t d[32], char out[43]) {
  char* p = out;
  p = crypt_b64_24(p, d[0], d[10], d[20], 4);
  p = crypt_b64_24(p, d[21], d[1], d[11], 4);
  p = crypt_b64_24(p, d[12], d[22], d[2], 4);
  p = crypt_b64_24(p, d[3], d[13], d[23], 4);
  p = crypt_b64_24(p, d[24], d[4], d[14], 4);
  p = crypt_b64_24(p, d[15], d[25], d[5], 4);
  p = crypt_b64_24(p, d[6], d[16], d[26], 4);
  p = crypt_b64_24(p, d[27], d[7], d[17], 4);
  p = crypt_b64_24(p, d[18], d[28], d[8], 4);
  p = crypt_b64_24(p, d[9], d[19], d[29], 4);
  crypt_b64_24(p, 0, d[31], d[30], 3);
}

WK_HD void encode_sha512crypt(const std::uint8_t d[64], char out[86]) {
  char* p = out;
  // Groups g = 0..20 take bytes (x, y, z) rotating through the three "lanes" 0-20, 21-41, 42-62.
  for (int g = 0; g < 21; ++g) {
    const int lo = g, mid = g + 21, hi = g + 42;
    switch (g % 3) {
      case 0: p = crypt_b64_24(p, d[lo], d[mid], d[hi], 4); break;
      case 1: p = crypt_b64_24(p, d[mid], d[hi], d[lo], 4); break;
      default: p = crypt_b64_24(p, d[hi], d[lo], d[mid], 4); break;
    }
  }
  crypt_b64_24(p, 0, 0, d[63], 2);
}

// crypt_blowfish's BF_encode: big-endian 6-bit groups, a partial group at the end.
WK_HD char* bcrypt_b64_encode(char* out, const std::uint8_t* src, int n) {
  int i = 0;
  while (i < n) {
    unsigned c1 = src[i++];
    *out++ = bcrypt_b64_char(c1 >> 2);
    c1 = (c1 & 0x03) << 4;
    if (i >= n) {
      *out++ = bcrypt_b64_char(c1);
      break;
    }
    unsigned c2 = src[i++];
    c1 |= c2 >> 4;
    *out++ = bcrypt_b64_char(c1);
    c1 = (c2 & 0x0f) << 2;
    if (i >= n) {
      *out++ = bcrypt_b64_char(c1);
      break;
    }
    c2 = src[i++];
    c1 |= c2 >> 6;
    *out++ = bcrypt_b64_char(c1);
    *out++ = bcrypt_b64_char(c2 & 0x3f);
  }
  return out;
}

// crypt_blowfish's BF_decode of n bytes; false when a character is outside the alphabet.
// Bits of the last character beyond n bytes are ignored (bcrypt salts: 22 characters carry 132
// bits for 128).
WK_HD bool bcrypt_b64_decode(std::uint8_t* dst, const char* src, int n) {
  int o = 0, i = 0;
  while (o < n) {
    const int c1 = bcrypt_b64_value(static_cast<unsigned char>(src[i++]));
    const int c2 = c1 < 0 ? -1 : bcrypt_b64_value(static_cast<unsigned char>(src[i++]));
    if (c2 < 0) return false;
    dst[o++] = std::uint8_t((c1 << 2) | ((c2 & 0x30) >> 4));
    if (o >= n) break;
    const int c3 = bcrypt_b64_value(static_cast<unsigned char>(src[i++]));
    if (c3 < 0) return false;
    dst[o++] = std::uint8_t(((c2 & 0x0f) << 4) | ((c3 & 0x3c) >> 2));
    if (o >= n) break;
    const int c4 = bcrypt_b64_value(static_cast<unsigned char>(src[i++]));
    if (c4 < 0) return false;
    dst[o++] = std::uint8_t(((c3 & 0x03) << 6) | c4);
  }
  return true;
}

}  // namespace wk::hash::hd
