// Settings of yescrypt ($y$) and scrypt ($7$) as libxcrypt reads them, and their host hash
// (yescrypt_text.hpp).
#include "yescrypt_text.hpp"

#include <array>
#include <cstring>
#include <vector>

#include "hash/hd/crypt_base64.hpp"
#include "hash/methods/setting_text.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash::yescrypt_text {

namespace hy = hd::yescrypt;

namespace {

// Index in the crypt alphabet "./0-9A-Za-z"; 64 for any other byte.
std::uint32_t atoi64(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if (c == '.') return 0;
  if (c == '/') return 1;
  if (c >= '0' && c <= '9') return 2 + (c - '0');
  if (c >= 'A' && c <= 'Z') return 12 + (c - 'A');
  if (c >= 'a' && c <= 'z') return 38 + (c - 'a');
  return 64;
}

// decode64_uint32: a first character whose range says how many follow (1 + 0..5), 32-bit
// arithmetic wrapping as in C. Consumes from `s`.
bool decode_uint(std::string_view& s, std::uint32_t min, std::uint32_t& out) {
  if (s.empty()) return false;
  std::uint32_t c = atoi64(s[0]);
  if (c > 63) return false;
  std::size_t at = 1;
  std::uint32_t start = 0, end = 47, chars = 1, bits = 0;
  out = min;
  while (c > end) {
    out += (end + 1 - start) << bits;
    start = end + 1;
    end = start + (62 - end) / 2;
    ++chars;
    bits += 6;
  }
  out += (c - start) << bits;
  while (--chars) {
    if (at >= s.size() || (c = atoi64(s[at++])) > 63) return false;
    bits -= 6;
    out += c << bits;
  }
  s.remove_prefix(at);
  return true;
}

// decode64_uint32_fixed: `chars` characters, 6 bits each, least significant first.
bool decode_fixed(std::string_view& s, int chars, std::uint32_t& out) {
  out = 0;
  for (int i = 0; i < chars; ++i) {
    if (std::size_t(i) >= s.size()) return false;
    const std::uint32_t c = atoi64(s[i]);
    if (c > 63) return false;
    out |= c << (6 * i);
  }
  s.remove_prefix(std::size_t(chars));
  return true;
}

// yescrypt's decode64 of a whole salt: groups of up to 4 characters, each giving the bytes its
// bits fill (a group of 1 character is malformed, the bits left over must be zero), at most 64
// bytes.
bool decode_salt(std::string_view text, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const std::size_t n = std::min<std::size_t>(4, text.size() - i);
    if (n == 1) return false;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t c = atoi64(text[i + k]);
      if (c > 63) return false;
      v |= c << (6 * k);
    }
    const std::size_t bytes = n * 6 / 8;
    for (std::size_t k = 0; k < bytes; ++k, v >>= 8) out.push_back(char(v & 0xff));
    if (v != 0 || out.size() > 64) return false;
  }
  return true;
}

// The checks of yescrypt_kdf (and its body) for a crypt string, plus warpkit's memory bound.
bool kdf_accepts(const YescryptParams& p) {
  const std::uint32_t mode = p.flags & hy::kModeMask;
  if (mode == 0 && (p.flags || p.t)) return false;
  if (mode == hy::kWorm && p.flags != hy::kWorm) return false;
  if (mode == hy::kRw && p.flags != hy::kDefaultFlavor) return false;
  if (mode == 3) return false;
  // N = 2 is valid for the reference; libxcrypt's optimized SMix refuses it
  if (p.n_log2 < 2 || p.n_log2 > 40 || p.r < 1 || p.p < 1) return false;
  if (std::uint64_t(p.r) * p.p >= (std::uint64_t(1) << 30)) return false;
  const std::uint64_t N = std::uint64_t(1) << p.n_log2;
  if (N * 128 * p.r > kMaxVBytes) return false;
  // the reference takes N / p >= 2; libxcrypt's optimized SMix refuses N / p below 4
  if ((p.flags & hy::kRw) && N / p.p < 4) return false;
  return true;
}

}  // namespace

