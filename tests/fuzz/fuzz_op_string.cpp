// wk-image's operation pipelines ("gray,gauss:5:1.2,conv:[1 2; 3 4]"): parse_pipeline, the
// --border text, the Pipeline's argument checks, and a run of the accepted pipeline on a small
// CPU image (extreme arguments against tiny images). Input: 4 control bytes (border, channels,
// width, height), then the border text up to '\n' when the first byte says so, then the pipeline.
// Invariants: bad text is a wk::Error{usage} (never another exception or a crash); an accepted
// pipeline either runs or refuses the image with wk::Error{usage}, and keeps the image size.
// Kernel files (conv:FILE) resolve in an empty scratch folder, so they are always missing.
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <algorithm>

#include <opencv2/core.hpp>

#include "fuzz_util.hpp"
#include "wk/core/error.hpp"
#include "wk/image/filter.hpp"
#include "wk/image/geometry.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/image/resize.hpp"

using wk::fuzz::check;

namespace {

// The size the pipeline's geometry and resampling ops give a width x height image: a quarter
// turn and a transpose swap the sides, a crop takes its region's size, resize and thumbnail
// their plan's; the other ops keep it.
// `peak`: the most pixels of any intermediate result.
std::pair<int, int> expected_size(const std::vector<wk::image::OpSpec>& ops, int w, int h, long long& peak) {
  peak = static_cast<long long>(w) * h;
  for (const auto& op : ops) {
    if (op.name == "transpose" || (op.name == "rotate" && !op.args.empty() && op.args[0] != "180")) {
      std::swap(w, h);
    } else if (op.name == "crop") {
      std::string region;
      for (const auto& a : op.args) region += (region.empty() ? "" : ":") + a;
      const wk::image::CropRegion r = wk::image::place_crop(wk::image::parse_crop(region), w, h);
      w = r.width;
      h = r.height;
    } else if ((op.name == "resize" || op.name == "thumbnail") && !op.args.empty()) {
      // SIZE, then words: a fit mode sets the plan; the interpolations do not change the size.
      wk::image::FitMode mode = wk::image::FitMode::fit;
      for (std::size_t i = 1; i < op.args.size(); ++i) {
        if (op.args[i] == "fill") mode = wk::image::FitMode::fill;
        if (op.args[i] == "exact") mode = wk::image::FitMode::exact;
      }
      const auto plan = wk::image::plan_resize(wk::image::parse_resize_size(op.args[0]), mode, w, h, op.name == "thumbnail");
      w = plan.width;
      h = plan.height;
      peak = std::max(peak, static_cast<long long>(plan.scaled_width) * plan.scaled_height);
    }
  }
  return {w, h};
}

}  // namespace

using wk::fuzz::fail;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cv::setNumThreads(1);
  if (::chdir(wk::fuzz::scratch_dir().c_str()) != 0) wk::fuzz::fail("chdir to the scratch folder");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::uint8_t control = in.ConsumeIntegral<std::uint8_t>();
  const int channels = (control & 1) ? 3 : 1;
  const bool custom_border = control & 2;
  const int width = 1 + in.ConsumeIntegral<std::uint8_t>() % 48;
  const int height = 1 + in.ConsumeIntegral<std::uint8_t>() % 48;
  const std::uint8_t seed = in.ConsumeIntegral<std::uint8_t>();
  std::string rest = in.ConsumeRemainingBytesAsString();
  if (rest.find('/') != std::string::npos) return -1;  // conv:FILE stays inside the scratch folder

  wk::image::PipelineOptions options;
  options.plot = control & 4;
  std::string_view text = rest;
  if (custom_border) {
    const std::size_t nl = text.find('\n');
    const std::string_view border_text = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    try {
      options.border = wk::image::parse_border(border_text);
    } catch (const wk::Error& e) {
      check(e.category() == wk::ErrorCategory::usage, "a bad --border is a usage error");
      return 0;
    }
  }

  try {
    const auto ops = wk::image::parse_pipeline(text);
    check(!ops.empty(), "an accepted pipeline has operations");
    for (const auto& op : ops) check(!op.name.empty(), "every operation has a name");
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::usage, "a bad pipeline is a usage error");
  }

  std::optional<wk::image::Pipeline> pipeline;
  try {
    pipeline.emplace(text, wk::Backend::cpu, options);
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::usage, std::string("a rejected pipeline is a usage error: ") + e.what());
    return 0;
  }

  cv::Mat image(height, width, channels == 3 ? CV_8UC3 : CV_8UC1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width * channels; ++x) image.ptr<std::uint8_t>(y)[x] = std::uint8_t(seed * 31 + y * 7 + x * 13);
  std::vector<wk::image::SideOutput> side;
  try {
    long long peak = 0;
    const auto [want_w, want_h] = expected_size(pipeline->ops(), width, height, peak);
    if (peak > (1 << 22)) return 0;  // a resize to a huge size: valid, but only slow here
    const cv::Mat out = pipeline->run(image, 0, &side);
    check(out.rows == want_h && out.cols == want_w, "the result has the size the geometry and resampling ops give, the input's without them");
    check(out.depth() == CV_8U && (out.channels() == 1 || out.channels() == 3), "8-bit 1- or 3-channel result");
    for (const auto& s : side) check(!s.suffix.empty() && !s.bytes.empty(), "side outputs have a name and bytes");
  } catch (const wk::Error& e) {
    check(e.category() == wk::ErrorCategory::usage, std::string("an image the pipeline refuses is a usage error: ") + e.what());
  }
  return 0;
}
