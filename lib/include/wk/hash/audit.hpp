#pragma once
// Password-policy audit: which accounts have a password from a word list. Every word is tried
// against every hash with that hash's own setting (salt, rounds, cost).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wk/hash/crypt.hpp"

namespace wk::hash {

struct AuditAccount {
  std::string user;
  std::string hash;  // a crypt string
};

struct AuditMatch {
  std::size_t account;  // index into the accounts
  std::size_t word;     // index into the words (the first word that matched)
};

struct AuditResult {
  std::vector<AuditMatch> matches;  // in account order, at most one per account
  // Accounts whose hash the engine rejected (setting not accepted): index and reason.
  std::vector<std::pair<std::size_t, std::string>> rejected;
};

// A shadow-style hash list (user:hash[:more fields], one account per line) as read by
// `wk-hash audit`. Empty lines are ignored. As in shadow(5), an empty hash field means that no
// password is needed to log in: such accounts are findings of their own (`no_password`), the
// weakest of all. A hash starting with '*' or '!' (disabled or locked) is counted in `skipped`;
// lines without "user:" and lines longer than kMaxLineBytes are errors (never quoted).
struct ShadowList {
  std::vector<AuditAccount> accounts;                       // with a hash to try the words on
  std::vector<std::size_t> account_line;                    // 1-based line of each account
  std::vector<std::string> no_password;                     // users with an empty password field
  std::vector<std::size_t> no_password_line;                // 1-based line of each
  std::vector<std::pair<std::size_t, std::string>> errors;  // 1-based line, what is wrong
  std::size_t skipped = 0;
};
ShadowList parse_shadow(std::span<const std::string_view> lines);

// progress(done, total) counts word-hash pairs. Words must be valid passwords (check_password).
AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, std::span<const std::string_view> words,
                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace wk::hash
