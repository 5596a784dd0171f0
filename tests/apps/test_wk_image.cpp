// wk-image end to end on the CPU backend: outputs, bad files, exit codes, no partial files.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "test_support.hpp"
#include "wk/core/backend.hpp"

namespace fs = std::filesystem;
using wk::test::files_below;
using wk::test::sh_quote;

namespace {

std::string wk_image(const std::string& args) { return std::string(WK_IMAGE_EXE) + " " + args; }

cv::Mat expected_gray(const fs::path& input) {
  cv::Mat img = cv::imread(input.string(), cv::IMREAD_ANYCOLOR), g;
  if (img.channels() == 1) return img;
  cv::cvtColor(img, g, cv::COLOR_BGR2GRAY);
  return g;
}

// A folder of good images in several formats and a nested folder, plus bad files.
struct Fixture {
  wk::test::TempDir dir;
  fs::path in = dir / "in", out = dir / "out";
  Fixture() {
    fs::create_directories(in / "nested" / "deeper");
    cv::imwrite((in / "a.png").string(), wk::test::random_image(33, 17, 3, 1));
    cv::imwrite((in / "b.bmp").string(), wk::test::random_image(1, 5, 3, 2));
    cv::imwrite((in / "nested" / "c.ppm").string(), wk::test::random_image(4097, 3, 3, 3));
    cv::imwrite((in / "nested" / "gray.pgm").string(), wk::test::random_image(20, 10, 1, 4));
    cv::imwrite((in / "nested" / "deeper" / "d.jpg").string(), wk::test::random_image(64, 48, 3, 5));
    cv::imwrite((in / "alpha.png").string(), wk::test::random_image(12, 12, 4, 6));
  }
  void add_bad_files() {
    std::vector<std::uint8_t> jpg;
    cv::imencode(".jpg", wk::test::random_image(200, 100, 3, 7), jpg);
    wk::test::write_bytes(in / "truncated.jpg", std::string(jpg.begin(), jpg.begin() + jpg.size() / 2));
    wk::test::write_bytes(in / "empty.png", "");
    wk::test::write_bytes(in / "nested" / "text.jpg", "hello, I am not a JPEG\n");
  }
};

}  // namespace

