// crypt(3) settings: libxcrypt 4.4's acceptance rules for $1$, $5$, $6$ and $2[abxy]$, checked
// against crypt_rn itself by tests/hash/test_setting.cpp (random settings, every boundary).
#include "wk/hash/setting.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "wk/core/error.hpp"
#include "hash/hd/bcrypt.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/hd/shacrypt.hpp"

namespace wk::hash {

const char* method_name(Method m) noexcept {
  switch (m) {
    case Method::md5crypt: return "md5crypt";
    case Method::sha256crypt: return "sha256crypt";
    case Method::sha512crypt: return "sha512crypt";
    case Method::bcrypt: return "bcrypt";
    case Method::other: return "other";
  }
  return "?";
}

std::optional<Method> parse_method_name(std::string_view name) {
  for (Method m : {Method::md5crypt, Method::sha256crypt, Method::sha512crypt, Method::bcrypt})
    if (name == method_name(m)) return m;
  return std::nullopt;
}

namespace {

// libxcrypt refuses these in any setting (crypt.c, check_badsalt_chars): control characters,
// space, DEL, non-ASCII bytes, and * : ; \ ! (which mark locked or disabled passwords).
bool bad_setting_char(unsigned char c) {
  return c <= 0x20 || c >= 0x7f || c == '*' || c == ':' || c == ';' || c == '\\' || c == '!';
}

SettingParse fail(std::string message) { return {std::nullopt, std::move(message)}; }

SettingParse parse_md5(std::string_view rest) {
  Setting s;
  s.method = Method::md5crypt;
  s.rounds = hd::kMd5Rounds;
  const std::size_t end = rest.find('$');
  s.salt = std::string(rest.substr(0, std::min<std::size_t>(end, hd::kMaxMd5SaltBytes)));
  s.prefix = "$1$" + s.salt + "$";
  return {std::move(s), {}};
}

SettingParse parse_sha(Method method, std::string_view rest) {
  Setting s;
  s.method = method;
  s.rounds = hd::kShaDefaultRounds;
  const char* tag = method == Method::sha256crypt ? "$5$" : "$6$";
  const std::string what = std::string(method_name(method)) + " setting: ";
  constexpr std::string_view kRounds = "rounds=";
  if (rest.substr(0, kRounds.size()) == kRounds) {
    const std::string_view num = rest.substr(kRounds.size());
    // libxcrypt 4.4 rejects (rather than clamps) zero, leading zeros, non-digits and counts outside
    // 1000..999999999, and needs the '$' that ends the count.
    std::size_t digits = 0;
    while (digits < num.size() && num[digits] >= '0' && num[digits] <= '9') ++digits;
    if (digits == 0 || num[0] == '0' || digits >= num.size() || num[digits] != '$')
      return fail(what + "rounds=N must be a number without leading zeros followed by '$'");
    if (digits > 9) return fail(what + "rounds must be in 1000..999999999");
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < digits; ++i) value = value * 10 + std::uint32_t(num[i] - '0');
    if (value < hd::kShaMinRounds || value > hd::kShaMaxRounds)
      return fail(what + "rounds must be in 1000..999999999");
    s.rounds = value;
    s.rounds_custom = true;
    rest = num.substr(digits + 1);
  }
  const std::size_t end = rest.find('$');
  s.salt = std::string(rest.substr(0, std::min<std::size_t>(end, hd::kMaxShaSaltBytes)));
  s.prefix = tag;
  if (s.rounds_custom) s.prefix += "rounds=" + std::to_string(s.rounds) + "$";
  s.prefix += s.salt + "$";
  return {std::move(s), {}};
}

SettingParse parse_bcrypt(std::string_view text) {
  Setting s;
  s.method = Method::bcrypt;
  s.bcrypt_variant = text[2];
  const std::string tag = "bcrypt";
  if (text.size() < 7 || text[4] < '0' || text[4] > '3' || text[5] < '0' || text[5] > '9' || text[6] != '$')
    return fail(tag + " setting: the cost must be two digits (04..31) followed by '$'");
  const unsigned cost = unsigned(text[4] - '0') * 10 + unsigned(text[5] - '0');
  if (cost < hd::kBcryptMinCost || cost > hd::kBcryptMaxCost)
    return fail(tag + " setting: the cost must be in 04..31");
  s.rounds = cost;
  const std::string_view salt = text.substr(7);
  if (salt.size() < 22 || !hd::bcrypt_b64_decode(s.bcrypt_salt.data(), salt.data(), 16))
    return fail(tag + " setting: the salt must be 22 characters of ./A-Za-z0-9");
  char canonical[23] = {};
  hd::bcrypt_b64_encode(canonical, s.bcrypt_salt.data(), 16);
  s.prefix = std::string(text.substr(0, 7)) + std::string(canonical, 22);
  return {std::move(s), {}};
}

}  // namespace

