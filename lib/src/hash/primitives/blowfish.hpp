#pragma once
// Blowfish (Schneier 1993) and the EksBlowfish key schedule of bcrypt (Provos & Mazieres 1999),
// for host and device. The S-boxes are reached through a small storage policy so the same code
// runs on a plain host array, a thread-private array (the GPU reference rung) and a shared-memory
// layout interleaved across threads (the GPU default: conflict-free banks).
#include <cstdint>

#include "wk/core/hd.hpp"
#include "hash/primitives/bits.hpp"
#include "hash/primitives/tables.hpp"

namespace wk::hash::blowfish {

inline constexpr int kRounds = 16;
inline constexpr int kPWords = kRounds + 2;  // 18
inline constexpr int kSWords = 4 * 256;

// S-box storage for one key: word i of box b is at index 256 * b + i.
struct LinearSBoxes {
  std::uint32_t* s;
  WK_HD std::uint32_t get(int box, std::uint32_t i) const { return s[256 * box + i]; }
  WK_HD std::uint32_t& at(int k) const { return s[k]; }  // k = 256 * box + i
};

// The Feistel function F. A storage policy may bring its own (the same function, computed with
// cheaper address arithmetic for its layout).
template <class SBoxes>
WK_HD std::uint32_t feistel(const SBoxes& S, std::uint32_t x) {
  if constexpr (requires { S.feistel(x); }) {
    return S.feistel(x);
  } else {
    return ((S.get(0, x >> 24) + S.get(1, (x >> 16) & 0xff)) ^ S.get(2, (x >> 8) & 0xff)) + S.get(3, x & 0xff);
  }
}

// Encrypts the 64-bit block (L, R) in place; P is the 18-word array (registers after unrolling).
template <class SBoxes>
WK_HD void encrypt(std::uint32_t& L, std::uint32_t& R, const std::uint32_t P[kPWords], const SBoxes& S) {
  std::uint32_t l = L ^ P[0], r = R;
WK_HASH_UNROLL
  for (int i = 1; i <= kRounds; i += 2) {
    r ^= feistel(S, l) ^ P[i];
    l ^= feistel(S, r) ^ P[i + 1];
  }
  L = r ^ P[kRounds + 1];
  R = l;
}

// Blowfish's initial S-boxes (hex digits of pi) into `S`.
template <class SBoxes>
WK_HD void load_initial_sboxes(const SBoxes& S) {
  for (int k = 0; k < kSWords; ++k) S.at(k) = tables::blowfish_init(kPWords + k);
}

// Re-keys P and S by encrypting a running block, XOR-ing it first with salt words
// salt[k & 3], salt[(k + 1) & 3] (k counting words written, from 0). With an all-zero salt this
// is ExpandKey(state, 0, key) after P ^= key; with the bcrypt salt it is the salted variant.
template <class SBoxes>
WK_HD void expand_state(std::uint32_t P[kPWords], const SBoxes& S, const std::uint32_t salt[4], bool use_salt) {
  std::uint32_t L = 0, R = 0;
WK_HASH_UNROLL
  for (int i = 0; i < kPWords; i += 2) {
    if (use_salt) {
      L ^= salt[i & 2];
      R ^= salt[(i & 2) + 1];
    }
    encrypt(L, R, P, S);
    P[i] = L;
    P[i + 1] = R;
  }
  // 18 words written so far: the S-box words continue the salt alternation at salt[2], salt[3].
  for (int k = 0; k < kSWords; k += 4) {
    if (use_salt) {
      L ^= salt[2];
      R ^= salt[3];
    }
    encrypt(L, R, P, S);
    S.at(k) = L;
    S.at(k + 1) = R;
    if (use_salt) {
      L ^= salt[0];
      R ^= salt[1];
    }
    encrypt(L, R, P, S);
    S.at(k + 2) = L;
    S.at(k + 3) = R;
  }
}

// Expands S and P by encrypting a zero-started running block with no salt: ExpandKey(state, 0, ·)
// after the caller XOR-ed P with the key or the salt.
template <class SBoxes>
WK_HD void encrypt_state(std::uint32_t P[kPWords], const SBoxes& S) {
  std::uint32_t L = 0, R = 0;
WK_HASH_UNROLL
  for (int i = 0; i < kPWords; i += 2) {
    encrypt(L, R, P, S);
    P[i] = L;
    P[i + 1] = R;
  }
  for (int k = 0; k < kSWords; k += 2) {
    encrypt(L, R, P, S);
    S.at(k) = L;
    S.at(k + 1) = R;
  }
}

}  // namespace wk::hash::blowfish
