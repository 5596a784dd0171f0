// wk-image on the GPU writes exactly what the CPU backend writes.
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include "test_support.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

TEST_CASE("wk-image gray: GPU outputs are byte-identical to CPU outputs", "[gpu][cli][wk-image]") {
  wk::test::TempDir dir;
  const auto gen = wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote((dir / "in").string()) +
                                 " --count 8 --size 1921x1081 --formats jpg,png,bmp,ppm");
  REQUIRE(gen.exit_code == 0);
  for (const char* dev : {"cpu", "gpu"}) {
    // OpenCV's JPEG codecs: nvJPEG's pixels and bytes differ from libjpeg's by rounding (tested
    // in tests/io/test_nvjpeg_*_gpu.cpp); here the GPU operations are checked bit for bit.
    const auto r = wk::test::run(std::string(WK_IMAGE_EXE) + " gray -q --jpeg-decoder opencv --jpeg-encoder opencv --device " + dev + " -o " +
                                 sh_quote((dir / dev).string()) + " " + sh_quote((dir / "in").string()));
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

TEST_CASE("wk-image --gpus spreads images over every GPU with CPU-identical outputs", "[gpu][cli][wk-image][multi-gpu]") {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    WARN("fewer than 2 GPUs: the multi-GPU case needs a machine like nvidia-h200-x2");
    return;
  }
  wk::test::TempDir dir;
  REQUIRE(wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote((dir / "in").string()) +
                        " --count 24 --size 1280x720 --formats png").exit_code == 0);
  const auto cpu = wk::test::run(std::string(WK_IMAGE_EXE) + " gray -q --device cpu -o " + sh_quote((dir / "cpu").string()) + " " +
                                 sh_quote((dir / "in").string()));
  REQUIRE(cpu.exit_code == 0);
  const auto gpu = wk::test::run(std::string(WK_IMAGE_EXE) + " gray -q --device gpu --gpus 0,1 --threads 8 -o " +
                                 sh_quote((dir / "gpu").string()) + " --report " + sh_quote((dir / "r.json").string()) + " " +
                                 sh_quote((dir / "in").string()));
  INFO(gpu.output);
  REQUIRE(gpu.exit_code == 0);
  const std::string report = wk::test::read_bytes(dir / "r.json");
  CHECK_THAT(report, Catch::Contains("\"gpu0\"") && Catch::Contains("\"gpu1\""));
  for (const auto& e : fs::directory_iterator(dir / "cpu"))
    CHECK(wk::test::read_bytes(e.path()) == wk::test::read_bytes(dir / "gpu" / e.path().filename()));
  // JPEGs in and out: with nvJPEG each GPU's decoding thread and encoders take part.
  REQUIRE(wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote((dir / "jin").string()) +
                        " --count 40 --size 1280x720 --formats jpg").exit_code == 0);
  const auto jpeg = wk::test::run(std::string(WK_IMAGE_EXE) + " gray,gauss:5 -q --device gpu --gpus 0,1 --threads 8 --jpeg-batch 4 -o " +
                                  sh_quote((dir / "jout").string()) + " --report " + sh_quote((dir / "j.json").string()) + " " +
                                  sh_quote((dir / "jin").string()));
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
  REQUIRE(wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote((dir / "in").string()) +
                        " --count 6 --size 1280x720 --formats jpg").exit_code == 0);
  const auto r = wk::test::run(std::string(WK_IMAGE_EXE) + " gray --device gpu --jpeg-batch 4 -o " +
                               sh_quote((dir / "out").string()) + " --report " + sh_quote((dir / "r.json").string()) + " " +
                               sh_quote((dir / "in").string()));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string report = wk::test::read_bytes(dir / "r.json");
  if (wk::pipeline::nvjpeg_in_build())
    CHECK_THAT(report, Catch::Contains("\"decoder\": \"nvjpeg") && Catch::Contains("\"encoder\": \"nvjpeg\"") &&
                           !Catch::Contains("\"opencv\""));
  else
    CHECK_THAT(report, Catch::Contains("\"decoder\": \"opencv\"") && Catch::Contains("\"encoder\": \"opencv\"") &&
                           !Catch::Contains("nvjpeg"));
  const auto o = wk::test::run(std::string(WK_IMAGE_EXE) + " gray --device gpu --jpeg-decoder opencv --jpeg-encoder opencv -o " +
                               sh_quote((dir / "out2").string()) + " --report " + sh_quote((dir / "r2.json").string()) + " " +
                               sh_quote((dir / "in").string()));
  INFO(o.output);
  REQUIRE(o.exit_code == 0);
  CHECK_THAT(wk::test::read_bytes(dir / "r2.json"), !Catch::Contains("nvjpeg"));
}
