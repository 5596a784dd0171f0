#pragma once
// yescrypt (Openwall's password hashing scheme, the `$y$` of libxcrypt) and classic scrypt (its
// flags-0 mode, the `$7$` strings), written once for host and device.
//
// The specification is yescrypt 1.1's reference (`yescrypt-ref.c`): PBKDF2-HMAC-SHA256 around
// SMix, whose BlockMix is Salsa20/8 (scrypt, and yescrypt's WORM mode) or pwxform (yescrypt's
// RW mode, the one crypt(3) strings use: 6 rounds, 4 gather lanes of 2 x 64 bits, three 4 KiB
// S-boxes of which one is written while the other two are read). Blocks are kept as 32-bit
// words in yescrypt's "SIMD shuffled" order (word i of a 64-byte sub-block holds the word
// i * 5 % 16 of its natural order): pwxform and the S-boxes are defined on that order.
//
// Memory: V (128 * r * N bytes), B (128 * r * p), XY (256 * r) and the S-boxes (12 KiB * p) are
// the caller's (Scratch): the host code allocates them, a GPU thread gets slices of global
// memory. Both x86-64 and CUDA devices are little-endian, which the byte views of word arrays
// below assume (as the reference does).
#include <cstddef>
#include <cstdint>

#include "hash/hd/crypt_base64.hpp"
#include "hash/primitives/sha256.hpp"
#include "wk/core/hd.hpp"

