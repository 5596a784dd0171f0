// wk-image on the GPU writes exactly what the CPU backend writes.
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "test_support.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

namespace {

// wk-make-images -o DIR ARGS
wk::test::CommandResult make_images(const fs::path& dir, const std::string& args) {
  return wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote(dir.string()) + " " + args);
}

// wk-image ARGS -o OUT [--report REPORT] IN
wk::test::CommandResult wk_image(const std::string& args, const fs::path& in, const fs::path& out,
                                 const fs::path& report = {}) {
  return wk::test::run(std::string(WK_IMAGE_EXE) + " " + args + " -o " + sh_quote(out.string()) +
                       (report.empty() ? "" : " --report " + sh_quote(report.string())) + " " + sh_quote(in.string()));
}

}  // namespace

TEST_CASE("wk-image gray: GPU outputs are byte-identical to CPU outputs", "[gpu][cli][wk-image]") {
  wk::test::TempDir dir;
  const auto gen = make_images(dir / "in", "--count 8 --size 1921x1081 --formats jpg,png,bmp,ppm");
  REQUIRE(gen.exit_code == 0);
  for (const char* dev : {"cpu", "gpu"}) {
    // OpenCV's JPEG codecs: nvJPEG's pixels and bytes differ from libjpeg's by rounding (tested
    // in tests/io/test_nvjpeg_*_gpu.cpp); here the GPU operations are checked bit for bit.
    const auto r = wk_image(std::string("gray -q --jpeg-decoder opencv --jpeg-encoder opencv --device ") + dev, dir / "in", dir / dev);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  int compared = 0;
  for (const auto& e : fs::directory_iterator(dir / "cpu")) {
    const fs::path name = e.path().filename();
    CAPTURE(name);
    CHECK(wk::test::read_bytes(e.path()) == wk::test::read_bytes(dir / "gpu" / name));
    ++compared;
  }
  CHECK(compared == 8);
}

// The "multi-gpu" ctest runs it where 2 or more GPUs are present (hidden from the "gpu" ones).
TEST_CASE("wk-image --gpus spreads images over every GPU with CPU-identical outputs", "[gpu][cli][wk-image][.multi-gpu]") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  REQUIRE(count >= 2);
  wk::test::TempDir dir;
  REQUIRE(make_images(dir / "in", "--count 24 --size 1280x720 --formats png").exit_code == 0);
  const auto cpu = wk_image("gray -q --device cpu", dir / "in", dir / "cpu");
  REQUIRE(cpu.exit_code == 0);
  const auto gpu = wk_image("gray -q --device gpu --gpus 0,1 --threads 8", dir / "in", dir / "gpu", dir / "r.json");
  INFO(gpu.output);
  REQUIRE(gpu.exit_code == 0);
  const std::string report = wk::test::read_bytes(dir / "r.json");
  CHECK_THAT(report, Catch::Contains("\"gpu0\"") && Catch::Contains("\"gpu1\""));
  for (const auto& e : fs::directory_iterator(dir / "cpu"))
    CHECK(wk::test::read_bytes(e.path()) == wk::test::read_bytes(dir / "gpu" / e.path().filename()));
  // --gpus 1: the runtime is shown GPU 1 alone (its start initializes no other), where it is
  // device 0; the report still names it gpu1.
  const auto second = wk_image("gray -q --device gpu --gpus 1", dir / "in", dir / "second", dir / "s.json");
  INFO(second.output);
  REQUIRE(second.exit_code == 0);
  const std::string second_report = wk::test::read_bytes(dir / "s.json");
  CHECK_THAT(second_report, Catch::Contains("\"gpu1\"") && !Catch::Contains("\"gpu0\""));
  for (const auto& e : fs::directory_iterator(dir / "cpu"))
    CHECK(wk::test::read_bytes(e.path()) == wk::test::read_bytes(dir / "second" / e.path().filename()));
  // JPEGs in and out: with nvJPEG each GPU's decoding thread and encoders take part.
  REQUIRE(make_images(dir / "jin", "--count 40 --size 1280x720 --formats jpg").exit_code == 0);
  const auto jpeg = wk_image("gray,gauss:5 -q --device gpu --gpus 0,1 --threads 8 --jpeg-batch 4", dir / "jin", dir / "jout", dir / "j.json");
  INFO(jpeg.output);
  REQUIRE(jpeg.exit_code == 0);
  const std::string jreport = wk::test::read_bytes(dir / "j.json");
  CHECK_THAT(jreport, Catch::Contains("\"gpu0\"") && Catch::Contains("\"gpu1\"") && Catch::Contains("\"ok\": 40"));
  if (wk::pipeline::nvjpeg_in_build())
    CHECK_THAT(jreport, Catch::Contains("\"decoder\": \"nvjpeg") && Catch::Contains("\"encoder\": \"nvjpeg\""));
  std::size_t outputs = 0;
  for (const auto& e : fs::directory_iterator(dir / "jout")) outputs += e.path().extension() == ".jpg";
  CHECK(outputs == 40);
}

