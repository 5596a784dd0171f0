// wk-image's image operations on the GPU write what the CPU backend writes: byte-identical for
// the exact operations (and the histogram tables), within 1 LSB for float-weight kernels.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

namespace {
struct Run {
  wk::test::TempDir dir;
  Run() {
    const auto gen = wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote((dir / "in").string()) +
                                   " --count 4 --size 1283x717 --formats png,bmp");
    REQUIRE(gen.exit_code == 0);
  }
  void both(const std::string& ops, const std::string& extra = "") {
    for (const char* dev : {"cpu", "gpu"}) {
      fs::remove_all(dir / dev);
      const auto r = wk::test::run(std::string(WK_IMAGE_EXE) + " " + sh_quote(ops) + " -q --device " + dev + " " + extra + " -o " +
                                   sh_quote((dir / dev).string()) + " " + sh_quote((dir / "in").string()));
      INFO(ops << " on the " << dev << ": " << r.output);
      REQUIRE(r.exit_code == 0);
    }
  }
  // Compares every file: byte-identical, or (images) within `tolerance`.
  int compare(double tolerance) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir / "cpu")) {
      const fs::path name = e.path().filename();
      CAPTURE(name);
      const std::string ext = name.extension().string();
      if (tolerance == 0 || ext == ".csv") {
        CHECK(wk::test::read_bytes(e.path()) == wk::test::read_bytes(dir / "gpu" / name));
      } else {
        const cv::Mat a = cv::imread(e.path().string(), cv::IMREAD_UNCHANGED), b = cv::imread((dir / "gpu" / name).string(), cv::IMREAD_UNCHANGED);
        CHECK(cv::norm(a, b, cv::NORM_INF) <= tolerance);
      }
      ++n;
    }
    return n;
  }
};
}  // namespace

TEST_CASE("wk-image GPU == CPU for histogram, equalize and the exact filters, chains included", "[gpu][cli][wk-image]") {
  Run run;
  for (const char* ops : {"hist", "equalize", "gray,gauss:5,equalize", "gauss:15", "gauss:7:1.2", "box:5", "box:16", "box:21", "sobel", "sobel:dx",
                          "sobel:dy", "laplacian", "sharpen", "gray,hist,sobel,hist", "gray,sharpen:1,gauss:3"}) {
    CAPTURE(ops);
    run.both(ops, "--plot");
    CHECK(run.compare(0) >= 4);
  }
  for (const char* border : {"replicate", "reflect", "constant:30", "wrap"}) {
    CAPTURE(border);
    run.both("gauss:5,sobel", std::string("--border ") + border);
    CHECK(run.compare(0) == 4);
  }
}

TEST_CASE("wk-image GPU within 1 LSB of CPU for float-weight kernels", "[gpu][cli][wk-image]") {
  Run run;
  for (const char* ops : {"conv:[0 -1 0; -1 5 -1; 0 -1 0]", "conv:[0.1 0.2 0.3; 0.4 0.5 0.6; 0.7 0.8 0.9]", "sharpen:0.3", "gray,conv:[1 2 1]"}) {
    CAPTURE(ops);
    run.both(ops);
    CHECK(run.compare(1) == 4);
  }
}