TEST_CASE("wk-image gray converts a folder as OpenCV does and mirrors its tree", "[cli][wk-image]") {
  Fixture f;
  const auto r = wk::test::run(wk_image("gray --device cpu -q --alpha drop -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(files_below(f.out) == files_below(f.in));
  for (const char* lossless : {"a.png", "b.bmp", "nested/c.ppm", "nested/gray.pgm", "alpha.png"}) {
    CAPTURE(lossless);
    cv::Mat got = cv::imread((f.out / lossless).string(), cv::IMREAD_UNCHANGED);
    if (fs::path(lossless).extension() == ".ppm") {  // PPM is colour-only: gray in all 3 channels
      REQUIRE(got.channels() == 3);
      std::vector<cv::Mat> ch;
      cv::split(got, ch);
      CHECK(cv::norm(ch[0], ch[1], cv::NORM_INF) == 0);
      CHECK(cv::norm(ch[0], ch[2], cv::NORM_INF) == 0);
      got = ch[0];
    }
    REQUIRE(got.channels() == 1);
    CHECK(cv::norm(got, expected_gray(f.in / lossless), cv::NORM_INF) == 0);
  }
  // JPEG output: byte-identical to OpenCV's encoder at quality 95.
  std::vector<std::uint8_t> jpg;
  cv::imencode(".jpg", expected_gray(f.in / "nested/deeper/d.jpg"), jpg, {cv::IMWRITE_JPEG_QUALITY, 95});
  CHECK(wk::test::read_bytes(f.out / "nested/deeper/d.jpg") == std::string(jpg.begin(), jpg.end()));
}

TEST_CASE("wk-image names bad files, converts the rest, exits 1, leaves no partial outputs", "[cli][wk-image]") {
  Fixture f;
  f.add_bad_files();
  const auto r = wk::test::run(wk_image("gray --device cpu -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("truncated.jpg: truncated JPEG"));
  CHECK_THAT(r.output, Catch::Contains("empty.png: empty file"));
  CHECK_THAT(r.output, Catch::Contains("text.jpg: not a decodable image"));
  // An alpha channel is not dropped unless asked (--alpha drop): named, and the rest goes on.
  CHECK_THAT(r.output, Catch::Contains("alpha.png: PNG with an alpha channel") && Catch::Contains("--alpha drop"));
  CHECK_THAT(r.output, Catch::Contains("5 converted, 4 failed"));
  const auto outs = files_below(f.out);
  CHECK(outs == std::vector<std::string>{"a.png", "b.bmp", "nested/c.ppm", "nested/deeper/d.jpg", "nested/gray.pgm"});
}

TEST_CASE("wk-image replaces existing outputs atomically and never overwrites its input", "[cli][wk-image]") {
  Fixture f;
  fs::create_directories(f.out);
  wk::test::write_bytes(f.out / "a.png", "stale");
  auto r = wk::test::run(wk_image("gray --device cpu -q -o " + sh_quote(f.out.string()) + " " + sh_quote((f.in / "a.png").string())));
  REQUIRE(r.exit_code == 0);
  CHECK(cv::norm(cv::imread((f.out / "a.png").string(), cv::IMREAD_UNCHANGED), expected_gray(f.in / "a.png"), cv::NORM_INF) == 0);

  const std::string before = wk::test::read_bytes(f.in / "a.png");
  r = wk::test::run(wk_image("gray --device cpu -q -o " + sh_quote(f.in.string()) + " " + sh_quote((f.in / "a.png").string())));
  CHECK(r.exit_code == 2);  // a usage error before any work
  CHECK_THAT(r.output, Catch::Contains("would overwrite the input"));
  CHECK(wk::test::read_bytes(f.in / "a.png") == before);
}

TEST_CASE("wk-image usage errors exit 2 with a message", "[cli][wk-image]") {
  Fixture f;
  auto r = wk::test::run(wk_image("blur -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown operation 'blur'"));
  r = wk::test::run(wk_image("gray " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--output"));
  r = wk::test::run(wk_image("gray,,gray -o x y"));
  CHECK(r.exit_code == 2);
  r = wk::test::run(wk_image("gray --device tpu -o x y"));
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(f.out));
}

TEST_CASE("wk-image --jpeg-decoder, --jpeg-encoder and --jpeg-batch: checked values, nvjpeg only on the GPU backend",
          "[cli][wk-image]") {
  Fixture f;
  auto r = wk::test::run(wk_image("gray --device cpu --jpeg-decoder nvjpeg -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("nvjpeg") && (Catch::Contains("GPU backend") || Catch::Contains("no nvJPEG")));
  r = wk::test::run(wk_image("gray --device cpu --jpeg-decoder turbo -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  r = wk::test::run(wk_image("gray --device cpu --jpeg-encoder nvjpeg -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--jpeg-encoder nvjpeg") && (Catch::Contains("GPU backend") || Catch::Contains("no nvJPEG")));
  r = wk::test::run(wk_image("gray --device cpu --jpeg-encoder turbo -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  r = wk::test::run(wk_image("gray --device cpu --jpeg-batch 0 -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(f.out));
  // The CPU backend decodes and encodes with OpenCV whatever --jpeg-decoder/--jpeg-encoder auto|opencv say.
  r = wk::test::run(wk_image("gray --device cpu -q --alpha drop --jpeg-decoder opencv --jpeg-encoder auto --jpeg-batch 3 -o " + sh_quote(f.out.string()) + " " +
                             sh_quote(f.in.string())));
  CHECK(r.exit_code == 0);
  CHECK(cv::imread((f.out / "nested" / "deeper" / "d.jpg").string(), cv::IMREAD_UNCHANGED).size() ==
        expected_gray(f.in / "nested" / "deeper" / "d.jpg").size());
}

TEST_CASE("wk-image --help shows usage, examples and file semantics", "[cli][wk-image]") {
  const auto r = wk::test::run(wk_image("--help"));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("Examples:") && Catch::Contains("--device") && Catch::Contains("atomically"));
  CHECK_THAT(r.output, Catch::Contains("--jpeg-decoder") && Catch::Contains("--jpeg-encoder") &&
                           Catch::Contains("GPU JPEG decode and encode (nvJPEG; this build: "));
}

TEST_CASE("wk-image --device auto falls back to the CPU with one notice when no GPU is usable", "[cli][wk-image]") {
  Fixture f;
  // A job this small never starts the GPU: the CPU alone ends sooner.
  auto r = wk::test::run(wk_image("gray --alpha drop -o " + sh_quote(f.out.string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("converted") && Catch::Contains("on the cpu (a small job") &&
                           !Catch::Contains("no usable CUDA GPU"));
  // WK_CPU_START_FILES starts it whatever the size (and lets that many files start on the CPU).
  r = wk::test::run("WK_CPU_START_FILES=100 " + wk_image("gray --alpha drop -o " + sh_quote((f.dir / "o3").string()) + " " + sh_quote(f.in.string())));
  CHECK(r.exit_code == 0);
  if (wk::probe_gpu().usable) {
    CHECK_THAT(r.output, Catch::Contains("converted") && !Catch::Contains("no usable CUDA GPU"));
  } else {
    CHECK_THAT(r.output, Catch::Contains("no usable CUDA GPU") && Catch::Contains("on the cpu"));
    const auto g = wk::test::run(wk_image("gray --device gpu -o " + sh_quote((f.dir / "o2").string()) + " " + sh_quote(f.in.string())));
    CHECK(g.exit_code == 1);
    CHECK_THAT(g.output, Catch::Contains("--device gpu: no usable CUDA GPU"));
  }
}
