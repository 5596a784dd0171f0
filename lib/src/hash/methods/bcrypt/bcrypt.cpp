// bcrypt ($2a$, $2b$, $2x$, $2y$) as libxcrypt's crypt_blowfish computes it: the setting (a
// two-digit cost 04..31, 22 salt characters of bcrypt's base-64), its host code, and its GPU part
// (device batch: bcrypt_batch.cpp, kernels: bcrypt.cu).
#include "bcrypt.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hash/gpu/method_batch.hpp"
#include "hash/hd/bcrypt.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "hash/methods/setting_text.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

namespace {

bool claims(std::string_view text) {
  return text.size() >= 4 && text[0] == '$' && text[1] == '2' && text[3] == '$' &&
         (text[2] == 'a' || text[2] == 'b' || text[2] == 'x' || text[2] == 'y');
}

SettingParse parse(std::string_view text) {
  Setting s;
  s.method = Method::bcrypt;
  s.bcrypt_variant = text[2];
  const std::string tag = "bcrypt";
  if (text.size() < 7 || text[4] < '0' || text[4] > '3' || text[5] < '0' || text[5] > '9' || text[6] != '$')
    return setting_error(tag + " setting: the cost must be two digits (04..31) followed by '$'");
  const unsigned cost = unsigned(text[4] - '0') * 10 + unsigned(text[5] - '0');
  if (cost < hd::kBcryptMinCost || cost > hd::kBcryptMaxCost) return setting_error(tag + " setting: the cost must be in 04..31");
  s.rounds = cost;
  const std::string_view salt = text.substr(7);
  if (salt.size() < 22 || !hd::bcrypt_b64_decode(s.bcrypt_salt.data(), salt.data(), 16))
    return setting_error(tag + " setting: the salt must be 22 characters of ./A-Za-z0-9");
  char canonical[23] = {};
  hd::bcrypt_b64_encode(canonical, s.bcrypt_salt.data(), 16);
  s.prefix = std::string(text.substr(0, 7)) + std::string(canonical, 22);
  return {std::move(s), {}};
}

constexpr unsigned kDefaultCost = 5;  // libxcrypt's

std::optional<HashOptionsProblem> check_options(const HashOptions& o) {
  const unsigned cost = o.cost.value_or(kDefaultCost);
  if (cost < unsigned(hd::kBcryptMinCost) || cost > unsigned(hd::kBcryptMaxCost))
    return HashOptionsProblem{HashOption::cost, "bcrypt cost must be in 4..31"};
  if (o.bcrypt_variant != 'a' && o.bcrypt_variant != 'b' && o.bcrypt_variant != 'y')
    return HashOptionsProblem{HashOption::bcrypt_variant, "bcrypt variant must be 2a, 2b or 2y"};
  return std::nullopt;
}

FreshShape fresh_shape(const HashOptions& o) {
  FreshShape s;
  const unsigned cost = o.cost.value_or(kDefaultCost);
  char text[8];
  std::snprintf(text, sizeof text, "$2%c$%02u$", o.bcrypt_variant, cost);
  s.head = text;
  s.salt_bytes = 16;  // 128 bits, as 22 characters of bcrypt's own base-64
  s.salt_chars = 22;
  s.rounds = cost;
  s.variant = o.bcrypt_variant;
  return s;
}

// 22 characters of bcrypt's base-64 made of 16 random bytes (the canonical form of the salt).
void salt_text(char* out, const unsigned char* random, std::size_t) {
  char chars[23];
  hd::bcrypt_b64_encode(chars, random, 16);
  std::memcpy(out, chars, 22);
}

void host_hash(const Setting& s, std::string_view password, std::string& out) {
  std::vector<std::uint32_t> sboxes(blowfish::kSWords);
  std::uint32_t salt_words[4], words[6];
  hd::bcrypt_salt_words(s.bcrypt_salt.data(), salt_words);
  hd::bcrypt_digest(reinterpret_cast<const std::uint8_t*>(password.data()), std::uint32_t(password.size()), salt_words,
                    s.rounds, hd::bcrypt_flags(s.bcrypt_variant), blowfish::LinearSBoxes{sboxes.data()}, words);
  std::uint8_t bytes[24];
  for (int i = 0; i < 24; ++i) bytes[i] = std::uint8_t(words[i >> 2] >> (24 - 8 * (i & 3)));
  char chars[32];
  hd::bcrypt_b64_encode(chars, bytes, 23);
  out.append(chars, hd::kBcryptHashChars);
  wipe(sboxes.data(), sboxes.size() * 4);
  wipe(bytes, sizeof bytes);
}

// The rungs (crypt_gpu.hpp describes them); packed is the fastest measured.
constexpr std::array<gpu::VariantInfo, 5> kVariants{{
    {gpu::Variant::reference, "reference", "S-boxes in thread-private local memory"},
    {gpu::Variant::bcrypt_shared, "shared", "S-boxes in shared memory, 8 threads/block, conflict-free"},
    {gpu::Variant::bcrypt_shared16, "shared16", "S-boxes in shared memory, 16 threads/block, conflict-free"},
    {gpu::Variant::bcrypt_shared_bytes, "shared_bytes", "shared, lookups as byte offsets from a per-thread base"},
    {gpu::Variant::bcrypt_packed, "packed", "byte offsets, 14 threads/block: 56 passwords' S-boxes per SM"},
}};

constexpr gpu::GpuMethod kGpu{kVariants, gpu::Variant::bcrypt_packed, std::size_t(1) << 16, gpu::make_bcrypt_batch};

// Computed with libxcrypt 4.4.33's crypt_rn: a plain $2b$ and $2a$'s quirk on 8-bit bytes.
constexpr std::array<KnownAnswer, 2> kSelfTest{{
    {"$2b$05$CCCCCCCCCCCCCCCCCCCCC.", "warpkit self-check", "$2b$05$CCCCCCCCCCCCCCCCCCCCC.kA9vTbEhXSYbRLhJozzYH1Yc6BQV/B."},
    {"$2a$04$abcdefghijklmnopqrstuu", "\xff\xff\xa3 8-bit", "$2a$04$abcdefghijklmnopqrstuuNWJJxgBBs98/h3idVB.51wdkHgzu.HW"},
}};

}  // namespace

constinit const MethodModule bcrypt_module{
    .id = Method::bcrypt,
    .name = "bcrypt",
    .prefix = "$2b$",
    .formats = "$2b$, $2a$, $2y$, and $2x$ for verifying old hashes",
    .takes_rounds = false,
    .takes_cost = true,
    .takes_variant = true,
    .claims = claims,
    .parse = parse,
    .check_options = check_options,
    .fresh_shape = fresh_shape,
    .salt_text = salt_text,
    .hash_chars = hd::kBcryptHashChars,
    .dollar_before_hash = false,
    .host_hash = host_hash,
    .gpu = &kGpu,
    .self_test = kSelfTest,
};

}  // namespace wk::hash