namespace wk::hash::hd::yescrypt {

// yescrypt_flags_t's bits that crypt(3) strings can carry.
inline constexpr std::uint32_t kWorm = 1;      // scrypt with time cost t and the pre-/post-hashing
inline constexpr std::uint32_t kRw = 2;        // pwxform, S-boxes, writes to V in SMix2
inline constexpr std::uint32_t kModeMask = 3;  // classic scrypt (0), WORM or RW
// RW with 6 rounds, 4 gather lanes, 2 simple lanes and 12 KiB of S-boxes: the only pwxform
// flavour yescrypt 1.x computes (YESCRYPT_DEFAULTS; the 'j' of "$y$j9T$").
inline constexpr std::uint32_t kDefaultFlavor = 0xb6;
inline constexpr std::uint32_t kRwFlavorMask = 0x3fc;
inline constexpr std::uint32_t kPrehash = 0x10000000;  // the inner KDF of a large N

inline constexpr int kPwxRounds = 6;
inline constexpr int kPwxGather = 4;
inline constexpr int kSBoxWords = 256 * 2 * 2;        // one S-box: 256 entries of 2 x 64 bits
inline constexpr int kSWords = 3 * kSBoxWords;        // 12 KiB: S2, S1, S0
inline constexpr std::uint32_t kSMask = 255 * 16;     // byte offset of an entry within a box
inline constexpr std::uint32_t kSWriteMask = 2 * 256 - 1;  // w wraps at 2^Swidth * PWXsimple

struct Params {
  std::uint32_t flags = 0;  // 0, kWorm or kDefaultFlavor
  std::uint64_t N = 0;      // a power of two >= 2
  std::uint32_t r = 0, p = 1, t = 0;
};

WK_HD Params make_params(std::uint32_t flags, std::uint32_t n_log2, std::uint32_t r, std::uint32_t p, std::uint32_t t) {
  Params P;
  P.flags = flags;
  P.N = std::uint64_t(1) << n_log2;
  P.r = r;
  P.p = p;
  P.t = t;
  return P;
}

// ---- HMAC-SHA256 and PBKDF2-HMAC-SHA256 (one iteration) --------------------------------------

struct HmacKey {
  sha256::Context inner, outer;  // after the padded key block
};

WK_HD void hmac_key(HmacKey& h, const std::uint8_t* key, std::size_t len) {
  std::uint8_t k[64] = {};
  if (len > 64) {
    sha256::Context c;
    c.reset();
    c.update(key, len);
    c.final(k);
  } else {
    for (std::size_t i = 0; i < len; ++i) k[i] = key[i];
  }
  h.inner.reset();
  h.outer.reset();
  for (int i = 0; i < 64; ++i) {
    h.inner.update_byte(std::uint8_t(k[i] ^ 0x36));
    h.outer.update_byte(std::uint8_t(k[i] ^ 0x5c));
  }
  for (int i = 0; i < 64; ++i) k[i] = 0;
}

// out = HMAC(key, message); `inner` must hold the key's inner context with the message added.
WK_HD void hmac_finish(const HmacKey& h, sha256::Context& inner, std::uint8_t out[32]) {
  std::uint8_t d[32];
  inner.final(d);
  sha256::Context o = h.outer;
  o.update(d, 32);
  o.final(out);
}

WK_HD void hmac_sha256(const std::uint8_t* key, std::size_t key_len, const std::uint8_t* msg, std::size_t msg_len,
                       std::uint8_t out[32]) {
  HmacKey h;
  hmac_key(h, key, key_len);
  sha256::Context c = h.inner;
  c.update(msg, msg_len);
  hmac_finish(h, c, out);
}

// PBKDF2-HMAC-SHA256 with one iteration: out = T_1 || T_2 || ..., T_i = HMAC(pw, salt || BE32(i)).
WK_HD void pbkdf2_sha256(const std::uint8_t* pw, std::size_t pw_len, const std::uint8_t* salt, std::size_t salt_len,
                         std::uint8_t* out, std::size_t out_len) {
  HmacKey h;
  hmac_key(h, pw, pw_len);
  sha256::Context salted = h.inner;
  salted.update(salt, salt_len);
  for (std::uint32_t i = 1; out_len > 0; ++i) {
    sha256::Context c = salted;
    const std::uint8_t n[4] = {std::uint8_t(i >> 24), std::uint8_t(i >> 16), std::uint8_t(i >> 8), std::uint8_t(i)};
    c.update(n, 4);
    std::uint8_t t[32];
    hmac_finish(h, c, t);
    const std::size_t take = out_len < 32 ? out_len : 32;
    for (std::size_t k = 0; k < take; ++k) out[k] = t[k];
    out += take;
    out_len -= take;
  }
}

// ---- Salsa20 and BlockMix ----------------------------------------------------------------------

WK_HD std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// The Salsa20 core (`rounds` rounds, a multiple of 2) of a sub-block in shuffled order, added to it.
WK_HD void salsa20(std::uint32_t B[16], int rounds) {
  std::uint32_t x[16];
  for (int i = 0; i < 16; ++i) x[i * 5 % 16] = B[i];
  for (int i = 0; i < rounds; i += 2) {
    // columns: (0 4 8 12) (5 9 13 1) (10 14 2 6) (15 3 7 11)
    x[4] ^= rotl(x[0] + x[12], 7), x[8] ^= rotl(x[4] + x[0], 9), x[12] ^= rotl(x[8] + x[4], 13), x[0] ^= rotl(x[12] + x[8], 18);
    x[9] ^= rotl(x[5] + x[1], 7), x[13] ^= rotl(x[9] + x[5], 9), x[1] ^= rotl(x[13] + x[9], 13), x[5] ^= rotl(x[1] + x[13], 18);
    x[14] ^= rotl(x[10] + x[6], 7), x[2] ^= rotl(x[14] + x[10], 9), x[6] ^= rotl(x[2] + x[14], 13), x[10] ^= rotl(x[6] + x[2], 18);
    x[3] ^= rotl(x[15] + x[11], 7), x[7] ^= rotl(x[3] + x[15], 9), x[11] ^= rotl(x[7] + x[3], 13), x[15] ^= rotl(x[11] + x[7], 18);
    // rows: (0 1 2 3) (5 6 7 4) (10 11 8 9) (15 12 13 14)
    x[1] ^= rotl(x[0] + x[3], 7), x[2] ^= rotl(x[1] + x[0], 9), x[3] ^= rotl(x[2] + x[1], 13), x[0] ^= rotl(x[3] + x[2], 18);
    x[6] ^= rotl(x[5] + x[4], 7), x[7] ^= rotl(x[6] + x[5], 9), x[4] ^= rotl(x[7] + x[6], 13), x[5] ^= rotl(x[4] + x[7], 18);
    x[11] ^= rotl(x[10] + x[9], 7), x[8] ^= rotl(x[11] + x[10], 9), x[9] ^= rotl(x[8] + x[11], 13), x[10] ^= rotl(x[9] + x[8], 18);
    x[12] ^= rotl(x[15] + x[14], 7), x[13] ^= rotl(x[12] + x[15], 9), x[14] ^= rotl(x[13] + x[12], 13), x[15] ^= rotl(x[14] + x[13], 18);
  }
  for (int i = 0; i < 16; ++i) B[i] += x[i * 5 % 16];
}

// scrypt's BlockMix with Salsa20/8 of 2r sub-blocks; Y: 32r words of scratch.
WK_HD void blockmix_salsa8(std::uint32_t* B, std::uint32_t* Y, std::uint32_t r) {
  std::uint32_t X[16];
  for (int k = 0; k < 16; ++k) X[k] = B[(2 * r - 1) * 16 + k];
  for (std::uint32_t i = 0; i < 2 * r; ++i) {
    for (int k = 0; k < 16; ++k) X[k] ^= B[i * 16 + k];
    salsa20(X, 8);
    for (int k = 0; k < 16; ++k) Y[i * 16 + k] = X[k];
  }
  // even sub-blocks first, then the odd ones
  for (std::uint32_t i = 0; i < r; ++i)
    for (int k = 0; k < 16; ++k) {
      B[i * 16 + k] = Y[2 * i * 16 + k];
      B[(i + r) * 16 + k] = Y[(2 * i + 1) * 16 + k];
    }
}

// The S-boxes of one pwxform instance: three boxes at word offsets within S, rotated after every
// 64-byte block, and the write position w within S2.
struct Pwx {
  std::uint32_t* S;
  std::uint32_t s0, s1, s2;
  std::uint32_t w;
};

WK_HD std::uint64_t word64(const std::uint32_t* p) { return std::uint64_t(p[0]) | (std::uint64_t(p[1]) << 32); }

// pwxform of one 64-byte block (16 words: 4 gather lanes of 2 x 64 bits).
WK_HD void pwxform(std::uint32_t X[16], Pwx& c) {
  const std::uint32_t* S0 = c.S + c.s0;
  const std::uint32_t* S1 = c.S + c.s1;
  std::uint32_t* S2 = c.S + c.s2;
  std::uint32_t w = c.w;
  for (int i = 0; i < kPwxRounds; ++i) {
    for (int j = 0; j < kPwxGather; ++j) {
      std::uint32_t* x = X + 4 * j;
      const std::uint32_t* p0 = S0 + (x[0] & kSMask) / 4;
      const std::uint32_t* p1 = S1 + (x[1] & kSMask) / 4;
      for (int k = 0; k < 2; ++k) {
        std::uint64_t v = std::uint64_t(x[2 * k + 1]) * x[2 * k];
        v += word64(p0 + 2 * k);
        v ^= word64(p1 + 2 * k);
        x[2 * k] = std::uint32_t(v);
        x[2 * k + 1] = std::uint32_t(v >> 32);
        if (i != 0 && i != kPwxRounds - 1) {
          S2[2 * w] = std::uint32_t(v);
          S2[2 * w + 1] = std::uint32_t(v >> 32);
          ++w;
        }
      }
    }
  }
  const std::uint32_t s0 = c.s0;
  c.s0 = c.s2;
  c.s2 = c.s1;
  c.s1 = s0;
  c.w = w & kSWriteMask;
}

// yescrypt's BlockMix_pwxform of 2r sub-blocks: pwxform chained through the 64-byte blocks, then
// Salsa20/2 on the last.
WK_HD void blockmix_pwxform(std::uint32_t* B, Pwx& c, std::uint32_t r) {
  const std::uint32_t blocks = 2 * r;  // 128r / 64
  std::uint32_t X[16];
  for (int k = 0; k < 16; ++k) X[k] = B[(blocks - 1) * 16 + k];
  for (std::uint32_t i = 0; i < blocks; ++i) {
    if (blocks > 1)
      for (int k = 0; k < 16; ++k) X[k] ^= B[i * 16 + k];
    pwxform(X, c);
    for (int k = 0; k < 16; ++k) B[i * 16 + k] = X[k];
  }
  salsa20(B + (blocks - 1) * 16, 2);
}

// Integerify: the first 64 bits of the last sub-block (words 0 and 13 in shuffled order).
WK_HD std::uint64_t integerify(const std::uint32_t* X, std::uint32_t r) {
  const std::uint32_t* last = X + (2 * r - 1) * 16;
  return (std::uint64_t(last[13]) << 32) | last[0];
}

WK_HD std::uint64_t p2floor(std::uint64_t x) {
  while (x & (x - 1)) x &= x - 1;
  return x;
}

// x wrapped into 0 .. i - 1 the way yescrypt does: its low bits below i's top power of two,
// moved to the top of the range.
WK_HD std::uint64_t wrap(std::uint64_t x, std::uint64_t i) {
  const std::uint64_t n = p2floor(i);
  return (x & (n - 1)) + (i - n);
}

WK_HD void blockmix(std::uint32_t* X, std::uint32_t* Y, Pwx* c, std::uint32_t r) {
  if (c) blockmix_pwxform(X, *c, r);
  else blockmix_salsa8(X, Y, r);
}

// B (128r bytes, little-endian words in natural order) to X in shuffled order, and back.
WK_HD void to_shuffled(const std::uint32_t* B, std::uint32_t* X, std::uint32_t r) {
  for (std::uint32_t k = 0; k < 2 * r; ++k)
    for (int i = 0; i < 16; ++i) X[k * 16 + i] = B[k * 16 + i * 5 % 16];
}
WK_HD void from_shuffled(const std::uint32_t* X, std::uint32_t* B, std::uint32_t r) {
  for (std::uint32_t k = 0; k < 2 * r; ++k)
    for (int i = 0; i < 16; ++i) B[k * 16 + i * 5 % 16] = X[k * 16 + i];
}

// SMix1: V_0 .. V_{N-1} written, X mixed with earlier blocks in RW mode.
WK_HD void smix1(std::uint32_t* B, std::uint32_t r, std::uint64_t N, std::uint32_t flags, std::uint32_t* V,
                 std::uint32_t* XY, Pwx* c) {
  const std::size_t s = 32 * std::size_t(r);
  std::uint32_t* X = XY;
  std::uint32_t* Y = XY + s;
  to_shuffled(B, X, r);
  for (std::uint64_t i = 0; i < N; ++i) {
    std::uint32_t* Vi = V + i * s;
    for (std::size_t k = 0; k < s; ++k) Vi[k] = X[k];
    if ((flags & kRw) && i > 1) {
      const std::uint32_t* Vj = V + wrap(integerify(X, r), i) * s;
      for (std::size_t k = 0; k < s; ++k) X[k] ^= Vj[k];
    }
    blockmix(X, Y, c, r);
  }
  from_shuffled(X, B, r);
}

// SMix2: `loops` steps reading (and in RW mode rewriting) random blocks of V_0 .. V_{N-1}.
WK_HD void smix2(std::uint32_t* B, std::uint32_t r, std::uint64_t N, std::uint64_t loops, std::uint32_t flags,
                 std::uint32_t* V, std::uint32_t* XY, Pwx* c) {
  const std::size_t s = 32 * std::size_t(r);
  std::uint32_t* X = XY;
  std::uint32_t* Y = XY + s;
  to_shuffled(B, X, r);
  for (std::uint64_t i = 0; i < loops; ++i) {
    std::uint32_t* Vj = V + (integerify(X, r) & (N - 1)) * s;
    for (std::size_t k = 0; k < s; ++k) X[k] ^= Vj[k];
    if (flags & kRw)
      for (std::size_t k = 0; k < s; ++k) Vj[k] = X[k];
    blockmix(X, Y, c, r);
  }
  from_shuffled(X, B, r);
}

// SMix2's step counts: all of them, and those of the first (read-write) loop.
struct Loops {
  std::uint64_t all, rw;
};
WK_HD Loops smix_loops(std::uint64_t n_chunk, std::uint32_t p, std::uint32_t t, std::uint32_t flags) {
  std::uint64_t all = n_chunk;
  if (flags & kRw) {
    if (t <= 1) {
      if (t) all *= 2;
      all = (all + 2) / 3;
    } else {
      all *= t - 1;
    }
  } else if (t) {
    if (t == 1) all += (all + 1) / 2;
    all *= t;
  }
  std::uint64_t rw = (flags & kRw) ? all / p : 0;
  all = (all + 1) & ~std::uint64_t(1);
  rw = (rw + 1) & ~std::uint64_t(1);
  return {all, rw};
}

// The caller's memory for one KDF: words of each part for the parameters (scratch_words).
struct Scratch {
  std::uint32_t* V;   // 32 * r * N
  std::uint32_t* B;   // 32 * r * p
  std::uint32_t* XY;  // 64 * r
  std::uint32_t* S;   // kSWords * p (RW only)
  Pwx* pwx;           // p of them (RW only)
};

// SMix over the p lanes of B; `pw` (32 bytes) is updated by the first lane's S-box set-up (RW).
WK_HD void smix(const Params& P, std::uint64_t N, std::uint32_t t, std::uint32_t flags, const Scratch& m,
                std::uint8_t pw[32]) {
  const std::uint32_t r = P.r, p = P.p;
  const std::size_t s = 32 * std::size_t(r);
  std::uint64_t n_chunk = N / p;
  const Loops loops = smix_loops(n_chunk, p, t, flags);
  n_chunk &= ~std::uint64_t(1);
  for (std::uint32_t i = 0; i < p; ++i) {
    const std::uint64_t v0 = n_chunk * i;
    const std::uint64_t n = i < p - 1 ? n_chunk : N - v0;
    std::uint32_t* Bi = m.B + i * s;
    Pwx* c = nullptr;
    if (flags & kRw) {
      c = &m.pwx[i];
      c->S = m.S + std::size_t(i) * kSWords;
      // The S-boxes: SMix1 with r = 1 of B_i over 96 blocks, no flags.
      smix1(Bi, 1, kSWords / 32, 0, c->S, m.XY, nullptr);
      c->s2 = 0;
      c->s1 = kSBoxWords;
      c->s0 = 2 * kSBoxWords;
      c->w = 0;
      if (i == 0) {
        std::uint8_t h[32];
        hmac_sha256(reinterpret_cast<const std::uint8_t*>(Bi + s - 16), 64, pw, 32, h);
        for (int k = 0; k < 32; ++k) pw[k] = h[k];
      }
    }
    smix1(Bi, r, n, flags, m.V + v0 * s, m.XY, c);
    smix2(Bi, r, p2floor(n), loops.rw, flags, m.V + v0 * s, m.XY, c);
  }
  for (std::uint32_t i = 0; i < p; ++i)
    smix2(m.B + i * s, r, N, loops.all - loops.rw, flags & ~kRw, m.V, m.XY, (flags & kRw) ? &m.pwx[i] : nullptr);
}

// yescrypt_kdf_body with a 32-byte output: the parameters are checked by the caller.
WK_HD void kdf_body(const std::uint8_t* passwd, std::size_t passwd_len, const std::uint8_t* salt, std::size_t salt_len,
                    const Params& P, std::uint64_t N, std::uint32_t t, std::uint32_t flags, const Scratch& m,
                    std::uint8_t out[32]) {
  const std::size_t b_bytes = 128 * std::size_t(P.r) * P.p;
  auto* B = reinterpret_cast<std::uint8_t*>(m.B);
  std::uint8_t pw[32];
  if (flags) {
    const char* key = "yescrypt-prehash";
    hmac_sha256(reinterpret_cast<const std::uint8_t*>(key), (flags & kPrehash) ? 16 : 8, passwd, passwd_len, pw);
    passwd = pw;
    passwd_len = 32;
  }
  pbkdf2_sha256(passwd, passwd_len, salt, salt_len, B, b_bytes);
  if (flags) {
    // the password of the last PBKDF2: the first 32 bytes of B (RW: as the S-box set-up changes them)
    for (int k = 0; k < 32; ++k) pw[k] = B[k];
    passwd = pw;
  }
  if (flags & kRw) {
    smix(P, N, t, flags, m, pw);
  } else {
    // classic scrypt and WORM: SMix of each lane on its own
    Params one = P;
    one.p = 1;
    for (std::uint32_t i = 0; i < P.p; ++i) {
      Scratch lane = m;
      lane.B = m.B + std::size_t(i) * 32 * P.r;
      smix(one, N, t, flags, lane, pw);
    }
  }
  pbkdf2_sha256(passwd, passwd_len, B, b_bytes, out, 32);
  if (flags && !(flags & kPrehash)) {
    // SCRAM's ClientKey and StoredKey
    std::uint8_t client[32];
    const char* label = "Client Key";
    hmac_sha256(out, 32, reinterpret_cast<const std::uint8_t*>(label), 10, client);
    sha256::Context c;
    c.reset();
    c.update(client, 32);
    c.final(out);
    for (int k = 0; k < 32; ++k) client[k] = 0;
  }
  for (int k = 0; k < 32; ++k) pw[k] = 0;
}

// Whether yescrypt_kdf first derives the password through a KDF of N / 64 (large N in RW mode).
WK_HD bool needs_prehash(const Params& P) {
  return (P.flags & kRw) && P.N / P.p >= 0x100 && P.N / P.p * P.r >= 0x20000;
}

// yescrypt_kdf (no ROM, no hash upgrades) with a 32-byte output.
WK_HD void kdf(const std::uint8_t* passwd, std::size_t passwd_len, const std::uint8_t* salt, std::size_t salt_len,
               const Params& P, const Scratch& m, std::uint8_t out[32]) {
  std::uint8_t dk[32];
  if (needs_prehash(P)) {
    kdf_body(passwd, passwd_len, salt, salt_len, P, P.N >> 6, 0, P.flags | kPrehash, m, dk);
    passwd = dk;
    passwd_len = 32;
  }
  kdf_body(passwd, passwd_len, salt, salt_len, P, P.N, P.t, P.flags, m, out);
  for (int k = 0; k < 32; ++k) dk[k] = 0;
}

// Words of each Scratch part.
struct ScratchWords {
  std::size_t V, B, XY, S;
};
WK_HD ScratchWords scratch_words(const Params& P) {
  return {32 * std::size_t(P.r) * P.N, 32 * std::size_t(P.r) * P.p, 64 * std::size_t(P.r),
          (P.flags & kRw) ? std::size_t(kSWords) * P.p : 0};
}

// ---- crypt(3) text ------------------------------------------------------------------------------

inline constexpr int kHashChars = 43;  // 32 bytes in yescrypt's base-64

// yescrypt's encode64: groups of up to 3 bytes as little-endian numbers, 6 bits per character,
// least significant first; a last group of 1 or 2 bytes takes 2 or 3 characters.
WK_HD int encode64(char* out, const std::uint8_t* src, int n) {
  int o = 0;
  for (int i = 0; i < n;) {
    std::uint32_t v = 0;
    int bits = 0;
    do {
      v |= std::uint32_t(src[i++]) << bits;
      bits += 8;
    } while (bits < 24 && i < n);
    for (int b = 0; b < bits; b += 6) {
      out[o++] = crypt_b64_char(v);
      v >>= 6;
    }
  }
  return o;
}

}  // namespace wk::hash::hd::yescrypt
