// wk-hash audit: candidate passwords (a word list, rules, a mask, or a word list with a mask) tried
// against every account of a hash list; a pot file of the passwords found, a session file to
// resume from, --show.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/audit_session.hpp"
#include "wk/hash/candidates.hpp"
#include "wk/hash/job_files.hpp"
#include "wk/hash/potfile.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk_hash.hpp"

namespace wk::hash_app {

namespace {

// ---- audit ------------------------------------------------------------------------------------
// audit over the ranks of an mpirun/srun job: rank 0 deals chunks of the candidates (every account
// against each chunk's candidates) and merges the chunks' results into the single-process result:
// per account the first matching candidate, the rejected accounts once each. Every rank returns it
// (only rank 0 prints).
hash::AuditResult audit_distributed(hash::CryptEngine& engine, const std::vector<hash::AuditAccount>& accounts,
                                    const hash::CandidateSource& source, app::Progress& progress) {
  const dist::World& w = dist::world();
  const std::uint64_t size = source.size();
  std::vector<std::uint64_t> first_candidate(accounts.size(), UINT64_MAX);
  std::map<std::size_t, std::string> rejected;
  dist::ChunkDealer::Options o;
  const std::uint64_t per = std::max<std::uint64_t>(1, (size + 16 * std::uint64_t(w.size) - 1) / (16 * std::uint64_t(w.size)));
  for (std::uint64_t b = 0; b < size; b += per) o.bounds.push_back(std::size_t(b));
  o.bounds.push_back(std::size_t(size));
  if (size == 0) o.bounds = {0, 0};  // one empty chunk: its rank still reports rejected hashes
  o.deliver = [&](const dist::Chunk& chunk, int, std::string&& payload) {
    const auto j = nlohmann::json::parse(payload);
    for (const auto& m : j.at("m")) {
      std::uint64_t& best = first_candidate[m.at(0).get<std::size_t>()];
      best = std::min(best, m.at(1).get<std::uint64_t>());
    }
    for (const auto& r : j.at("r")) rejected.emplace(r.at(0).get<std::size_t>(), r.at(1).get<std::string>());
    progress.advance(chunk.end - chunk.begin);
  };
  dist::ChunkDealer dealer(std::move(o));
  while (const auto chunk = dealer.next()) {
    const auto part = hash::audit(engine, accounts, *hash::range_source(source, chunk->begin, chunk->end), hash::AuditOptions{});
    nlohmann::json j{{"m", nlohmann::json::array()}, {"r", nlohmann::json::array()}};
    for (const hash::AuditMatch& m : part.matches) j["m"].push_back({m.account, chunk->begin + m.candidate});
    for (const auto& [account, why] : part.rejected) j["r"].push_back({account, why});
    dealer.done(*chunk, j.dump());
  }
  if (!dealer.finish().empty()) throw Error(ErrorCategory::io, "a rank's audit results never reached rank 0");
  hash::AuditResult result;
  for (std::size_t a = 0; a < accounts.size(); ++a)
    if (first_candidate[a] != UINT64_MAX) result.matches.push_back({a, first_candidate[a]});
  for (auto& [account, why] : rejected) result.rejected.emplace_back(account, std::move(why));
  result.next = size;
  return result;
}

// A positive number from the environment variable `name`, or `fallback` (tests: small slices).
double env_number(const char* name, double fallback) {
  if (const char* e = std::getenv(name)) {
    char* end = nullptr;
    const double v = std::strtod(e, &end);
    if (end != e && *end == '\0' && v > 0) return v;
  }
  return fallback;
}

// A path as a session file keeps it: absolute, so that --restore works from any folder.
std::string absolute_path(const std::string& p) {
  if (p.empty() || p == "-") return p;
  return std::filesystem::absolute(p).lexically_normal().string();
}

// The options a session file stores: every audit option and the common ones, paths absolute.
std::string session_options(const Common& c, const AuditArgs& a) {
  nlohmann::ordered_json j;
  j["hashes"] = absolute_path(a.hashes);
  j["wordlist"] = absolute_path(a.wordlist);
  j["rules"] = absolute_path(a.rules);
  j["mask"] = a.mask;
  j["charsets"] = a.charsets;
  j["increment"] = a.increment;
  j["mask_first"] = a.mask_first;
  j["pot"] = absolute_path(a.pot);
  j["show_passwords"] = a.show_passwords;
  j["output"] = absolute_path(c.output);
  j["json"] = c.json;
  j["quiet"] = c.quiet;
  j["verbose"] = c.verbose;
  j["device"] = c.device;
  return dump(j);
}

// --restore FILE: the options the session file stored; -q, -v, --device, -o and --json given on
// this command line win over the stored ones.
hash::AuditCheckpoint restore_options(Common& c, AuditArgs& a, const CLI::App& sub) {
  const std::string path = a.restore;
  hash::AuditCheckpoint checkpoint = hash::read_checkpoint(path);
  try {
    const auto j = nlohmann::json::parse(checkpoint.options);
    a = AuditArgs{};
    a.hashes = j.at("hashes").get<std::string>();
    a.wordlist = j.at("wordlist").get<std::string>();
    a.rules = j.at("rules").get<std::string>();
    a.mask = j.at("mask").get<std::string>();
    a.charsets = j.at("charsets").get<std::array<std::string, 4>>();
    a.increment = j.at("increment").get<bool>();
    a.mask_first = j.at("mask_first").get<bool>();
    a.pot = j.at("pot").get<std::string>();
    a.show_passwords = j.at("show_passwords").get<bool>();
    if (!sub.count("--output")) c.output = j.at("output").get<std::string>();
    if (!sub.count("--json")) c.json = j.at("json").get<bool>();
    if (!sub.count("--quiet") && !sub.count("--verbose")) {
      c.quiet = j.at("quiet").get<bool>();
      c.verbose = j.at("verbose").get<bool>();
    }
    if (!sub.count("--device")) c.device = j.at("device").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCategory::usage, path + ": not a wk-hash audit session file (" + e.what() + ")");
  }
  a.session = path;
  return checkpoint;
}

// Usage errors before any work: which options go together.
void check_audit_args(const AuditArgs& a) {
  auto usage = [](const std::string& m) { return Error(ErrorCategory::usage, m); };
  if (a.hashes.empty()) throw usage("--hashes FILE is required");
  if (a.show) {
    if (a.pot.empty()) throw usage("--show prints the passwords of the pot file: it needs --pot FILE");
    if (!a.wordlist.empty() || !a.rules.empty() || !a.mask.empty() || !a.session.empty())
      throw usage("--show tries no candidate: it takes --hashes and --pot only");
    return;
  }
  if (a.wordlist.empty() && a.mask.empty()) throw usage("no candidates: give --wordlist FILE, --mask MASK or both");
  if (!a.rules.empty() && a.wordlist.empty()) throw usage("--rules applies to the words of --wordlist FILE");
  if (a.mask.empty()) {
    if (a.increment) throw usage("--increment applies to --mask");
    if (a.mask_first) throw usage("--mask-first applies to --wordlist with --mask");
    for (std::size_t i = 0; i < a.charsets.size(); ++i)
      if (!a.charsets[i].empty()) throw usage(fmt::format("-{} defines a charset of --mask", i + 1));
  } else if (a.mask_first && a.wordlist.empty()) {
    throw usage("--mask-first applies to --wordlist with --mask");
  } else if (a.increment && !a.wordlist.empty()) {
    throw usage("--increment applies to --mask alone, not to a word list with a mask");
  }
  if (!a.session.empty())
    for (const std::string* p : {&a.hashes, &a.wordlist, &a.rules})
      if (*p == "-") throw usage("--session: the audit must read files to be resumed, not standard input");
}

// The files of the job apart: no output (the findings, the pot file, the session file) may be a
// file the job reads.
void check_audit_files(const Common& c, const AuditArgs& a) {
  std::vector<io::JobFile> reads = {{"the hash file", a.hashes}}, writes = {{"the output", c.output}};
  if (!a.wordlist.empty()) reads.push_back({"the word list", a.wordlist});
  if (!a.rules.empty()) reads.push_back({"the rule file", a.rules});
  if (!a.pot.empty() && !a.show) writes.push_back({"the pot file", a.pot});
  if (!a.pot.empty() && a.show) reads.push_back({"the pot file", a.pot});
  if (!a.session.empty()) writes.push_back({"the session file", a.session});
  hash::check_job_files(reads, writes);
}

// What a match of the source means, in the summary and as --json's "finding".
struct SourceWords {
  const char* summary;  // "with a password ..."
  const char* finding;
};
SourceWords source_words(const AuditArgs& a) {
  if (a.mask.empty() && a.rules.empty()) return {"from the word list", "password in the word list"};
  if (a.mask.empty()) return {"from the word list and rules", "password from the candidates"};
  if (a.wordlist.empty()) return {"from the mask", "password from the candidates"};
  if (!a.rules.empty()) return {"from the word list, rules and mask", "password from the candidates"};
  return {"from the word list and mask", "password from the candidates"};
}

// --show: the pot file's passwords of the hash file's accounts, nothing hashed.
int show_pot(const Common& c, const AuditArgs& a) {
  check_audit_files(c, a);
  app::OutputSink sink(here_output(c));
  const hash::SecretBuffer hash_text = hash::read_secret_input(a.hashes);
  const auto hash_lines = hash::split_lines(hash_text.view());
  const hash::ShadowList shadow = hash::parse_shadow(hash_lines);
  for (const auto& [line, why] : shadow.errors) app::print_error(kProg, fmt::format("{}: line {}: {}", a.hashes, line, why));
  const hash::PotFile pot = hash::PotFile::read(a.pot);
  for (const auto& [line, why] : pot.errors()) app::print_error(kProg, fmt::format("{}: line {}: {}", a.pot, line, why));
  std::size_t shown = 0;
  for (std::size_t i = 0; i < shadow.accounts.size(); ++i) {
    const auto password = pot.find(shadow.accounts[i].hash);
    if (!password) continue;
    ++shown;
    if (c.json)
      sink.line(dump(nlohmann::ordered_json{{"user", shadow.accounts[i].user},
                                            {"line", shadow.account_line[i]},
                                            {"password", std::string(*password)}}));
    else
      sink.line(shadow.accounts[i].user + ":" + std::string(*password));
  }
  commit_here(sink);
  summary(c, fmt::format("{} of {} accounts with a password in the pot file, {} left", shown, shadow.accounts.size(),
                         shadow.accounts.size() - shown));
  return shown ? app::kSuccess : app::kSomeFailed;
}

}  // namespace

