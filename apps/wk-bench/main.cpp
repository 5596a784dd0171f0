// wk-bench: APOD ladders and peer comparisons, one subcommand per operation.
#include <fmt/core.h>

#include "app_common.hpp"
#include "benches.hpp"
#include "wk/core/nvtx.hpp"

namespace {

struct BenchEntry {
  const char* name;
  const char* description;
  int (*run)(const wk::bench::Options&);
};

// One line per benchmarked operation; the name is the operation's name in lib, tests and docs.
constexpr BenchEntry kBenches[] = {
    {"gray", "RGB/BGR -> gray (8-bit, 3 channels)", wk::bench::bench_gray},
    {"histogram", "256-bin histogram of 8-bit gray: natural photo and constant image", wk::bench::bench_histogram},
    {"equalize", "histogram equalization of 8-bit gray (histogram + LUT + apply)", wk::bench::bench_equalize},
    {"conv", "generic float-weight convolution 7x7 and 15x15 (8-bit gray)", wk::bench::bench_conv},
    {"gauss", "Gaussian blur 5x5 (sigma from K and 1.5), 7x7 and 15x15 (8-bit gray, bit-exact)", wk::bench::bench_gauss},
    {"box", "box (mean) filter 5x5 and 15x15 (8-bit gray)", wk::bench::bench_box},
    {"sobel", "Sobel 3x3: dx u8 -> s16, gradient magnitude (8-bit gray)", wk::bench::bench_sobel},
    {"laplacian", "|Laplacian| 3x3 (8-bit gray)", wk::bench::bench_laplacian},
    {"sharpen", "unsharp mask with a 5x5 Gaussian (8-bit gray)", wk::bench::bench_sharpen},
    {"rotate", "geometry rungs: rotate 90, transpose, flip h (8-bit gray, square: --size W)", wk::bench::bench_rotate},
    {"resize", "resize 8192x8192 u8 RGB: 2:1 area, linear/cubic/lanczos to 3000x2000, area to 1920x1080 (--size: the input)", wk::bench::bench_resize},
    {"idea", "IDEA encryption (crypt, book ch. 10): host->host via GPU, kernel, copies, CPU; --size WxH = W*H 8-byte blocks", wk::bench::bench_idea},
    {"hash", "crypt(3): md5crypt, sha256crypt, sha512crypt, bcrypt per password class vs libxcrypt and hashcat, then yescrypt and scrypt; --size ignored", wk::bench::bench_hash},
    {"yescrypt", "yescrypt (libxcrypt's default and lowest cost) and scrypt (N 2^14, r 8) vs libxcrypt on all cores and the copy rate; --size ignored", wk::bench::bench_yescrypt},
    {"audit", "wk-hash audit's throughput (accounts x candidates / s) against the kernel on the same pairs, five methods; --size ignored", wk::bench::bench_audit},
    {"dist", "scale-out (run under mpirun -np N): rank 0's cost per dealt chunk and in-order collection rate; --size CxB = C chunks of B bytes", wk::bench::bench_dist},
};

}  // namespace

int main(int argc, char** argv) {
  // wk-bench dist under mpirun
  if (const int code = wk::app::start_world("wk-bench", &argc, &argv); code != wk::app::kSuccess) return code;
  CLI::App app{"wk-bench: time warpkit's kernels (each APOD rung with --ladder) against peers and the copy roofline"};
  app.require_subcommand(1);
  app.footer(R"(Examples:
  wk-bench gray                    the default gray kernel, NPP (when built with it) and the copy roofline
  wk-bench gray --ladder           every rung of the gray ladder (docs/apod/gray.md)
  wk-bench gray --size 4096x4096 --repeats 50

Times are medians of CUDA-event timings on device-resident data; each rung's output is checked
against the CPU path before its time is printed. Without a GPU only CPU rows are printed.)");

  wk::bench::Options opt;
  std::string size = "8192x8192";
  std::vector<std::pair<CLI::App*, const BenchEntry*>> subs;
  for (const BenchEntry& b : kBenches) {
    CLI::App* sub = app.add_subcommand(b.name, b.description);
    sub->add_flag("--ladder", opt.ladder, "Time every rung of the APOD ladder, not only the default");
    sub->add_option("--size", size, "Problem size: WxH for images (each bench says what it means)")->default_val("8192x8192");
    sub->add_option("--repeats", opt.repeats, "Timed repeats per row (the median is printed)")
        ->default_val(20)->check(CLI::Range(1, 10000));
    sub->add_option("--variant", opt.variant, "Only this rung (a name from --ladder)");
    wk::app::add_device_option(*sub, opt.device);
    subs.emplace_back(sub, &b);
  }

  const int code = wk::app::run_app("wk-bench", app, argc, argv, [&]() -> int {
    wk::nvtx::Range r("wk-bench");
    wk::bench::parse_size(size, opt.width, opt.height);
    for (auto& [sub, entry] : subs)
      if (sub->parsed()) return entry->run(opt);
    return wk::app::kUsage;
  });
  if (wk::dist::world().distributed()) wk::app::end_world(code);
  wk::dist::finalize();
  return code;
}
