#pragma once
// histogram: 256-bin counts of 8-bit images, one histogram per channel, exactly cv::calcHist.
// Counts are laid out channel-major: channel c's bin v is hist[c * 256 + v].
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/image_view.hpp"

namespace wk::image {

inline constexpr int kHistogramBins = 256;

// Device scratch through which the kernel's blocks merge their counts, so that a call is a single
// kernel launch with no memset. Zeroed when created; every call leaves it ready for the next. One
// workspace per stream that has a histogram in flight. Its layout is the kernel's business
// (lib/src/image/histogram/histogram.cu).
class HistogramWorkspace {
 public:
  HistogramWorkspace();
  ~HistogramWorkspace();
  HistogramWorkspace(HistogramWorkspace&&) noexcept;
  HistogramWorkspace& operator=(HistogramWorkspace&&) noexcept;

  struct State;
  State& state() const { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// GPU: counts the 8-bit image d_src (1, 3 or 4 channels, device memory) into d_hist, device
// memory of channels * 256 counts, which is overwritten. Asynchronous on `stream`. With a
// workspace the call is one kernel launch; without, a cudaMemsetAsync of d_hist comes first.
// `rung`: a rung of find_operation("histogram")->rungs() by name, empty for the tuned default. The
// vectorized rungs need 16-byte aligned rows (cudaMallocPitch gives 512); on other images they
// give way to the default, which takes every pitch. Returns the name of the rung that ran.
const char* histogram(ConstImageView d_src, std::uint32_t* d_hist, cudaStream_t stream, HistogramWorkspace* workspace = nullptr,
                      std::string_view rung = {});

// CPU: cv::calcHist of each channel into hist (channels * 256 counts).
void histogram_cpu(ConstImageView src, std::span<std::uint32_t> hist);

// The bytes of NAME.hist.csv: a header line, then 256 rows "bin,count" (gray) or "bin,b,g,r"
// (colour; "bin,b,g,r,a" for 4 channels).
std::string histogram_csv(std::span<const std::uint32_t> hist, int channels);

// The bytes of NAME.hist.png: a bar chart of the histogram drawn with OpenCV (one colour per
// channel, gray for 1 channel), PNG-encoded.
std::vector<std::uint8_t> histogram_plot_png(std::span<const std::uint32_t> hist, int channels);

}  // namespace wk::image
