#pragma once
// The tag of one chunk of a wk-crypt container, written once for host and device (WK_HD) so that
// CI tests, on the host, the very code the GPU runs (against OpenSSL's SHA-256 and HMAC).
//
//   leaf digests   the chunk's ciphertext cut into 1 KiB leaves (the last one may be shorter; an
//                  empty chunk has none), d_j = SHA-256(leaf_j)
//   tag            HMAC-SHA-256(K_mac, d_0 || d_1 || ... || d_{m-1} || be64(index) || final)
//                  with `final` one byte: 1 for the file's last chunk, else 0
//
// The leaves make the tag of a 64 KiB chunk 64 independent hashes plus one short HMAC, so the GPU
// hashes a chunk with 64 threads instead of one (SHA-256 itself is sequential). A forgery needs a
// forgery of HMAC-SHA-256 or a SHA-256 collision.
#include <cstddef>
#include <cstdint>

#include "hash/primitives/sha256.hpp"
#include "wk/core/hd.hpp"

namespace wk::cipher::detail {

inline constexpr std::size_t kChunkTagBytes = 32;
inline constexpr std::size_t kLeafBytes = 1024;
inline constexpr std::size_t kDigestWords = 8;

// The SHA-256 states after the HMAC key's ipad and opad blocks: every tag starts from these.
struct HmacSha256State {
  std::uint32_t inner[8];
  std::uint32_t outer[8];
};

WK_HD std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

// HMAC-SHA-256's two precomputed states for a 32-byte key (RFC 2104: the key padded to a block).
WK_HD HmacSha256State hmac_sha256_state(const std::uint8_t key[32]) {
  HmacSha256State k{};
  std::uint32_t wi[16], wo[16];
  for (int i = 0; i < 16; ++i) {
    const std::uint32_t word = i < 8 ? load_be32(key + 4 * i) : 0u;
    wi[i] = word ^ 0x36363636u;
    wo[i] = word ^ 0x5c5c5c5cu;
  }
  hash::sha256::init(k.inner);
  hash::sha256::init(k.outer);
  hash::sha256::compress_inplace(k.inner, wi);
  hash::sha256::compress_inplace(k.outer, wo);
  return k;
}

// SHA-256 of the n <= kLeafBytes bytes at p, as eight state words. On the device p must be
// 16-byte aligned (whole blocks are read as uint4).
WK_HD void leaf_digest(const std::uint8_t* p, std::uint32_t n, std::uint32_t d[8]) {
  hash::sha256::init(d);
  std::uint32_t w[16];
  std::uint32_t b = 0;
  for (; b + 64 <= n; b += 64) {
#if defined(__CUDA_ARCH__)
    const uint4* q = reinterpret_cast<const uint4*>(p + b);
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const uint4 x = q[v];
      w[4 * v + 0] = __byte_perm(x.x, 0, 0x0123);
      w[4 * v + 1] = __byte_perm(x.y, 0, 0x0123);
      w[4 * v + 2] = __byte_perm(x.z, 0, 0x0123);
      w[4 * v + 3] = __byte_perm(x.w, 0, 0x0123);
    }
#else
    for (int i = 0; i < 16; ++i) w[i] = load_be32(p + b + 4 * i);
#endif
    hash::sha256::compress_inplace(d, w);
  }
  // The last partial block, the 0x80 byte, zeros and the bit length (one or two blocks).
  const std::uint32_t rem = n - b;
  const std::uint64_t bits = std::uint64_t(n) * 8;
  if (rem == 0) {  // whole blocks (every leaf but a chunk's last): constant indices, no local array
    w[0] = 0x80000000u;
    for (int i = 1; i < 14; ++i) w[i] = 0;
    w[14] = std::uint32_t(bits >> 32);
    w[15] = std::uint32_t(bits);
    hash::sha256::compress_inplace(d, w);
    return;
  }
  std::uint8_t tail[128] = {};
  for (std::uint32_t i = 0; i < rem; ++i) tail[i] = p[b + i];
  tail[rem] = 0x80;
  const std::uint32_t tail_bytes = rem < 56 ? 64 : 128;
  for (int i = 0; i < 8; ++i) tail[tail_bytes - 1 - i] = std::uint8_t(bits >> (8 * i));
  for (std::uint32_t t = 0; t < tail_bytes; t += 64) {
    for (int i = 0; i < 16; ++i) w[i] = load_be32(tail + t + 4 * i);
    hash::sha256::compress_inplace(d, w);
  }
}

