#pragma once
// The GPU crypt engine's lower level, for the benchmark and the GPU tests: a batch of jobs of one
// method uploaded once, computed on the device by a chosen rung of the APOD ladder, read back.
// CryptEngine (crypt.hpp) is the interface for everything else.
//
// The ladder (docs/apod/hash.md), md5crypt / sha256crypt / sha512crypt:
//   reference       the host code ported unchanged: a byte-streaming hasher per round in local
//                   memory, jobs in input order (init / loop / final launches)
//   blocks_unsorted rounds assembled as whole message blocks in registers from per-password
//                   templates (8 layouts, in global memory), register-resident state, unrolled
//                   compression; jobs in input order (warps mix lengths)
//   blocks_global   the same with jobs grouped by (password length, salt length), so warps share
//                   the layout offsets and branch uniformly
//   blocks_shared   the templates of short passwords in shared memory (default)
// bcrypt:
//   reference       S-boxes in thread-private local memory
//   shared          S-boxes in shared memory, interleaved across the 8 threads of a block so
//                   every lookup of a warp is bank-conflict-free
//   shared16        the same with 16 threads per block
//   shared_bytes    `shared` with each lookup one byte extract + one multiply-add from a
//                   per-thread byte base (half the address instructions on the critical chain)
//   packed          byte-offset lookups in blocks of 14 threads: 4 blocks fill the 228 KB of an
//                   SM with 56 passwords' S-boxes, bytes extracted with PRMT (default)
// yescrypt and scrypt (docs/apod/yescrypt.md):
//   reference       one thread per hash, the host code unchanged: V, the block and the S-boxes in
//                   global memory (every parameter; scrypt's only rung)
//   lanes           yescrypt's RW mode on 4 threads per hash, one per pwxform gather lane: the
//                   S-boxes and the block in shared memory, V read and written as 64-byte rows,
//                   V_j loaded ahead of the pwxform chain (default)
//   lanes (scrypt)  classic scrypt, r = 1, 2, 4 or 8, on 4 threads per hash: the block in
//                   registers, Salsa20/8's rows exchanged by warp shuffles (default)
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wk/core/buffer.hpp"
#include "wk/hash/candidates.hpp"
#include "wk/hash/setting.hpp"

namespace wk::hash::gpu {

enum class Variant { reference, blocks_unsorted, blocks_global, blocks_shared, bcrypt_shared, bcrypt_shared16,
                     bcrypt_shared_bytes, bcrypt_packed,
                     yescrypt_lanes, scrypt_lanes };

struct VariantInfo {
  Variant variant;
  const char* name;
  const char* description;
};

// The rungs that apply to a method with GPU kernels (md5crypt, sha256crypt, sha512crypt, bcrypt:
// every method of computed_methods()); none for another.
std::span<const VariantInfo> variants(Method method);
// The fastest rung measured (docs/apod/hash.md); the engine's choice. Throws wk::Error{internal}
// for a method without GPU kernels.
Variant default_variant(Method method);
// Whether the method's batches take accounts crossed with candidates (DeviceBatch::Crossed):
// md5crypt, sha256crypt, sha512crypt.
bool takes_crossed(Method method) noexcept;
// A name from variants(method); throws wk::Error{usage} otherwise.
Variant parse_variant(Method method, std::string_view name);
const char* variant_name(Variant v) noexcept;

// Pinned host buffers kept for reuse by the batches of one engine (the engine's own; a batch made
// without one allocates and frees its buffers itself).
class PinnedPool;

// Jobs of one method, packed, uploaded and computed on the device. Every buffer that held password
// bytes or values derived from them (host staging, device passwords, P/S sequences, templates,
// round state) is wiped when the batch is destroyed.
class DeviceBatch {
 public:
  // settings[i] must be parsed and of `method`; passwords[i] checked (check_password).
  // Asynchronous on `stream` (uploads from pinned staging; device memory from the stream-ordered
  // allocator). `pool`: where the pinned buffers come from and go back to (none: allocated and
  // freed by the batch). Every later call must use the same stream.
  DeviceBatch(Method method, std::span<const Setting* const> settings, std::span<const std::string_view> passwords,
              Variant variant, cudaStream_t stream, PinnedPool* pool = nullptr);
  // Jobs of fresh settings of one HashOptions (wk-hash hash), with no Setting per job: `settings`
  // holds passwords.size() records of generated_setting_bytes(options) bytes, as
  // generate_settings_into writes them (they are read here only: the batch keeps no pointer).
  DeviceBatch(const HashOptions& options, std::string_view settings, std::span<const std::string_view> passwords,
              Variant variant, cudaStream_t stream, PinnedPool* pool = nullptr);
  // Accounts crossed with candidates (the audit's pairs), for a method whose kernels take them
  // (md5crypt, sha256crypt, sha512crypt): accounts.size() * candidates.size() jobs, made on the
  // device from one upload of each candidate and each account's salt and rounds. accounts[a]
  // parsed, of `method`; candidates checked. Only matches() reads their results.
  struct Crossed {};
  DeviceBatch(Crossed, Method method, std::span<const Setting* const> accounts, std::span<const std::string_view> candidates,
              Variant variant, cudaStream_t stream, PinnedPool* pool = nullptr);
  // The same with a run of candidates made on the device, candidate j the run's candidate j: a
  // mask's (only its charsets are uploaded) or words through rules (the words and rules are
  // uploaded; the rules are applied on the device, and a candidate a rule rejects makes no jobs,
  // so size() may be less than accounts x count).
  DeviceBatch(Crossed, Method method, std::span<const Setting* const> accounts, const CandidateRun& candidates,
              Variant variant, cudaStream_t stream, PinnedPool* pool = nullptr);
  ~DeviceBatch();
  DeviceBatch(const DeviceBatch&) = delete;
  DeviceBatch& operator=(const DeviceBatch&) = delete;

