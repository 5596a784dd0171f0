// yescrypt's and scrypt's device batch: every job's password and KDF salt packed in one byte blob
// with its parameters (kernels: yescrypt.cu). The scratch of the hashes in flight -- V alone is
// 16 MiB per hash at yescrypt's default cost -- is allocated when the batch runs, sized to the
// device memory free then, zeroed and released when its launch has been queued.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "hash/gpu/method_batch.hpp"
#include "hash/hd/yescrypt.hpp"
#include "wk/core/nvtx.hpp"
#include "yescrypt_batch.hpp"
#include "yescrypt_launch.hpp"
#include "yescrypt_text.hpp"

namespace wk::hash::gpu {

using namespace detail;

namespace {

namespace hy = hd::yescrypt;

// Device memory a batch may take for scratch: this share of what is free (the rest for other
// batches' buffers, the runtime and other processes).
constexpr double kScratchShare = 0.8;

class YescryptMethodBatch final : public MethodBatch {
 public:
  explicit YescryptMethodBatch(BatchCore& core) : core_(core) {}
  void pack(const JobSource& src) override;
  void set_launch_limits(std::uint32_t, std::uint64_t) override {}
  void run(cudaStream_t stream, const std::function<void(double)>& progress, const std::function<void()>& queued) override;
  void wipe() noexcept override { wipe_device(d_bytes_, core_.stream); }

