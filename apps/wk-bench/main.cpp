// wk-bench: APOD ladders and peer comparisons, one subcommand per operation.
#include <fmt/core.h>

#include "app_common.hpp"
#include "benches.hpp"
#include "wk/core/nvtx.hpp"

int main(int argc, char** argv) {
  CLI::App app{"wk-bench: time warpkit's kernels (each APOD rung with --ladder) against peers and the copy roofline"};
  app.require_subcommand(1);
  app.footer(R"(Examples:
  wk-bench gray                    the default gray kernel, NPP (when built with it) and the copy roofline
  wk-bench gray --ladder           every rung of the gray ladder (docs/apod/gray.md)
  wk-bench gray --size 4096x4096 --repeats 50

Times are medians of CUDA-event timings on device-resident data; each rung's output is checked
against OpenCV before its time is printed. Without a GPU only the CPU (OpenCV) row is printed.)");

  wk::bench::Options opt;
  std::string size = "8192x8192";
  auto add_common = [&](CLI::App* sub) {
    sub->add_flag("--ladder", opt.ladder, "Time every rung of the APOD ladder, not only the default");
    sub->add_option("--size", size, "Image size WxH")->default_val("8192x8192");
    sub->add_option("--repeats", opt.repeats, "Timed repeats per row (the median is printed)")
        ->default_val(20)->check(CLI::Range(1, 10000));
    wk::app::add_device_option(*sub, opt.device);
  };
  CLI::App* gray = app.add_subcommand("gray", "RGB/BGR -> gray (8-bit, 3 channels)");
  add_common(gray);

  return wk::app::run_app("wk-bench", app, argc, argv, [&]() -> int {
    wk::nvtx::Range r("wk-bench");
    wk::bench::parse_size(size, opt.width, opt.height);
    if (gray->parsed()) return wk::bench::bench_gray(opt);
    return wk::app::kUsage;
  });
}
