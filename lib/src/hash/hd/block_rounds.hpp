#pragma once
// The fast rounds of md5crypt / sha256crypt / sha512crypt, for host and device: the code the GPU
// block kernels run (lib/src/hash/gpu/shacrypt_kernels.cuh), compiled for the host by the CPU
// tests so CI checks it against libxcrypt.
//
// Every round hashes  (odd ? P : C) + (i%3 ? S : "") + (i%7 ? P : "") + (odd ? C : P).  Only
// three bits of i matter for the message's shape -- odd, i%3 != 0, i%7 != 0 -- so a password has
// 8 round layouts (the pattern repeats every 42 rounds):
//
//   even round:  C | X | 0x80 ... length     X = [S] [P] P   starts at byte D (word-aligned)
//   odd round:   Y | C | 0x80 ... length     Y = P [S] [P]   C starts at byte |Y| (any alignment)
//
// The set-up writes, per password and layout, the message words that do not depend on C -- X
// with its 0x80, or Y -- the *templates* (nw words each). A round then needs no byte loop: an
// even round copies C and its template words; an odd round copies its template words and ORs in
// C (with the 0x80 after it) shifted by |Y| bytes: funnel shifts by |Y| mod 4 and a jump on
// |Y| / 4 to code with fixed register indices (the same jump for a whole warp when the batch is
// grouped by length). The message lives in registers, the compression is unrolled, C never
// leaves registers.
#include <cstdint>
#include <utility>

#include "wk/core/hd.hpp"
#include "hash/hd/hash_traits.hpp"

