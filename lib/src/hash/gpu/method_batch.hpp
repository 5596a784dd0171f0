#pragma once
// What DeviceBatch (device_batch.cpp) shares with the device side of each method: the jobs as
// they come (JobSource), the state every batch has (BatchCore: stream, packed order, pinned
// staging, the output slots), staging helpers, the interface of a method's device batch
// (MethodBatch) and the GPU part of a method module (GpuMethod). Plain header: no kernel code.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "crypt_launch.hpp"
#include "pinned_pool.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

namespace wk::hash::gpu {

// Where a batch's jobs come from: a parsed Setting per job, fixed-size records of fresh settings
// of one HashOptions (wk-hash hash), read in place -- no object per job --, or accounts crossed
// with candidates (audit): job a * candidates() + c in the caller's numbering is candidate c
// (passwords[c], or the run's candidate c) under accounts[a], and the device batch makes the pairs
// itself (GpuMethod::crossed).
struct JobSource {
  Method method = Method::other;
  std::span<const std::string_view> passwords;
  std::span<const Setting* const> settings;  // parsed settings; empty for records
  std::span<const Setting* const> accounts;  // crossed: the accounts' parsed settings
  CandidateRun run;                          // crossed: the candidates, when not `passwords`
  std::string_view records;                  // records: passwords.size() * record_bytes bytes
  std::size_t record_bytes = 0, salt_at = 0, salt_chars = 0;
  std::uint32_t rounds = 0;  // records: every job's round count (bcrypt: the cost)
  char variant = 0;          // records: every job's variant letter (bcrypt)

  bool crossed() const noexcept { return !accounts.empty(); }
  std::size_t candidates() const noexcept { return run.empty() ? passwords.size() : std::size_t(run.count); }
  std::size_t size() const noexcept { return crossed() ? accounts.size() * candidates() : passwords.size(); }
  bool parsed() const noexcept { return !settings.empty() || records.empty(); }
  // The salt's characters as the setting has them (md5crypt, sha-crypt: the salt used; records:
  // the salt_chars characters at salt_at).
  std::string_view salt(std::size_t i) const {
    return parsed() ? std::string_view(settings[i]->salt) : records.substr(i * record_bytes + salt_at, salt_chars);
  }
  std::uint32_t rounds_of(std::size_t i) const { return parsed() ? settings[i]->rounds : rounds; }
  char variant_of(std::size_t i) const { return parsed() ? settings[i]->bcrypt_variant : variant; }
};

// The state of one DeviceBatch that its method's device side reads and fills.
struct BatchCore {
  Method method = Method::other;
  Variant variant = Variant::reference;
  cudaStream_t stream = nullptr;  // the batch's stream: uploads, allocations, wipes
  std::size_t n = 0;
  PinnedPool* pool = nullptr;
  std::vector<std::uint32_t> order;    // order[p] = input index of the job at packed position p (pack)
  PinnedBuffer<std::uint8_t> staging;  // the packed jobs (pack); DeviceBatch wipes it
  DeviceBuffer<char> d_out;            // out_stride bytes per job in packed order: the hash characters
  // Crossed batches: the account and candidate (the caller's numbering) of each packed job, two
  // words each, written on the device by pack.
  DeviceBuffer<std::uint32_t> d_pair;
  int out_stride = detail::kOutStride;
  PinnedBuffer<std::uint8_t> pinned(std::size_t bytes) {
    return pool ? pool->take(bytes) : PinnedBuffer<std::uint8_t>(std::max<std::size_t>(1, bytes));
  }
};

// Host staging for several device arrays in one pinned buffer (one allocation, wiped once).
struct Staging {
  std::vector<std::pair<std::size_t, std::size_t>> parts;  // offset, bytes
  std::size_t total = 0;
  std::size_t add(std::size_t bytes) {
    total = (total + 15) & ~std::size_t(15);
    parts.emplace_back(total, bytes);
    total += bytes;
    return parts.size() - 1;
  }
};

template <class T>
void upload(DeviceBuffer<T>& dst, const PinnedBuffer<std::uint8_t>& staging, const Staging& layout, std::size_t part,
            cudaStream_t stream) {
  const auto [off, bytes] = layout.parts[part];
  dst = DeviceBuffer<T>(std::max<std::size_t>(1, bytes / sizeof(T)), stream);
  if (bytes) WK_CUDA_CHECK(cudaMemcpyAsync(dst.get(), staging.get() + off, bytes, cudaMemcpyHostToDevice, stream));
}

template <class T>
void wipe_device(DeviceBuffer<T>& d, cudaStream_t stream) {
  if (d.get()) cudaMemsetAsync(d.get(), 0, d.bytes(), stream);
}

// The device side of one batch of a method, made by its GpuMethod for a BatchCore that outlives it.
class MethodBatch {
 public:
  virtual ~MethodBatch() = default;
  // Packs the jobs into core.staging in the method's order (core.order), queues their uploads on
  // core.stream and allocates what the launches need. core.d_out exists already. Crossed jobs
  // (only for a GpuMethod with `crossed`): the candidates and accounts are uploaded once each,
  // the per-job arrays and core.d_pair made on the device; core.order stays empty. A run of
  // words through rules makes no jobs of the candidates its rules reject: pack lowers core.n.
  virtual void pack(const JobSource& src) = 0;
  // DeviceBatch::set_launch_limits: each method takes the limit that applies to it (0: default).
  virtual void set_launch_limits(std::uint32_t rounds_per_launch, std::uint64_t iterations_per_launch) = 0;
  // DeviceBatch::run.
  virtual void run(cudaStream_t stream, const std::function<void(double)>& progress,
                   const std::function<void()>& queued) = 0;
  // Queues, on core.stream and after every launch still queued on streams of the method's own,
  // zeroing of each device buffer that held password-derived bytes. Waits for nothing.
  virtual void wipe() noexcept = 0;
};

// A method module's GPU part.
struct GpuMethod {
  std::span<const VariantInfo> variants;  // its rungs
  Variant default_variant;                // the fastest measured (docs/apod/hash.md)
  // Jobs per DeviceBatch in the engine: enough to fill the GPU for a while, bounded in memory.
  std::size_t batch_jobs;
  std::unique_ptr<MethodBatch> (*make_batch)(BatchCore& core);
  bool crossed = false;  // its batches take crossed jobs (the round engine's methods)
};

// The GPU part of a method's module; throws wk::Error{internal} for a method without one.
const GpuMethod& gpu_method(Method m);

}  // namespace wk::hash::gpu
