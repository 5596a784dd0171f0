// Pieces of setting text the method modules share (setting_text.hpp).
#include "setting_text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "hash/hd/crypt_base64.hpp"

namespace wk::hash {

std::string salt_before_dollar(std::string_view rest, std::size_t max) {
  const std::size_t end = rest.find('$');
  return std::string(rest.substr(0, std::min<std::size_t>(end, max)));
}

namespace {
// The crypt alphabet as a table: crypt_b64_char's chain of comparisons costs a few branch
// mispredictions per character on random input (~20 ns of the ~21 ns per md5crypt setting).
const auto kCryptAlphabet = [] {
  std::array<char, 64> t{};
  for (unsigned v = 0; v < 64; ++v) t[v] = hd::crypt_b64_char(v);
  return t;
}();
}  // namespace

void crypt_salt_text(char* out, const unsigned char* bytes, std::size_t chars) {
  // 8 characters per 6 bytes, then the rest.
  const int n = int(chars);
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

}  // namespace wk::hash
