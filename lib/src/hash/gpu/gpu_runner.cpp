// The GPU side of CryptEngine: jobs grouped by method, computed in DeviceBatches of a size that
// keeps the device busy; a method's batches run only once its known-answer self-check, run on the
// device while its first batch is packed, has passed.
#include "gpu_runner.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "hash/methods/method_module.hpp"
#include "method_batch.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/crypt_gpu.hpp"

// WK_TURN_AT_QUEUED 0 holds the turn until the batch has finished (the measurement of before).
#ifndef WK_TURN_AT_QUEUED
#define WK_TURN_AT_QUEUED 1
#endif

namespace wk::hash::gpu {

namespace {

// Jobs per DeviceBatch: the method module's choice (md5crypt is ~70x faster per hash than
// sha512crypt, so its batches are larger).
std::size_t batch_size(Method m) { return gpu_method(m).batch_jobs; }

// The known-answer vectors of some methods (their modules' self_test), queued on the device at
// construction: one thread's serial hash each (up to ~35 ms for 5000 sha512crypt rounds), all at
// once on a stream each. wait() compares them (the first call waits; later ones return the same
// answer).
class SelfCheck {
 public:
  explicit SelfCheck(std::span<const Method> methods) {
    for (const MethodModule& mod : method_modules()) {
      if (!mod.gpu) continue;
      if (!methods.empty() && std::find(methods.begin(), methods.end(), mod.id) == methods.end()) continue;
      for (const KnownAnswer& k : mod.self_test)
        if (!queue(k)) return;
    }
  }
  SelfCheck(const SelfCheck&) = delete;
  SelfCheck& operator=(const SelfCheck&) = delete;

  // The first mismatch, or an empty string. Not safe from several threads at once.
  // WK_SELF_CHECK_FAULT=1 (tests): every vector fails, as on a device that computes wrong hashes.
  const std::string& wait() {
    if (result_) return *result_;
    result_.emplace();
    const char* fault_env = std::getenv("WK_SELF_CHECK_FAULT");
    const bool fault = fault_env && std::string_view(fault_env) == "1";
    for (const std::unique_ptr<Check>& c : checks_) {
      const KnownAnswer& k = *c->known;
      std::vector<std::string> out;
      c->batch->results(*c->stream, out);
      if (out.size() != 1 || out[0] != k.expected || fault) {
        *result_ = std::string(method_name(c->setting.method)) + " (" + k.setting + "): the device computed " +
                   (out.empty() ? std::string("nothing") : out[0]) + ", expected " + k.expected +
                   (fault ? " (failed on purpose: WK_SELF_CHECK_FAULT=1)" : "");
        break;
      }
    }
    for (const std::unique_ptr<Check>& c : checks_) c->batch.reset();  // its device memory and staging go now
    return *result_;
  }

 private:
  struct Check {
    Setting setting;
    std::optional<Stream> stream;
    std::optional<DeviceBatch> batch;
    const KnownAnswer* known = nullptr;
  };
  std::vector<std::unique_ptr<Check>> checks_;  // not movable (streams, batches): one allocation each
  std::optional<std::string> result_;

