// DeviceBatch: the jobs of one method, handed to its module's device batch (MethodBatch: the
// packing in its order, uploads from pinned staging, the set-up / round / final launches), the
// hashes read back behind each job's prefix, and every buffer that held password-derived bytes
// wiped. The rungs of every method come from the method table.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <numeric>

#include "cross.hpp"
#include "gpu_runner.hpp"
#include "hash/hd/shacrypt.hpp"
#include "hash/methods/method_module.hpp"
#include "method_batch.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"

namespace wk::hash::gpu {

using namespace detail;

const GpuMethod& gpu_method(Method m) {
  const MethodModule* mod = find_module(m);
  if (!mod || !mod->gpu) throw Error(ErrorCategory::internal, std::string("no GPU kernels for ") + method_name(m));
  return *mod->gpu;
}

std::span<const VariantInfo> variants(Method method) {
  const MethodModule* mod = find_module(method);
  if (!mod || !mod->gpu) return {};
  return mod->gpu->variants;
}

Variant default_variant(Method method) { return gpu_method(method).default_variant; }

bool takes_crossed(Method method) noexcept {
  const MethodModule* mod = find_module(method);
  return mod && mod->gpu && mod->gpu->crossed;
}

const char* variant_name(Variant v) noexcept {
  for (const MethodModule& mod : method_modules())
    if (mod.gpu)
      for (const VariantInfo& i : mod.gpu->variants)
        if (i.variant == v) return i.name;
  return "?";
}

Variant parse_variant(Method method, std::string_view name) {
  std::string names;
  for (const auto& v : variants(method)) {
    if (name == v.name) return v.variant;
    names += std::string(names.empty() ? "" : ", ") + v.name;
  }
  throw Error(ErrorCategory::usage,
              std::string(method_name(method)) + ": unknown variant '" + std::string(name) + "' (known: " + names + ")");
}

struct DeviceBatch::Impl {
  BatchCore core;                    // method, variant, stream, n, pool, order, staging, d_out
  const MethodModule* module = nullptr;
  std::string prefixes;              // every job's prefix, back to back in input order
  std::vector<std::uint32_t> prefix_end;  // job i's prefix ends at prefix_end[i] (parsed settings)
  // Records of fresh settings: every prefix is the record (prefix_record bytes) and, for a
  // method with a '$' before the hash, that '$'.
  std::size_t prefix_record = 0;
  bool prefix_dollar = false;
  std::size_t prefix_bytes(std::size_t i) const {
    if (prefix_record) return prefix_record + (prefix_dollar ? 1 : 0);
    return prefix_end[i] - (i ? prefix_end[i - 1] : 0);
  }
  // Writes job i's prefix at dst; returns the end.
  char* write_prefix(std::size_t i, char* dst) const {
    if (prefix_record) {
      std::memcpy(dst, prefixes.data() + i * prefix_record, prefix_record);
      dst += prefix_record;
      if (prefix_dollar) *dst++ = '$';
      return dst;
    }
    const std::size_t from = i ? prefix_end[i - 1] : 0;
    std::memcpy(dst, prefixes.data() + from, prefix_end[i] - from);
    return dst + (prefix_end[i] - from);
  }
  int hash_chars = 0;
  // Set once the batch's stream has been waited for after its uploads (download_results): the
  // staging is no longer read by a copy, and the wipe need not wait for the device.
  bool staging_idle = false;
  PinnedBuffer<std::uint8_t> h_out;
  // The method's device side; destroyed first (its launches' streams, then its device buffers).
  std::unique_ptr<MethodBatch> method;

