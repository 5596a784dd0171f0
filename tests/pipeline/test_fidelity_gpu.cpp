// What the GPU backend keeps: a 16-bit or BGRA image through geometry and resize (the host's
// any-depth path, on a GPU worker) equals the CPU backend's output, and thumbnail on JPEGs (full
// nvJPEG or OpenCV decode, then the GPU's area step) gives the CPU path's size.
#include <catch2/catch.hpp>

#include <filesystem>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "test_support.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using namespace wk;

TEST_CASE("GPU folder job: 16-bit and alpha images keep their type through geometry and resize", "[fidelity][gpu]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  cv::Mat deep(40, 60, CV_16UC3);
  cv::randu(deep, 0, 65536);
  const cv::Mat bgra = test::random_image(33, 21, 4, 3);
  REQUIRE(cv::imwrite((dir / "in" / "deep.png").string(), deep));
  REQUIRE(cv::imwrite((dir / "in" / "alpha.png").string(), bgra));
  REQUIRE(cv::imwrite((dir / "in" / "plain.jpg").string(), test::random_image(640, 360, 3, 4)));
  for (Backend backend : {Backend::gpu, Backend::cpu}) {
    pipeline::FolderJobOptions opt;
    opt.pipeline_text = "rotate:270,resize:50%";
    opt.inputs = {(dir / "in").string()};
    opt.outdir = dir / (backend == Backend::gpu ? "gpu" : "cpu");
    opt.backend = backend;
    opt.threads = 2;
    const auto res = pipeline::run_folder_job(opt);
    REQUIRE(res.totals.ok == 3);
  }
  for (const char* name : {"deep.png", "alpha.png"}) {
    CAPTURE(name);
    const cv::Mat g = cv::imread((dir / "gpu" / name).string(), cv::IMREAD_UNCHANGED);
    const cv::Mat c = cv::imread((dir / "cpu" / name).string(), cv::IMREAD_UNCHANGED);
    REQUIRE(g.type() == c.type());
    CHECK(g.type() == (std::string(name) == "deep.png" ? CV_16UC3 : CV_8UC4));
    CHECK(cv::norm(g, c, cv::NORM_INF) == 0);
  }
  CHECK(cv::imread((dir / "gpu" / "plain.jpg").string()).size() == cv::Size(180, 320));
}
