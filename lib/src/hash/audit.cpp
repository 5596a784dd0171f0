// Audit: the cross product of accounts and words, fed to the engine in slices large enough to
// fill the GPU, compared in constant time.
#include "wk/hash/audit.hpp"

#include <algorithm>

#include "wk/core/nvtx.hpp"

namespace wk::hash {

AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, std::span<const std::string_view> words,
                  const std::function<void(std::size_t, std::size_t)>& progress) {
  AuditResult result;
  const std::size_t total = accounts.size() * words.size();
  if (total == 0) return result;
  // Enough jobs per call to keep a GPU busy; md5crypt needs the most (about 70 M/s).
  constexpr std::size_t kSlice = std::size_t(1) << 20;
  std::vector<bool> matched(accounts.size(), false), rejected(accounts.size(), false);
  std::vector<std::size_t> first_word(accounts.size(), 0);
  std::vector<CryptJob> jobs;
  std::vector<CryptOutcome> outcomes;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (account, word) of each job
  std::size_t done = 0;
  std::size_t a = 0, w = 0;
  while (a < accounts.size()) {
    jobs.clear();
    pairs.clear();
    while (a < accounts.size() && jobs.size() < kSlice) {
      if (matched[a] || rejected[a]) {  // nothing left to learn about this account
        done += words.size() - w;
        ++a;
        w = 0;
        continue;
      }
      jobs.push_back({accounts[a].hash, words[w]});
      pairs.emplace_back(a, w);
      if (++w == words.size()) {
        ++a;
        w = 0;
      }
    }
    if (jobs.empty()) break;
    outcomes.assign(jobs.size(), {});
    {
      nvtx::Range r("audit slice", nvtx::Color::compute, std::int64_t(done));
      const std::size_t base = done;
      engine.crypt(jobs, outcomes, [&](std::size_t n) {
        if (progress) progress(base + n, total);
      });
    }
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const auto [acc, word] = pairs[k];
      if (!outcomes[k].ok()) {
        if (!rejected[acc]) {
          rejected[acc] = true;
          result.rejected.emplace_back(acc, outcomes[k].error);
        }
        continue;
      }
      if (constant_time_equal(outcomes[k].hash, accounts[acc].hash) && (!matched[acc] || word < first_word[acc])) {
        matched[acc] = true;
        first_word[acc] = word;
      }
    }
    done += jobs.size();
    if (progress) progress(done, total);
  }
  for (std::size_t i = 0; i < accounts.size(); ++i)
    if (matched[i]) result.matches.push_back({i, first_word[i]});
  std::sort(result.rejected.begin(), result.rejected.end());
  return result;
}

}  // namespace wk::hash