  void init(const JobSource& src, Variant variant, cudaStream_t stream, PinnedPool* pool);
  void copy_prefixes(const JobSource& src);
  void wipe() noexcept;
};

void DeviceBatch::Impl::wipe() noexcept {
  // Device buffers first: memsets on the batch's stream, after any launch still queued on the
  // method's own streams, and before the buffers' stream-ordered frees (the members' destructors),
  // so no later allocation sees their bytes. Nothing on the host waits for them. The host staging
  // is wiped once no copy reads it: right away after results were downloaded (the stream was
  // waited for then), else after waiting for the stream (an exception, or a batch whose results
  // were not read). Waiting every time cost a slice up to a kernel's length (~4 ms of md5crypt):
  // the memsets queue behind the other slices' kernels.
  if (method) method->wipe();
  if (!staging_idle) {
    try {
      wait_sleeping(core.stream);
    } catch (...) {
      cudaStreamSynchronize(core.stream);
    }
  }
  if (core.staging.get()) wipe_on_all_cores(core.staging.get(), core.staging.bytes());  // ~11 MB per md5crypt slice
  if (core.pool) {
    core.pool->give(std::move(core.staging));
    core.pool->give(std::move(h_out));
  }
}

// Every job's prefix: the parsed settings' back to back, or the records as they stand.
void DeviceBatch::Impl::copy_prefixes(const JobSource& src) {
  const std::size_t n = core.n;
  if (src.parsed()) {
    // Lengths, offsets, then the bytes copied on all cores.
    prefix_end.resize(n);
    std::atomic<bool> mixed{false};
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (src.settings[i]->method != core.method) mixed = true;
        prefix_end[i] = std::uint32_t(src.settings[i]->prefix.size());
      }
    });
    if (mixed) throw Error(ErrorCategory::internal, "DeviceBatch: mixed methods");
    std::partial_sum(prefix_end.begin(), prefix_end.end(), prefix_end.begin());
    prefixes.resize(n ? prefix_end.back() : 0);
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const std::string& pre = src.settings[i]->prefix;
        std::memcpy(prefixes.data() + prefix_end[i] - pre.size(), pre.data(), pre.size());
      }
    });
  } else {
    // Fresh settings: each record is its job's prefix as it stands (bcrypt's salt characters are
    // canonical), then the method's '$' if it has one. Copied, so the caller's records may go.
    prefix_record = src.record_bytes;
    prefix_dollar = module->dollar_before_hash;
    prefixes.resize(src.records.size());
    parallel_for(n, kHostGrain, [&](std::size_t begin, std::size_t end) {
      std::memcpy(prefixes.data() + begin * prefix_record, src.records.data() + begin * prefix_record,
                  (end - begin) * prefix_record);
    });
  }
}

void DeviceBatch::Impl::init(const JobSource& src, Variant v, cudaStream_t s, PinnedPool* p) {
  core.method = src.method;
  core.variant = v;
  core.stream = s;
  core.pool = p;
  core.n = src.size();
  module = find_module(core.method);
  const GpuMethod& gpu = gpu_method(core.method);
  bool known = false;
  for (const auto& x : gpu.variants) known |= x.variant == v;
  if (!known)
    throw Error(ErrorCategory::usage, std::string("variant ") + variant_name(v) + " does not apply to " + method_name(core.method));
  if (src.crossed() && !gpu.crossed)
    throw Error(ErrorCategory::internal, std::string("no crossed batches for ") + method_name(core.method));
  method = gpu.make_batch(core);
  if (!src.crossed()) copy_prefixes(src);
  if (core.n == 0) return;
  hash_chars = module->hash_chars;
  core.out_stride = out_stride_for(hash_chars);
  core.d_out = DeviceBuffer<char>(std::size_t(core.out_stride) * core.n, core.stream);
  // Only the hash characters of each slot are written; zero the rest so the copy back reads
  // initialized memory (compute-sanitizer initcheck).
  WK_CUDA_CHECK(cudaMemsetAsync(core.d_out.get(), 0, core.d_out.bytes(), core.stream));
  try {
    method->pack(src);
  } catch (...) {
    wipe();
    throw;
  }
}

DeviceBatch::DeviceBatch(Method method, std::span<const Setting* const> settings, std::span<const std::string_view> passwords,
                         Variant variant, cudaStream_t stream, PinnedPool* pool)
    : impl_(std::make_unique<Impl>()) {
  if (settings.size() != passwords.size()) throw Error(ErrorCategory::internal, "DeviceBatch: settings and passwords differ in count");
  nvtx::Range r("pack", nvtx::Color::transfer, std::int64_t(settings.size()));
  JobSource src;
  src.method = method;
  src.passwords = passwords;
  src.settings = settings;
  impl_->init(src, variant, stream, pool);
}

