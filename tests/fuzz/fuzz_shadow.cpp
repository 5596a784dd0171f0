// wk-hash audit's hash list (user:hash[:...] or a hash alone) through split_lines and parse_shadow.
// Invariants: every line is an account, an account with no password, an error, skipped or empty,
// exactly once; accounts keep the user before the first ':' and the hash up to the next one, or
// for a line with no ':' the whole line as the hash and "line N" as the user; an account with no
// password has an empty second field.
#include <string>

#include "fuzz_util.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/secret_input.hpp"

using wk::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = wk::fuzz::as_text(data, size);
  const auto lines = wk::hash::split_lines(text);
  const wk::hash::ShadowList list = wk::hash::parse_shadow(lines);
  std::size_t empty = 0;
  for (auto l : lines) empty += l.empty();
  check(list.accounts.size() + list.no_password.size() + list.errors.size() + list.skipped + empty == lines.size(),
        "every line counted once");
  check(list.no_password_line.size() == list.no_password.size(), "one line number per account with no password");
  for (std::size_t i = 0; i < list.no_password.size(); ++i) {
    const std::size_t n = list.no_password_line[i];
    check(n >= 1 && n <= lines.size() && (i == 0 || n > list.no_password_line[i - 1]), "lines ascending and in range");
    const std::string& user = list.no_password[i];
    check(!user.empty() && user.find(':') == std::string::npos, "user is non-empty and has no ':'");
    const std::string_view l = lines[n - 1];
    check(l.substr(0, user.size() + 1) == user + ":" && (l.size() == user.size() + 1 || l[user.size() + 1] == ':'),
          "the password field is empty");
  }
  check(list.account_line.size() == list.accounts.size(), "one line number per account");
  std::size_t prev = 0;
  for (std::size_t i = 0; i < list.accounts.size(); ++i) {
    const std::size_t n = list.account_line[i];
    check(n > prev && n <= lines.size(), "account lines ascending and in range");
    prev = n;
    const std::string_view l = lines[n - 1];
    const auto& a = list.accounts[i];
    check(!a.hash.empty() && a.hash.find(':') == std::string::npos && a.hash[0] != '*' && a.hash[0] != '!',
          "hash is non-empty, has no ':' and is not a locked marker");
    if (l.find(':') == std::string_view::npos) {
      check(a.user == "line " + std::to_string(n) && a.hash == l, "a hash alone is the whole line, named by its number");
      continue;
    }
    check(!a.user.empty() && a.user.find(':') == std::string::npos, "user is non-empty and has no ':'");
    check(l.substr(0, a.user.size() + 1 + a.hash.size()) == a.user + ":" + a.hash, "account is the line's first two fields");
  }
  for (const auto& [line, why] : list.errors)
    check(line >= 1 && line <= lines.size() && !why.empty(), "errors name a line and a reason");
  return 0;
}
