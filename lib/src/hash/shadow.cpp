// The hash list of `wk-hash audit` (shadow(5) style). CPU only and free of the engine, so it
// can be fuzzed on its own (tests/fuzz/fuzz_shadow.cpp).
#include "wk/hash/audit.hpp"
#include "wk/hash/secret_input.hpp"

namespace wk::hash {

ShadowList parse_shadow(std::span<const std::string_view> lines) {
  ShadowList out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    if (l.empty()) continue;
    if (std::string why = check_line(l); !why.empty()) {
      out.errors.emplace_back(i + 1, std::move(why));
      continue;
    }
    const std::size_t colon = l.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      out.errors.emplace_back(i + 1, "expected user:hash[:...]");
      continue;
    }
    std::string_view h = l.substr(colon + 1);
    h = h.substr(0, h.find(':'));
    // shadow(5): an empty field needs no password at all; '*' or '!' (disabled or locked) have no
    // hash to try.
    if (h.empty()) {
      out.no_password.emplace_back(l.substr(0, colon));
      out.no_password_line.push_back(i + 1);
      continue;
    }
    if (h[0] == '*' || h[0] == '!') {
      ++out.skipped;
      continue;
    }
    out.accounts.push_back({std::string(l.substr(0, colon)), std::string(h)});
    out.account_line.push_back(i + 1);
  }
  return out;
}

}  // namespace wk::hash