DeviceBatch::DeviceBatch(const HashOptions& options, std::string_view settings, std::span<const std::string_view> passwords,
                         Variant variant, cudaStream_t stream, PinnedPool* pool)
    : impl_(std::make_unique<Impl>()) {
  nvtx::Range r("pack", nvtx::Color::transfer, std::int64_t(passwords.size()));
  JobSource src;
  src.method = options.method;
  src.passwords = passwords;
  src.record_bytes = generated_setting_bytes(options);
  if (settings.size() != src.record_bytes * passwords.size())
    throw Error(ErrorCategory::internal, "DeviceBatch: the fresh settings differ from the passwords in count");
  src.records = settings;
  // Every password the packing copies must fit its slots (the caller checked them).
  std::atomic<bool> too_long{false};
  parallel_for(passwords.size(), kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      if (passwords[i].size() > std::size_t(hd::kMaxPasswordBytes)) too_long = true;
  });
  if (too_long) throw Error(ErrorCategory::internal, "DeviceBatch: a password over 511 bytes");
  // Every record is the shape's head, then its salt characters (generated_setting_bytes checked
  // the options, so the method has a module).
  const FreshShape shape = find_module(options.method)->fresh_shape(options);
  src.salt_chars = shape.salt_chars;
  src.salt_at = src.record_bytes - src.salt_chars;
  src.rounds = shape.rounds;
  src.variant = shape.variant;
  impl_->init(src, variant, stream, pool);
}

DeviceBatch::DeviceBatch(Crossed, Method method, std::span<const Setting* const> accounts,
                         std::span<const std::string_view> candidates, Variant variant, cudaStream_t stream, PinnedPool* pool)
    : impl_(std::make_unique<Impl>()) {
  nvtx::Range r("pack crossed", nvtx::Color::transfer, std::int64_t(accounts.size() * candidates.size()));
  JobSource src;
  src.method = method;
  if (!accounts.empty() && !candidates.empty()) {  // else no jobs: an empty batch
    src.passwords = candidates;
    src.accounts = accounts;
  }
  impl_->init(src, variant, stream, pool);
}

DeviceBatch::DeviceBatch(Crossed, Method method, std::span<const Setting* const> accounts, const CandidateRun& candidates,
                         Variant variant, cudaStream_t stream, PinnedPool* pool)
    : impl_(std::make_unique<Impl>()) {
  nvtx::Range r("pack crossed", nvtx::Color::transfer, std::int64_t(accounts.size() * candidates.count));
  if (candidates.mask && candidates.mask->makes_nul())
    throw Error(ErrorCategory::internal, "DeviceBatch: a mask whose candidates may hold a NUL byte");
  JobSource src;
  src.method = method;
  if (!accounts.empty() && !candidates.empty() && candidates.count) {  // else no jobs: an empty batch
    src.run = candidates;
    src.accounts = accounts;
  }
  impl_->init(src, variant, stream, pool);
}

DeviceBatch::~DeviceBatch() {
  if (!impl_) return;
  nvtx::Range r("wipe", nvtx::Color::transfer);
  impl_->wipe();
}

std::size_t DeviceBatch::size() const noexcept { return impl_->core.n; }

void DeviceBatch::set_launch_limits(std::uint32_t rounds_per_launch, std::uint64_t bcrypt_iterations_per_launch) {
  impl_->method->set_launch_limits(rounds_per_launch, bcrypt_iterations_per_launch);
}

void DeviceBatch::run(cudaStream_t stream, const std::function<void(double)>& progress,
                      const std::function<void()>& queued) {
  if (impl_->core.n == 0) return;
  impl_->method->run(stream, progress, queued);
}

// The kernels' hash characters, out_stride bytes per job in packing order, copied to pinned
// host memory (the batch's, made on first use).
static const char* download_results(DeviceBatch::Impl& m, cudaStream_t stream) {
  nvtx::Range r("d2h", nvtx::Color::transfer);
  BatchCore& c = m.core;
  if (!m.h_out.get()) m.h_out = c.pinned(std::size_t(c.out_stride) * c.n);
  WK_CUDA_CHECK(cudaMemcpyAsync(m.h_out.get(), c.d_out.get(), c.d_out.bytes(), cudaMemcpyDeviceToHost, stream));
  wait_sleeping(stream);
  // The uploads were queued on the batch's stream before its kernels: done if this is that stream.
  if (stream == c.stream) m.staging_idle = true;
  return reinterpret_cast<const char*>(m.h_out.get());
}