// The chunk's tag from its m leaf digests (8 words each, in order), written as 8 big-endian words.
WK_HD void chunk_tag(const HmacSha256State& key, const std::uint32_t* digests, std::uint32_t m, std::uint64_t index,
                     bool final, std::uint32_t tag[8]) {
  std::uint32_t s[8], w[16];
  for (int i = 0; i < 8; ++i) s[i] = key.inner[i];
  std::uint32_t j = 0;
  for (; j + 2 <= m; j += 2) {  // two digests fill a block
#if defined(__CUDA_ARCH__)
    const uint4* q = reinterpret_cast<const uint4*>(digests + 8 * j);
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const uint4 x = q[v];
      w[4 * v] = x.x, w[4 * v + 1] = x.y, w[4 * v + 2] = x.z, w[4 * v + 3] = x.w;
    }
#else
    for (int i = 0; i < 16; ++i) w[i] = digests[8 * j + i];
#endif
    hash::sha256::compress_inplace(s, w);
  }
  // The last block: an odd digest (8 words) if any, be64(index), the final byte, 0x80, the length.
  // 8 + 3 + 2 words fit in one block whatever m is.
  const bool odd = j < m;
  for (int i = 0; i < 8; ++i) w[i] = odd ? digests[8 * j + i] : 0u;
  const int t = odd ? 8 : 0;
  for (int i = 8; i < 16; ++i) w[i] = 0;
  // Written through a branch on `odd` so that every index is a constant (registers on the GPU).
  const std::uint32_t hi = std::uint32_t(index >> 32), lo = std::uint32_t(index);
  const std::uint32_t fin = (final ? 0x01000000u : 0u) | 0x00800000u;
  if (t == 8) {
    w[8] = hi, w[9] = lo, w[10] = fin;
  } else {
    w[0] = hi, w[1] = lo, w[2] = fin;
  }
  const std::uint64_t bits = (64 + 32 * std::uint64_t(m) + 9) * 8;
  w[14] = std::uint32_t(bits >> 32);
  w[15] = std::uint32_t(bits);
  hash::sha256::compress_inplace(s, w);
  // Outer hash: opad state, then the inner digest, 0x80 and the length of 64 + 32 bytes.
  for (int i = 0; i < 8; ++i) {
    tag[i] = key.outer[i];
    w[i] = s[i];
  }
  w[8] = 0x80000000u;
  for (int i = 9; i < 15; ++i) w[i] = 0;
  w[15] = (64 + 32) * 8;
  hash::sha256::compress_inplace(tag, w);
}

// The tag of a chunk in host memory, leaves included (the reference the tests compare with).
WK_HD void chunk_tag_of(const HmacSha256State& key, const std::uint8_t* p, std::size_t n, std::uint64_t index, bool final,
                        std::uint32_t* scratch_digests, std::uint32_t tag[8]) {
  std::uint32_t m = 0;
  for (std::size_t off = 0; off < n; off += kLeafBytes, ++m) {
    const std::size_t len = n - off < kLeafBytes ? n - off : kLeafBytes;
    leaf_digest(p + off, static_cast<std::uint32_t>(len), scratch_digests + 8 * m);
  }
  chunk_tag(key, scratch_digests, m, index, final, tag);
}

WK_HD void store_tag_bytes(const std::uint32_t tag[8], std::uint8_t out[32]) {
  for (int i = 0; i < 32; ++i) out[i] = std::uint8_t(tag[i >> 2] >> (24 - 8 * (i & 3)));
}

}  // namespace wk::cipher::detail