namespace wk::hash::hd {

inline constexpr int kLayouts = 8;  // layout = odd * 4 + (i % 3 != 0) * 2 + (i % 7 != 0)

// A block configuration: rounds of up to nblk blocks, nw template words per layout.
struct BlockConfig {
  int nblk, nw;
  bool shared_ok;  // small enough for the GPU to stage the templates in shared memory
};

// The configurations compiled into the GPU engine, smallest first; a job takes the first that
// fits all its rounds. Few on purpose: each is an unrolled copy of the compression (compile time
// on four architectures). For SHA-512 a larger nw than needed costs only a few loads per round;
// MD5's 64-step rounds feel the message words an exact nw leaves known to be zero (their adds
// fold away): md5crypt's class S (6 words) ran 2 % faster with {1, 6}, class R (9 words) 7 %
// with {1, 9} (docs/apod/hash.md). Shared staging is 8 * nw words per thread: nw <= 12 is 48 KB
// per block of 128 threads.
template <class H>
struct BlockConfigs;
template <>
struct BlockConfigs<Md5Traits> {
  static constexpr BlockConfig list[] = {{1, 6, true}, {1, 8, true}, {1, 9, true}, {1, 12, true}, {3, 44, false}};
};
template <>
struct BlockConfigs<Sha256Traits> {
  static constexpr BlockConfig list[] = {{1, 8, true}, {2, 12, true}, {3, 40, false}};
};
template <>
struct BlockConfigs<Sha512Traits> {
  static constexpr BlockConfig list[] = {{1, 12, true}, {2, 44, false}};
};

// Whether rounds of nblk blocks with nw template words handle every round of a password of
// pl bytes with a salt of sl bytes: the longest message (C + 2P + S) must fit nblk blocks with
// its 0x80 and length, its template nw words, and the even template must fit behind C.
template <class H>
WK_HD constexpr bool block_config_fits(int nblk, int nw, int pl, int sl) {
  const int lmax = 2 * pl + sl;
  const int words_needed = (lmax + 1 + 3) / 4;
  return H::kDigestBytes + lmax + 1 + H::kLengthBytes <= nblk * H::kBlockBytes && words_needed <= nw &&
         H::kDigestWords + nw <= nblk * H::kBlockWords;
}

// The templates of one password: store(layout, k, word) for k < nw. P and S are the byte
// sequences of the round structure (md5crypt: password and salt; sha-crypt: the P and S
// sequences of the set-up).
template <class H, class Store>
WK_HD void build_templates(const std::uint8_t* P, int pl, const std::uint8_t* S, int sl, int nw, Store store) {
  for (int lay = 0; lay < kLayouts; ++lay) {
    const bool odd = lay & 4, m3 = lay & 2, m7 = lay & 1;
    std::uint32_t word = 0;
    int k = 0, widx = 0;
    auto put = [&](std::uint8_t b) {
      word |= H::put_byte(b, unsigned(k & 3));
      if ((k & 3) == 3) {
        store(lay, widx++, word);
        word = 0;
      }
      ++k;
    };
    if (odd) {
      for (int i = 0; i < pl; ++i) put(P[i]);
      if (m3)
        for (int i = 0; i < sl; ++i) put(S[i]);
      if (m7)
        for (int i = 0; i < pl; ++i) put(P[i]);
    } else {
      if (m3)
        for (int i = 0; i < sl; ++i) put(S[i]);
      if (m7)
        for (int i = 0; i < pl; ++i) put(P[i]);
      for (int i = 0; i < pl; ++i) put(P[i]);
      put(0x80);
    }
    if (k & 3) store(lay, widx++, word);
    for (; widx < nw; ++widx) store(lay, widx, 0u);
  }
}

// s[Q + k] |= c[k] for the k that fall inside s (all indices compile-time).
template <int N, int M, int Q, int... K>
WK_HD void or_at_impl(std::uint32_t (&s)[N], const std::uint32_t (&c)[M], std::integer_sequence<int, K...>) {
  ((Q + K < N ? (void)(s[Q + K < N ? Q + K : 0] |= c[K]) : (void)0), ...);
}
template <int N, int M, int Q>
WK_HD void or_at(std::uint32_t (&s)[N], const std::uint32_t (&c)[M]) {
  or_at_impl<N, M, Q>(s, c, std::make_integer_sequence<int, M>{});
}

// s[q + k] |= c[k] with q <= QMAX known only at run time: a jump over the word offsets, each case
// with fixed register indices (cases above QMAX are left out: fewer levels of compare and branch).
template <int N, int M, int QMAX = N - 1>
WK_HD void or_at_runtime(std::uint32_t (&s)[N], const std::uint32_t (&c)[M], int q) {
  static_assert(N <= 64, "extend the case list");
#define WK_OR_CASE(Q)                                      \
  case Q:                                                  \
    if constexpr ((Q) < N && (Q) <= QMAX) or_at<N, M, ((Q) < N ? (Q) : 0)>(s, c); \
    break;
  switch (q) {
    WK_OR_CASE(0) WK_OR_CASE(1) WK_OR_CASE(2) WK_OR_CASE(3) WK_OR_CASE(4) WK_OR_CASE(5) WK_OR_CASE(6) WK_OR_CASE(7)
    WK_OR_CASE(8) WK_OR_CASE(9) WK_OR_CASE(10) WK_OR_CASE(11) WK_OR_CASE(12) WK_OR_CASE(13) WK_OR_CASE(14)
    WK_OR_CASE(15) WK_OR_CASE(16) WK_OR_CASE(17) WK_OR_CASE(18) WK_OR_CASE(19) WK_OR_CASE(20) WK_OR_CASE(21)
    WK_OR_CASE(22) WK_OR_CASE(23) WK_OR_CASE(24) WK_OR_CASE(25) WK_OR_CASE(26) WK_OR_CASE(27) WK_OR_CASE(28)
    WK_OR_CASE(29) WK_OR_CASE(30) WK_OR_CASE(31) WK_OR_CASE(32) WK_OR_CASE(33) WK_OR_CASE(34) WK_OR_CASE(35)
    WK_OR_CASE(36) WK_OR_CASE(37) WK_OR_CASE(38) WK_OR_CASE(39) WK_OR_CASE(40) WK_OR_CASE(41) WK_OR_CASE(42)
    WK_OR_CASE(43) WK_OR_CASE(44) WK_OR_CASE(45) WK_OR_CASE(46) WK_OR_CASE(47) WK_OR_CASE(48) WK_OR_CASE(49)
    WK_OR_CASE(50) WK_OR_CASE(51) WK_OR_CASE(52) WK_OR_CASE(53) WK_OR_CASE(54) WK_OR_CASE(55) WK_OR_CASE(56)
    WK_OR_CASE(57) WK_OR_CASE(58) WK_OR_CASE(59) WK_OR_CASE(60) WK_OR_CASE(61) WK_OR_CASE(62) WK_OR_CASE(63)
    default: break;
  }
#undef WK_OR_CASE
}

// Rounds [r0, end) on C (kDigestWords stream words, in place). tmpl(idx) returns template word
// idx = layout * NW + k of this password. The caller guarantees block_config_fits<H>(NBLK, NW).
template <class H, int NBLK, int NW, class Templates>
WK_HD void block_rounds(std::uint32_t (&c)[H::kDigestWords], int pl, int sl, std::uint32_t r0, std::uint32_t end,
                        const Templates& tmpl) {
  constexpr int BW = H::kBlockWords, DW = H::kDigestWords, N = NBLK * BW;
  static_assert(DW + NW <= N, "even template must fit behind C");
  const std::uint32_t pad = H::put_byte(0x80, 0);
  int m3 = int(r0 % 3), m7 = int(r0 % 7);
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
  for (std::uint32_t i = r0; i < end; ++i) {
    const bool odd = i & 1;
    const int lay = (odd ? 4 : 0) | (m3 ? 2 : 0) | (m7 ? 1 : 0);
    const int L = pl + (m3 ? sl : 0) + (m7 ? pl : 0);
    const int total = H::kDigestBytes + L;
    const int nb = NBLK == 1 ? 1 : (total + 1 + H::kLengthBytes + H::kBlockBytes - 1) / H::kBlockBytes;
    std::uint32_t s[N];
    WK_HASH_UNROLL
    for (int k = 0; k < N; ++k) s[k] = 0;
    const int tbase = lay * NW;
    if (!odd) {
      WK_HASH_UNROLL
      for (int k = 0; k < DW; ++k) s[k] = c[k];
      WK_HASH_UNROLL
      for (int k = 0; k < NW; ++k) s[DW + k] = tmpl(tbase + k);
    } else {
      WK_HASH_UNROLL
      for (int k = 0; k < NW; ++k) s[k] = tmpl(tbase + k);
      const unsigned r = unsigned(L) & 3u;
      std::uint32_t cs[DW + 1];
      cs[0] = H::shift_join(0u, c[0], r);
      WK_HASH_UNROLL
      for (int k = 1; k < DW; ++k) cs[k] = H::shift_join(c[k - 1], c[k], r);
      cs[DW] = H::shift_join(c[DW - 1], pad, r);
      // Y (the odd template) fits NW words, so C starts at word L / 4 <= NW. Leaving out the
      // impossible cases made md5crypt 3-5 % faster on the H100 but sha512crypt 15 % slower (the
      // same registers and no spills: the compiler lays the unrolled SHA-512 code out differently),
      // so only MD5 takes it (docs/apod/hash.md). A later probe with compile-time class-S lengths
      // measured sha512crypt the same either way; the real kernel was not re-measured.
      constexpr int kMaxWord = H::kDigestBytes == 16 && NW < N - 1 ? NW : N - 1;
      or_at_runtime<N, DW + 1, kMaxWord>(s, cs, L >> 2);
    }
    const std::uint32_t bits = std::uint32_t(total) * 8u;
    if constexpr (NBLK == 1) {
      H::put_length(s, bits);
    } else {
      if (nb == 1) H::put_length(s, bits);
      else if (nb == 2) H::put_length(s + BW, bits);
      else if constexpr (NBLK >= 3) H::put_length(s + 2 * BW, bits);
    }
    typename H::StateWord st[H::kStateWords];
    H::init(st);
    if constexpr (NBLK == 1) {
      // One block, straight-line: the initial state's constants fold into the first steps.
      H::compress(st, s);
    } else {
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
      for (int blk = 0; blk < nb; ++blk) {
        H::compress(st, s);
        WK_HASH_UNROLL
        for (int k = 0; k < N - BW; ++k) s[k] = s[k + BW];
      }
    }
    WK_HASH_UNROLL
    for (int k = 0; k < DW; ++k) c[k] = H::digest_word(st, k);
    m3 = m3 == 2 ? 0 : m3 + 1;
    m7 = m7 == 6 ? 0 : m7 + 1;
  }
}

// Stream words of a digest held as bytes, and back.
template <class H>
WK_HD std::uint32_t bytes_to_word(const std::uint8_t* b) {
  return H::put_byte(b[0], 0) | H::put_byte(b[1], 1) | H::put_byte(b[2], 2) | H::put_byte(b[3], 3);
}
template <class H>
WK_HD std::uint8_t word_byte(std::uint32_t w, int k) {
  return H::kBigEndian ? std::uint8_t(w >> (24 - 8 * k)) : std::uint8_t(w >> (8 * k));
}

}  // namespace wk::hash::hd
