// CryptEngine: sorts jobs into those warpkit computes on the GPU and those libxcrypt computes on
// the CPU, runs both, and reports per-job errors without ever echoing a password.
#include <crypt.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "gpu/gpu_runner.hpp"
#include "methods/method_module.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"

namespace wk::hash {

namespace {

unsigned default_threads() { return usable_cores(); }

constexpr const char* kLibxcryptRejected = "libxcrypt rejected the setting (unknown method or malformed parameters)";

// Whether the GPU backend computes each method, by the enum's value: its module has GPU kernels
// (the rest goes to libxcrypt on the CPU).
using GpuMethods = std::array<bool, std::size_t(Method::other) + 1>;
const GpuMethods& gpu_methods() {
  static const GpuMethods kOnGpu = [] {
    GpuMethods on{};
    for (const MethodModule& mod : method_modules()) on[std::size_t(mod.id)] = mod.gpu != nullptr;
    return on;
  }();
  return kOnGpu;
}
bool on_gpu(Method m) { return gpu_methods()[std::size_t(m)]; }

// libxcrypt's crypt_rn on `threads` threads over jobs 0 .. count - 1: job(k) is job k (a
// CryptJob), put(k, result) takes what crypt_rn made of it (nullptr or a string starting with '*'
// when it rejected it; nullptr, without a call, for a password check_password rejects). `done`
// counts the jobs finished. Every copy of a password is wiped.
template <class Job, class Put>
void run_libxcrypt(std::size_t count, unsigned threads, std::atomic<std::size_t>& done, Job job, Put put) {
  if (count == 0) return;
  std::atomic<std::size_t> next{0};
  constexpr std::size_t kChunk = 8;
  auto worker = [&] {
    auto data = std::make_unique<crypt_data>();
    char pw[CRYPT_MAX_PASSPHRASE_SIZE];
    std::string setting;
    for (;;) {
      const std::size_t begin = next.fetch_add(kChunk);
      if (begin >= count) break;
      const std::size_t end = std::min(count, begin + kChunk);
      for (std::size_t k = begin; k < end; ++k) {
        const CryptJob j = job(k);
        if (j.password.size() >= sizeof pw || std::memchr(j.password.data(), '\0', j.password.size())) {
          put(k, nullptr);
          continue;
        }
        std::copy(j.password.begin(), j.password.end(), pw);
        pw[j.password.size()] = '\0';
        setting.assign(j.setting);
        put(k, crypt_rn(pw, setting.c_str(), data.get(), int(sizeof(crypt_data))));
        OPENSSL_cleanse(pw, j.password.size() + 1);
      }
      done.fetch_add(end - begin);
    }
    OPENSSL_cleanse(pw, sizeof pw);
    OPENSSL_cleanse(data.get(), sizeof(crypt_data));
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, unsigned((count + kChunk - 1) / kChunk)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

// Waits for `work` (a future), reporting `done` to `progress` every 100 ms and once at the end.
void wait_reporting(std::future<void>& work, const std::atomic<std::size_t>& done, const ProgressFn& progress) {
  while (work.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
    if (progress) progress(done.load());
  work.get();
  if (progress) progress(done.load());
}

// The GPUs of an engine: a Runner each, and the jobs dealt to each.
struct GpuSet {
  std::vector<std::shared_ptr<gpu::Runner>> runners;
  double ready_ms = -1;
  std::mutex m;
  std::vector<std::uint64_t> queued, taken;  // per GPU: jobs dealt and not finished; jobs dealt

  // The GPU that takes a call of `jobs` jobs: the one with the least work queued (the first of
  // equals), so a faster or less busy GPU takes more. Released when the call ends.
  class Lease {
   public:
    Lease(GpuSet& set, std::size_t jobs) : set_(set), jobs_(jobs) {
      std::lock_guard lock(set.m);
      index_ = std::size_t(std::min_element(set.queued.begin(), set.queued.end()) - set.queued.begin());
      set.queued[index_] += jobs;
      set.taken[index_] += jobs;
    }
    ~Lease() {
      std::lock_guard lock(set_.m);
      set_.queued[index_] -= jobs_;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    gpu::Runner& runner() const { return *set_.runners[index_]; }

   private:
    GpuSet& set_;
    std::size_t jobs_, index_ = 0;
  };
};

// The Runners of `gpus` (empty: every visible device), made on a thread each: the contexts and
// self-checks of the devices start at once.
std::shared_ptr<GpuSet> start_gpus(std::vector<int> gpus, std::optional<Method> expected) {
  const auto t0 = std::chrono::steady_clock::now();
  if (gpus.empty()) {
    int count = 0;
    WK_CUDA_CHECK(cudaGetDeviceCount(&count));
    for (int d = 0; d < count; ++d) gpus.push_back(d);
  }
  auto make = [expected](int device) {
    nvtx::Range r("gpu start-up", nvtx::Color::compute, device);
    return expected ? std::make_shared<gpu::Runner>(device, std::span<const Method>(&*expected, 1))
                    : std::make_shared<gpu::Runner>(device);
  };
  auto set = std::make_shared<GpuSet>();
  std::vector<std::future<std::shared_ptr<gpu::Runner>>> starting;
  for (std::size_t i = 1; i < gpus.size(); ++i) starting.push_back(std::async(std::launch::async, make, gpus[i]));
  std::exception_ptr failed;
  try {
    if (!gpus.empty()) set->runners.push_back(make(gpus[0]));
  } catch (...) {
    failed = std::current_exception();
  }
  for (auto& f : starting) {  // every thread joined before anything is thrown
    try {
      set->runners.push_back(f.get());
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  if (set->runners.empty()) throw Error(ErrorCategory::unsupported, "no CUDA device to hash on");
  set->queued.assign(set->runners.size(), 0);
  set->taken.assign(set->runners.size(), 0);
  set->ready_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return set;
}
}  // namespace

struct CryptEngine::Impl {
  Backend backend = Backend::cpu;
  unsigned threads = 1;
  // The GPUs' runners, made on a helper thread (CUDA contexts, known-answer self-checks) while the
  // caller reads its input; crypt() waits for them.
  std::shared_future<std::shared_ptr<GpuSet>> gpu;
  // Waits for the GPU side (nullptr: the CPU backend). Each caller uses its own copy of the shared
  // future (get() on one shared_future object from several threads at once is not safe); a failed
  // start-up is rethrown on every call.
  std::shared_ptr<GpuSet> gpus() const {
    if (!gpu.valid()) return nullptr;
    const auto ready = gpu;
    return ready.get();
  }
};

CryptEngine::CryptEngine(Backend backend, unsigned cpu_threads, std::optional<Method> expected, std::vector<int> gpus)
    : impl_(std::make_unique<Impl>()) {
  impl_->backend = backend;
  impl_->threads = cpu_threads ? cpu_threads : default_threads();
  // Only a method with GPU kernels narrows the start-up check (the others run on the CPU).
  if (expected && !on_gpu(*expected)) expected.reset();
  if (backend == Backend::gpu)
    impl_->gpu = std::async(std::launch::async, [expected, gpus = std::move(gpus)] {
                   nvtx::Range r("hash self-check", nvtx::Color::compute);
                   return start_gpus(gpus, expected);
                 }).share();
}

CryptEngine::~CryptEngine() = default;

Backend CryptEngine::backend() const noexcept { return impl_->backend; }

std::vector<CryptEngine::GpuShare> CryptEngine::gpu_shares() const {
  std::vector<GpuShare> out;
  const std::shared_ptr<GpuSet> set = impl_->gpus();
  if (!set) return out;
  std::lock_guard lock(set->m);
  for (std::size_t i = 0; i < set->runners.size(); ++i) out.push_back({set->runners[i]->device(), set->taken[i]});
  return out;
}

double CryptEngine::gpu_ready_ms() const {
  const std::shared_ptr<GpuSet> set = impl_->gpus();
  return set ? set->ready_ms : -1;
}

void CryptEngine::finish() noexcept {
  if (!impl_->gpu.valid()) return;
  try {
    for (const auto& runner : impl_->gpus()->runners) runner->finish();
  } catch (...) {
    // no runners (their start failed): nothing was queued
  }
}

unsigned CryptEngine::cpu_threads() const noexcept { return impl_->threads; }

void CryptEngine::crypt(std::span<const CryptJob> jobs, std::span<CryptOutcome> out, const ProgressFn& progress) {
  if (out.size() != jobs.size()) throw Error(ErrorCategory::internal, "CryptEngine::crypt: output size differs from input");
  std::vector<std::optional<Setting>> parsed(jobs.size());
  {
    nvtx::Range r("parse settings", nvtx::Color::compute);
    parallel_for(jobs.size(), gpu::kHostGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        out[i] = {};
        if (std::string why = check_password(jobs[i].password); !why.empty()) {
          out[i].error = std::move(why);
          continue;
        }
        SettingParse p = parse_setting(jobs[i].setting);
        if (p.setting) parsed[i] = std::move(p.setting);
        else out[i].error = std::move(p.error);
      }
    });
  }
  // The GPU side, once its start-up has finished (parsing overlapped it).
  const std::shared_ptr<GpuSet> gpus = impl_->gpus();
  std::vector<std::size_t> cpu_jobs, gpu_index;
  const GpuMethods& gpu = gpu_methods();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!parsed[i]) continue;
    (gpus && gpu[std::size_t(parsed[i]->method)] ? gpu_index : cpu_jobs).push_back(i);
  }
  const std::size_t failed_early = jobs.size() - cpu_jobs.size() - gpu_index.size();
  std::atomic<std::size_t> done{failed_early};

  // The CPU share runs on a helper thread while this thread drives the GPU and reports progress.
  std::future<void> cpu_part = std::async(std::launch::async, [&] {
    nvtx::Range r("libxcrypt", nvtx::Color::compute);
    run_libxcrypt(
        cpu_jobs.size(), impl_->threads, done, [&](std::size_t k) { return jobs[cpu_jobs[k]]; },
        [&](std::size_t k, const char* result) {
          CryptOutcome& o = out[cpu_jobs[k]];
          if (result && result[0] != '*') o.hash = result;
          else o.error = kLibxcryptRejected;
        });
  });
  std::exception_ptr gpu_error;
  if (!gpu_index.empty()) {
    try {
      std::vector<gpu::PreparedJob> prepared(gpu_index.size());
      parallel_for(gpu_index.size(), gpu::kHostGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) prepared[k] = {&*parsed[gpu_index[k]], jobs[gpu_index[k]].password};
      });
      std::vector<std::string> hashes(gpu_index.size());
      const GpuSet::Lease lease(*gpus, gpu_index.size());
      lease.runner().run(prepared, hashes, [&](std::size_t n) {
        done.fetch_add(n);
        if (progress) progress(done.load());
      });
      parallel_for(gpu_index.size(), gpu::kHostGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) out[gpu_index[k]].hash = std::move(hashes[k]);
      });
    } catch (...) {
      gpu_error = std::current_exception();
    }
  }
  wait_reporting(cpu_part, done, progress);
  if (gpu_error) std::rethrow_exception(gpu_error);
}

