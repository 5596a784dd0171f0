#pragma once
// What the sha256crypt and sha512crypt modules share (U. Drepper's SHA-crypt, $5$ and $6$): the
// setting with its optional rounds=N, the round-count option, and the shape of fresh settings.
#include <optional>
#include <string_view>

#include "method_module.hpp"

namespace wk::hash {

// `text` starts with `tag` ("$5$" or "$6$"); libxcrypt 4.4's rules for rounds=N and the salt.
SettingParse parse_shacrypt(Method method, const char* name, const char* tag, std::string_view text);
// HashOptions::rounds in 1000..999999999.
std::optional<HashOptionsProblem> check_shacrypt_options(const HashOptions& options);
// tag, "rounds=N$" when rounds are given, then 16 salt characters.
FreshShape shacrypt_fresh_shape(const char* tag, const HashOptions& options);

}  // namespace wk::hash
