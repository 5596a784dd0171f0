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
#include <string_view>

namespace wk::bench {

struct FilterBench {
  std::string title;        // "gauss 5x5, sigma from K"
  int out_type = CV_8UC1;   // CV_8UC1 or CV_16SC1
  double tolerance = 0;     // largest |GPU - CPU| accepted before timing
  double bytes_per_px = 2;  // read + written
  std::function<void(const cv::Mat& in, cv::Mat& out)> cpu;
  // d_out is device memory of out_type with pitch out_pitch.
  // Runs the rung named `rung` ("" for the default) and returns the name of the rung that ran.
  std::function<const char*(ConstImageView d_in, void* d_out, std::size_t out_pitch, cudaStream_t stream, std::string_view rung)> gpu;
  // The NPP peer (empty: none, or NPP not built).
  std::function<void(ConstImageView d_in, void* d_out, std::size_t out_pitch, cudaStream_t stream)> npp;
  std::string npp_note;  // what the peer computes when it is not the same function
  // A memory roofline finer than the copy (empty: none), timed into d_out like a rung with
  // --ladder; its output is not checked.
  std::function<void(ConstImageView d_in, void* d_out, std::size_t out_pitch, cudaStream_t stream)> roofline;
  std::string roofline_name;
  double roofline_target_pct = 0;  // > 0: print the default rung's share of the roofline against it
};

// Runs and prints each case: the default rung, or with --ladder every rung of the op's declaration
// (wk/image/op.hpp), each row named after the rung that ran. `op` names the operation. Returns the
// exit code.
int run_filter_benches(const Options& options, const char* op, const std::vector<FilterBench>& benches);

// Throws wk::Error{internal} "WHAT: rung 'RAN' differs from OpenCV by D > TOLERANCE" when `got` is
// further than `tolerance` from `reference` anywhere: no row for a wrong kernel.
void check_rung_output(const cv::Mat& got, const cv::Mat& reference, double tolerance, const std::string& what,
                       const std::string& ran);

}  // namespace wk::bench
