// Audit: the accounts crossed with a slice of consecutive candidates at a time, fed to the engine
// in one call per slice (two slices in the engine at once), compared in constant time; a mask's
// candidates go as a run, made where they are hashed. Also the probe that tells which hashes can
// be checked at all.
#include "wk/hash/audit.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>

#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"

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

namespace {

// One slice: candidates [begin, begin + count) crossed with the accounts open when it was built,
// and the engine's call on it (on a thread of its own). Slices are reused: a slice of millions of
// candidates faulting in ~150 MB of fresh buffers took longer to build than the GPU took for it.
struct Slice {
  std::uint64_t begin = 0, count = 0;
  CandidateRun run;  // the candidates are a run, made by the engine: no strings here
  std::vector<std::string> bytes;      // the candidates made, back to back, per chunk of indices
  std::vector<std::vector<std::uint32_t>> ends;  // per chunk: (index in the chunk, end in bytes) pairs
  std::vector<std::uint64_t> made;    // the candidates the source made (indices from begin)
  std::vector<std::size_t> open;      // the accounts tried
  std::vector<std::string_view> hashes, words;
  CrossResult result;
  double seconds = 0;  // the engine's call, wall time
  std::future<void> done;

  std::uint64_t candidate(std::uint32_t c) const { return begin + (run.empty() ? made[c] : c); }
  std::size_t pairs() const { return open.size() * (run.empty() ? made.size() : std::size_t(run.count)); }
  void wipe_bytes() {
    if (done.valid()) done.wait();  // the call reads this slice's vectors
    parallel_for(bytes.size(), 64, [&](std::size_t b, std::size_t e) {
      for (std::size_t ch = b; ch < e; ++ch) {
        wipe(bytes[ch]);
        bytes[ch].clear();
      }
    });
  }
  // Ready for another slice, every buffer's memory kept.
  void reset() {
    wipe_bytes();
    for (auto& e : ends) e.clear();
    run = {};
    open.clear();
    hashes.clear();
    result = {};
    seconds = 0;
    done = {};
  }
  ~Slice() { wipe_bytes(); }
};

}  // namespace

