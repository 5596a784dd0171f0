// wk-bench audit: what `wk-hash audit` gets of the kernel. For each method, accounts of fresh
// settings (wk-hash's salts: distinct) crossed with mask candidates (?l x 8) or with words through
// rules (8 to 16 bytes): the library's whole audit call -- slice by slice, the candidates made
// (on the device for md5crypt and sha-crypt, on the host for the others), crossed and compared in
// the engine, results settled -- timed by wall clock, beside the default rung's time for a batch of the same
// pairs on the device (md5crypt and sha-crypt: a crossed batch, the pairs made on the device; the
// others: a job per pair). One account's password is a candidate: the audit must find it, and only
// it, before its time is printed.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/candidates.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

namespace wk::bench {

namespace {

using hash::Method;

struct AuditSpec {
  Method method;
  std::size_t accounts;
  std::size_t kernel_pairs;  // pairs in the timed batch
};
constexpr AuditSpec kAudits[] = {
    {Method::md5crypt, 1000, std::size_t(1) << 21},  {Method::md5crypt, 1, std::size_t(1) << 21},
    {Method::sha256crypt, 1000, std::size_t(1) << 19}, {Method::sha512crypt, 1000, std::size_t(1) << 19},
    {Method::bcrypt, 1000, std::size_t(1) << 16},      {Method::yescrypt, 64, std::size_t(1) << 13},
};
constexpr const char* kMask = "?l?l?l?l?l?l?l?l";
constexpr const char* kRules[] = {":", "c", "u", "$1", "$1 $2 $3", "^!", "d", "r", "sa@ se3", "T0 $!"};
constexpr std::uint64_t kPlanted = 345;  // the candidate that is the last account's password

// The default rung on `pairs` pairs of the accounts (in order) with the candidates, device-resident:
// median ms of `repeats` runs.
double kernel_ms(Method m, const std::vector<hash::Setting>& settings, const std::vector<std::string_view>& candidates,
                 std::size_t pairs, cudaStream_t stream, int repeats) {
  const hash::gpu::Variant v = hash::gpu::default_variant(m);
  std::vector<const hash::Setting*> ptrs;
  for (const hash::Setting& s : settings) ptrs.push_back(&s);
  if (hash::gpu::takes_crossed(m)) {
    const std::size_t c = std::max<std::size_t>(1, pairs / ptrs.size());
    hash::gpu::DeviceBatch batch(hash::gpu::DeviceBatch::Crossed{}, m, ptrs,
                                 std::span<const std::string_view>(candidates).first(std::min(c, candidates.size())), v, stream);
    return time_gpu_ms(stream, repeats, [&] { batch.run(stream); }) * double(pairs) / double(batch.size());
  }
  std::vector<const hash::Setting*> jobs(pairs);
  std::vector<std::string_view> pws(pairs);
  for (std::size_t k = 0; k < pairs; ++k) {
    jobs[k] = ptrs[k % ptrs.size()];
    pws[k] = candidates[(k / ptrs.size()) % candidates.size()];
  }
  hash::gpu::DeviceBatch batch(m, jobs, pws, v, stream);
  return time_gpu_ms(stream, repeats, [&] { batch.run(stream); });
}

// One row: the spec's accounts (the last one's password candidate 345 of `source`, the others'
// none of its candidates; one account: none) crossed with the source's first candidates.
void audit_row(const AuditSpec& spec, const char* label, const hash::CandidateSource& source, cudaStream_t stream,
               int repeats, double seconds) {
  hash::CryptEngine engine(Backend::gpu, 0, spec.method);
  hash::HashOptions options;
  options.method = spec.method;
  const std::size_t k = spec.accounts, record = hash::generated_setting_bytes(options);
  const std::size_t bytes = hash::crypt_string_bytes(options);
  std::string settings(k * record, '\0'), out(k * bytes, '\0');
  hash::generate_settings_into(options, k, settings.data());
  // With one account, a planted match would end the audit at once: it tries every candidate.
  const bool planted = k > 1;
  std::vector<std::string> passwords(k, "no-candidate-1");
  if (planted) source.get(kPlanted, passwords.back());
  const std::vector<std::string_view> pw_views(passwords.begin(), passwords.end());
  engine.crypt_fresh(hash::FreshJobs{options, settings, pw_views}, out.data(), bytes);
  std::vector<hash::AuditAccount> accounts;
  std::vector<hash::Setting> parsed;
  for (std::size_t a = 0; a < k; ++a) {
    accounts.push_back({"user" + std::to_string(a), out.substr(a * bytes, bytes)});
    parsed.push_back(*hash::parse_setting(accounts.back().hash).setting);
  }
  // The kernel's rate, on candidates enough for its batch.
  std::vector<std::string> cand_text(std::max<std::size_t>(1, spec.kernel_pairs / k));
  for (std::size_t c = 0; c < cand_text.size(); ++c) source.get(c, cand_text[c]);
  const std::vector<std::string_view> cand_views(cand_text.begin(), cand_text.end());
  const double ms = kernel_ms(spec.method, parsed, cand_views, spec.kernel_pairs, stream, repeats);
  const double kernel_rate = double(spec.kernel_pairs) * 1e3 / ms;
  // The audit: about `seconds` at that rate.
  const auto candidates = std::uint64_t(std::max(1000.0, kernel_rate * seconds / double(k)));
  const auto first_ptr = hash::range_source(source, 0, candidates);
  const hash::CandidateSource& first = *first_ptr;
  const auto t0 = std::chrono::steady_clock::now();
  const hash::AuditResult r = hash::audit(engine, accounts, first, hash::AuditOptions{});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool right = planted ? r.matches.size() == 1 && r.matches[0].account == k - 1 && r.matches[0].candidate == kPlanted
                             : r.matches.empty();
  if (!right || !r.rejected.empty())
    throw Error(ErrorCategory::internal, std::string("audit ") + hash::method_name(spec.method) +
                                             ": not exactly the planted match; not timing a wrong audit");
  // The planted account ends at its match (give or take the slices in flight then).
  const double pairs =
      planted ? double(k - 1) * double(first.size()) + double(kPlanted + 1) : double(k) * double(first.size());
  fmt::print("{:<12} {:<6} {:>8} {:>10} {:>12.4g} {:>14.4g} {:>9.2f} {:>14.4g} {:>7.1f}%\n", hash::method_name(spec.method), label,
             k, first.size(), pairs, kernel_rate, secs, pairs / secs, 100.0 * pairs / secs / kernel_rate);
  std::fflush(stdout);
}

}  // namespace

int bench_audit(const Options& o) {
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  const bool gpu = sel.backend == Backend::gpu;
  const int repeats = std::max(1, std::min(o.repeats, 5));
  const double seconds = 8.0;  // of audit per method at the kernel's rate
  fmt::print("wk-bench audit: audit throughput against the kernel, {}, {}, CPU threads {}\n", describe_device(sel.gpu), today(),
             std::max(1u, std::thread::hardware_concurrency()));
  fmt::print("accounts: fresh settings of each method's defaults (distinct salts) crossed with the candidates of mask {}\n"
             "or of 8-letter words through {} rules of best64's kinds (8 to 16 bytes);\n"
             "kernel: the default rung on a batch of the same pairs, device-resident (median of {}); audit: hash::audit, the\n"
             "whole call by wall clock (slices of candidates crossed and compared in the engine; made on the device for\n"
             "md5crypt and sha-crypt), engine started before; pairs/s = accounts x candidates / s.\n\n",
             kMask, std::size(kRules), repeats);
  if (!gpu) {
    fmt::print("no GPU: nothing to compare{}\n", sel.notice.empty() ? "" : " (" + sel.notice + ")");
    return 0;
  }
  fmt::print("{:<12} {:<6} {:>8} {:>10} {:>12} {:>14} {:>9} {:>14} {:>8}\n", "method", "source", "accounts", "candidates", "pairs",
             "kernel pairs/s", "audit s", "audit pairs/s", "% kernel");
  const hash::Mask mask = hash::Mask::parse(kMask);
  const auto masked = hash::mask_source(mask, mask.length());
  // Rules: 8-letter words, each through rules of best64's kinds (8 to 16 bytes); enough for one
  // md5crypt hash's seconds at the kernel's rate.
  constexpr std::size_t kWords = std::size_t(1) << 22;
  std::mt19937 rng(29);
  std::string letters(8 * kWords, 'a');
  for (char& ch : letters) ch = char('a' + rng() % 26);
  std::vector<std::string_view> word_views(kWords);
  for (std::size_t w = 0; w < kWords; ++w) word_views[w] = std::string_view(letters).substr(8 * w, 8);
  std::vector<std::string_view> rule_text(std::begin(kRules), std::end(kRules));
  const std::vector<hash::Rule> rules = hash::parse_rules(rule_text);
  const auto ruled = hash::rules_source(word_views, rules);
  Stream stream;
  for (const AuditSpec& spec : kAudits) {
    audit_row(spec, "mask", *masked, stream, repeats, seconds);
    audit_row(spec, "rules", *ruled, stream, repeats, seconds);
  }
  return 0;
}

}  // namespace wk::bench