 private:
  BatchCore& core_;
  DeviceBuffer<std::uint8_t> d_bytes_;
  DeviceBuffer<YescryptJob> d_jobs_;
  YescryptSlotWords slot_;
  std::uint32_t max_r_ = 0;
  bool lanes_ok_ = true;         // every job fits the lanes kernel
  bool scrypt_lanes_ok_ = true;  // every job fits the scrypt_lanes kernel
};

void YescryptMethodBatch::pack(const JobSource& src) {
  const std::size_t n = core_.n;
  core_.order.resize(n);
  for (std::size_t i = 0; i < n; ++i) core_.order[i] = std::uint32_t(i);
  std::vector<YescryptJob> jobs(n);
  std::vector<Setting> fresh;  // records: each read back from its text (same parameters, own salt)
  if (!src.parsed()) fresh.resize(n);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Setting* s = nullptr;
    if (src.parsed()) {
      s = src.settings[i];
    } else {
      if (!yescrypt_text::read_setting(src.records.substr(i * src.record_bytes, src.record_bytes), fresh[i]))
        throw Error(ErrorCategory::internal, "DeviceBatch: a fresh yescrypt setting warpkit does not compute");
      s = &fresh[i];
    }
    const YescryptParams& p = s->yescrypt;
    YescryptJob& j = jobs[i];
    j.pw_off = std::uint32_t(bytes);
    j.pw_len = std::uint32_t(src.passwords[i].size());
    j.salt_off = std::uint32_t(bytes + j.pw_len);
    j.salt_len = std::uint32_t(s->salt.size());
    j.flags = p.flags;
    j.n_log2 = p.n_log2;
    j.r = p.r;
    j.p = p.p;
    j.t = p.t;
    bytes += j.pw_len + j.salt_len;
    hy::Params P = yescrypt_text::kdf_params(p);
    const hy::ScratchWords w = hy::scratch_words(P);
    slot_.V = std::max(slot_.V, w.V);
    slot_.B = std::max(slot_.B, w.B);
    slot_.XY = std::max<std::size_t>(slot_.XY, std::max<std::size_t>(w.XY, 64));
    slot_.S = std::max(slot_.S, w.S);
    slot_.pwx = std::max(slot_.pwx, (sizeof(hy::Pwx) * p.p + 3) / 4);
    max_r_ = std::max(max_r_, p.r);
    lanes_ok_ = lanes_ok_ && yescrypt_lanes_take(j);
    scrypt_lanes_ok_ = scrypt_lanes_ok_ && scrypt_lanes_take(j);
  }
  // Every part 16-byte aligned (vector accesses; the Pwx records hold pointers).
  for (std::size_t* words : {&slot_.V, &slot_.B, &slot_.XY, &slot_.S, &slot_.pwx}) *words = (*words + 3) & ~std::size_t(3);
  Staging lay;
  const std::size_t p_jobs = lay.add(n * sizeof(YescryptJob)), p_bytes = lay.add(bytes);
  core_.staging = core_.pinned(lay.total);
  std::uint8_t* h = core_.staging.get();
  std::memcpy(h + lay.parts[p_jobs].first, jobs.data(), n * sizeof(YescryptJob));
  for (std::size_t i = 0; i < n; ++i) {
    const Setting& s = src.parsed() ? *src.settings[i] : fresh[i];
    std::uint8_t* at = h + lay.parts[p_bytes].first + jobs[i].pw_off;
    std::memcpy(at, src.passwords[i].data(), jobs[i].pw_len);
    std::memcpy(at + jobs[i].pw_len, s.salt.data(), jobs[i].salt_len);
  }
  upload(d_jobs_, core_.staging, lay, p_jobs, core_.stream);
  upload(d_bytes_, core_.staging, lay, p_bytes, core_.stream);
}

void YescryptMethodBatch::run(cudaStream_t stream, const std::function<void(double)>& progress,
                              const std::function<void()>& queued) {
  const std::size_t n = core_.n;
  const YescryptKernel kernel = core_.variant == Variant::yescrypt_lanes && lanes_ok_      ? YescryptKernel::lanes
                                : core_.variant == Variant::scrypt_lanes && scrypt_lanes_ok_ ? YescryptKernel::scrypt_lanes
                                                                                             : YescryptKernel::reference;
  YescryptSlotWords slot = slot_;
  if (kernel != YescryptKernel::reference) slot.S = slot.pwx = 0;  // in shared memory / registers, or none
  // Hashes in flight: what fills the device, within the memory free now (the memory pool's
  // reserved but unused bytes count as free: the allocation below takes them first).
  std::size_t free = 0, total = 0;
  WK_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  int device = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  std::uint64_t reserved = 0, used = 0;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
  }
  const double budget = kScratchShare * double(free + (reserved > used ? reserved - used : 0));
  const std::size_t slot_bytes = slot.total() * 4;
  std::size_t slots = std::min<std::size_t>(n, std::size_t(yescrypt_resident_slots(kernel, max_r_)));
  slots = std::min(slots, std::size_t(budget / double(slot_bytes)));
  if (slots == 0) throw Error(ErrorCategory::cuda, "yescrypt: not enough device memory for one hash's scratch");
  DeviceBuffer<std::uint32_t> scratch(slots * slot.total(), stream);
  DeviceBuffer<unsigned> next(1, stream);
  WK_CUDA_CHECK(cudaMemsetAsync(next.get(), 0, sizeof(unsigned), stream));
  YescryptBatch b;
  b.n = int(n);
  b.jobs = d_jobs_.get();
  b.bytes = d_bytes_.get();
  b.scratch = scratch.get();
  b.slot = slot;
  b.slots = int(slots);
  b.next = next.get();
  b.out = core_.d_out.get();
  b.out_stride = core_.out_stride;
  {
    nvtx::Range r("yescrypt", nvtx::Color::compute, std::int64_t(slots));
    yescrypt_launch(kernel, b, max_r_, stream);
  }
  // V and the blocks hold password-derived bytes: zeroed before the memory goes back to the pool.
  WK_CUDA_CHECK(cudaMemsetAsync(scratch.get(), 0, scratch.bytes(), stream));
  if (queued) queued();
  if (progress) {
    wait_sleeping(stream);
    progress(1.0);
  }
}

}  // namespace

std::unique_ptr<MethodBatch> make_yescrypt_batch(BatchCore& core) { return std::make_unique<YescryptMethodBatch>(core); }

}  // namespace wk::hash::gpu