SettingParse parse_setting(std::string_view text) {
  // Messages name positions and methods, never the setting's bytes: with the columns swapped, the
  // "setting" is a password.
  for (std::size_t i = 0; i < text.size(); ++i)
    if (bad_setting_char(static_cast<unsigned char>(text[i])))
      return fail("the setting has a byte crypt(3) never accepts in a setting, at position " + std::to_string(i + 1));
  if (text.empty()) return fail("the setting is empty");
  if (text.substr(0, 3) == "$1$") return parse_md5(text.substr(3));
  if (text.substr(0, 3) == "$5$") return parse_sha(Method::sha256crypt, text.substr(3));
  if (text.substr(0, 3) == "$6$") return parse_sha(Method::sha512crypt, text.substr(3));
  if (text.size() >= 4 && text[0] == '$' && text[1] == '2' && text[3] == '$' &&
      (text[2] == 'a' || text[2] == 'b' || text[2] == 'x' || text[2] == 'y'))
    return parse_bcrypt(text);
  Setting s;
  s.method = Method::other;
  return {std::move(s), {}};
}

std::string check_password(std::string_view password) {
  if (password.size() > std::size_t(hd::kMaxPasswordBytes))
    return "the password is " + std::to_string(password.size()) + " bytes; crypt(3) takes at most 511";
  if (password.find('\0') != std::string_view::npos) return "the password contains a NUL byte, which crypt(3) cannot take";
  return {};
}

void check_hash_options(const HashOptions& o) {
  const bool sha = o.method == Method::sha256crypt || o.method == Method::sha512crypt;
  if (o.method == Method::other) throw Error(ErrorCategory::usage, "hash: choose md5crypt, sha256crypt, sha512crypt or bcrypt");
  if (o.rounds && !sha) throw Error(ErrorCategory::usage, "--rounds applies to sha256crypt and sha512crypt only");
  if (o.rounds && (*o.rounds < hd::kShaMinRounds || *o.rounds > hd::kShaMaxRounds))
    throw Error(ErrorCategory::usage, "--rounds must be in 1000..999999999 (libxcrypt rejects other counts)");
  if (o.method == Method::bcrypt && (o.cost < unsigned(hd::kBcryptMinCost) || o.cost > unsigned(hd::kBcryptMaxCost)))
    throw Error(ErrorCategory::usage, "--cost must be in 4..31");
  if (o.method == Method::bcrypt && o.bcrypt_variant != 'a' && o.bcrypt_variant != 'b' && o.bcrypt_variant != 'y')
    throw Error(ErrorCategory::usage, "bcrypt variant must be 2a, 2b or 2y");
}

namespace {
void random_bytes(unsigned char* out, std::size_t n) {
  constexpr std::size_t kMaxCall = 1 << 16;  // RAND_bytes takes an int count
  for (std::size_t at = 0; at < n; at += kMaxCall)
    if (RAND_bytes(out + at, int(std::min(kMaxCall, n - at))) != 1)
      throw Error(ErrorCategory::internal, "OpenSSL RAND_bytes failed: no salt could be drawn");
}
// The crypt alphabet as a table: crypt_b64_char's chain of comparisons costs a few branch
// mispredictions per character on random input (~20 ns of the ~21 ns per md5crypt setting).
const auto kCryptAlphabet = [] {
  std::array<char, 64> t{};
  for (unsigned v = 0; v < 64; ++v) t[v] = hd::crypt_b64_char(v);
  return t;
}();
// n characters of the crypt alphabet made of the random bytes at `bytes` (6 bits each, least
// significant first; (6n + 7) / 8 bytes are read): 8 characters per 6 bytes, then the rest.
void salt_text(char* out, const unsigned char* bytes, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8, bytes += 6) {
    std::uint64_t v = 0;
    for (int k = 0; k < 6; ++k) v |= std::uint64_t(bytes[k]) << (8 * k);
    for (int k = 0; k < 8; ++k) out[i + k] = kCryptAlphabet[(v >> (6 * k)) & 63];
  }
  std::uint32_t acc = 0;
  int have = 0;
  for (; i < n; ++i) {
    if (have < 6) {
      acc |= std::uint32_t(*bytes++) << have;
      have += 8;
    }
    out[i] = kCryptAlphabet[acc & 63];
    acc >>= 6;
    have -= 6;
  }
}
}  // namespace

