// The deploy step of the IDEA ladder: a run split over every listed GPU and, optionally, a CPU
// share (the book's hybrid), each part on its own host thread; the other rungs on one GPU, the
// CPU path alone without a GPU.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cipher/idea/idea_rungs.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/core/backend.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/core/nvtx.hpp"

namespace wk::cipher {

IdeaExecutor::IdeaExecutor(const IdeaExecution& execution) : execution_(execution) {
  const unsigned cores = usable_cores();
  if (execution_.cpu_threads < 0) throw Error(ErrorCategory::usage, "idea: negative CPU thread count");
  if (!(execution_.cpu_percent >= 0 && execution_.cpu_percent <= 100)) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g", execution_.cpu_percent);
    throw Error(ErrorCategory::usage, std::string("idea: the CPU share must be in 0..100 percent, not ") + pct);
  }
  if (execution_.backend == Backend::cpu) {
    // No rung runs, but a name that means none is still refused (and no CUDA call is made).
    if (!execution_.rung.empty()) check_rung_name("idea", idea_rungs(), execution_.rung);
    cpu_threads_ = execution_.cpu_threads ? execution_.cpu_threads : static_cast<int>(cores);
    return;
  }
  int count = 0;
  if (execution_.gpus.empty()) {
    WK_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count == 0) throw Error(ErrorCategory::unsupported, "idea: no CUDA device is visible");
  }
  // The default rung is the first GPU's architecture's.
  WK_CUDA_CHECK(cudaSetDevice(execution_.gpus.empty() ? 0 : execution_.gpus.front()));
  const detail::IdeaRung& rung = detail::idea_rung(execution_.rung);
  rung_ = rung.info.name;
  pinned_host_ = rung.copies == detail::IdeaCopies::overlapped;
  // The rungs below the deployed one run on one GPU: "every GPU" then means the first one.
  if (execution_.gpus.empty())
    for (int i = 0; i < (rung.deploy ? count : 1); ++i) execution_.gpus.push_back(i);
  if (!rung.deploy) {
    if (execution_.gpus.size() > 1)
      throw Error(ErrorCategory::usage, std::string("idea: several GPUs need the deployed rung, not '") + rung_ + "'");
    if (execution_.cpu_percent > 0)
      throw Error(ErrorCategory::usage, std::string("idea: a CPU share needs the deployed rung, not '") + rung_ + "'");
  }
  // With a CPU share, each GPU's feeding thread keeps a core busy (it waits on its streams).
  const int spare = static_cast<int>(cores) - static_cast<int>(execution_.gpus.size());
  cpu_threads_ = execution_.cpu_threads ? execution_.cpu_threads : std::max(1, spare);
  for (int id : execution_.gpus) engines_.emplace_back(id, rung_);
}

IdeaExecutor::~IdeaExecutor() = default;

std::string IdeaExecutor::describe() const {
  if (engines_.empty()) return "CPU (" + std::to_string(cpu_threads_) + " threads)";
  std::string s = engines_.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(gpu_label(execution_.gpu_labels, engines_[i].device()));
  }
  s += std::string(" (") + rung_ + ")";
  if (execution_.cpu_percent > 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g", execution_.cpu_percent);
    s += std::string(" + ") + pct + "% on the CPU (" + std::to_string(cpu_threads_) + " threads)";
  }
  return s;
}

