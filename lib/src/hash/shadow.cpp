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
    if (colon == 0) {
      out.errors.emplace_back(i + 1, "expected user:hash[:...] or a hash alone: the user name is empty");
      continue;
    }
    // A line with no ':' is a hash alone (crypt strings never hold a ':'), named by its line.
    const bool bare = colon == std::string_view::npos;
    const std::string user = bare ? "line " + std::to_string(i + 1) : std::string(l.substr(0, colon));
    std::string_view h = bare ? l : l.substr(colon + 1);
    h = h.substr(0, h.find(':'));
    // shadow(5): an empty field needs no password at all; '*' or '!' (disabled or locked) have no
    // hash to try.
    if (h.empty()) {
      out.no_password.push_back(user);
      out.no_password_line.push_back(i + 1);
      continue;
    }
    if (h[0] == '*' || h[0] == '!') {
      ++out.skipped;
      continue;
    }
    out.accounts.push_back({user, std::string(h)});
    out.account_line.push_back(i + 1);
  }
  return out;
}

}  // namespace wk::hash