void CryptEngine::crypt_fresh(const FreshJobs& jobs, char* out, std::size_t stride, const ProgressFn& progress) {
  const HashOptions& o = jobs.options;
  const std::size_t record = generated_setting_bytes(o), bytes = crypt_string_bytes(o), n = jobs.passwords.size();
  if (jobs.settings.size() != record * n)
    throw Error(ErrorCategory::internal, "CryptEngine::crypt_fresh: the settings differ from the passwords in count");
  if (stride < bytes) throw Error(ErrorCategory::internal, "CryptEngine::crypt_fresh: records shorter than a crypt string");
  if (n == 0) return;
  if (const std::shared_ptr<GpuSet> gpus = impl_->gpus()) {
    const GpuSet::Lease lease(*gpus, n);
    std::size_t done = 0;
    lease.runner().run_fresh(o, jobs.settings, jobs.passwords, out, stride, [&](std::size_t more) {
      done += more;
      if (progress) progress(done);
    });
    return;
  }
  // CPU: libxcrypt straight into the records, no object per job (a Setting parsed and a string
  // made per job would hold ~70 MB per slice of 2^18 lines in memory); each result checked to
  // have the one length these options give.
  std::atomic<std::size_t> done{0};
  std::atomic<bool> rejected{false};
  std::future<void> cpu_part = std::async(std::launch::async, [&] {
    nvtx::Range r("libxcrypt", nvtx::Color::compute);
    run_libxcrypt(
        n, impl_->threads, done,
        [&](std::size_t i) { return CryptJob{jobs.settings.substr(i * record, record), jobs.passwords[i]}; },
        [&](std::size_t i, const char* result) {
          if (!result || result[0] == '*' || std::strlen(result) != bytes) rejected = true;
          else
            std::memcpy(out + i * stride, result, bytes);
        });
  });
  wait_reporting(cpu_part, done, progress);
  if (rejected) throw Error(ErrorCategory::internal, "CryptEngine::crypt_fresh: libxcrypt rejected a fresh setting or a password");
}

