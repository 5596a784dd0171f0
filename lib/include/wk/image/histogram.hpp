#pragma once
// histogram: 256-bin counts of 8-bit images, one histogram per channel, exactly cv::calcHist.
// Counts are laid out channel-major: channel c's bin v is hist[c * 256 + v].
#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/buffer.hpp"
#include "wk/core/image_view.hpp"

namespace wk::image {

inline constexpr int kHistogramBins = 256;

// The APOD ladder of the histogram kernel, slowest to fastest; every rung stays selectable.
enum class HistogramVariant {
  global_atomics,     // one global atomicAdd per pixel (Parallelize)
  shared_privatized,  // one shared-memory histogram per block, merged with global atomics
  warp_vectorized,    // per-warp sub-histograms, 128-bit loads, 4 vectors in flight per thread
  lane_privatized,    // one sub-histogram per lane slot, laid out so a warp never conflicts on a bank
  run_aggregated,     // lane_privatized + a uniform 16-byte vector counted with one atomic
  pipelined,          // run_aggregated + the next chunk's loads issued before counting the current one
};

struct HistogramVariantInfo {
  HistogramVariant variant;
  const char* name;
  const char* description;
};

std::span<const HistogramVariantInfo> histogram_variants();
// The fastest rung measured on the H100 (docs/apod/histogram.md); the library's default.
HistogramVariant histogram_default_variant();
// Accepts the names in histogram_variants(); throws wk::Error{usage} otherwise.
HistogramVariant parse_histogram_variant(std::string_view name);

// Device scratch through which the kernel's blocks merge their counts, so that a call is a single
// kernel launch with no memset. It is zeroed when created and every call leaves it ready for the
// next. Gray images on the vector rungs (about one block per SM) merge straight into the output:
// the first block to arrive zeroes it and raises a flag (the call's number) that the others wait
// for before adding. Other calls (many blocks) merge into kCopies copies of the totals, block b
// into copy b % kCopies, so that a block's global atomics share their addresses with an eighth of
// the blocks, and the last block to finish adds the copies up into the output and clears them
// (docs/apod/histogram.md). One workspace per stream that has a histogram in flight.
class HistogramWorkspace {
 public:
  static constexpr int kCopies = 8;
  HistogramWorkspace();
  std::uint32_t* accumulator() const { return accum_.get(); }
  unsigned* blocks_done() const { return sync_.get(); }
  // Direct merge: the blocks' arrival ticket, and the number of the last call whose output is zeroed.
  unsigned* arrival() const { return sync_.get() + 1; }
  unsigned* zeroed_call() const { return sync_.get() + 2; }
  // A new number for each call (never 0, the value the flag starts at).
  unsigned next_call() { return ++calls_ ? calls_ : ++calls_; }

 private:
  DeviceBuffer<std::uint32_t> accum_;  // kCopies * 4 * 256 counts
  DeviceBuffer<unsigned> sync_;        // finished-block counter, arrival ticket, zeroed-call flag
  unsigned calls_ = 0;
};

// GPU: counts the 8-bit image d_src (1, 3 or 4 channels, device memory) into d_hist, device
// memory of channels * 256 counts, which is overwritten. Asynchronous on `stream`. With a
// workspace the call is one kernel launch; without, a cudaMemsetAsync of d_hist comes first.
// The vectorized rungs need 16-byte aligned rows (cudaMallocPitch gives 512); other images take
// the shared_privatized rung, so every pitch works.
void histogram(ConstImageView d_src, std::uint32_t* d_hist, cudaStream_t stream,
               HistogramVariant variant = histogram_default_variant(), HistogramWorkspace* workspace = nullptr);

// CPU: cv::calcHist of each channel into hist (channels * 256 counts).
void histogram_cpu(ConstImageView src, std::span<std::uint32_t> hist);

// The bytes of NAME.hist.csv: a header line, then 256 rows "bin,count" (gray) or "bin,b,g,r"
// (colour; "bin,b,g,r,a" for 4 channels).
std::string histogram_csv(std::span<const std::uint32_t> hist, int channels);

// The bytes of NAME.hist.png: a bar chart of the histogram drawn with OpenCV (one colour per
// channel, gray for 1 channel), PNG-encoded.
std::vector<std::uint8_t> histogram_plot_png(std::span<const std::uint32_t> hist, int channels);

}  // namespace wk::image
