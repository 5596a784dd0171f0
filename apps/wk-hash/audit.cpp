// wk-hash audit: every word of a list tried against every account of a shadow-style hash list.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk_hash.hpp"

namespace wk::hash_app {

namespace {

// ---- audit ------------------------------------------------------------------------------------
// audit over the ranks of an mpirun/srun job: rank 0 deals chunks of the word list (every account
// against each chunk's words) and merges the chunks' results into the single-process result: per
// account the first matching word, the rejected accounts once each. Every rank returns it (only
// rank 0 prints).
hash::AuditResult audit_distributed(hash::CryptEngine& engine, const std::vector<hash::AuditAccount>& accounts,
                                    const std::vector<std::string_view>& words, app::Progress& progress) {
  const dist::World& w = dist::world();
  std::vector<std::size_t> first_word(accounts.size(), SIZE_MAX);
  std::map<std::size_t, std::string> rejected;
  dist::ChunkDealer::Options o;
  const std::size_t per = std::max<std::size_t>(1, (words.size() + 16 * w.size - 1) / (16 * w.size));
  for (std::size_t b = 0; b < words.size(); b += per) o.bounds.push_back(b);
  o.bounds.push_back(words.size());
  if (words.empty()) o.bounds = {0, 0};  // one empty chunk: its rank still reports rejected hashes
  o.deliver = [&](const dist::Chunk& chunk, int, std::string&& payload) {
    const auto j = nlohmann::json::parse(payload);
    for (const auto& m : j.at("m")) {
      std::size_t& best = first_word[m.at(0).get<std::size_t>()];
      best = std::min(best, m.at(1).get<std::size_t>());
    }
    for (const auto& r : j.at("r")) rejected.emplace(r.at(0).get<std::size_t>(), r.at(1).get<std::string>());
    progress.advance(accounts.size() * (chunk.end - chunk.begin));
  };
  dist::ChunkDealer dealer(std::move(o));
  while (const auto chunk = dealer.next()) {
    const auto part = hash::audit(engine, accounts, std::span(words).subspan(chunk->begin, chunk->end - chunk->begin));
    nlohmann::json j{{"m", nlohmann::json::array()}, {"r", nlohmann::json::array()}};
    for (const hash::AuditMatch& m : part.matches) j["m"].push_back({m.account, chunk->begin + m.word});
    for (const auto& [account, why] : part.rejected) j["r"].push_back({account, why});
    dealer.done(*chunk, j.dump());
  }
  if (!dealer.finish().empty()) throw Error(ErrorCategory::io, "a rank's audit results never reached rank 0");
  hash::AuditResult result;
  for (std::size_t a = 0; a < accounts.size(); ++a)
    if (first_word[a] != SIZE_MAX) result.matches.push_back({a, first_word[a]});
  for (auto& [account, why] : rejected) result.rejected.emplace_back(account, std::move(why));
  return result;
}

}  // namespace

int cmd_audit(const Common& c, const std::string& hashes_path, const std::string& wordlist_path, bool show_passwords) {
  nvtx::Range app_range("wk-hash audit");
  if (dist::world().distributed())
    for (const std::string& p : {hashes_path, wordlist_path})
      if (p.empty() || p == "-")
        throw Error(ErrorCategory::usage, "under mpirun/srun --hashes and --wordlist must be files every rank can read, "
                                          "not standard input");
  check_files(c, {{"the hash file", hashes_path}, {"the word list", wordlist_path}});
  app::OutputSink sink(here_output(c));
  // Distributed: every rank reads and checks both files; rank 0 alone reports and writes.
  const bool speaks = dist::world().rank == 0;
  auto error = [&](const std::string& msg) {
    if (speaks) app::print_error(kProg, msg);
  };
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  const EngineStart start(c);
  hash::CryptEngine& engine = start.get();
  hash::SecretBuffer hash_text, word_text;
  const auto t_read = Clock::now();
  {
    nvtx::Range r("read", nvtx::Color::io);
    hash_text = hash::read_secret_input(hashes_path);
    word_text = hash::read_secret_input(wordlist_path);
  }
  const double read_ms = ms_since(t_read);
  std::size_t failed = 0, skipped = 0;
  const auto hash_lines = hash::split_lines(hash_text.view());
  hash::ShadowList shadow = hash::parse_shadow(hash_lines);
  for (const auto& [line, why] : shadow.errors) error(fmt::format("{}: line {}: {}", hashes_path, line, why));
  failed += shadow.errors.size();
  skipped += shadow.skipped;
  const std::vector<hash::AuditAccount>& accounts = shadow.accounts;
  const std::vector<std::size_t>& account_line = shadow.account_line;
  std::vector<std::string_view> words;
  const auto word_lines = hash::split_lines(word_text.view());
  for (std::size_t i = 0; i < word_lines.size(); ++i) {
    std::string why = hash::check_line(word_lines[i]);
    if (why.empty()) why = hash::check_password(word_lines[i]);
    if (!why.empty()) {
      error(fmt::format("{}: line {}: {}", wordlist_path, i + 1, why));
      ++failed;
      continue;
    }
    words.push_back(word_lines[i]);
  }
  std::vector<std::size_t> word_line;
  for (std::size_t i = 0, k = 0; i < word_lines.size() && k < words.size(); ++i)
    if (word_lines[i].data() == words[k].data()) {
      word_line.push_back(i + 1);
      ++k;
    }

  detail(c, start.describe());
  detail(c, fmt::format("read {} ({} bytes, {} lines) and {} ({} bytes, {} lines) in {:.1f} ms", hashes_path,
                        hash_text.size(), hash_lines.size(), wordlist_path, word_text.size(), word_lines.size(), read_ms));
  const auto t_audit = Clock::now();
  app::Progress progress(accounts.size() * words.size(), "tries", !c.quiet && dist::world().rank == 0);
  const hash::AuditResult result =
      dist::world().distributed()
          ? audit_distributed(engine, accounts, words, progress)
          : hash::audit(engine, accounts, words, [&](std::size_t done, std::size_t) { progress.advance_to(done); });
  progress.finish();
  const double audit_ms = ms_since(t_audit);
  const std::size_t tries = accounts.size() * words.size();
  detail(c, fmt::format("{} accounts x {} words: at most {} tries (an account's end at its first match) in {:.1f} ms "
                        "({:.0f} tries/s at most)",
                        accounts.size(), words.size(), tries, audit_ms, audit_ms > 0 ? double(tries) * 1000.0 / audit_ms : 0.0));
  for (const auto& [account, why] : result.rejected) {
    error(fmt::format("{}: line {}: {}", hashes_path, account_line[account], why));
    ++failed;
  }
  // The findings: first the accounts that need no password at all, then those whose password is in
  // the word list.
  auto finding = [&](const std::string& user, std::size_t line, const char* what, std::string_view password) {
    if (c.json) {
      nlohmann::ordered_json j{{"user", user}, {"line", line}, {"finding", what}};
      if (show_passwords) j["password"] = std::string(password);
      sink.line(dump(j));
    } else {
      sink.line(show_passwords ? user + ":" + std::string(password) : user);
    }
  };
  for (std::size_t i = 0; i < shadow.no_password.size(); ++i)
    finding(shadow.no_password[i], shadow.no_password_line[i], "no password set", "");
  for (const hash::AuditMatch& m : result.matches)
    finding(accounts[m.account].user, account_line[m.account], "password in the word list", words[m.word]);
  commit_here(sink);
  // Success claims that no account has a weak password: it needs accounts, and words to try on them.
  bool nothing_audited = false;
  if (accounts.empty() && shadow.no_password.empty()) {
    error(fmt::format("{}: no account with a password hash or an empty password field ({} locked or disabled "
                      "skipped): nothing was audited", hashes_path, skipped));
    nothing_audited = true;
  } else if (!accounts.empty() && words.empty()) {
    error(fmt::format("{}: no word to try: no password hash was audited", wordlist_path));
    nothing_audited = true;
  }
  summary(c, fmt::format("{} accounts, {} words: {} with no password set, {} with a password from the word list; {} "
                         "locked or disabled skipped, {} lines failed ({} backend{})",
                         accounts.size() + shadow.no_password.size(), words.size(), shadow.no_password.size(),
                         result.matches.size(), skipped, failed, to_string(engine.backend()), ranks_note()));
  // As a linter: a finding (an account with no password or one from the word list) fails, as does a
  // line that could not be checked; success says every account was checked and none is weak.
  const bool weak = !shadow.no_password.empty() || !result.matches.empty();
  return weak || failed || nothing_audited ? app::kSomeFailed : app::kSuccess;
}

}  // namespace wk::hash_app
