#pragma once
// bcrypt ($2a$, $2b$, $2x$, $2y$) as libxcrypt's crypt_blowfish computes it, for host and device.
//
// Key bytes: the password is read cyclically *including its terminating zero byte*, 72 bytes
// (18 words) in all, so longer passwords are truncated at 72 bytes. The variants differ only in
// how those bytes become words (crypt_blowfish's BF_set_key):
//   $2b$, $2y$  bytes taken unsigned (correct)
//   $2x$        bytes sign-extended before OR-ing (the pre-2011 bug, kept for old hashes)
//   $2a$        correct, except that when sign extension *would* have changed a word through a
//               byte with the high bit set in positions 1-3 of a word, bit 16 of P[0] is
//               flipped (the "safety" countermeasure), so $2a$ differs from $2b$ for some
//               non-ASCII passwords.
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/blowfish.hpp"

namespace wk::hash::hd {

inline constexpr int kBcryptMinCost = 4;
inline constexpr int kBcryptMaxCost = 31;
inline constexpr int kBcryptKeyBytes = 72;

// crypt_blowfish's flags by variant letter: bit 0 = sign-extension bug, bit 1 = safety.
WK_HD unsigned bcrypt_flags(char variant) {
  return variant == 'a' ? 2u : variant == 'x' ? 1u : 4u;
}

// expanded: the 18 key words; initial: P_init ^ expanded with the $2a$ safety applied.
WK_HD void bcrypt_set_key(const std::uint8_t* pw, std::uint32_t pl, unsigned flags,
                          std::uint32_t expanded[blowfish::kPWords], std::uint32_t initial[blowfish::kPWords]) {
  const unsigned bug = flags & 1u;
  const std::uint32_t safety = (std::uint32_t(flags) & 2u) << 15;
  std::uint32_t sign = 0, diff = 0;
  std::uint32_t pos = 0;  // position in pw[0..pl], where pw[pl] is the terminating zero
  for (int i = 0; i < blowfish::kPWords; ++i) {
    std::uint32_t good = 0, bad = 0;
    for (int j = 0; j < 4; ++j) {
      const std::uint8_t byte = pos < pl ? pw[pos] : std::uint8_t(0);
      good = (good << 8) | byte;
      bad = (bad << 8) | std::uint32_t(std::int32_t(std::int8_t(byte)));
      if (j) sign |= bad & 0x80u;
      pos = pos < pl ? pos + 1 : 0;
    }
    diff |= good ^ bad;
    expanded[i] = bug ? bad : good;
    initial[i] = tables::blowfish_init(i) ^ expanded[i];
  }
  diff |= diff >> 16;
  diff &= 0xffffu;
  diff += 0xffffu;  // bit 16 set iff some word differed
  sign <<= 9;       // bit 7 -> bit 16
  sign &= ~diff & safety;
  initial[0] ^= sign;
}

// EksBlowfishSetup(cost, salt, key) on P and S in place, in three steps so the GPU can split the
// 2^cost loop over launches: bcrypt_setup_state (the salted first expansion; P must hold
// `initial` from bcrypt_set_key, S the initial S-boxes), bcrypt_iterations (any number of loop
// iterations at a time), bcrypt_finish (the 64 encryptions of the magic text).
template <class SBoxes>
WK_HD void bcrypt_setup_state(std::uint32_t P[blowfish::kPWords], const SBoxes& S, const std::uint32_t salt[4]) {
  blowfish::expand_state(P, S, salt, true);
}

template <class SBoxes>
WK_HD void bcrypt_iterations(std::uint32_t P[blowfish::kPWords], const SBoxes& S,
                             const std::uint32_t expanded[blowfish::kPWords], const std::uint32_t salt[4],
                             std::uint64_t count) {
  for (std::uint64_t it = 0; it < count; ++it) {
WK_HASH_UNROLL
    for (int i = 0; i < blowfish::kPWords; ++i) P[i] ^= expanded[i];
    blowfish::encrypt_state(P, S);
WK_HASH_UNROLL
    for (int i = 0; i < blowfish::kPWords; ++i) P[i] ^= salt[i & 3];
    blowfish::encrypt_state(P, S);
  }
}

// "OrpheanBeholderScryDoubt" encrypted 64 times; out: the 6 result words (23 bytes are encoded).
template <class SBoxes>
WK_HD void bcrypt_finish(const std::uint32_t P[blowfish::kPWords], const SBoxes& S, std::uint32_t out[6]) {
  constexpr std::uint32_t magic[6] = {0x4f727068u, 0x65616e42u, 0x65686f6cu, 0x64657253u, 0x63727944u, 0x6f756274u};
  for (int i = 0; i < 6; i += 2) {
    std::uint32_t L = magic[i], R = magic[i + 1];
    for (int k = 0; k < 64; ++k) blowfish::encrypt(L, R, P, S);
    out[i] = L;
    out[i + 1] = R;
  }
}

// Salt words from the 16 decoded salt bytes (big-endian).
WK_HD void bcrypt_salt_words(const std::uint8_t bytes[16], std::uint32_t salt[4]) {
  for (int k = 0; k < 4; ++k)
    salt[k] = (std::uint32_t(bytes[4 * k]) << 24) | (std::uint32_t(bytes[4 * k + 1]) << 16) |
              (std::uint32_t(bytes[4 * k + 2]) << 8) | bytes[4 * k + 3];
}

// The whole hash with S-boxes in `S` (4096 bytes of scratch behind the policy).
template <class SBoxes>
WK_HD void bcrypt_digest(const std::uint8_t* pw, std::uint32_t pl, const std::uint32_t salt[4], unsigned cost,
                         unsigned flags, const SBoxes& S, std::uint32_t out[6]) {
  std::uint32_t expanded[blowfish::kPWords], P[blowfish::kPWords];
  bcrypt_set_key(pw, pl, flags, expanded, P);
  blowfish::load_initial_sboxes(S);
  bcrypt_setup_state(P, S, salt);
  bcrypt_iterations(P, S, expanded, salt, std::uint64_t(1) << cost);
  bcrypt_finish(P, S, out);
}

}  // namespace wk::hash::hd