  // Queues one vector; false (and the result set) when its setting is rejected.
  bool queue(const KnownAnswer& k) {
    SettingParse p = parse_setting(k.setting);
    if (!p.setting) {
      result_ = std::string("known-answer setting rejected: ") + k.setting;
      return false;
    }
    Check& c = *checks_.emplace_back(std::make_unique<Check>());
    c.known = &k;
    c.setting = std::move(*p.setting);
    // High priority: when batches of other methods are running, the scheduler starts its blocks
    // ahead of their next launches' (it cannot start them before the running ones end).
    c.stream.emplace(Stream::high_priority());
    const Setting* s = &c.setting;
    const std::string_view pw = k.password;
    c.batch.emplace(s->method, std::span<const Setting* const>(&s, 1), std::span<const std::string_view>(&pw, 1),
                    default_variant(s->method), *c.stream);
    c.batch->run(*c.stream);
    return true;
  }
};

}  // namespace

std::string self_check(std::span<const Method> methods) {
  SelfCheck check(methods);
  return check.wait();
}

namespace {
// The methods with GPU kernels, in the method table's order (the order of a call's batches).
const std::vector<Method>& gpu_methods() {
  static const std::vector<Method> kMethods = [] {
    std::vector<Method> out;
    for (const MethodModule& mod : method_modules())
      if (mod.gpu) out.push_back(mod.id);
    return out;
  }();
  return kMethods;
}

std::size_t gpu_method_index(Method m) {
  const std::vector<Method>& all = gpu_methods();
  const auto at = std::find(all.begin(), all.end(), m);
  if (at == all.end()) throw Error(ErrorCategory::internal, "the GPU runner has no kernels for this method");
  return std::size_t(at - all.begin());
}
}  // namespace

struct Runner::Impl {
  PinnedPool pinned;  // staging and result buffers, reused by every batch
  // Each method's known-answer self-check is queued on the device before its first batch is packed
  // (those the caller named at construction: right away, one set for all of them), so that the
  // packing overlaps it; no batch of the method runs before the check has passed (confirm). Run
  // beside the first batches instead, its launches each waited for a whole batch launch to end
  // (a one-wave grid holds every SM until it ends): ~0.4 s, far longer than the packing.
  std::mutex check_mutex;
  // Per method (gpu_method_index): the queued check covering it, and whether it has passed.
  std::vector<std::shared_ptr<SelfCheck>> check = std::vector<std::shared_ptr<SelfCheck>>(gpu_methods().size());
  std::vector<bool> passed = std::vector<bool>(gpu_methods().size(), false);
  void start_check(std::span<const Method> methods) {
    std::lock_guard lock(check_mutex);
    bool queued = true;
    for (Method m : methods) queued = queued && (passed[gpu_method_index(m)] || check[gpu_method_index(m)]);
    if (queued) return;
    const auto c = std::make_shared<SelfCheck>(methods);
    for (Method m : methods)
      if (!check[gpu_method_index(m)]) check[gpu_method_index(m)] = c;
  }
  // Waits for m's check (queued by start_check); throws when the device got a pair wrong, now and
  // at every later call.
  void confirm(Method m) {
    const std::size_t i = gpu_method_index(m);
    std::lock_guard lock(check_mutex);
    if (passed[i]) return;
    nvtx::Range r("self-check wait", nvtx::Color::compute);
    const std::string& mismatch = check[i]->wait();
    if (!mismatch.empty())
      throw Error(ErrorCategory::internal, "GPU known-answer self-check failed, refusing to hash on this device: " + mismatch);
    passed[i] = true;
  }
  // One batch's kernels at a time. Batches of concurrent calls (wk-hash keeps four slices in the
  // engine) would otherwise share the GPU and all finish together at the end, leaving it idle
  // while their results are formatted and the next slices are prepared; taking turns, they finish
  // one after the other and each one's host work overlaps the next one's kernels.
  std::mutex gpu_turn;
};

Runner::Runner(int device, std::span<const Method> check_now) : device_(device) {
  WK_CUDA_CHECK(cudaSetDevice(device));
  impl_ = std::make_unique<Impl>();
  // Batches allocate device memory in stream order (DeviceBuffer(count, stream)); keep what they free in the
  // device's pool for the next batch instead of returning it at every synchronization.
  cudaMemPool_t mem_pool = nullptr;
  WK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&mem_pool, device));
  std::uint64_t keep = UINT64_MAX;
  WK_CUDA_CHECK(cudaMemPoolSetAttribute(mem_pool, cudaMemPoolAttrReleaseThreshold, &keep));
  // The named methods' pairs are queued at once (one set of streams); they run while the first
  // batches are packed.
  impl_->start_check(check_now.empty() ? std::span<const Method>(gpu_methods()) : check_now);
}

Runner::~Runner() {
  (void)cudaSetDevice(device_);  // a check never waited for still holds its streams and batches
  impl_.reset();
}

void Runner::finish() noexcept {
  if (cudaSetDevice(device_) == cudaSuccess) cudaDeviceSynchronize();
}

void Runner::run_batch(DeviceBatch& batch, cudaStream_t stream, std::size_t jobs,
                       const std::function<void(std::size_t)>& progress) {
  std::size_t reported = 0;
  {
    // Batches take turns: the next one queues its launches once all of this one's are queued
    // (not when they have finished), so they fill the SMs this batch's last launches leave
    // idle; this batch, queued first and nearly done, normally still finishes first.
    std::unique_lock turn(impl_->gpu_turn, std::defer_lock);
    {
      nvtx::Range t("gpu turn", nvtx::Color::compute);
      turn.lock();
    }
    batch.run(
        stream,
        [&](double fraction) {
          const std::size_t now = std::size_t(fraction * double(jobs));
          if (progress && now > reported) progress(now - reported);
          reported = std::max(reported, now);
        },
        [&] {
#if WK_TURN_AT_QUEUED
          turn.unlock();
#endif
        });
    if (turn.owns_lock()) turn.unlock();
    nvtx::Range r("gpu wait", nvtx::Color::compute);
    wait_sleeping(stream);  // several batches wait at once: sleeping leaves their cores to the host work
  }
  if (progress && jobs > reported) progress(jobs - reported);
}