  std::size_t size() const noexcept;
  // Work per launch: sha-crypt / md5crypt rounds (default 1000), bcrypt iterations (default 0:
  // about 2^22 password-iterations per launch). Tests set small values to cross many launch
  // boundaries, where the round state is carried in global memory.
  void set_launch_limits(std::uint32_t rounds_per_launch, std::uint64_t bcrypt_iterations_per_launch);
  // Runs every launch (set-up, the round loop in bounded launches, final encoding); md5crypt and
  // sha-crypt split the jobs into parts whose launches run on streams of their own, forked from
  // and joined back into `stream`. Asynchronous unless `progress` is given: then it reports the
  // fraction of work done (0..1) as each step of launches finishes (a few steps stay queued
  // ahead, so the GPU does not wait) and returns when the last is reported. May run again (the
  // benchmark times repeats); the set-up re-reads the passwords, kept on the device until the
  // batch is destroyed. `queued`, when given, is called once every launch of the batch is queued
  // (before run waits for the last steps): a caller whose batches take turns on the GPU can let
  // the next batch queue its launches behind these, so the GPU does not drain between batches.
  void run(cudaStream_t stream, const std::function<void(double)>& progress = {},
           const std::function<void()>& queued = {});
  // Copies the results back (synchronizes `stream`); out[i] is the crypt string of job i.
  void results(cudaStream_t stream, std::vector<std::string>& out);
  // The same into fixed-size records, no string per job: job i's crypt string at out + i * stride
  // (stride >= the longest crypt string of the batch; crypt_string_bytes(options) for a batch of
  // fresh settings); the bytes after it in each record are left as they are.
  void results_into(cudaStream_t stream, char* out, std::size_t stride);
  // A crossed batch's matches, compared on the device: the (account, candidate) pairs whose hash
  // characters equal expected[account] (the account's hash after its setting's prefix: the
  // method's hash_chars characters), sorted. Synchronizes `stream`.
  void matches(cudaStream_t stream, std::span<const std::string_view> expected,
               std::vector<std::pair<std::uint32_t, std::uint32_t>>& out);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Runs the known-answer vectors of `methods` (empty: every method with GPU kernels) -- those of
// each method's module, libxcrypt's answers -- through DeviceBatch with each method's default
// rung, all at once (a stream each), and returns a description of the first mismatch, or an
// empty string. WK_SELF_CHECK_FAULT=1 (tests) makes every vector fail.
std::string self_check(std::span<const Method> methods = {});

}  // namespace wk::hash::gpu