void DeviceBatch::results(cudaStream_t stream, std::vector<std::string>& out) {
  Impl& m = *impl_;
  const BatchCore& c = m.core;
  out.assign(c.n, {});
  if (c.n == 0) return;
  const char* text = download_results(m, stream);
  parallel_for(c.n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      const std::uint32_t i = c.order[p];
      std::string& s = out[i];
      s.resize(m.prefix_bytes(i) + std::size_t(m.hash_chars));
      char* at = m.write_prefix(i, s.data());
      std::memcpy(at, text + p * std::size_t(c.out_stride), std::size_t(m.hash_chars));
    }
  });
}

void DeviceBatch::results_into(cudaStream_t stream, char* out, std::size_t stride) {
  Impl& m = *impl_;
  const BatchCore& c = m.core;
  if (c.n == 0) return;
  const char* text = download_results(m, stream);
  nvtx::Range r("results", nvtx::Color::compute, std::int64_t(c.n));
  std::atomic<bool> too_long{false};
  parallel_for(c.n, kHostGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      const std::uint32_t i = c.order[p];
      if (m.prefix_bytes(i) + std::size_t(m.hash_chars) > stride) {
        too_long = true;
        continue;
      }
      char* at = m.write_prefix(i, out + std::size_t(i) * stride);
      std::memcpy(at, text + p * std::size_t(c.out_stride), std::size_t(m.hash_chars));
    }
  });
  if (too_long) throw Error(ErrorCategory::internal, "DeviceBatch::results_into: a crypt string longer than the stride");
}

void DeviceBatch::matches(cudaStream_t stream, std::span<const std::string_view> expected,
                          std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) {
  Impl& m = *impl_;
  BatchCore& c = m.core;
  out.clear();
  if (c.n == 0) return;
  if (!c.d_pair.get()) throw Error(ErrorCategory::internal, "DeviceBatch::matches: not a crossed batch");
  nvtx::Range r("compare", nvtx::Color::compute, std::int64_t(c.n));
  // The accounts' hash characters, zero-padded to the output slots (a hash of another length
  // matches nothing: the caller leaves such accounts out).
  const std::size_t stride = std::size_t(c.out_stride);
  PinnedBuffer<std::uint8_t> h_expected = c.pinned(stride * expected.size() + 4);
  std::memset(h_expected.get(), 0, stride * expected.size() + 4);
  for (std::size_t a = 0; a < expected.size(); ++a)
    std::memcpy(h_expected.get() + a * stride, expected[a].data(), std::min(expected[a].size(), stride));
  DeviceBuffer<char> d_expected(stride * expected.size(), stream);
  DeviceBuffer<std::uint32_t> d_count(1, stream);
  DeviceBuffer<uint2> d_matches(c.n, stream);
  WK_CUDA_CHECK(cudaMemcpyAsync(d_expected.get(), h_expected.get(), d_expected.bytes(), cudaMemcpyHostToDevice, stream));
  WK_CUDA_CHECK(cudaMemsetAsync(d_count.get(), 0, sizeof(std::uint32_t), stream));
  launch_cross_compare(c.d_out.get(), c.out_stride, int(c.n), d_expected.get(), c.d_pair.get(), d_count.get(),
                       d_matches.get(), stream);
  std::uint32_t* h_count = reinterpret_cast<std::uint32_t*>(h_expected.get() + stride * expected.size());
  WK_CUDA_CHECK(cudaMemcpyAsync(h_count, d_count.get(), sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
  wait_sleeping(stream);
  if (stream == c.stream) m.staging_idle = true;  // the uploads were queued before the kernels
  const std::uint32_t count = *h_count;
  if (count) {
    std::vector<uint2> found(count);
    WK_CUDA_CHECK(cudaMemcpyAsync(found.data(), d_matches.get(), sizeof(uint2) * count, cudaMemcpyDeviceToHost, stream));
    wait_sleeping(stream);
    for (const uint2& f : found) out.emplace_back(f.x, f.y);
    std::sort(out.begin(), out.end());
  }
  if (c.pool) c.pool->give(std::move(h_expected));
}

}  // namespace wk::hash::gpu
