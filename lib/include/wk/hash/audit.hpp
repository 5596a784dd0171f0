#pragma once
// Password-policy audit: which accounts have a password a candidate source makes. Every candidate
// is tried against every hash with that hash's own setting (salt, rounds, cost).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wk/hash/candidates.hpp"
#include "wk/hash/crypt.hpp"

namespace wk::hash {

struct AuditAccount {
  std::string user;  // a bare hash line's: "line N"
  std::string hash;  // a crypt string
};

struct AuditMatch {
  std::size_t account;     // index into the accounts
  std::uint64_t candidate;  // index into the candidates (the first that matched)
};

struct AuditResult {
  std::vector<AuditMatch> matches;  // in account order, at most one per account
  // Accounts whose hash the engine rejected (setting not accepted): index and reason.
  std::vector<std::pair<std::size_t, std::string>> rejected;
  // The first candidate not tried: the source's size when the audit ran to its end, less when
  // AuditOptions::slice_done stopped it (where a resumed audit begins).
  std::uint64_t next = 0;
  bool stopped = false;
};

// The hash list of `wk-hash audit`, one account per line, each line one of
//   user:hash[:more fields]   shadow(5) (and user:hash, as John the Ripper's input)
//   hash                      a bare hash (no ':'), its user named "line N" (its 1-based line)
// Empty lines are ignored. As in shadow(5), an empty hash field means that no password is needed
// to log in: such accounts are findings of their own (`no_password`), the weakest of all. A hash
// starting with '*' or '!' (disabled or locked) is counted in `skipped`; a line with an empty user
// (":hash") and lines longer than kMaxLineBytes are errors (never quoted). Whether a hash can be
// checked at all is hash_problems' question.
struct ShadowList {
  std::vector<AuditAccount> accounts;                       // with a hash to try the candidates on
  std::vector<std::size_t> account_line;                    // 1-based line of each account
  std::vector<std::string> no_password;                     // users with an empty password field
  std::vector<std::size_t> no_password_line;                // 1-based line of each
  std::vector<std::pair<std::size_t, std::string>> errors;  // 1-based line, what is wrong
  std::size_t skipped = 0;
};
ShadowList parse_shadow(std::span<const std::string_view> lines);

// Checkable hashes. A hash can match a password only when crypt(3), given the hash itself as the
// setting, writes a string of the hash's exact shape: warpkit decides by doing just that, with a
// fixed password (kProbePassword), and comparing the shape -- not the hash -- of what comes back:
//   - the same length;
//   - the same setting: up to the last '$' for a '$' method ($1$ $5$ $6$ $2b$ $y$ $7$ $gy$ $sha1$
//     $md5 $3$ ...), the first 9 bytes for bsdicrypt ('_'), the first 2 for descrypt;
//   - after it, only bytes of crypt's alphabet [./0-9A-Za-z].
// Anything else can never equal crypt(3)'s output whatever the password, and an audit that tried it
// would call the account safe: an NT hash (32 hex digits) is taken for a descrypt setting (salt
// "88" of 8846f7ee...) and never matches; $6$rounds=12$... comes back as $6$rounds=1000$....
// The probe costs one hash per account, on the engine's backend.
inline constexpr std::string_view kProbePassword = "warpkit-probe";
// Why `hash` cannot be checked ("" when it can) given `probe`, what crypt(3) made of hash as a
// setting and kProbePassword (empty when it rejected it, `rejected` then saying why). Names the
// method prefix ($6$, _, ...) at most, never more of the hash.
std::string hash_shape_problem(std::string_view hash, std::string_view probe, std::string_view rejected = {});
// The method prefix of a crypt string: "$6$", "$2b$", "$md5," / "$md5$", "_", or "" (descrypt or
// no method at all).
std::string_view method_prefix(std::string_view hash);
// hash_shape_problem of every account, the probes run on `engine` (all of them in one call).
std::vector<std::string> hash_problems(CryptEngine& engine, std::span<const AuditAccount> accounts);

struct AuditOptions {
  std::uint64_t begin = 0;  // the first candidate to try (a checkpoint's `next`)
  // Accounts not to try (found already: a pot file, a checkpoint, or not checkable); empty: none.
  std::vector<bool> skip;
  // Candidate-hash pairs per slice. 0: sized to take about `slice_seconds` each at the rate the
  // slices so far ran, from 1024 pairs up to 2^22 (enough to keep a GPU busy: md5crypt needs the
  // most, about 70 M/s).
  std::size_t slice_pairs = 0;
  double slice_seconds = 1.0;
  // (next candidate, source size) as slices finish, on the calling thread.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // Each match, as its slice ends (before slice_done), in account order.
  std::function<void(const AuditMatch&)> found;
  // After each slice with the first candidate not yet tried: false stops the audit there.
  std::function<bool(std::uint64_t)> slice_done;
};

// The candidates [options.begin, source.size()) in slices of consecutive indices, each slice every
// open account x its candidates; an account is closed by its first match. The slices never
// overlap, so a resumed audit (begin = a checkpoint's next) tries no candidate twice, and the
// first match of an account is the same whatever the slicing. Two slices are in the engine while a
// third is compared; when slice_done says stop, those two finish and are settled too (slice_done
// hears of each). Candidates are wiped after each slice.
AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, const CandidateSource& source,
                  const AuditOptions& options = {});

// The words as they are (candidate i is words[i]); progress(done, total) counts word-hash pairs.
// Words must be valid passwords (check_password).
AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, std::span<const std::string_view> words,
                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace wk::hash
