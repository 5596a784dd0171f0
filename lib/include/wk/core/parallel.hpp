#pragma once
// parallel_for: data-parallel host loops on one process-wide pool of threads (one per core),
// shared by every caller. The calling thread takes chunks too, so nested or concurrent calls
// always progress even when the pool is busy with another caller's chunks.
#include <cstddef>
#include <functional>

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

}  // namespace wk
