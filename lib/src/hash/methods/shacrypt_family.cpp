// What the sha256crypt and sha512crypt modules share (shacrypt_family.hpp).
#include "shacrypt_family.hpp"

#include <string>

#include "hash/hd/shacrypt.hpp"
#include "setting_text.hpp"

namespace wk::hash {

SettingParse parse_shacrypt(Method method, const char* name, const char* tag, std::string_view text) {
  std::string_view rest = text.substr(std::string_view(tag).size());
  Setting s;
  s.method = method;
  s.rounds = hd::kShaDefaultRounds;
  const std::string what = std::string(name) + " setting: ";
  constexpr std::string_view kRounds = "rounds=";
  if (rest.substr(0, kRounds.size()) == kRounds) {
    const std::string_view num = rest.substr(kRounds.size());
    // libxcrypt 4.4 rejects (rather than clamps) zero, leading zeros, non-digits and counts outside
    // 1000..999999999, and needs the '$' that ends the count.
    std::size_t digits = 0;
    while (digits < num.size() && num[digits] >= '0' && num[digits] <= '9') ++digits;
    if (digits == 0 || num[0] == '0' || digits >= num.size() || num[digits] != '$')
      return setting_error(what + "rounds=N must be a number without leading zeros followed by '$'");
    if (digits > 9) return setting_error(what + "rounds must be in 1000..999999999");
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < digits; ++i) value = value * 10 + std::uint32_t(num[i] - '0');
    if (value < hd::kShaMinRounds || value > hd::kShaMaxRounds) return setting_error(what + "rounds must be in 1000..999999999");
    s.rounds = value;
    s.rounds_custom = true;
    rest = num.substr(digits + 1);
  }
  s.salt = salt_before_dollar(rest, hd::kMaxShaSaltBytes);
  s.prefix = tag;
  if (s.rounds_custom) s.prefix += "rounds=" + std::to_string(s.rounds) + "$";
  s.prefix += s.salt + "$";
  return {std::move(s), {}};
}

std::optional<HashOptionsProblem> check_shacrypt_options(const HashOptions& o) {
  if (o.rounds && (*o.rounds < hd::kShaMinRounds || *o.rounds > hd::kShaMaxRounds))
    return HashOptionsProblem{HashOption::rounds, "rounds must be in 1000..999999999 (libxcrypt rejects other counts)"};
  return std::nullopt;
}

FreshShape shacrypt_fresh_shape(const char* tag, const HashOptions& o) {
  FreshShape s;
  s.head = tag;
  if (o.rounds) s.head += "rounds=" + std::to_string(*o.rounds) + "$";
  s.salt_chars = hd::kMaxShaSaltBytes;
  s.salt_bytes = crypt_salt_bytes(s.salt_chars);
  s.rounds = o.rounds.value_or(hd::kShaDefaultRounds);
  return s;
}

}  // namespace wk::hash
