#pragma once
// What the sha256crypt and sha512crypt modules share (U. Drepper's SHA-crypt, $5$ and $6$): the
// setting with its optional rounds=N, the round-count option, the shape of fresh settings, and
// the host hash.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hash/hd/shacrypt.hpp"
#include "method_module.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

// `text` starts with `tag` ("$5$" or "$6$"); libxcrypt 4.4's rules for rounds=N and the salt.
SettingParse parse_shacrypt(Method method, const char* name, const char* tag, std::string_view text);
// HashOptions::rounds in 1000..999999999.
std::optional<HashOptionsProblem> check_shacrypt_options(const HashOptions& options);
// tag, "rounds=N$" when rounds are given, then 16 salt characters.
FreshShape shacrypt_fresh_shape(const char* tag, const HashOptions& options);

// The host hash: the SHA-crypt digest with `Traits` over the setting's salt and rounds, encoded
// into kChars characters by `Encode`; the intermediates are wiped.
template <class Traits, int kChars, void (*Encode)(const std::uint8_t*, char*)>
void shacrypt_host_hash(const Setting& s, std::string_view password, std::string& out) {
  std::uint8_t c[Traits::kDigestBytes], p[hd::kMaxPasswordBytes];
  hd::shacrypt_digest<Traits>(reinterpret_cast<const std::uint8_t*>(password.data()), std::uint32_t(password.size()),
                              reinterpret_cast<const std::uint8_t*>(s.salt.data()), std::uint32_t(s.salt.size()), s.rounds, p,
                              c);
  char chars[kChars];
  Encode(c, chars);
  out.append(chars, sizeof chars);
  wipe(p, sizeof p);
  wipe(c, sizeof c);
}

}  // namespace wk::hash