AuditResult audit(CryptEngine& engine, std::span<const AuditAccount> accounts, const CandidateSource& source,
                  const AuditOptions& options) {
  AuditResult result;
  const std::uint64_t size = source.size();
  std::uint64_t next = std::min(options.begin, size);
  result.next = next;
  std::vector<bool> closed(accounts.size(), false);  // matched, rejected or skipped: nothing to learn
  for (std::size_t a = 0; a < accounts.size() && a < options.skip.size(); ++a) closed[a] = options.skip[a];
  std::vector<std::uint64_t> first(accounts.size(), UINT64_MAX);
  // Enough pairs per call to keep a GPU busy; md5crypt needs the most (about 70 M/s: 2^22 pairs
  // are two of its batches, ~60 ms).
  constexpr std::size_t kMaxSlicePairs = std::size_t(1) << 22, kFirstSlicePairs = 1024;
  std::size_t slice_pairs = options.slice_pairs ? options.slice_pairs : kFirstSlicePairs;
  // Two slices per GPU in the engine at once: while a device computes one, the other's settings
  // are parsed and packed, and this thread makes the next slice's candidates and compares the last
  // one's results -- the host work of a slice hides behind another's kernels. A slice is built
  // with the accounts open then, so an account found in the slice before it may still be tried
  // in it: its first match stays the first (candidates only grow), and nothing is reported twice.
  const std::size_t in_flight = 2 * std::max<std::size_t>(1, engine.gpu_shares().size());
  std::deque<std::unique_ptr<Slice>> flight;
  std::vector<std::unique_ptr<Slice>> spare;  // settled slices, for reuse
  std::uint64_t build_at = next;
  bool all_closed = false;
  auto launch = [&] {
    while (flight.size() < in_flight && build_at < size && !all_closed) {
      std::vector<std::size_t> open;
      for (std::size_t a = 0; a < accounts.size(); ++a)
        if (!closed[a]) open.push_back(a);
      if (open.empty()) {  // every account settled: the rest cannot change the result
        all_closed = true;
        break;
      }
      std::unique_ptr<Slice> sl;
      if (spare.empty()) {
        sl = std::make_unique<Slice>();
      } else {
        sl = std::move(spare.back());
        spare.pop_back();
      }
      Slice& z = *sl;
      z.begin = build_at;
      z.count = std::min<std::uint64_t>(size - build_at, std::max<std::size_t>(1, slice_pairs / open.size()));
      // A run of candidates (a mask's, or words through rules) goes to the engine as it is (made on
      // the GPU for the methods of crossed batches); the slice ends where the run does (an
      // --increment length, a word too long for the GPU).
      z.run = source.candidate_run(build_at, z.count);
      if (!z.run.empty()) {
        z.count = z.run.count;
      } else {
        // On all cores, with no string per candidate: with few accounts open a slice holds
        // millions of them (md5crypt's kernel crosses ~70 M pairs/s). Each chunk of indices
        // appends its candidates to a buffer of its own; then the views into them, in order.
        nvtx::Range r("candidates", nvtx::Color::compute, std::int64_t(z.count));
        const auto n = std::size_t(z.count);
        constexpr std::size_t kChunk = 4096;
        const std::size_t chunks = (n + kChunk - 1) / kChunk;
        z.bytes.resize(chunks);
        z.ends.resize(chunks);
        std::vector<std::vector<std::uint32_t>>& ends = z.ends;
        parallel_for(chunks, 1, [&](std::size_t b, std::size_t e) {
          std::string one;
          for (std::size_t ch = b; ch < e; ++ch) {
            // Filled as locals, then moved back: neighbouring chunks' string and vector objects
            // share cache lines, and every append writing their sizes there cost the build ~10x.
            std::string buf = std::move(z.bytes[ch]);
            std::vector<std::uint32_t> end_at = std::move(ends[ch]);
            buf.reserve(kChunk * 16);
            end_at.reserve(2 * kChunk);
            for (std::size_t k = ch * kChunk; k < std::min(n, (ch + 1) * kChunk); ++k)
              if (source.get(z.begin + k, one)) {
                if (buf.size() + one.size() > buf.capacity()) {  // a move would leave the old bytes unwiped
                  std::string bigger;
                  bigger.reserve(2 * (buf.size() + one.size()));
                  bigger.append(buf);
                  wipe(buf);
                  buf.swap(bigger);
                }
                buf.append(one);
                end_at.push_back(std::uint32_t(k - ch * kChunk));
                end_at.push_back(std::uint32_t(buf.size()));
              }
            z.bytes[ch] = std::move(buf);
            ends[ch] = std::move(end_at);
          }
          wipe(one);
        });
        std::vector<std::size_t> at(chunks + 1, 0);  // candidates made before each chunk
        for (std::size_t ch = 0; ch < chunks; ++ch) at[ch + 1] = at[ch] + ends[ch].size() / 2;
        z.made.resize(at.back());  // a reused slice's: no zeroing when they shrink
        z.words.resize(at.back());
        parallel_for(chunks, 1, [&](std::size_t b, std::size_t e) {
          for (std::size_t ch = b; ch < e; ++ch) {
            const std::string& buf = z.bytes[ch];
            for (std::size_t j = 0, start = 0; 2 * j < ends[ch].size(); ++j) {
              const std::size_t end = ends[ch][2 * j + 1];
              z.made[at[ch] + j] = ch * kChunk + ends[ch][2 * j];
              z.words[at[ch] + j] = std::string_view(buf).substr(start, end - start);
              start = end;
            }
          }
        });
      }
      z.open = std::move(open);
      for (std::size_t a : z.open) z.hashes.push_back(accounts[a].hash);
      build_at += z.count;
      if (z.pairs())
        z.done = std::async(std::launch::async, [&engine, &z] {
          nvtx::Range r("audit slice", nvtx::Color::compute, std::int64_t(z.begin));
          const auto t0 = std::chrono::steady_clock::now();
          z.result = engine.crypt_cross(
              {z.hashes, z.run.empty() ? std::span<const std::string_view>(z.words) : std::span<const std::string_view>(), z.run});
          z.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        });
      flight.push_back(std::move(sl));
    }
  };
  // A finished slice's results: matches (each account's first), rejections, progress, the slice
  // size for the rate measured; then slice_done's answer.
  auto settle = [&](Slice& z) {
    std::vector<std::size_t> newly;
    for (std::size_t a = 0; a < z.result.errors.size(); ++a)
      if (!z.result.errors[a].empty()) {
        const std::size_t acc = z.open[a];
        if (!closed[acc]) result.rejected.emplace_back(acc, z.result.errors[a]);
        closed[acc] = true;
      }
    for (const auto& [a, c] : z.result.matches) {
      const std::size_t acc = z.open[a];
      const std::uint64_t cand = z.candidate(c);
      if (cand < first[acc]) {
        if (first[acc] == UINT64_MAX) newly.push_back(acc);
        first[acc] = cand;
      }
    }
    std::sort(newly.begin(), newly.end());
    for (std::size_t acc : newly) {
      closed[acc] = true;
      if (options.found) options.found({acc, first[acc]});
    }
    next = z.begin + z.count;
    if (options.progress) options.progress(next, size);
    if (!options.slice_pairs && z.pairs()) {
      // Slices of about slice_seconds at the rate measured: checkpoints and a stop come that often.
      const double rate = double(z.pairs()) / std::max(z.seconds, 1e-6);
      slice_pairs = std::size_t(std::clamp(rate * options.slice_seconds, double(kFirstSlicePairs), double(kMaxSlicePairs)));
    }
    return !options.slice_done || options.slice_done(next);
  };
  auto take = [&] {
    std::unique_ptr<Slice> z = std::move(flight.front());
    flight.pop_front();
    if (z->done.valid()) z->done.get();  // rethrows what the engine threw
    return z;
  };
  launch();
  while (!flight.empty()) {
    std::unique_ptr<Slice> z = take();
    launch();  // the device gets the next slice before this one is compared
    const bool go_on = settle(*z);
    z->reset();
    spare.push_back(std::move(z));
    if (!go_on) {
      // Stopped: the slices already in the engine finish and count (slice_done hears of each),
      // so that a resumed audit tries none of their candidates again.
      while (!flight.empty()) settle(*take());
      result.stopped = next < size;
      break;
    }
  }
  if (!result.stopped && all_closed) next = size;
  flight.clear();
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
