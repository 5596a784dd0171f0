#pragma once
// What the convolution family's benches share: one table per filter case on the 8-bit gray
// natural photo, every applicable rung (each checked against the CPU path before it is timed),
// the copy roofline and an NPP peer where NPP is built.
#include <opencv2/core.hpp>

#include <functional>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "wk/core/image_view.hpp"
#include "wk/image/filter.hpp"

namespace wk::bench {

struct FilterBench {
  std::string title;        // "gauss 5x5, sigma from K"
  int out_type = CV_8UC1;   // CV_8UC1 or CV_16SC1
  double tolerance = 0;     // largest |GPU - CPU| accepted before timing
  double bytes_per_px = 2;  // read + written
  std::function<void(const cv::Mat& in, cv::Mat& out)> cpu;
  // d_out is device memory of out_type with pitch out_pitch.
  std::function<void(ConstImageView d_in, void* d_out, std::size_t out_pitch, cudaStream_t stream, image::ConvVariant rung)> gpu;
  std::vector<image::ConvVariant> rungs;  // the rungs that apply, in ladder order
  image::ConvVariant default_rung = image::ConvVariant::separable;
  // The NPP peer (empty: none, or NPP not built).
  std::function<void(ConstImageView d_in, void* d_out, std::size_t out_pitch, cudaStream_t stream)> npp;
  std::string npp_note;  // what the peer computes when it is not the same function
  // A memory roofline finer than the copy (empty: none), timed into d_out like a rung with
  // --ladder; its output is not checked.
  std::function<void(ConstImageView d_in, void* d_out, std::size_t out_pitch, cudaStream_t stream)> roofline;
  std::string roofline_name;
  double roofline_target_pct = 0;  // > 0: print the default rung's share of the roofline against it
};

// Runs and prints each case; `op` names the bench in messages. Returns the exit code.
int run_filter_benches(const Options& options, const char* op, const std::vector<FilterBench>& benches);

// The generic ladder: every rung but separable (non-separable kernels), and every rung. Neither
// holds the op-specific rungs, which their ops append: vectorized_3x3 (sobel, laplacian) and
// vectorized_5x5 (gauss up to 5x5).
std::vector<image::ConvVariant> rungs_2d();
std::vector<image::ConvVariant> all_rungs();

}  // namespace wk::bench
