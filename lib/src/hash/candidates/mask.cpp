// Masks: one charset per position, enumerated as a mixed-radix number whose last digit (the last
// position) changes fastest, so candidate k is computed directly from k.
#include "wk/hash/candidates.hpp"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "wk/core/error.hpp"

namespace wk::hash {
namespace {

// hashcat's built-in charsets, in its order (?a is ?l ?u ?d ?s).
constexpr std::string_view kLower = "abcdefghijklmnopqrstuvwxyz";
constexpr std::string_view kUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
constexpr std::string_view kDigits = "0123456789";
constexpr std::string_view kSpecials = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";  // the 33 printable non-alphanumerics

std::string all_bytes() {
  std::string s(256, '\0');
  for (int b = 0; b < 256; ++b) s[b] = static_cast<char>(b);
  return s;
}

// The charset a built-in placeholder letter stands for; empty for a letter that is none.
std::string builtin_charset(char letter) {
  switch (letter) {
    case 'l': return std::string(kLower);
    case 'u': return std::string(kUpper);
    case 'd': return std::string(kDigits);
    case 's': return std::string(kSpecials);
    case 'a': return std::string(kLower) + std::string(kUpper) + std::string(kDigits) + std::string(kSpecials);
    case 'h': return std::string(kDigits) + "abcdef";
    case 'H': return std::string(kDigits) + "ABCDEF";
    case 'b': return all_bytes();
    case '?': return "?";
    default: return {};
  }
}

// The product of the charset sizes, saturating at UINT64_MAX.
std::uint64_t product_of_sizes(const std::vector<std::string>& sets) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t product = 1;
  for (const std::string& set : sets) product = product > kMax / set.size() ? kMax : product * set.size();
  return product;
}

[[noreturn]] void malformed(std::string_view where, std::size_t column, const std::string& why) {
  throw Error(ErrorCategory::usage, std::string(where) + ", column " + std::to_string(column + 1) + ": " + why +
                                        " (placeholders: ?l ?u ?d ?s ?a ?h ?H ?b ?1-?4 ?\?)");
}

// A custom charset's text expanded: placeholders replaced by their charsets, each byte kept once
// (at its first place) so that a charset like "?l?la" makes no candidate twice.
std::string expand_custom(std::string_view text, int number) {
  const std::string where = "custom charset " + std::to_string(number);
  bool seen[256] = {};
  std::string set;
  const auto add = [&](std::string_view bytes) {
    for (const char c : bytes) {
      auto& s = seen[static_cast<unsigned char>(c)];
      if (!s) set.push_back(c);
      s = true;
    }
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '?') {
      add(text.substr(i, 1));
      continue;
    }
    if (i + 1 == text.size()) malformed(where, i, "'?' at the end needs a placeholder letter after it");
    const std::string builtin = builtin_charset(text[++i]);
    if (builtin.empty()) malformed(where, i - 1, std::string("'?") + text[i] + "' is not a placeholder here");
    add(builtin);
  }
  return set;
}

}  // namespace

Mask Mask::parse(std::string_view mask, const std::array<std::string, 4>& custom) {
  if (mask.empty()) throw Error(ErrorCategory::usage, "mask: empty");
  Mask m;
  std::array<std::optional<std::string>, 4> customs;  // expanded when first used
  for (std::size_t i = 0; i < mask.size(); ++i) {
    if (mask[i] != '?') {
      m.sets_.emplace_back(1, mask[i]);
      continue;
    }
    if (i + 1 == mask.size()) malformed("mask", i, "'?' at the end needs a placeholder letter after it");
    const char letter = mask[++i];
    if (letter >= '1' && letter <= '4') {
      const int k = letter - '1';
      if (custom[k].empty())
        malformed("mask", i - 1, std::string("'?") + letter + "' uses custom charset " + letter + ", which is not given");
      if (!customs[k]) customs[k] = expand_custom(custom[k], k + 1);
      m.sets_.push_back(*customs[k]);
      continue;
    }
    std::string set = builtin_charset(letter);
    if (set.empty()) malformed("mask", i - 1, std::string("'?") + letter + "' is not a placeholder");
    m.sets_.push_back(std::move(set));
  }
  if (m.sets_.size() > kMaxCandidateBytes)
    throw Error(ErrorCategory::usage, "mask: " + std::to_string(m.sets_.size()) + " positions, more than the " +
                                          std::to_string(kMaxCandidateBytes) + " bytes a candidate may have");
  m.size_ = product_of_sizes(m.sets_);
  return m;
}

Mask Mask::prefix(std::size_t len) const {
  if (len > sets_.size())
    throw Error(ErrorCategory::internal, "Mask::prefix: " + std::to_string(len) + " positions of " + std::to_string(sets_.size()));
  Mask p;
  p.sets_.assign(sets_.begin(), sets_.begin() + static_cast<std::ptrdiff_t>(len));
  p.size_ = product_of_sizes(p.sets_);
  return p;
}

bool Mask::makes_nul() const noexcept {
  for (const std::string& set : sets_)
    if (set.find('\0') != std::string::npos) return true;
  return false;
}

void Mask::candidate(std::uint64_t index, char* out) const {
  for (std::size_t pos = sets_.size(); pos-- > 0;) {
    const std::string& set = sets_[pos];
    out[pos] = set[index % set.size()];
    index /= set.size();
  }
}

}  // namespace wk::hash