namespace {
// The fixed text before the salt, the salt's characters and the random bytes behind them.
struct SettingShape {
  std::string head;
  std::size_t salt_chars = 0, salt_bytes = 0;
};
SettingShape setting_shape(const HashOptions& o) {
  check_hash_options(o);
  SettingShape s;
  switch (o.method) {
    case Method::md5crypt:
      s.head = "$1$";
      s.salt_chars = hd::kMaxMd5SaltBytes;
      break;
    case Method::sha256crypt:
    case Method::sha512crypt:
      s.head = o.method == Method::sha256crypt ? "$5$" : "$6$";
      if (o.rounds) s.head += "rounds=" + std::to_string(*o.rounds) + "$";
      s.salt_chars = hd::kMaxShaSaltBytes;
      break;
    case Method::bcrypt: {
      char text[8];
      std::snprintf(text, sizeof text, "$2%c$%02u$", o.bcrypt_variant, o.cost);
      s.head = text;
      s.salt_bytes = 16;  // 128 bits, as 22 characters of bcrypt's own base-64
      s.salt_chars = 22;
      break;
    }
    case Method::other: throw Error(ErrorCategory::usage, "hash: unsupported method");
  }
  if (!s.salt_bytes) s.salt_bytes = (s.salt_chars * 6 + 7) / 8;  // 6 bits per crypt-alphabet character
  return s;
}
}  // namespace

std::size_t generated_setting_bytes(const HashOptions& o) {
  const SettingShape s = setting_shape(o);
  return s.head.size() + s.salt_chars;
}

std::size_t crypt_string_bytes(const HashOptions& o) {
  const std::size_t setting = generated_setting_bytes(o);
  switch (o.method) {
    case Method::md5crypt: return setting + 1 + hd::kMd5cryptHashChars;
    case Method::sha256crypt: return setting + 1 + hd::kSha256cryptHashChars;
    case Method::sha512crypt: return setting + 1 + hd::kSha512cryptHashChars;
    case Method::bcrypt: return setting + hd::kBcryptHashChars;  // no '$' between salt and hash
    default: break;
  }
  throw Error(ErrorCategory::usage, "hash: unsupported method");
}

void generate_settings_into(const HashOptions& o, std::size_t count, char* out) {
  const SettingShape shape = setting_shape(o);
  const std::size_t record = shape.head.size() + shape.salt_chars;
  // Salts in groups: one RAND_bytes call per 64 KiB of random bytes (a call per salt costs more
  // than the formatting), drawn into a small buffer that stays in the cache.
  constexpr std::size_t kGroupBytes = std::size_t(1) << 16;
  const std::size_t per_group = std::max<std::size_t>(1, kGroupBytes / shape.salt_bytes);
  std::vector<unsigned char> random(std::min(count, per_group) * shape.salt_bytes);
  for (std::size_t g = 0; g < count; g += per_group) {
    const std::size_t n = std::min(per_group, count - g);
    random_bytes(random.data(), n * shape.salt_bytes);
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned char* r = random.data() + i * shape.salt_bytes;
      char* s = out + (g + i) * record;
      std::memcpy(s, shape.head.data(), shape.head.size());
      if (o.method == Method::bcrypt) {
        char chars[23];
        hd::bcrypt_b64_encode(chars, r, 16);
        std::memcpy(s + shape.head.size(), chars, 22);
      } else {
        salt_text(s + shape.head.size(), r, int(shape.salt_chars));
      }
    }
  }
  OPENSSL_cleanse(random.data(), random.size());  // salts are public, but leave no RNG output behind
}

std::vector<std::string> generate_settings(const HashOptions& o, std::size_t count) {
  const std::size_t record = generated_setting_bytes(o);
  std::string text(record * count, '\0');
  generate_settings_into(o, count, text.data());
  std::vector<std::string> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i].assign(text, i * record, record);
  return out;
}

std::string generate_setting(const HashOptions& o) { return std::move(generate_settings(o, 1)[0]); }

}  // namespace wk::hash
