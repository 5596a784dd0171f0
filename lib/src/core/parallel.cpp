#include "wk/core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace wk {

namespace {

std::atomic<unsigned> g_core_limit{0};  // 0: none

// One parallel_for call: chunks are claimed through `next`; the caller waits for `finished` to
// reach `chunks`. Shared with the pool's queue entries, which may outlive the call's wait (an
// entry taken after every chunk was claimed just returns).
struct Loop {
  std::size_t n = 0, grain = 1, chunks = 0;
  const std::function<void(std::size_t, std::size_t)>* fn = nullptr;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // the first one, guarded by mutex
  std::mutex mutex;
  std::condition_variable done;

  // Claims and runs chunks until none is left.
  void work() {
    for (;;) {
      const std::size_t c = next.fetch_add(1);
      if (c >= chunks) return;
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          const std::size_t begin = c * grain;
          (*fn)(begin, std::min(n, begin + grain));
        } catch (...) {
          std::lock_guard lock(mutex);
          if (!error) error = std::current_exception();
          failed = true;
        }
      }
      if (finished.fetch_add(1) + 1 == chunks) {
        std::lock_guard lock(mutex);
        done.notify_all();
      }
    }
  }
};

class Pool {
 public:
  Pool() {
    const unsigned hw = usable_cores();
    const unsigned workers = hw > 1 ? hw - 1 : 0;
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { run(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned workers() const noexcept { return unsigned(threads_.size()); }

  void post(const std::shared_ptr<Loop>& loop, std::size_t copies) {
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < copies; ++i) queue_.push_back(loop);
    }
    if (copies == 1) wake_.notify_one();
    else wake_.notify_all();
  }

 private:
  void run() {
    for (;;) {
      std::shared_ptr<Loop> loop;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_ && queue_.empty()) return;
        loop = std::move(queue_.front());
        queue_.pop_front();
      }
      loop->work();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Loop>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

unsigned usable_cores() noexcept {
  unsigned cores = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = unsigned(CPU_COUNT(&set));
  if (cores == 0) cores = std::thread::hardware_concurrency();
  cores = std::max(1u, cores);
  const unsigned limit = g_core_limit.load();
  return limit ? std::min(cores, limit) : cores;
}

void limit_cores(unsigned cores) noexcept { g_core_limit = std::max(1u, cores); }

unsigned parallel_threads() noexcept { return pool().workers() + 1; }

void parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& fn) {
  if (n == 0) return;
  grain = std::max<std::size_t>(1, grain);
  const std::size_t chunks = (n + grain - 1) / grain;
  if (chunks == 1 || pool().workers() == 0) {
    // One core: the chunks in order on this thread (callers may rely on chunk = grain indices).
    for (std::size_t begin = 0; begin < n; begin += grain) fn(begin, std::min(n, begin + grain));
    return;
  }
  auto loop = std::make_shared<Loop>();
  loop->n = n;
  loop->grain = grain;
  loop->chunks = chunks;
  loop->fn = &fn;
  pool().post(loop, std::min<std::size_t>(chunks - 1, pool().workers()));
  loop->work();
  {
    std::unique_lock lock(loop->mutex);
    loop->done.wait(lock, [&] { return loop->finished.load() == chunks; });
  }
  if (loop->error) std::rethrow_exception(loop->error);
}

bool ByteBudget::acquire(std::uint64_t bytes, const std::atomic<bool>* stop) {
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    if (held_ == 0 || held_ + bytes <= capacity_) break;
    if (stop && stop->load()) return false;
    // Polled for `stop` (a signal handler sets it and cannot notify).
    cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
  held_ += bytes;
  peak_ = std::max(peak_, held_);
  return true;
}

void ByteBudget::release(std::uint64_t bytes) noexcept {
  {
    std::lock_guard<std::mutex> lock(m_);
    held_ -= std::min(held_, bytes);
  }
  cv_.notify_all();
}

std::uint64_t ByteBudget::held() const {
  std::lock_guard<std::mutex> lock(m_);
  return held_;
}

std::uint64_t ByteBudget::peak() const {
  std::lock_guard<std::mutex> lock(m_);
  return peak_;
}

std::uint64_t physical_memory_bytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

}  // namespace wk
