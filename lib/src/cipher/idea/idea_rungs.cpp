// The IDEA rung table and the default rung per GPU architecture, with the measurements that
// chose their settings (docs/apod/idea.md).
#include "cipher/idea/idea_rungs.hpp"

#include <cstddef>
#include <vector>

#include "core/tuning.hpp"
#include "wk/core/error.hpp"

namespace wk::cipher {

namespace detail {
namespace {

constexpr IdeaKernelConfig kGlobalKey{IdeaKernel::global_key, 128, 1};
constexpr IdeaKernelConfig kConstantKey{IdeaKernel::constant_key, 128, 1};
// The block-size x blocks-per-thread sweep of `wk-bench idea --ladder` picks this: 256 x 8 gave
// 628.7 GB/s device-resident on the H100 (256 x 4: 599.5; 2026-11-22, docs/apod/idea.md).
constexpr IdeaKernelConfig kCoarsened{IdeaKernel::coarsened, 256, 8};

// Synchronous copies: one stream, large pieces (fewer round trips).
constexpr IdeaStreaming kSynchronous{1, std::size_t(64) << 20};
// 4 streams: chunk c+4 reuses chunk c's device buffers, which stream order frees in time (3
// suffice when the kernel is much faster than the copies); 8 MiB chunks make the pipeline fill
// and drain ~3% of a 512 MiB run while each copy stays far above its fixed cost. H100: 4 x 8 MiB
// gave 42.9-44.9 GB/s host->host, within noise of the best cell (8 x 32 MiB, 46.1) with a quarter
// of its pinned memory.
constexpr IdeaStreaming kOverlapped{4, std::size_t(8) << 20};

constexpr IdeaRung kRungs[] = {
    {{"parallelized", "1 block/thread, sync copies, output uploaded too, key in global memory"},
     IdeaCopies::synchronous_with_output, false, kGlobalKey, kSynchronous},
    {{"no_output_upload", "as parallelized, without uploading the output buffer"}, IdeaCopies::synchronous, false,
     kGlobalKey, kSynchronous},
    {{"overlapped", "chunks over 4 streams, pinned memory, copies overlap kernels"}, IdeaCopies::overlapped, false,
     kGlobalKey, kOverlapped},
    {{"constant_key", "as overlapped, key schedule in constant memory"}, IdeaCopies::overlapped, false, kConstantKey,
     kOverlapped},
    {{"coarsened", "tuned block size, several blocks/thread, 16-byte loads"}, IdeaCopies::overlapped, false, kCoarsened,
     kOverlapped},
    {{"deployed", "coarsened on every listed GPU, optional CPU share"}, IdeaCopies::overlapped, true, kCoarsened,
     kOverlapped},
};

// The default rung per architecture. sm_90 (H100, 512 MiB ECB host->host, 2026-11-22,
// docs/apod/idea.md): overlapped 40.75 GB/s, constant_key 42.40, coarsened 44.93, deployed on one
// GPU 41.99, against 44.7 GB/s of concurrent pinned copies each way; rungs 4-6 are equal within
// the +-2 GB/s run-to-run spread, all bound by the copy engines. deployed is the default: it is
// coarsened on one GPU with no CPU share, and alone uses every listed GPU. Older architectures
// take the same until measured.
constexpr wk::detail::ArchTuning<const char*> kDefaultRung[] = {
    {90, "deployed"},
    {0, "deployed"},
};

}  // namespace

std::span<const IdeaRung> idea_rung_table() { return kRungs; }

const IdeaRung& idea_rung(std::string_view name) {
  if (name.empty()) name = wk::detail::tuning_for<const char*>(kDefaultRung);
  for (const IdeaRung& r : kRungs)
    if (name == r.info.name) return r;
  check_rung_name("idea", idea_rungs(), name);  // throws, naming the rungs
  throw Error(ErrorCategory::internal, "idea: no rung '" + std::string(name) + "'");
}

}  // namespace detail

std::span<const RungInfo> idea_rungs() {
  static const std::vector<RungInfo> infos = [] {
    std::vector<RungInfo> v;
    for (const auto& r : detail::kRungs) v.push_back(r.info);
    return v;
  }();
  return infos;
}

const char* idea_default_rung() { return detail::idea_rung({}).info.name; }

IdeaKernelConfig idea_kernel_config(std::string_view rung) { return detail::idea_rung(rung).kernel; }

IdeaStreaming idea_streaming(std::string_view rung) { return detail::idea_rung(rung).streaming; }

}  // namespace wk::cipher
