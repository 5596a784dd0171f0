#pragma once
// parallel_for: data-parallel host loops on one process-wide pool of threads (one per core),
// shared by every caller. The calling thread takes chunks too, so nested or concurrent calls
// always progress even when the pool is busy with another caller's chunks.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>

namespace wk {

// Runs fn(begin, end) over [0, n) in chunks of `grain` indices (the last one shorter), on the pool
// and the calling thread, and returns when every chunk has finished. The first exception thrown
// by a chunk is rethrown here (the chunks not yet started are then skipped).
void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& fn);

// Threads parallel_for spreads work over (the pool's workers plus the caller): usable_cores().
unsigned parallel_threads() noexcept;

// The cores this process should keep busy: the CPUs its affinity mask allows (mpirun --bind-to,
// taskset, a cgroup's cpuset), or fewer after limit_cores. Every "one per core" default of the
// library (parallel_for's pool, the folder job's workers, libxcrypt's threads) takes this.
unsigned usable_cores() noexcept;
// Caps usable_cores() at `cores` (>= 1), e.g. for one of several MPI ranks sharing a node without
// binding. Takes effect for what is sized afterwards: call it before the first parallel_for.
void limit_cores(unsigned cores) noexcept;

// A budget of bytes shared by threads (the folder job's decoded images): acquire() waits until
// the bytes fit beside what others hold, release() gives them back. A request larger than the
// whole budget is granted when nothing else is held, so one huge image still runs, alone.
class ByteBudget {
 public:
  explicit ByteBudget(std::uint64_t capacity) : capacity_(capacity) {}
  // Waits for `bytes`; returns false without taking them when *stop becomes true meanwhile.
  bool acquire(std::uint64_t bytes, const std::atomic<bool>* stop = nullptr);
  void release(std::uint64_t bytes) noexcept;
  std::uint64_t capacity() const noexcept { return capacity_; }
  std::uint64_t held() const;
  std::uint64_t peak() const;  // the most held at once

 private:
  const std::uint64_t capacity_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::uint64_t held_ = 0, peak_ = 0;
};

// Physical memory of the machine in bytes (0 when unknown).
std::uint64_t physical_memory_bytes() noexcept;

}  // namespace wk