void Runner::run(std::span<const PreparedJob> jobs, std::span<std::string> out,
                 const std::function<void(std::size_t)>& progress) {
  WK_CUDA_CHECK(cudaSetDevice(device_));
  // A stream per call: callers may run several calls at once (wk-hash keeps four slices in the
  // engine so one's host work overlaps the other's kernels).
  Stream stream;
  // The jobs of each method, in one pass.
  std::vector<std::vector<std::size_t>> by_method(gpu_methods().size());
  for (std::size_t i = 0; i < jobs.size(); ++i) by_method[gpu_method_index(jobs[i].setting->method)].push_back(i);
  for (Method m : gpu_methods()) {
    const std::vector<std::size_t>& idx = by_method[gpu_method_index(m)];
    if (idx.empty()) continue;
    impl_->start_check(std::span<const Method>(&m, 1));
    const std::size_t per_batch = batch_size(m);
    for (std::size_t begin = 0; begin < idx.size(); begin += per_batch) {
      const std::size_t end = std::min(idx.size(), begin + per_batch);
      std::vector<const Setting*> settings(end - begin);
      std::vector<std::string_view> passwords(end - begin);
      parallel_for(end - begin, kHostGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) {
          settings[k] = jobs[idx[begin + k]].setting;
          passwords[k] = jobs[idx[begin + k]].password;
        }
      });
      nvtx::Range r(method_name(m), nvtx::Color::compute, std::int64_t(begin));
      DeviceBatch batch(m, settings, passwords, default_variant(m), stream, &impl_->pinned);
      impl_->confirm(m);  // the first batch was packed while the check ran
      run_batch(batch, stream, end - begin, progress);
      std::vector<std::string> hashes;
      batch.results(stream, hashes);
      parallel_for(end - begin, kHostGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) out[idx[begin + k]] = std::move(hashes[k]);
      });
    }
  }
}

void Runner::run_cross(Method m, std::span<const Setting* const> accounts, std::span<const std::string_view> expected,
                       std::span<const std::string_view> candidates, const CandidateRun& run,
                       std::vector<std::pair<std::uint32_t, std::uint32_t>>& matches,
                       const std::function<void(std::size_t)>& progress) {
  matches.clear();
  const std::size_t count = run.empty() ? candidates.size() : std::size_t(run.count);
  if (accounts.empty() || count == 0) return;
  WK_CUDA_CHECK(cudaSetDevice(device_));
  impl_->start_check(std::span<const Method>(&m, 1));
  Stream stream;
  // Batches of up to the method's batch size in pairs: all the accounts (up to that many) with as
  // many candidates as fit.
  const std::size_t per_batch = batch_size(m), account_step = std::min(accounts.size(), per_batch);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
  for (std::size_t a0 = 0; a0 < accounts.size(); a0 += account_step) {
    const std::size_t na = std::min(account_step, accounts.size() - a0);
    const std::size_t candidate_step = std::max<std::size_t>(1, per_batch / na);
    for (std::size_t c0 = 0; c0 < count; c0 += candidate_step) {
      const std::size_t nc = std::min(candidate_step, count - c0);
      nvtx::Range r(method_name(m), nvtx::Color::compute, std::int64_t(c0));
      const std::span<const Setting* const> accs = accounts.subspan(a0, na);
      const std::unique_ptr<DeviceBatch> batch =
          run.empty() ? std::make_unique<DeviceBatch>(DeviceBatch::Crossed{}, m, accs, candidates.subspan(c0, nc),
                                                      default_variant(m), stream, &impl_->pinned)
                      : std::make_unique<DeviceBatch>(DeviceBatch::Crossed{}, m, accs, run.part(c0, nc),
                                                      default_variant(m), stream, &impl_->pinned);
      impl_->confirm(m);  // the first batch was packed while the check ran
      run_batch(*batch, stream, na * nc, progress);
      batch->matches(stream, expected.subspan(a0, na), found);
      for (const auto& [a, c] : found) matches.emplace_back(std::uint32_t(a0 + a), std::uint32_t(c0 + c));
    }
  }
  std::sort(matches.begin(), matches.end());
}

void Runner::run_fresh(const HashOptions& options, std::string_view settings, std::span<const std::string_view> passwords,
                       char* out, std::size_t stride, const std::function<void(std::size_t)>& progress) {
  const Method m = options.method;
  const std::size_t record = generated_setting_bytes(options);
  if (settings.size() != record * passwords.size())
    throw Error(ErrorCategory::internal, "Runner::run_fresh: the fresh settings differ from the passwords in count");
  if (passwords.empty()) return;
  WK_CUDA_CHECK(cudaSetDevice(device_));
  impl_->start_check(std::span<const Method>(&m, 1));
  Stream stream;
  const std::size_t per_batch = batch_size(m);
  for (std::size_t begin = 0; begin < passwords.size(); begin += per_batch) {
    const std::size_t count = std::min(passwords.size() - begin, per_batch);
    nvtx::Range r(method_name(m), nvtx::Color::compute, std::int64_t(begin));
    // The batch reads the records and passwords in place: no gather, no Setting per job.
    DeviceBatch batch(options, settings.substr(begin * record, count * record), passwords.subspan(begin, count),
                      default_variant(m), stream, &impl_->pinned);
    impl_->confirm(m);  // the first batch was packed while the check ran
    run_batch(batch, stream, count, progress);
    batch.results_into(stream, out + begin * stride, stride);
  }
}

}  // namespace wk::hash::gpu
