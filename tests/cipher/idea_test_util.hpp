#pragma once
// What the IDEA tests share: the paper's known answer and deterministic random data.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "wk/cipher/idea.hpp"

namespace wk::test {

// The IDEA paper's vector (Lai and Massey): key 0001 0002 ... 0008.
inline const cipher::IdeaKey kPaperKey{0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8};
inline constexpr std::uint64_t kPaperPlain = 0x0000000100020003ull;
inline constexpr std::uint64_t kPaperCipher = 0x11FBED2B01986DE5ull;

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

inline cipher::IdeaKey random_key(std::uint32_t seed) {
  const auto b = random_bytes(16, seed);
  cipher::IdeaKey k{};
  std::copy(b.begin(), b.end(), k.begin());
  return k;
}

}  // namespace wk::test