bool read_setting(std::string_view text, Setting& s) {
  if (text.size() < 3 || text[0] != '$' || text[2] != '$' || (text[1] != 'y' && text[1] != '7')) return false;
  const bool scrypt = text[1] == '7';
  std::string_view rest = text.substr(3);
  YescryptParams p;
  if (scrypt) {
    if (rest.empty()) return false;
    p.n_log2 = atoi64(rest[0]);
    if (p.n_log2 < 1 || p.n_log2 > 63) return false;
    rest.remove_prefix(1);
    if (!decode_fixed(rest, 5, p.r) || !decode_fixed(rest, 5, p.p)) return false;
  } else {
    std::uint32_t flavor = 0, g = 0, nrom_log2 = 0;
    if (!decode_uint(rest, 0, flavor)) return false;
    if (flavor < hy::kRw) p.flags = flavor;
    else if (flavor <= hy::kRw + (hy::kRwFlavorMask >> 2)) p.flags = hy::kRw + ((flavor - hy::kRw) << 2);
    else return false;
    if (!decode_uint(rest, 1, p.n_log2) || p.n_log2 > 63 || !decode_uint(rest, 1, p.r)) return false;
    if (!rest.empty() && rest[0] != '$') {
      std::uint32_t have = 0;
      if (!decode_uint(rest, 1, have)) return false;
      if ((have & 1) && !decode_uint(rest, 2, p.p)) return false;
      if ((have & 2) && !decode_uint(rest, 1, p.t)) return false;
      if ((have & 4) && !decode_uint(rest, 1, g)) return false;
      if ((have & 8) && !decode_uint(rest, 1, nrom_log2)) return false;
      if (g || (have & 8)) return false;  // hash upgrades and ROMs: libxcrypt's crypt refuses them
    }
    if (rest.empty() || rest[0] != '$') return false;
    rest.remove_prefix(1);
  }
  if (!kdf_accepts(p)) return false;
  const std::size_t prefix_len = text.size() - rest.size();
  const std::size_t last = rest.rfind('$');
  const std::string_view salt = last == std::string_view::npos ? rest : rest.substr(0, last);
  if (text.size() > kMaxSettingChars) return false;
  for (char c : salt)
    if (atoi64(c) > 63) return false;
  if (scrypt) s.salt.assign(salt);
  else if (!decode_salt(salt, s.salt)) return false;
  s.method = scrypt ? Method::scrypt : Method::yescrypt;
  s.yescrypt = p;
  s.prefix.assign(text.substr(0, prefix_len + salt.size()));
  s.prefix += '$';
  return true;
}

hd::yescrypt::Params kdf_params(const YescryptParams& p) { return hy::make_params(p.flags, p.n_log2, p.r, p.p, p.t); }

void host_hash(const Setting& s, std::string_view password, std::string& out) {
  const hy::Params P = kdf_params(s.yescrypt);
  const hy::ScratchWords w = hy::scratch_words(P);
  std::vector<std::uint32_t> V(w.V), B(w.B), XY(w.XY), S(w.S);
  std::vector<hy::Pwx> pwx(P.p);
  const hy::Scratch m{V.data(), B.data(), XY.data(), S.data(), pwx.data()};
  std::uint8_t dk[32];
  hy::kdf(reinterpret_cast<const std::uint8_t*>(password.data()), password.size(),
          reinterpret_cast<const std::uint8_t*>(s.salt.data()), s.salt.size(), P, m, dk);
  char chars[hy::kHashChars];
  hy::encode64(chars, dk, 32);
  out.append(chars, sizeof chars);
  wipe(dk, sizeof dk);
  for (auto* v : {&V, &B, &XY, &S}) wipe(v->data(), v->size() * 4);
}

CostParams yescrypt_cost(unsigned cost) {
  return cost < 3 ? CostParams{cost + 9, 8} : CostParams{cost + 7, 32};
}

CostParams scrypt_cost(unsigned cost) { return {cost + 7, 32}; }

std::string encode_uint(std::uint32_t value, std::uint32_t min) {
  std::uint32_t v = value - min, start = 0, end = 47, chars = 1, bits = 0;
  for (;;) {
    const std::uint32_t count = (end + 1 - start) << bits;
    if (v < count) break;
    start = end + 1;
    end = start + (62 - end) / 2;
    v -= count;
    ++chars;
    bits += 6;
  }
  std::string out(1, hd::crypt_b64_char(start + (v >> bits)));
  while (--chars) {
    bits -= 6;
    out += hd::crypt_b64_char(v >> bits);
  }
  return out;
}

std::string scrypt_head(std::uint32_t n_log2, std::uint32_t r, std::uint32_t p) {
  std::string head = "$7$";
  head += hd::crypt_b64_char(n_log2);
  for (std::uint32_t v : {r, p})
    for (int k = 0; k < 5; ++k) head += hd::crypt_b64_char(v >> (6 * k));
  return head;
}

void salt16_text(char* out, const unsigned char* random, std::size_t chars) {
  // crypt_salt_text reads 17 bytes for 22 characters; a zero 17th byte leaves the last
  // character's top bits zero, as decode64 requires.
  unsigned char bytes[17] = {};
  std::memcpy(bytes, random, 16);
  crypt_salt_text(out, bytes, chars);
  wipe(bytes, sizeof bytes);
}

}  // namespace wk::hash::yescrypt_text
