#pragma once
// Password-policy audit: which accounts have a password from a word list. Every word is tried
// against every hash with that hash's own setting (salt, rounds, cost).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
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

// progress(done, total) counts word-hash pairs. Words must be valid passwords (check_password).
AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, std::span<const std::string_view> words,
                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace wk::hash
