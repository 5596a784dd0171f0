#pragma once
// Shared by the hash tests: random passwords and settings that reach every boundary, and the
// libxcrypt reference.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "wk/hash/crypt.hpp"

namespace wk::hash::test {

// The lengths the issue names, plus their neighbours: block and padding boundaries of MD5/SHA-256
// (55/56/63/64), SHA-512 (111/112/127/128), bcrypt's 72-byte key, libxcrypt's 511 maximum.
inline const std::vector<int> kBoundaryLengths = {0,  1,  2,  3,   4,   7,   8,   12,  15,  16,  17,  23,  24,
                                                  31, 32, 33, 47,  48,  55,  56,  57,  63,  64,  65,  71,  72,
                                                  73, 95, 96, 111, 112, 127, 128, 129, 200, 255, 256, 510, 511};

// Any bytes except NUL.
inline std::string random_password(std::mt19937& rng, int length, bool ascii_only = false) {
  std::string pw(length, 'x');
  std::uniform_int_distribution<int> any(1, 255), printable(0x20, 0x7e);
  for (char& c : pw) c = char(ascii_only ? printable(rng) : any(rng));
  return pw;
}

// A length: a boundary one a third of the time, else short (realistic) or anywhere up to 511.
inline int random_length(std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, 8);
  const int p = pick(rng);
  if (p <= 2) return kBoundaryLengths[std::uniform_int_distribution<std::size_t>(0, kBoundaryLengths.size() - 1)(rng)];
  if (p <= 6) return std::uniform_int_distribution<int>(0, 40)(rng);
  return std::uniform_int_distribution<int>(0, 511)(rng);
}

// Salt characters libxcrypt takes in md5crypt / sha-crypt salts: printable ASCII except the
// characters it never accepts in a setting and '$' (which ends the salt).
inline std::string random_salt(std::mt19937& rng, int length) {
  static const std::string alphabet = [] {
    std::string a;
    for (int c = 0x21; c < 0x7f; ++c)
      if (c != '$' && c != '*' && c != ':' && c != ';' && c != '\\' && c != '!') a.push_back(char(c));
    return a;
  }();
  std::string s(length, '.');
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (char& c : s) c = alphabet[pick(rng)];
  return s;
}

inline std::string random_bcrypt_salt(std::mt19937& rng) {
  static const std::string alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(22, '.');
  std::uniform_int_distribution<std::size_t> pick(0, 63);
  for (char& c : s) c = alphabet[pick(rng)];
  return s;
}

}  // namespace wk::hash::test
