#pragma once
// PinnedPool: pinned host buffers kept for reuse by the batches of one engine.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "wk/core/buffer.hpp"

namespace wk::hash::gpu {

// Allocating or freeing pinned memory waits for the whole device, which would stall the kernels of
// the other batches in flight. Thread-safe. Buffers come back wiped (DeviceBatch wipes its staging
// before giving it).
class PinnedPool {
 public:
  PinnedPool();
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;
  // A buffer of at least `bytes` bytes: the smallest free one that fits, else a new one.
  PinnedBuffer<std::uint8_t> take(std::size_t bytes);
  void give(PinnedBuffer<std::uint8_t>&& buffer);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::hash::gpu
