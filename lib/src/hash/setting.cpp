// crypt(3) settings: parsing through the method table (each module holds libxcrypt 4.4's
// acceptance rules for its format, checked against crypt_rn itself by tests/hash/test_setting.cpp:
// random settings, every boundary), the option checks, and fresh settings of any module.
#include "wk/hash/setting.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "hash/hd/shacrypt.hpp"
#include "hash/methods/method_module.hpp"
#include "wk/core/error.hpp"

namespace wk::hash {

const char* method_name(Method m) noexcept {
  if (const MethodModule* mod = find_module(m)) return mod->name;
  return m == Method::other ? "other" : "?";
}

std::optional<Method> parse_method_name(std::string_view name) {
  for (const MethodModule& mod : method_modules())
    if (name == mod.name) return mod.id;
  return std::nullopt;
}

namespace {

// libxcrypt refuses these in any setting (crypt.c, check_badsalt_chars): control characters,
// space, DEL, non-ASCII bytes, and * : ; \ ! (which mark locked or disabled passwords).
bool bad_setting_char(unsigned char c) {
  return c <= 0x20 || c >= 0x7f || c == '*' || c == ':' || c == ';' || c == '\\' || c == '!';
}

}  // namespace

SettingParse parse_setting(std::string_view text) {
  // Messages name positions and methods, never the setting's bytes: with the columns swapped, the
  // "setting" is a password.
  for (std::size_t i = 0; i < text.size(); ++i)
    if (bad_setting_char(static_cast<unsigned char>(text[i])))
      return {std::nullopt, "the setting has a byte crypt(3) never accepts in a setting, at position " + std::to_string(i + 1)};
  if (text.empty()) return {std::nullopt, "the setting is empty"};
  if (const MethodModule* mod = module_claiming(text)) return mod->parse(text);
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

std::optional<HashOptionsProblem> hash_options_problem(const HashOptions& o) {
  const MethodModule* mod = find_module(o.method);
  if (!mod) return HashOptionsProblem{HashOption::method, "hash: choose " + module_names(" or ")};
  if (o.rounds && !mod->takes_rounds)
    return HashOptionsProblem{HashOption::rounds,
                              "rounds apply to " +
                                  module_names(" and ", [](const MethodModule& m) { return m.takes_rounds; }) + " only"};
  return mod->check_options ? mod->check_options(o) : std::nullopt;
}

void check_hash_options(const HashOptions& o) {
  if (std::optional<HashOptionsProblem> p = hash_options_problem(o)) throw Error(ErrorCategory::usage, std::move(p->message));
}

namespace {
void random_bytes(unsigned char* out, std::size_t n) {
  constexpr std::size_t kMaxCall = 1 << 16;  // RAND_bytes takes an int count
  for (std::size_t at = 0; at < n; at += kMaxCall)
    if (RAND_bytes(out + at, int(std::min(kMaxCall, n - at))) != 1)
      throw Error(ErrorCategory::internal, "OpenSSL RAND_bytes failed: no salt could be drawn");
}

// The module of checked options and the shape of their fresh settings.
std::pair<const MethodModule*, FreshShape> fresh_shape(const HashOptions& o) {
  check_hash_options(o);
  const MethodModule* mod = find_module(o.method);
  return {mod, mod->fresh_shape(o)};
}
}  // namespace

std::size_t generated_setting_bytes(const HashOptions& o) {
  const FreshShape s = fresh_shape(o).second;
  return s.head.size() + s.salt_chars;
}

std::size_t crypt_string_bytes(const HashOptions& o) {
  const auto [mod, s] = fresh_shape(o);
  return s.head.size() + s.salt_chars + (mod->dollar_before_hash ? 1 : 0) + std::size_t(mod->hash_chars);
}

void generate_settings_into(const HashOptions& o, std::size_t count, char* out) {
  const auto [mod, shape] = fresh_shape(o);
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
      char* s = out + (g + i) * record;
      std::memcpy(s, shape.head.data(), shape.head.size());
      mod->salt_text(s + shape.head.size(), random.data() + i * shape.salt_bytes, shape.salt_chars);
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
