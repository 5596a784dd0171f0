#pragma once
// The GPU side of CryptEngine (plain header: no CUDA types beyond the runtime API).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wk/hash/candidates.hpp"
#include "wk/hash/setting.hpp"

namespace wk::hash::gpu {

class DeviceBatch;

// Host loops over a batch's jobs (parse, gather, pack, results) run on all cores in chunks of
// this many jobs.
constexpr std::size_t kHostGrain = 8192;

struct PreparedJob {
  const Setting* setting;     // parsed, method md5crypt / sha256crypt / sha512crypt / bcrypt
  std::string_view password;  // checked: <= 511 bytes, no NUL
};

class Runner {
 public:
  // Runs on CUDA device `device`: every call makes it the calling thread's current device. Sets up
  // the device's memory pool and queues the known-answer self-check of `check_now` (empty: every
  // GPU method) on the device. A method not queued here is queued before its first batch is
  // packed. No batch of a method runs before its check has passed (each device checks its own).
  explicit Runner(int device, std::span<const Method> check_now = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  // out[i] = the crypt string of jobs[i]. progress(n): n more jobs finished. Throws
  // wk::Error{internal} when the self-check of a method in `jobs` fails.
  void run(std::span<const PreparedJob> jobs, std::span<std::string> out, const std::function<void(std::size_t)>& progress);
  // Fresh settings of one HashOptions as fixed-size records (generate_settings_into), passwords
  // checked: job i's crypt string to out + i * stride (CryptEngine::crypt_fresh).
  void run_fresh(const HashOptions& options, std::string_view settings, std::span<const std::string_view> passwords,
                 char* out, std::size_t stride, const std::function<void(std::size_t)>& progress);
  // Accounts of one method whose batches take crossed jobs (GpuMethod::crossed) crossed with
  // candidates (checked), or with a run of candidates when `run` is not empty (made on the
  // device; `candidates` unused): the (account, candidate) pairs whose hash characters equal
  // expected[account], sorted, into `matches`; compared on the device. progress(n): n more pairs
  // (a run's candidates that a rule rejects count as done).
  void run_cross(Method method, std::span<const Setting* const> accounts, std::span<const std::string_view> expected,
                 std::span<const std::string_view> candidates, const CandidateRun& run,
                 std::vector<std::pair<std::uint32_t, std::uint32_t>>& matches,
                 const std::function<void(std::size_t)>& progress);
  // Waits for the device (the wipes finished batches queued: CryptEngine::finish).
  void finish() noexcept;
  int device() const noexcept { return device_; }

 private:
  int device_ = 0;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  // Runs one batch's launches in its turn on the GPU and waits for them; progress as in run().
  void run_batch(DeviceBatch& batch, cudaStream_t stream, std::size_t jobs, const std::function<void(std::size_t)>& progress);
};

}  // namespace wk::hash::gpu