int cmd_audit(Common c, AuditArgs a, const CLI::App& sub) {
  nvtx::Range app_range("wk-hash audit");
  const bool distributed = dist::world().distributed();
  std::optional<hash::AuditCheckpoint> resumed;
  if (!a.restore.empty()) {
    if (distributed) throw Error(ErrorCategory::usage, "--restore is not supported under mpirun/srun");
    resumed = restore_options(c, a, sub);
  }
  check_audit_args(a);
  if (distributed) {
    if (!a.pot.empty() || !a.session.empty() || a.show)
      throw Error(ErrorCategory::usage, "under mpirun/srun audit takes no --pot, --session, --restore or --show: run "
                                        "those in one process");
    for (const std::string& p : {a.hashes, a.wordlist, a.rules})
      if (p == "-")
        throw Error(ErrorCategory::usage, "under mpirun/srun --hashes, --wordlist and --rules must be files every rank can "
                                          "read, not standard input");
  }
  if (a.show) return show_pot(c, a);
  check_audit_files(c, a);
  app::OutputSink sink(here_output(c));
  // Distributed: every rank reads and checks both files; rank 0 alone reports and writes.
  const bool speaks = dist::world().rank == 0;
  auto error = [&](const std::string& msg) {
    if (speaks) app::print_error(kProg, msg);
  };
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  const EngineStart start(c);
  hash::SecretBuffer hash_text, word_text;
  hash::SecretBuffer rule_text;
  const auto t_read = Clock::now();
  {
    nvtx::Range r("read", nvtx::Color::io);
    hash_text = hash::read_secret_input(a.hashes);
    if (!a.wordlist.empty()) word_text = hash::read_secret_input(a.wordlist);
    if (!a.rules.empty()) rule_text = hash::read_secret_input(a.rules);
  }
  const double read_ms = ms_since(t_read);
  std::size_t failed = 0, skipped = 0;
  const auto hash_lines = hash::split_lines(hash_text.view());
  hash::ShadowList shadow = hash::parse_shadow(hash_lines);
  for (const auto& [line, why] : shadow.errors) error(fmt::format("{}: line {}: {}", a.hashes, line, why));
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
      error(fmt::format("{}: line {}: {}", a.wordlist, i + 1, why));
      ++failed;
      continue;
    }
    words.push_back(word_lines[i]);
  }
  std::vector<hash::Rule> rules;
  if (!a.rules.empty()) {
    std::vector<std::pair<std::size_t, std::string>> rule_errors;
    rules = hash::parse_rules(hash::split_lines(rule_text.view()), &rule_errors);
    for (const auto& [line, why] : rule_errors) error(fmt::format("{}: line {}: {}", a.rules, line, why));
    failed += rule_errors.size();
    if (rules.empty()) {
      error(fmt::format("{}: no rule: the words are tried as they are", a.rules));
      ++failed;
    }
  }
  // The candidates: what the options make, one indexable source.
  std::optional<hash::Mask> mask;
  if (!a.mask.empty()) mask = hash::Mask::parse(a.mask, a.charsets);
  std::unique_ptr<hash::CandidateSource> source;
  if (mask && !a.wordlist.empty()) source = hash::hybrid_source(hash::rules_source(words, rules), *mask, a.mask_first);
  else if (mask) source = hash::mask_source(*mask, a.increment ? 1 : mask->length());
  else if (!rules.empty()) source = hash::rules_source(words, rules);
  else source = hash::wordlist_source(words);
  const std::uint64_t candidates = source->size();
  const SourceWords said = source_words(a);

  // The pot file: hashes found before are not tried again.
  hash::PotFile pot;
  std::unique_ptr<hash::PotWriter> pot_writer;
  if (!a.pot.empty()) {
    pot = hash::PotFile::read(a.pot);
    for (const auto& [line, why] : pot.errors()) error(fmt::format("{}: line {}: {}", a.pot, line, why));
    failed += pot.errors().size();
    pot_writer = std::make_unique<hash::PotWriter>(a.pot);
  }
  enum class Found : unsigned char { no, pot, candidate };
  std::vector<Found> found(accounts.size(), Found::no);
  std::vector<std::uint64_t> found_candidate(accounts.size(), 0);
  std::size_t from_pot = 0;
  for (std::size_t i = 0; i < accounts.size(); ++i)
    if (pot.find(accounts[i].hash)) {
      found[i] = Found::pot;
      ++from_pot;
    }
  // A resumed session: its matches so far, and where it stood.
  std::uint64_t begin = 0;
  if (resumed) {
    if (resumed->candidates != candidates)
      throw Error(ErrorCategory::usage, fmt::format("{}: the session had {} candidates, its options now make {}: the word "
                                                    "list or rule file changed; start a new session",
                                                    a.session, resumed->candidates, candidates));
    std::map<std::size_t, std::size_t> account_at;  // line -> account
    for (std::size_t i = 0; i < accounts.size(); ++i) account_at.emplace(account_line[i], i);
    for (const auto& [line, cand] : resumed->found) {
      const auto it = account_at.find(line);
      if (it == account_at.end() || cand >= candidates)
        throw Error(ErrorCategory::usage, fmt::format("{}: the session names line {} of {}, which holds no hash now: the "
                                                      "hash file changed; start a new session", a.session, line, a.hashes));
      if (found[it->second] == Found::no) {
        found[it->second] = Found::candidate;
        found_candidate[it->second] = cand;
      }
    }
    begin = resumed->next;
  }
  hash::CryptEngine& engine = start.get();
  // Which hashes can be checked at all (not those found already): the others are named, counted
  // as not checked and fail the audit -- never taken for safe.
  std::vector<std::size_t> tried;  // accounts to try, in account order
  std::size_t not_checked = 0;
  {
    std::vector<std::size_t> open;
    std::vector<hash::AuditAccount> probe;
    for (std::size_t i = 0; i < accounts.size(); ++i)
      if (found[i] == Found::no) {
        open.push_back(i);
        probe.push_back(accounts[i]);
      }
    const std::vector<std::string> problems = hash::hash_problems(engine, probe);
    for (std::size_t k = 0; k < open.size(); ++k) {
      if (problems[k].empty()) {
        tried.push_back(open[k]);
        continue;
      }
      error(fmt::format("{}: line {}: {}", a.hashes, account_line[open[k]], problems[k]));
      ++not_checked;
    }
  }
  std::vector<hash::AuditAccount> tried_accounts;
  for (std::size_t i : tried) tried_accounts.push_back(accounts[i]);

  detail(c, start.describe());
  detail(c, fmt::format("read {} ({} bytes, {} lines){} in {:.1f} ms", a.hashes, hash_text.size(), hash_lines.size(),
                        a.wordlist.empty() ? std::string()
                                           : fmt::format(" and {} ({} bytes, {} lines)", a.wordlist, word_text.size(),
                                                         word_lines.size()),
                        read_ms));
  if (begin) detail(c, fmt::format("resuming {} at candidate {} of {}", a.session, begin, candidates));

  // The session file: written at the start, every few seconds at a slice's end, and when a signal
  // asks to stop (at the next slice's end); removed once the audit is complete.
  static std::atomic<bool> stop_requested{false};
  const bool with_session = !a.session.empty();
  hash::AuditCheckpoint checkpoint;
  if (with_session) {
    checkpoint.options = session_options(c, a);
    checkpoint.candidates = candidates;
    checkpoint.next = begin;
    for (std::size_t i = 0; i < accounts.size(); ++i)
      if (found[i] == Found::candidate) checkpoint.found.emplace_back(account_line[i], found_candidate[i]);
    hash::write_checkpoint(a.session, checkpoint);
    app::install_interrupt_handlers(&stop_requested);  // a second signal still ends at once
  }
  const double checkpoint_s = env_number("WK_AUDIT_CHECKPOINT_SECONDS", 5.0);
  auto last_checkpoint = Clock::now();

  const auto t_audit = Clock::now();
  std::string password;  // a found candidate, made again from its index (wiped)
  hash::AuditResult result;
  if (distributed) {
    app::Progress progress(std::size_t(candidates), "cand", !c.quiet && speaks);
    result = audit_distributed(engine, tried_accounts, *source, progress);
    progress.finish();
  } else {
    app::Progress progress(std::size_t(candidates - std::min(begin, candidates)), "cand", !c.quiet);
    hash::AuditOptions options;
    options.begin = begin;
    options.slice_pairs = std::size_t(env_number("WK_AUDIT_SLICE_PAIRS", 0));
    options.progress = [&](std::uint64_t next, std::uint64_t) { progress.advance_to(std::size_t(next - begin)); };
    options.found = [&](const hash::AuditMatch& m) {
      const std::size_t acc = tried[m.account];
      if (pot_writer && source->get(m.candidate, password)) {
        pot_writer->append(accounts[acc].hash, password);
        hash::wipe(password);
      }
      if (with_session) checkpoint.found.emplace_back(account_line[acc], m.candidate);
    };
    options.slice_done = [&](std::uint64_t next) {
      const bool stop = stop_requested.load();
      if (with_session && (stop || std::chrono::duration<double>(Clock::now() - last_checkpoint).count() >= checkpoint_s)) {
        checkpoint.next = next;
        hash::write_checkpoint(a.session, checkpoint);
        last_checkpoint = Clock::now();
      }
      return !stop;
    };
    result = hash::audit(engine, tried_accounts, *source, options);
    progress.finish();
    if (with_session) app::install_interrupt_handlers(nullptr);  // from now on a signal ends at once
  }
  const double audit_ms = ms_since(t_audit);
  if (result.stopped) {
    // SIGINT/SIGTERM/SIGHUP with a session: the checkpoint is written; no output (an -o file is
    // left as it was), the pot file keeps what was found.
    app::print_error(kProg, fmt::format("interrupted at candidate {} of {}: the session is saved; resume it with: "
                                        "wk-hash audit --restore {}",
                                        result.next, candidates, a.session));
    return app::kInterrupted;
  }
  for (const hash::AuditMatch& m : result.matches) {
    found[tried[m.account]] = Found::candidate;
    found_candidate[tried[m.account]] = m.candidate;
  }
  const std::uint64_t tried_now = candidates - std::min(begin, candidates);
  detail(c, fmt::format("{} accounts x {} {}: at most {} tries (an account's end at its first match) in {:.1f} ms "
                        "({:.0f} tries/s at most)",
                        tried_accounts.size(), tried_now, a.mask.empty() && a.rules.empty() ? "words" : "candidates",
                        tried_accounts.size() * tried_now, audit_ms,
                        audit_ms > 0 ? double(tried_accounts.size() * tried_now) * 1000.0 / audit_ms : 0.0));
  if (const std::string shares = start.shares(); !shares.empty()) detail(c, shares);
  for (const auto& [account, why] : result.rejected) {
    error(fmt::format("{}: line {}: not checked: {}", a.hashes, account_line[tried[account]], why));
    ++not_checked;
  }
  // The findings: first the accounts that need no password at all, then those whose password was
  // found (this run, an earlier session, or the pot file), in the hash file's order.
  auto finding = [&](const std::string& user, std::size_t line, const char* what, std::string_view pw) {
    if (c.json) {
      nlohmann::ordered_json j{{"user", user}, {"line", line}, {"finding", what}};
      if (a.show_passwords) j["password"] = std::string(pw);
      sink.line(dump(j));
    } else {
      sink.line(a.show_passwords ? user + ":" + std::string(pw) : user);
    }
  };
  for (std::size_t i = 0; i < shadow.no_password.size(); ++i)
    finding(shadow.no_password[i], shadow.no_password_line[i], "no password set", "");
  std::size_t weak = 0;
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    if (found[i] == Found::no) continue;
    ++weak;
    if (found[i] == Found::pot) {
      finding(accounts[i].user, account_line[i], "password in the pot file", *pot.find(accounts[i].hash));
    } else {
      password.clear();
      if (a.show_passwords) source->get(found_candidate[i], password);
      finding(accounts[i].user, account_line[i], said.finding, password);
      hash::wipe(password);
    }
  }
  commit_here(sink);
  if (with_session) std::filesystem::remove(a.session);  // complete: nothing to resume
  // Success claims that no account has a weak password: it needs accounts, and candidates to try.
  bool nothing_audited = false;
  if (accounts.empty() && shadow.no_password.empty()) {
    error(fmt::format("{}: no account with a password hash or an empty password field ({} locked or disabled "
                      "skipped): nothing was audited", a.hashes, skipped));
    nothing_audited = true;
  } else if (!tried_accounts.empty() && candidates == 0) {
    error(fmt::format("{}: no word to try: no password hash was audited", a.wordlist.empty() ? a.mask : a.wordlist));
    nothing_audited = true;
  }
  summary(c, fmt::format("{} accounts, {} {}: {} with no password set, {} with a password {}{}; {} not checked, {} "
                         "locked or disabled skipped, {} lines failed ({} backend{})",
                         accounts.size() + shadow.no_password.size(), candidates,
                         a.mask.empty() && a.rules.empty() ? "words" : "candidates", shadow.no_password.size(), weak,
                         said.summary, from_pot ? fmt::format(" ({} from the pot file)", from_pot) : std::string(),
                         not_checked, skipped, failed, to_string(engine.backend()), ranks_note()));
  // As a linter: a finding (an account with no password or a password found) fails, as does a
  // line that could not be checked; success says every account was checked and none is weak.
  const bool any_weak = !shadow.no_password.empty() || weak;
  return any_weak || failed || not_checked || nothing_audited ? app::kSomeFailed : app::kSuccess;
}

}  // namespace wk::hash_app
