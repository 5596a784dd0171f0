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
// `wk-hash audit`. Empty lines are ignored; an empty hash or one starting with '*' or '!'
// (no password, disabled, locked) is counted in `skipped`; lines without "user:" are errors.
struct ShadowList {
  std::vector<AuditAccount> accounts;
  std::vector<std::size_t> account_line;                    // 1-based line of each account
  std::vector<std::pair<std::size_t, std::string>> errors;  // 1-based line, what is wrong
  std::size_t skipped = 0;
};
ShadowList parse_shadow(std::span<const std::string_view> lines);

// progress(done, total) counts word-hash pairs. Words must be valid passwords (check_password).
AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, std::span<const std::string_view> words,
                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace wk::hash