namespace {

// Splits `units` (blocks or chunks) as the deployed rung does: the CPU takes the tail (its share
// of the units), the GPUs equal consecutive parts of the rest, each part on its own host thread
// (the first GPU's on the calling one). gpu(g, first, count) and cpu(first, count) do a part.
template <class Gpu, class Cpu>
void for_each_part(std::size_t units, std::size_t ngpu, double cpu_percent, Gpu&& gpu, Cpu&& cpu) {
  const auto cpu_units =
      std::min<std::size_t>(units, static_cast<std::size_t>(std::llround(double(units) * cpu_percent / 100.0)));
  const std::size_t gpu_units = units - cpu_units;
  std::vector<std::exception_ptr> errors(ngpu + 1);
  std::vector<std::thread> threads;
  auto guarded = [&errors](std::size_t slot, auto&& fn) {
    try {
      fn();
    } catch (...) {
      errors[slot] = std::current_exception();
    }
  };
  const std::size_t per_gpu = gpu_units / ngpu, extra = gpu_units % ngpu;
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  std::size_t first = 0;
  for (std::size_t g = 0; g < ngpu; ++g) {
    const std::size_t count = per_gpu + (g < extra ? 1 : 0);
    parts.emplace_back(first, count);
    first += count;
  }
  if (cpu_units) threads.emplace_back([&, first] { guarded(ngpu, [&] { cpu(first, cpu_units); }); });
  for (std::size_t g = 1; g < ngpu; ++g)
    if (parts[g].second) threads.emplace_back([&, g] { guarded(g, [&] { gpu(g, parts[g].first, parts[g].second); }); });
  if (parts[0].second) guarded(0, [&] { gpu(0, parts[0].first, parts[0].second); });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

void IdeaExecutor::run(const IdeaJob& job, const std::uint8_t* h_in, std::uint8_t* h_out, std::size_t nblocks) {
  if (nblocks == 0) return;
  if (engines_.empty()) {
    nvtx::Range r("idea-cpu", nvtx::Color::compute);
    idea_cpu(job, h_in, h_out, nblocks, cpu_threads_);
    return;
  }
  if (execution_.cpu_percent == 0 && engines_.size() == 1) {
    engines_[0].run(job, h_in, h_out, nblocks);
    return;
  }
  const std::size_t B = kIdeaBlockBytes;
  for_each_part(
      nblocks, engines_.size(), execution_.cpu_percent,
      [&](std::size_t g, std::size_t f, std::size_t n) { engines_[g].run(job.advanced(f), h_in + f * B, h_out + f * B, n); },
      [&](std::size_t f, std::size_t n) {
        nvtx::Range r("idea-cpu", nvtx::Color::compute);
        idea_cpu(job.advanced(f), h_in + f * B, h_out + f * B, n, cpu_threads_);
      });
}

void IdeaExecutor::seal(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed) {
  const std::size_t S = job.chunk_bytes, R = S + kIdeaTagBytes;
  const std::size_t chunks = idea_sealed_chunks(bytes, S);
  auto part_bytes = [&](std::size_t f, std::size_t n) { return std::min(n * S, bytes - std::min(bytes, f * S)); };
  auto cpu = [&](std::size_t f, std::size_t n) {
    nvtx::Range r("idea-seal-cpu", nvtx::Color::compute);
    idea_seal_cpu(job.part(f, f + n == chunks), h_plain + f * S, part_bytes(f, n), h_sealed + f * R);
  };
  if (engines_.empty()) return cpu(0, chunks);
  for_each_part(
      chunks, engines_.size(), execution_.cpu_percent,
      [&](std::size_t g, std::size_t f, std::size_t n) {
        engines_[g].seal(job.part(f, f + n == chunks), h_plain + f * S, part_bytes(f, n), h_sealed + f * R);
      },
      cpu);
}

void IdeaExecutor::open(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
                        std::uint8_t* h_tags) {
  const std::size_t S = job.chunk_bytes, R = S + kIdeaTagBytes, T = kIdeaTagBytes;
  const std::size_t chunks = idea_sealed_chunks(bytes, S);
  auto part_bytes = [&](std::size_t f, std::size_t n) { return std::min(n * S, bytes - std::min(bytes, f * S)); };
  auto cpu = [&](std::size_t f, std::size_t n) {
    nvtx::Range r("idea-open-cpu", nvtx::Color::compute);
    idea_open_cpu(job.part(f, f + n == chunks), h_sealed + f * R, part_bytes(f, n), h_plain + f * S, h_tags + f * T);
  };
  if (engines_.empty()) return cpu(0, chunks);
  for_each_part(
      chunks, engines_.size(), execution_.cpu_percent,
      [&](std::size_t g, std::size_t f, std::size_t n) {
        engines_[g].open(job.part(f, f + n == chunks), h_sealed + f * R, part_bytes(f, n), h_plain + f * S, h_tags + f * T);
      },
      cpu);
}

}  // namespace wk::cipher
