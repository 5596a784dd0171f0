// PinnedPool: pinned host buffers reused by the batches of one engine (pinned_pool.hpp).
#include "pinned_pool.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace wk::hash::gpu {

struct PinnedPool::Impl {
  std::mutex mutex;
  std::vector<PinnedBuffer<std::uint8_t>> free;  // at most kKeep, smallest first
  // Enough for two buffers per batch of up to 16 slices in wk-hash's engine (4 by default;
  // WK_HASH_IN_ENGINE accepts up to 64, and beyond 16 buffers are dropped): a buffer dropped is a
  // cudaFreeHost, which waits for the whole device, i.e. for the other slices' kernels.
  static constexpr std::size_t kKeep = 32;
};

PinnedPool::PinnedPool() : impl_(std::make_unique<Impl>()) {}
PinnedPool::~PinnedPool() = default;

PinnedBuffer<std::uint8_t> PinnedPool::take(std::size_t bytes) {
  {
    std::lock_guard lock(impl_->mutex);
    auto& f = impl_->free;
    for (auto it = f.begin(); it != f.end(); ++it)
      if (it->bytes() >= bytes) {
        PinnedBuffer<std::uint8_t> b = std::move(*it);
        f.erase(it);
        return b;
      }
  }
  // A quarter more than asked, so that the next slice's slightly larger batch fits too.
  return PinnedBuffer<std::uint8_t>(std::max<std::size_t>(1, bytes + bytes / 4));
}

void PinnedPool::give(PinnedBuffer<std::uint8_t>&& buffer) {
  if (!buffer.get()) return;
  PinnedBuffer<std::uint8_t> dropped;  // freed outside the lock
  std::lock_guard lock(impl_->mutex);
  auto& f = impl_->free;
  const auto at = std::find_if(f.begin(), f.end(), [&](const auto& b) { return b.bytes() >= buffer.bytes(); });
  f.insert(at, std::move(buffer));
  if (f.size() > Impl::kKeep) {
    dropped = std::move(f.front());
    f.erase(f.begin());
  }
}

}  // namespace wk::hash::gpu
