#pragma once
// md5crypt ($1$, P.-H. Kamp) and sha256crypt / sha512crypt ($5$ / $6$, U. Drepper), written once
// for host and device. Both share one round structure: with C the previous digest,
//
//   round i hashes  (i odd ? P : C) + (i % 3 ? S : "") + (i % 7 ? P : "") + (i odd ? C : P)
//
// where for md5crypt P is the password and S the salt (1000 rounds), and for sha-crypt P and S
// are derived from the password and salt in the set-up phase (shacrypt_setup).
//
// This file holds the reference form (a byte-streaming hasher per round): the host engine that
// CI tests against libxcrypt, and the GPU rung that ports it unchanged. The fast GPU rounds are
// in hash/hd/block_rounds.hpp (run by lib/src/hash/gpu/shacrypt_kernels.cuh) and are tested
// against this.
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/hd/hash_traits.hpp"

namespace wk::hash::hd {

inline constexpr int kMaxPasswordBytes = 511;  // libxcrypt's CRYPT_MAX_PASSPHRASE_SIZE - 1
inline constexpr int kMaxShaSaltBytes = 16;
inline constexpr int kMaxMd5SaltBytes = 8;
inline constexpr std::uint32_t kShaDefaultRounds = 5000;
inline constexpr std::uint32_t kShaMinRounds = 1000;
inline constexpr std::uint32_t kShaMaxRounds = 999999999;
inline constexpr std::uint32_t kMd5Rounds = 1000;

// md5crypt's set-up: the digest that enters round 0.
WK_HD void md5crypt_setup(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                          std::uint8_t c[16]) {
  md5::Context ctx;
  ctx.reset();
  ctx.update(pw, pl);
  ctx.update(salt, sl);
  ctx.update(pw, pl);
  std::uint8_t alt[16];
  ctx.final(alt);

  const std::uint8_t magic[3] = {'$', '1', '$'};
  ctx.reset();
  ctx.update(pw, pl);
  ctx.update(magic, 3);
  ctx.update(salt, sl);
  std::uint32_t n = pl;
  for (; n > 16; n -= 16) ctx.update(alt, 16);
  ctx.update(alt, n);
  // The historical quirk: a zero byte for each set bit of the length, else the first password byte.
  for (n = pl; n > 0; n >>= 1) ctx.update_byte((n & 1) ? std::uint8_t(0) : pw[0]);
  ctx.final(c);
}

// sha-crypt's set-up: A (the digest entering round 0), the P sequence (pl bytes) and the S
// sequence (sl bytes). p_seq must hold pl bytes, s_seq sl bytes.
template <class H>
WK_HD void shacrypt_setup(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                          std::uint8_t a_out[H::kDigestBytes], std::uint8_t* p_seq, std::uint8_t* s_seq) {
  constexpr std::uint32_t D = H::kDigestBytes;
  typename H::Context ctx;
  std::uint8_t b[D];
  ctx.reset();
  ctx.update(pw, pl);
  ctx.update(salt, sl);
  ctx.update(pw, pl);
  ctx.final(b);

  ctx.reset();
  ctx.update(pw, pl);
  ctx.update(salt, sl);
  std::uint32_t n = pl;
  for (; n > D; n -= D) ctx.update(b, D);
  ctx.update(b, n);
  for (n = pl; n > 0; n >>= 1) {
    if (n & 1) ctx.update(b, D);
    else ctx.update(pw, pl);
  }
  ctx.final(a_out);

  std::uint8_t dp[D];
  ctx.reset();
  for (std::uint32_t i = 0; i < pl; ++i) ctx.update(pw, pl);
  ctx.final(dp);
  for (std::uint32_t i = 0; i < pl; ++i) p_seq[i] = dp[i % D];

  std::uint8_t ds[D];
  ctx.reset();
  for (std::uint32_t i = 0; i < 16u + a_out[0]; ++i) ctx.update(salt, sl);
  ctx.final(ds);
  for (std::uint32_t i = 0; i < sl; ++i) s_seq[i] = ds[i];
}

// Rounds [begin, end) of the shared round structure, on the digest c (in place).
template <class H>
WK_HD void crypt_rounds_reference(std::uint8_t c[H::kDigestBytes], const std::uint8_t* p, std::uint32_t pl,
                                  const std::uint8_t* s, std::uint32_t sl, std::uint32_t begin, std::uint32_t end) {
  constexpr std::uint32_t D = H::kDigestBytes;
  typename H::Context ctx;
  for (std::uint32_t i = begin; i < end; ++i) {
    ctx.reset();
    if (i & 1) ctx.update(p, pl);
    else ctx.update(c, D);
    if (i % 3) ctx.update(s, sl);
    if (i % 7) ctx.update(p, pl);
    if (i & 1) ctx.update(c, D);
    else ctx.update(p, pl);
    ctx.final(c);
  }
}

// Whole hashes, digest only (the caller formats the string).
WK_HD void md5crypt_digest(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                           std::uint8_t c[16]) {
  md5crypt_setup(pw, pl, salt, sl, c);
  crypt_rounds_reference<Md5Traits>(c, pw, pl, salt, sl, 0, kMd5Rounds);
}

// p_scratch: pl bytes of scratch for the P sequence.
template <class H>
WK_HD void shacrypt_digest(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                           std::uint32_t rounds, std::uint8_t* p_scratch, std::uint8_t c[H::kDigestBytes]) {
  std::uint8_t s_seq[kMaxShaSaltBytes];
  shacrypt_setup<H>(pw, pl, salt, sl, c, p_scratch, s_seq);
  crypt_rounds_reference<H>(c, p_scratch, pl, s_seq, sl, 0, rounds);
}

}  // namespace wk::hash::hd
