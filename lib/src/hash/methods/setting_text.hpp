#pragma once
// Pieces of setting text the method modules share: a rejection, the salt as md5crypt and sha-crypt
// take it, and fresh salts in the crypt alphabet.
#include <cstddef>
#include <string>
#include <string_view>

#include "wk/hash/setting.hpp"

namespace wk::hash {

inline SettingParse setting_error(std::string message) { return {std::nullopt, std::move(message)}; }

// The salt characters md5crypt and sha-crypt use: those before the first '$' (or the end), at
// most `max` of them (libxcrypt truncates longer salts).
std::string salt_before_dollar(std::string_view rest, std::size_t max);

// `chars` characters of the crypt alphabet made of the random bytes at `random`, 6 bits each,
// least significant first: crypt_salt_bytes(chars) bytes are read.
void crypt_salt_text(char* out, const unsigned char* random, std::size_t chars);
constexpr std::size_t crypt_salt_bytes(std::size_t chars) { return (chars * 6 + 7) / 8; }

}  // namespace wk::hash