TEST_CASE("wk-image on the GPU decodes and encodes JPEGs with nvJPEG by default when built with it, with OpenCV when asked",
          "[gpu][cli][wk-image][nvjpeg]") {
  wk::test::TempDir dir;
  REQUIRE(make_images(dir / "in", "--count 6 --size 1280x720 --formats jpg").exit_code == 0);
  const auto r = wk_image("gray --device gpu --jpeg-batch 4", dir / "in", dir / "out", dir / "r.json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string report = wk::test::read_bytes(dir / "r.json");
  if (wk::pipeline::nvjpeg_in_build())
    CHECK_THAT(report, Catch::Contains("\"decoder\": \"nvjpeg") && Catch::Contains("\"encoder\": \"nvjpeg\"") &&
                           !Catch::Contains("\"opencv\""));
  else
    CHECK_THAT(report, Catch::Contains("\"decoder\": \"opencv\"") && Catch::Contains("\"encoder\": \"opencv\"") &&
                           !Catch::Contains("nvjpeg"));
  const auto o = wk_image("gray --device gpu --jpeg-decoder opencv --jpeg-encoder opencv", dir / "in", dir / "out2", dir / "r2.json");
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK_THAT(wk::test::read_bytes(dir / "r2.json"), !Catch::Contains("nvjpeg"));
}

// --device auto begins on the CPU while the GPU starts. WK_CPU_START_FILES=4 makes the split
// deterministic: files 0..3 start on the CPU (outputs bit-identical to --device cpu), then the
// workers wait for the GPU and hand the rest to it.
TEST_CASE("wk-image --device auto: the first files on the CPU while the GPU starts, then the GPU",
          "[gpu][cli][wk-image][nvjpeg]") {
  wk::test::TempDir dir;
  REQUIRE(make_images(dir / "in", "--count 12 --size 640x480 --formats jpg,png").exit_code == 0);
  const auto cpu = wk_image("gray,gauss:5 -q --device cpu", dir / "in", dir / "cpu");
  REQUIRE(cpu.exit_code == 0);
  const auto r = wk::test::run("WK_CPU_START_FILES=4 " + std::string(WK_IMAGE_EXE) + " gray,gauss:5 --threads 2 -o " +
                               sh_quote((dir / "auto").string()) + " --report " + sh_quote((dir / "r.json").string()) + " " +
                               sh_quote((dir / "in").string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("the first 4 files on the cpu while it started"));
  const auto j = nlohmann::json::parse(wk::test::read_bytes(dir / "r.json"));
  CHECK(j.at("gpu").at("start_on_cpu") == true);
  CHECK(j.at("gpu").at("files_cpu") == 4);
  CHECK(j.at("gpu").at("files_gpu") == 8);
  CHECK(j.at("gpu").at("ready_s").get<double>() > 0);
  int on_cpu = 0, on_gpu = 0;
  for (const auto& f : j.at("files")) {
    const fs::path out = f.at("output").get<std::string>();
    CAPTURE(out);
    REQUIRE(f.at("status") == "ok");
    if (f.at("device") == "cpu") {
      ++on_cpu;
      CHECK(f.at("decoder") == "opencv");
      CHECK(wk::test::read_bytes(out) == wk::test::read_bytes(dir / "cpu" / out.filename()));
    } else {
      ++on_gpu;
      CHECK(f.at("device") == "gpu0");
      // PNG: the GPU operations are bit-exact; JPEG: nvJPEG's codecs round differently (their
      // own tests), so the same size is what is checked here.
      if (out.extension() == ".png")
        CHECK(wk::test::read_bytes(out) == wk::test::read_bytes(dir / "cpu" / out.filename()));
      else
        CHECK(cv::imread(out.string(), cv::IMREAD_UNCHANGED).size() == cv::Size(640, 480));
    }
  }
  CHECK(on_cpu == 4);
  CHECK(on_gpu == 8);
}
