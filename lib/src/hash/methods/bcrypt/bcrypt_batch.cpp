// bcrypt's device batch: jobs packed with equal costs side by side (72 key bytes, the salt as
// words, cost and variant flags per job), the 2^cost loop in launches of about 2^22
// password-iterations (kernels: bcrypt.cu), P, the expanded key and the S-boxes carried in global
// memory between launches.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "bcrypt.hpp"
#include "bcrypt_launch.hpp"
#include "hash/gpu/method_batch.hpp"
#include "hash/hd/bcrypt.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "wk/core/nvtx.hpp"

namespace wk::hash::gpu {

using namespace detail;

namespace {

// Job i's 16 salt bytes (records hold the 22 characters, canonical: generate_settings_into
// encoded them from 16 random bytes).
void salt_bytes(const JobSource& src, std::size_t i, std::uint8_t* out) {
  if (src.parsed()) std::memcpy(out, src.settings[i]->bcrypt_salt.data(), 16);
  else if (!hd::bcrypt_b64_decode(out, src.records.data() + i * src.record_bytes + src.salt_at, 16))
    throw Error(ErrorCategory::internal, "DeviceBatch: a fresh bcrypt setting with a malformed salt");
}

class BcryptMethodBatch final : public MethodBatch {
 public:
  explicit BcryptMethodBatch(BatchCore& core) : core_(core) {}
  void pack(const JobSource& src) override;
  void set_launch_limits(std::uint32_t, std::uint64_t iterations_per_launch) override { chunk_ = iterations_per_launch; }
  void run(cudaStream_t stream, const std::function<void(double)>& progress, const std::function<void()>& queued) override;
  void wipe() noexcept override {
    wipe_device(d_pw_, core_.stream);
    wipe_device(d_state_, core_.stream);
  }

 private:
  BatchCore& core_;
  DeviceBuffer<std::uint8_t> d_pw_, d_pl_, d_cost_, d_flags_;
  DeviceBuffer<std::uint32_t> d_salt_, d_state_;
  BcryptBatch bc_;
  std::uint64_t max_iterations_ = 0;
  std::uint64_t chunk_ = 0;  // iterations per launch; 0: automatic
};

void BcryptMethodBatch::pack(const JobSource& src) {
  const std::span<const std::string_view> passwords = src.passwords;
  const std::size_t n = core_.n;
  std::vector<std::uint32_t>& order = core_.order;
  order.resize(n);
  std::iota(order.begin(), order.end(), 0u);
  // Equal costs side by side: a warp's threads then finish in the same launch (records: one cost).
  if (src.parsed())
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return src.rounds_of(a) < src.rounds_of(b); });
  Staging lay;
  const std::size_t p_pw = lay.add(kBcryptKeySlot * n), p_pl = lay.add(n), p_salt = lay.add(16 * n), p_cost = lay.add(n),
                    p_flags = lay.add(n);
  core_.staging = core_.pinned(lay.total);
  std::uint8_t* h = core_.staging.get();
  std::memset(h, 0, lay.total);
  auto* salt = reinterpret_cast<std::uint32_t*>(h + lay.parts[p_salt].first);
  for (std::size_t p = 0; p < n; ++p) {
    const std::uint32_t i = order[p];
    // bcrypt reads at most 72 key bytes (the password cycled with its terminating zero), so the
    // first 72 bytes are all it needs.
    const std::size_t len = std::min<std::size_t>(passwords[i].size(), kBcryptKeySlot);
    std::memcpy(h + lay.parts[p_pw].first + kBcryptKeySlot * p, passwords[i].data(), len);
    h[lay.parts[p_pl].first + p] = std::uint8_t(len);
    std::uint8_t bytes[16];
    salt_bytes(src, i, bytes);
    std::uint32_t words[4];
    hd::bcrypt_salt_words(bytes, words);
    for (int k = 0; k < 4; ++k) salt[k * n + p] = words[k];
    const std::uint32_t cost = src.rounds_of(i);
    h[lay.parts[p_cost].first + p] = std::uint8_t(cost);
    h[lay.parts[p_flags].first + p] = std::uint8_t(hd::bcrypt_flags(src.variant_of(i)));
    max_iterations_ = std::max(max_iterations_, std::uint64_t(1) << cost);
  }
  const cudaStream_t stream = core_.stream;
  upload(d_pw_, core_.staging, lay, p_pw, stream);
  upload(d_pl_, core_.staging, lay, p_pl, stream);
  upload(d_salt_, core_.staging, lay, p_salt, stream);
  upload(d_cost_, core_.staging, lay, p_cost, stream);
  upload(d_flags_, core_.staging, lay, p_flags, stream);
  bc_.n = int(n);
  bc_.pw = d_pw_.get();
  bc_.pl = d_pl_.get();
  bc_.salt = d_salt_.get();
  bc_.cost = d_cost_.get();
  bc_.flags = d_flags_.get();
  bc_.out = core_.d_out.get();
  bc_.out_stride = core_.out_stride;
}

void BcryptMethodBatch::run(cudaStream_t stream, const std::function<void(double)>& progress,
                            const std::function<void()>& queued) {
  // Iterations per launch: about 2^22 job-iterations (~0.3 s at the target rate), a power of two
  // so that cost-c jobs end exactly at a launch boundary.
  const std::size_t n = core_.n;
  std::uint64_t chunk = chunk_;
  if (chunk == 0) {
    chunk = 1;
    while (chunk * 2 * n <= (std::uint64_t(1) << 22) && chunk < (std::uint64_t(1) << 31)) chunk *= 2;
  }
  const Variant v = core_.variant;
  const BcryptKernel kernel = v == Variant::reference             ? BcryptKernel::reference
                              : v == Variant::bcrypt_shared16     ? BcryptKernel::shared16
                              : v == Variant::bcrypt_shared_bytes ? BcryptKernel::shared_bytes
                              : v == Variant::bcrypt_packed       ? BcryptKernel::packed
                                                                  : BcryptKernel::shared;
  if (chunk < max_iterations_ && !d_state_.get()) {
    d_state_ = DeviceBuffer<std::uint32_t>(std::size_t(kBcryptStateWords) * n, core_.stream);
    bc_.state = d_state_.get();
  }
  for (std::uint64_t it0 = 0; it0 < max_iterations_; it0 += chunk) {
    nvtx::Range r("bcrypt loop", nvtx::Color::compute, std::int64_t(it0));
    bcrypt_launch(kernel, bc_, it0, chunk, stream);
    if (queued && it0 + chunk >= max_iterations_) queued();
    if (progress) {
      wait_sleeping(stream);
      progress(double(std::min(it0 + chunk, max_iterations_)) / double(max_iterations_));
    }
  }
}

}  // namespace

std::unique_ptr<MethodBatch> make_bcrypt_batch(BatchCore& core) { return std::make_unique<BcryptMethodBatch>(core); }

}  // namespace wk::hash::gpu
