// Audit: the accounts crossed with a slice of consecutive candidates at a time, fed to the engine
// in one call per slice, compared in constant time. Also the probe that tells which hashes can be
// checked at all.
#include "wk/hash/audit.hpp"

#include <algorithm>
#include <chrono>

#include "wk/core/nvtx.hpp"

namespace wk::hash {

namespace {

bool crypt_alphabet(char c) {
  return c == '.' || c == '/' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// The setting part of a crypt string (what its shape must share with crypt(3)'s output): bytes
// [0, n).
std::size_t setting_bytes(std::string_view hash) {
  if (hash.starts_with('$')) {
    const std::size_t last = hash.rfind('$');
    return last + 1;
  }
  if (hash.starts_with('_')) return std::min<std::size_t>(hash.size(), 9);  // _ + 4 count + 4 salt
  return std::min<std::size_t>(hash.size(), 2);                            // descrypt's salt
}

// The candidates of a word list as they are (the source wordlist_source makes; here so that the
// word-list audit needs nothing else).
class WordSpanSource final : public CandidateSource {
 public:
  explicit WordSpanSource(std::span<const std::string_view> words) : words_(words) {}
  std::uint64_t size() const override { return words_.size(); }
  bool get(std::uint64_t index, std::string& out) const override {
    out.assign(words_[index]);
    return true;
  }

 private:
  std::span<const std::string_view> words_;
};

}  // namespace

std::string_view method_prefix(std::string_view hash) {
  if (hash.starts_with('_')) return hash.substr(0, 1);
  if (!hash.starts_with('$')) return {};
  // "$md5,rounds=...$" (SunMD5 with rounds) ends its method name at the ','.
  const std::size_t end = hash.find_first_of("$,", 1);
  if (end == std::string_view::npos) return {};
  return hash.substr(0, end + 1);
}

std::string hash_shape_problem(std::string_view hash, std::string_view probe, std::string_view rejected) {
  const std::string_view prefix = method_prefix(hash);
  const bool descrypt_shape = hash.size() == 13 && std::all_of(hash.begin(), hash.end(), crypt_alphabet);
  const std::string what = !prefix.empty() ? "a " + std::string(prefix) + " hash"
                           : descrypt_shape  ? std::string("a descrypt hash")
                                               : "a hash of " + std::to_string(hash.size()) + " bytes with no method prefix";
  auto problem = [&](const std::string& why) { return "not checked: " + what + " " + why; };
  if (probe.empty())
    return problem(rejected.empty() ? std::string("crypt(3) rejects as a setting")
                                    : "crypt(3) rejects as a setting: " + std::string(rejected));
  if (probe.size() != hash.size()) {
    if (prefix.empty() && hash.size() != 13)
      return problem("(descrypt hashes have 13 bytes of [./0-9A-Za-z]; an NT or raw MD5 hash is no crypt(3) hash)");
    return problem("of " + std::to_string(hash.size()) + " bytes: crypt(3) writes " + std::to_string(probe.size()) +
                   " with its setting");
  }
  const std::size_t n = setting_bytes(hash);
  if (probe.substr(0, n) != hash.substr(0, n))
    return problem("whose setting crypt(3) does not keep as it is (rounds, cost or salt out of range)");
  if (!std::all_of(hash.begin() + std::ptrdiff_t(n), hash.end(), crypt_alphabet))
    return problem("with a byte outside crypt's alphabet [./0-9A-Za-z] after its setting");
  return {};
}

std::vector<std::string> hash_problems(CryptEngine& engine, std::span<const AuditAccount> accounts) {
  std::vector<CryptJob> jobs;
  jobs.reserve(accounts.size());
  for (const AuditAccount& a : accounts) jobs.push_back({a.hash, kProbePassword});
  std::vector<CryptOutcome> outcomes(jobs.size());
  if (!jobs.empty()) {
    nvtx::Range r("audit probe", nvtx::Color::compute);
    engine.crypt(jobs, outcomes);
  }
  std::vector<std::string> out(accounts.size());
  for (std::size_t i = 0; i < accounts.size(); ++i)
    out[i] = outcomes[i].ok() ? hash_shape_problem(accounts[i].hash, outcomes[i].hash)
                              : hash_shape_problem(accounts[i].hash, {}, outcomes[i].error);
  return out;
}

AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, const CandidateSource& source,
                  const AuditOptions& options) {
  AuditResult result;
  const std::uint64_t size = source.size();
  std::uint64_t next = std::min(options.begin, size);
  result.next = next;
  std::vector<bool> closed(accounts.size(), false);  // matched, rejected or skipped: nothing to learn
  for (std::size_t a = 0; a < accounts.size() && a < options.skip.size(); ++a) closed[a] = options.skip[a];
  std::vector<std::uint64_t> first(accounts.size(), UINT64_MAX);
  std::vector<std::size_t> open;
  std::vector<std::string> candidates;
  std::vector<std::uint64_t> candidate_index;
  std::vector<CryptJob> jobs;
  std::vector<CryptOutcome> outcomes;
  std::vector<std::pair<std::size_t, std::uint64_t>> pairs;  // (account, candidate) of each job
  // Enough pairs per call to keep a GPU busy; md5crypt needs the most (about 70 M/s).
  constexpr std::size_t kMaxSlicePairs = std::size_t(1) << 20, kFirstSlicePairs = 1024;
  std::size_t slice_pairs = options.slice_pairs ? options.slice_pairs : kFirstSlicePairs;
  using Clock = std::chrono::steady_clock;
  while (next < size) {
    open.clear();
    for (std::size_t a = 0; a < accounts.size(); ++a)
      if (!closed[a]) open.push_back(a);
    if (open.empty()) {  // every account settled: the rest cannot change the result
      next = size;
      break;
    }
    const std::uint64_t count = std::min<std::uint64_t>(size - next, std::max<std::size_t>(1, slice_pairs / open.size()));
    candidates.resize(std::size_t(count));
    candidate_index.clear();
    jobs.clear();
    pairs.clear();
    for (std::uint64_t k = 0; k < count; ++k)
      if (source.get(next + k, candidates[std::size_t(k)])) candidate_index.push_back(k);
    for (std::size_t a : open)
      for (std::uint64_t k : candidate_index) {
        jobs.push_back({accounts[a].hash, candidates[std::size_t(k)]});
        pairs.emplace_back(a, next + k);
      }
    outcomes.assign(jobs.size(), {});
    const auto t0 = Clock::now();
    if (!jobs.empty()) {
      nvtx::Range r("audit slice", nvtx::Color::compute, std::int64_t(next));
      const std::uint64_t base = next;
      engine.crypt(jobs, outcomes, [&](std::size_t n) {
        if (options.progress) options.progress(base + count * n / jobs.size(), size);  // the slice's share done
      });
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    for (std::string& c : candidates) wipe(c);
    std::vector<std::size_t> newly;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const auto [acc, cand] = pairs[k];
      if (!outcomes[k].ok()) {
        if (!closed[acc]) result.rejected.emplace_back(acc, outcomes[k].error);
        closed[acc] = true;
        continue;
      }
      if (constant_time_equal(outcomes[k].hash, accounts[acc].hash) && cand < first[acc]) {
        if (first[acc] == UINT64_MAX) newly.push_back(acc);
        first[acc] = cand;
      }
    }
    std::sort(newly.begin(), newly.end());
    for (std::size_t acc : newly) {
      closed[acc] = true;
      if (options.found) options.found({acc, first[acc]});
    }
    next += count;
    if (options.progress) options.progress(next, size);
    if (!options.slice_pairs && !jobs.empty()) {
      // Slices of about slice_seconds at the rate measured: checkpoints and a stop come that often.
      const double rate = double(jobs.size()) / std::max(seconds, 1e-6);
      slice_pairs = std::size_t(std::clamp(rate * options.slice_seconds, double(kFirstSlicePairs), double(kMaxSlicePairs)));
    }
    if (options.slice_done && !options.slice_done(next)) {
      result.stopped = next < size;
      break;
    }
  }
  result.next = next;
  for (std::size_t i = 0; i < accounts.size(); ++i)
    if (first[i] != UINT64_MAX) result.matches.push_back({i, first[i]});
  std::sort(result.rejected.begin(), result.rejected.end());
  return result;
}

AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, std::span<const std::string_view> words,
                  const std::function<void(std::size_t, std::size_t)>& progress) {
  const WordSpanSource source(words);
  AuditOptions options;
  if (progress)
    options.progress = [&](std::uint64_t next, std::uint64_t) {
      progress(std::size_t(next) * accounts.size(), accounts.size() * words.size());
    };
  return audit(engine, accounts, source, options);
}

}  // namespace wk::hash