CrossResult CryptEngine::crypt_cross(const CrossJobs& jobs, const ProgressFn& progress) {
  const std::span<const std::string_view> hashes = jobs.hashes;
  const CandidateRun& run = jobs.run;
  if (!run.empty() && (run.count > UINT32_MAX || (run.mask && run.mask->makes_nul())))
    throw Error(ErrorCategory::internal, "crypt_cross: a run of 2^32 candidates or more, or a mask with NUL bytes");
  CrossResult result;
  result.errors.assign(hashes.size(), {});
  // The candidates crypt(3) takes as strings, checked on all cores: the caller's (audit's are
  // all usable), or those kept (cand_index: their numbers; empty when every one is kept). A
  // run's are made as strings below only for the methods that take no crossed batches.
  std::span<const std::string_view> candidates;
  std::vector<std::string_view> kept;
  std::vector<std::uint32_t> cand_index;
  if (run.empty()) {
    const std::span<const std::string_view> given = jobs.candidates;
    std::atomic<bool> all_taken{true};
    parallel_for(given.size(), 1 << 14, [&](std::size_t b, std::size_t e) {
      for (std::size_t c = b; c < e; ++c)
        if (!check_password(given[c]).empty()) all_taken = false;
    });
    if (!all_taken) {
      for (std::size_t c = 0; c < given.size(); ++c)
        if (check_password(given[c]).empty()) {
          kept.push_back(given[c]);
          cand_index.push_back(std::uint32_t(c));
        }
    }
    candidates = all_taken ? given : std::span<const std::string_view>(kept);
  }
  std::vector<std::optional<Setting>> parsed(hashes.size());
  parallel_for(hashes.size(), 256, [&](std::size_t begin, std::size_t end) {
    for (std::size_t a = begin; a < end; ++a) {
      SettingParse p = parse_setting(hashes[a]);
      if (p.setting) parsed[a] = std::move(p.setting);
      else result.errors[a] = std::move(p.error);
    }
  });
  const std::shared_ptr<GpuSet> gpus = impl_->gpus();
  // On the GPU, per method: crossed on the device (md5crypt, sha-crypt), else a job per pair
  // sharing the account's parsed setting. The rest (no GPU, or no kernels) on libxcrypt.
  std::vector<std::vector<std::uint32_t>> crossed(std::size_t(Method::other) + 1), paired(crossed.size());
  std::vector<std::uint32_t> cpu;
  for (std::size_t a = 0; a < hashes.size(); ++a) {
    if (!parsed[a]) continue;
    const MethodModule* mod = find_module(parsed[a]->method);
    if (!gpus || !mod || !mod->gpu) {
      cpu.push_back(std::uint32_t(a));
    } else if (gpu::takes_crossed(mod->id)) {
      // The device compares the hash characters after the setting's prefix.
      const std::string& prefix = parsed[a]->prefix;
      if (hashes[a].size() == prefix.size() + std::size_t(mod->hash_chars) && hashes[a].starts_with(prefix))
        crossed[std::size_t(mod->id)].push_back(std::uint32_t(a));
      // else no pair can match: the account's pairs count as done at once
    } else {
      paired[std::size_t(mod->id)].push_back(std::uint32_t(a));
    }
  }
  std::vector<std::string> run_text;
  const bool strings_needed = !cpu.empty() || std::any_of(paired.begin(), paired.end(), [](const auto& g) { return !g.empty(); });
  if (!run.empty() && strings_needed) {
    run_text.resize(std::size_t(run.count));
    std::vector<char> made(run_text.size(), 0);
    parallel_for(run_text.size(), 4096, [&](std::size_t b, std::size_t e) {
      for (std::size_t c = b; c < e; ++c) made[c] = run.get(c, run_text[c]);
    });
    const bool all_made = std::all_of(made.begin(), made.end(), [](char x) { return x != 0; });
    for (std::size_t c = 0; c < run_text.size(); ++c)
      if (made[c]) {
        kept.push_back(run_text[c]);
        if (!all_made) cand_index.push_back(std::uint32_t(c));
      }
    candidates = kept;
  }
  // Candidates per account: the run's on the device (crossed), the strings elsewhere.
  const std::size_t m = candidates.size(), m_crossed = run.empty() ? m : std::size_t(run.count);
  std::size_t tried = cpu.size(), as_strings = cpu.size();
  for (const auto& group : crossed) tried += group.size();
  for (const auto& group : paired) {
    tried += group.size();
    as_strings += group.size();
  }
  // Pairs done at once: those of accounts not tried, and of a run's candidates a rule rejected.
  std::atomic<std::size_t> done{(hashes.size() - tried) * m_crossed + (run.empty() ? 0 : as_strings * (m_crossed - m))};
  std::mutex found_mutex;
  // c: a string's number in `candidates`, or (crossed) the candidate's number as the caller's.
  auto found = [&](std::uint32_t a, std::uint32_t c, bool crossed_number = false) {
    std::lock_guard lock(found_mutex);
    result.matches.emplace_back(a, cand_index.empty() || crossed_number ? c : cand_index[c]);
  };
  const auto cpu_rejected = std::make_unique<std::atomic<bool>[]>(cpu.size());
  std::future<void> cpu_part = std::async(std::launch::async, [&] {
    nvtx::Range r("libxcrypt", nvtx::Color::compute);
    run_libxcrypt(
        cpu.size() * m, impl_->threads, done,
        [&](std::size_t k) { return CryptJob{hashes[cpu[k / m]], candidates[k % m]}; },
        [&](std::size_t k, const char* out) {
          const std::uint32_t a = cpu[k / m];
          if (!out || out[0] == '*') cpu_rejected[k / m] = true;  // the candidates were checked: the setting
          else if (constant_time_equal(out, hashes[a])) found(a, std::uint32_t(k % m));
        });
  });
  std::exception_ptr gpu_error;
  try {
    auto report = [&](std::size_t more) {
      done.fetch_add(more);
      if (progress) progress(done.load());
    };
    for (std::size_t id = 0; id < crossed.size(); ++id) {
      const std::vector<std::uint32_t>& group = crossed[id];
      if (group.empty() || m_crossed == 0) continue;
      std::vector<const Setting*> settings;
      std::vector<std::string_view> expected;
      for (const std::uint32_t a : group) {
        settings.push_back(&*parsed[a]);
        expected.push_back(hashes[a].substr(parsed[a]->prefix.size()));
      }
      std::vector<std::pair<std::uint32_t, std::uint32_t>> matches;
      const GpuSet::Lease lease(*gpus, group.size() * m_crossed);
      lease.runner().run_cross(Method(id), settings, expected, candidates, run, matches, report);
      for (const auto& [a, c] : matches) found(group[a], c, !run.empty());
    }
    for (const std::vector<std::uint32_t>& group : paired) {
      if (group.empty() || m == 0) continue;
      std::vector<gpu::PreparedJob> pairs(group.size() * m);
      parallel_for(pairs.size(), gpu::kHostGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) pairs[k] = {&*parsed[group[k / m]], candidates[k % m]};
      });
      std::vector<std::string> out(pairs.size());
      const GpuSet::Lease lease(*gpus, pairs.size());
      lease.runner().run(pairs, out, report);
      for (std::size_t k = 0; k < pairs.size(); ++k)
        if (constant_time_equal(out[k], hashes[group[k / m]])) found(group[k / m], std::uint32_t(k % m));
    }
  } catch (...) {
    gpu_error = std::current_exception();
  }
  wait_reporting(cpu_part, done, progress);
  for (std::string& c : run_text) wipe(c);
  if (gpu_error) std::rethrow_exception(gpu_error);
  for (std::size_t k = 0; k < cpu.size(); ++k)
    if (cpu_rejected[k]) result.errors[cpu[k]] = kLibxcryptRejected;
  std::sort(result.matches.begin(), result.matches.end());
  return result;
}

}  // namespace wk::hash
