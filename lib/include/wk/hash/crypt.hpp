#pragma once
// crypt(3) over many passwords: the batch engine behind wk-hash.
//
//   GPU backend   md5crypt, sha256crypt, sha512crypt, bcrypt, yescrypt and scrypt on the GPUs
//                 (batches grouped by password length, init / loop / final launches; each call on
//                 the least busy GPU); every other method on the CPU through libxcrypt.
//   CPU backend   libxcrypt's crypt_rn on all cores, every method.
//
// Output is byte-identical to libxcrypt's crypt_rn for every setting and password it accepts;
// what it rejects is reported per job. Password bytes given to the engine are wiped from every
// buffer it copied them into (host, pinned, device) before it returns.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wk/core/backend.hpp"
#include "wk/hash/candidates.hpp"
#include "wk/hash/setting.hpp"

namespace wk::hash {

struct CryptJob {
  std::string_view setting;   // a setting or a whole crypt string
  std::string_view password;  // 0..511 bytes, no NUL
};

struct CryptOutcome {
  std::string hash;   // the crypt string when ok
  std::string error;  // why not (setting or password rejected); never contains the password
  bool ok() const { return error.empty(); }
};

// Called from the calling thread with the number of jobs finished so far.
using ProgressFn = std::function<void(std::size_t done)>;

// Jobs that all take fresh settings of one HashOptions (wk-hash hash), with no object per job on
// either side: the settings as fixed-size records, the crypt strings written into fixed-size
// records of the caller's buffer (a few hundred nanoseconds of strings and parsing per job
// otherwise: md5crypt's kernel does 70 M hashes/s).
struct FreshJobs {
  HashOptions options;                          // checked (check_hash_options)
  std::string_view settings;                    // passwords.size() records of generated_setting_bytes(options),
                                                // as generate_settings_into writes them
  std::span<const std::string_view> passwords;  // each accepted by check_password
};

// Accounts crossed with candidates (an audit's slice): whether crypt(candidate, hash) == hash for
// every pair, with no object per pair. Each hash is parsed once; on the GPU, md5crypt's and
// sha-crypt's pairs are made and compared on the device, and only the matches come back.
// The candidates are strings, or a run (`run` not empty; `candidates` then unused): candidate j
// is the run's candidate j -- a mask's, or a word through a rule --, made on the device for
// md5crypt and sha-crypt (nothing per candidate on the host) and as strings for the other
// methods. A run's candidate that a rule rejects matches nothing.
struct CrossJobs {
  std::span<const std::string_view> hashes;      // crypt strings, each its own setting
  std::span<const std::string_view> candidates;  // one check_password rejects matches nothing
  CandidateRun run;                              // count < 2^32
};
struct CrossResult {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> matches;  // (hash, candidate), sorted
  std::vector<std::string> errors;  // per hash: why its setting was rejected ("": it was tried)
};

class CryptEngine {
 public:
  // GPU: starts the device side on a helper thread and returns: on every GPU of `gpus` at once
  // (CUDA device ids; empty: every visible device) a CUDA context and the known-answer self-check
  // of `expected` -- the one method the caller's jobs use, when it knows it -- or else of every
  // GPU method, run on the device while its first batch is packed. crypt() waits for the start
  // and throws wk::Error{internal} when a device gave a wrong answer, before any batch of that
  // method runs there. A method not checked at start-up is checked while its first GPU batch is
  // packed. Each call's GPU jobs go to the GPU with the least work queued, so a faster or less
  // busy GPU takes more calls. threads = 0: all cores.
  explicit CryptEngine(Backend backend, unsigned cpu_threads = 0, std::optional<Method> expected = std::nullopt,
                       std::vector<int> gpus = {});
  ~CryptEngine();
  CryptEngine(const CryptEngine&) = delete;
  CryptEngine& operator=(const CryptEngine&) = delete;

  // The GPUs in use and the GPU jobs each has taken so far (empty with the CPU backend); waits for
  // the start. Throws what the start threw.
  struct GpuShare {
    int device = 0;
    std::uint64_t jobs = 0;
  };
  std::vector<GpuShare> gpu_shares() const;
  // Milliseconds from construction until every GPU had its context and its check queued (-1: no
  // GPU side); waits for the start.
  double gpu_ready_ms() const;
  Backend backend() const noexcept;
  unsigned cpu_threads() const noexcept;
  // Waits until the device has done what finished batches left queued (the wipes of their device
  // buffers, which they do not wait for). A process that ends without destroying the engine
  // (wk-hash's _exit) calls it first.
  void finish() noexcept;

  // out.size() == jobs.size(); out[i] is the outcome of jobs[i]. Several threads may call it at
  // once on one engine (each GPU call uses its own stream): one call's host work then overlaps
  // another's kernels.
  void crypt(std::span<const CryptJob> jobs, std::span<CryptOutcome> out, const ProgressFn& progress = {});

  // Job i's crypt string -- crypt_string_bytes(jobs.options) bytes, byte-identical to crypt_rn's --
  // to out + i * stride (stride >= crypt_string_bytes; the bytes after it in each record are left
  // as they are). `out` holds passwords.size() * stride bytes. Thread-safe like crypt(). A fresh
  // setting cannot be rejected: a failure throws wk::Error{internal}.
  void crypt_fresh(const FreshJobs& jobs, char* out, std::size_t stride, const ProgressFn& progress = {});

  // Every hash crossed with every candidate; progress counts pairs. Thread-safe like crypt().
  CrossResult crypt_cross(const CrossJobs& jobs, const ProgressFn& progress = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One hash through libxcrypt's crypt_rn (the reference); nullopt when it rejects the input.
std::optional<std::string> crypt_libxcrypt(std::string_view setting, std::string_view password);

// One hash through warpkit's own host/device code compiled for the host (what CI tests against
// libxcrypt); the setting must be parsed and its method one of the four. Throws wk::Error{usage}
// for a password check_password rejects.
std::string crypt_warpkit_host(const Setting& setting, std::string_view password);

// Constant-time equality (OpenSSL's CRYPTO_memcmp over the longer length; lengths are public).
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

// Overwrites the bytes (OPENSSL_cleanse): for password buffers.
void wipe(void* data, std::size_t bytes) noexcept;
inline void wipe(std::string& s) noexcept { wipe(s.data(), s.size()); }
// The same in 1 MiB pieces on all cores (parallel_for), for buffers of many MB: a batch's pinned
// staging, wk-hash's whole input. On the calling thread alone if the pool cannot take it.
void wipe_on_all_cores(void* data, std::size_t bytes) noexcept;

}  // namespace wk::hash
