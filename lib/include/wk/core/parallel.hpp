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

// Threads parallel_for spreads work over (the pool's workers plus the caller).
unsigned parallel_threads() noexcept;

}  // namespace wk
