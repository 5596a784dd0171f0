// wk-image as a Unix tool: "-" for standard input and output, data alone on standard output and
// talk on standard error (-q: none, -v: more), a resumed report that keeps the first run's
// records, the backend that ran in the report, and usage errors (exit 2) before any work.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "wk/core/backend.hpp"

namespace fs = std::filesystem;
using wk::test::files_below;
using wk::test::sh_quote;

namespace {

std::string q(const fs::path& p) { return sh_quote(p.string()); }

// One run of wk-image with its standard output and standard error apart (in files of `dir`),
// standard input from `stdin_file` (none: /dev/null), in the working folder `cwd` (none: `dir`).
struct Streams {
  int exit_code = -1;
  std::string out, err;
};
Streams wk_image_split(const wk::test::TempDir& dir, const std::string& args, const fs::path& stdin_file = {},
                       const fs::path& cwd = {}) {
  const fs::path out = dir / "stdout.bin", err = dir / "stderr.txt";
  const std::string in = stdin_file.empty() ? std::string("/dev/null") : stdin_file.string();
  const auto r = wk::test::run("( cd " + q(cwd.empty() ? dir.path() : cwd) + " && " + WK_IMAGE_EXE + " " + args + " <" +
                               q(in) + " >" + q(out) + " 2>" + q(err) + " )");
  Streams s;
  s.exit_code = r.exit_code;
  s.out = wk::test::read_bytes(out);
  s.err = wk::test::read_bytes(err);
  return s;
}

cv::Mat gray_of(const cv::Mat& image) {
  cv::Mat g;
  cv::cvtColor(image, g, cv::COLOR_BGR2GRAY);
  return g;
}

cv::Mat decoded(const std::string& bytes) {
  const std::vector<std::uint8_t> buf(bytes.begin(), bytes.end());
  return buf.empty() ? cv::Mat() : cv::imdecode(buf, cv::IMREAD_UNCHANGED);
}

nlohmann::json report_of(const fs::path& p) { return nlohmann::json::parse(wk::test::read_bytes(p)); }

void make_images(const fs::path& dir, int count) {
  fs::create_directories(dir);
  for (int i = 0; i < count; ++i)
    cv::imwrite((dir / ("p" + std::to_string(i) + ".png")).string(), wk::test::random_image(24, 16, 3, unsigned(40 + i)));
}

}  // namespace

TEST_CASE("wk-image - to -o - reads standard input and writes the one image to standard output", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  const cv::Mat image = wk::test::random_image(37, 21, 3, 11);
  cv::imwrite((dir / "a.png").string(), image);
  std::vector<std::uint8_t> jpg;
  cv::imencode(".jpg", image, jpg, {cv::IMWRITE_JPEG_QUALITY, 90});
  wk::test::write_bytes(dir / "a.jpg", std::string(jpg.begin(), jpg.end()));

  // PNG in on standard input, PNG out on standard output: the CPU's gray, pixel for pixel.
  auto r = wk_image_split(dir, "gray --device cpu --format png -o - -", dir / "a.png");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const cv::Mat got = decoded(r.out);
  REQUIRE_FALSE(got.empty());
  CHECK(cv::norm(got, gray_of(image), cv::NORM_INF) == 0);
  CHECK_THAT(r.err, Catch::Contains("1 converted"));  // the talk went to standard error
  CHECK(files_below(dir.path()) == std::vector<std::string>{"a.jpg", "a.png", "stderr.txt", "stdout.bin"});  // no folder "-"

  // A JPEG from standard input to JPEG on standard output: byte for byte OpenCV's encode of
  // OpenCV's decode (quality 95), and a file named as the input works the same.
  const cv::Mat jpeg_gray = gray_of(cv::imread((dir / "a.jpg").string(), cv::IMREAD_COLOR));
  std::vector<std::uint8_t> expected;
  cv::imencode(".jpg", jpeg_gray, expected, {cv::IMWRITE_JPEG_QUALITY, 95});
  r = wk_image_split(dir, "gray --device cpu -q --format jpg -o - -", dir / "a.jpg");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == std::string(expected.begin(), expected.end()));
  r = wk_image_split(dir, "gray --device cpu -q --format jpg -o - a.jpg");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == std::string(expected.begin(), expected.end()));

  // A report names standard input and output as "-".
  r = wk_image_split(dir, "gray --device cpu -q --format png -o - - --report run.json", dir / "a.png");
  REQUIRE(r.exit_code == 0);
  CHECK(cv::norm(decoded(r.out), gray_of(image), cv::NORM_INF) == 0);
  const auto j = report_of(dir / "run.json");
  REQUIRE(j["files"].size() == 1);
  CHECK(j["files"][0]["path"] == "-");
  CHECK(j["files"][0]["output"] == "-");
  CHECK(j["files"][0]["status"] == "ok");

  // Not an image on standard input: a failure of that one file, nothing on standard output.
  wk::test::write_bytes(dir / "junk.bin", "not an image\n");
  r = wk_image_split(dir, "gray --device cpu --format png -o - -", dir / "junk.bin");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("not a decodable image"));
}

TEST_CASE("wk-image -o - without --format and other misuses of - are usage errors before any work", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 2);
  const auto before = files_below(dir.path());
  auto usage = [&](const std::string& args, const std::string& says) {
    CAPTURE(args);
    const auto r = wk_image_split(dir, args, dir / "in" / "p0.png");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains(says));
    auto now = files_below(dir.path());
    std::erase_if(now, [](const std::string& n) { return n == "stdout.bin" || n == "stderr.txt"; });
    CHECK(now == before);  // no folder named "-", no output, no report
  };
  usage("gray --device cpu -o - in/p0.png", "--format");
  usage("gray --device cpu -o - -", "--format");
  usage("gray -o - in/p0.png", "--format");  // --device auto: refused before the backend is chosen
  usage("gray --device cpu --format png -o - in/p0.png in/p1.png", "exactly one input file");
  usage("gray --device cpu --format png -o - in", "is a folder");
  usage("gray --device cpu --format png -o out -", "standard input");
  usage("gray --device cpu --format png -o - - in/p1.png", "must be the only input");
  usage("hist --device cpu --format png -o - in/p0.png", "side files");
  usage("gray --device cpu --format png --skip-existing -o - in/p0.png", "--skip-existing");
}

TEST_CASE("wk-image prints its summary on standard error and nothing on standard output", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 3);
  wk::test::write_bytes(dir / "in" / "broken.png", "nope");
  const auto r = wk_image_split(dir, "gray --device cpu -o out in");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("wk-image: 3 converted, 1 failed") && Catch::Contains("broken.png"));
  CHECK(files_below(dir / "out").size() == 3);
}

TEST_CASE("wk-image -q prints nothing and -v adds a line per file, all on standard error", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 3);
  auto r = wk_image_split(dir, "gray --device cpu -q -o out in");
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
  // -q with the image on standard output: only the image there, nothing on standard error.
  r = wk_image_split(dir, "gray --device cpu -q --format png -o - in/p1.png");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(cv::norm(decoded(r.out), gray_of(cv::imread((dir / "in" / "p1.png").string())), cv::NORM_INF) == 0);

  r = wk_image_split(dir, "gray --device cpu -v -o out2 in");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  for (const char* name : {"p0.png", "p1.png", "p2.png"})
    CHECK_THAT(r.err, Catch::Contains(std::string("in/") + name + " -> out2/" + name + ": 24x16 on the cpu"));
  CHECK_THAT(r.err, Catch::Contains("time per stage over 3 files") && Catch::Contains("3 converted"));
  // -v with the image on standard output: the detail stays off it.
  r = wk_image_split(dir, "gray --device cpu -v --format png -o - in/p2.png");
  CHECK(r.exit_code == 0);
  CHECK(cv::norm(decoded(r.out), gray_of(cv::imread((dir / "in" / "p2.png").string())), cv::NORM_INF) == 0);
  CHECK_THAT(r.err, Catch::Contains("in/p2.png -> standard output: 24x16"));

  r = wk_image_split(dir, "gray --device cpu -q -v -o out3 in");
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "out3"));
}

TEST_CASE("wk-image --resume keeps the first run's records in the report", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 4);
  REQUIRE(wk_image_split(dir, "gray --device cpu -q -o out in --report run.json").exit_code == 0);
  const auto first = report_of(dir / "run.json");
  REQUIRE(first["files"].size() == 4);

  // One input changes: it is done again, the three others are the first run's.
  cv::imwrite((dir / "in" / "p2.png").string(), wk::test::random_image(30, 20, 3, 99));
  const auto r = wk_image_split(dir, "gray --device cpu -o out in --resume run.json");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("1 converted, 0 failed, 3 done in an earlier run"));
  const auto second = report_of(dir / "run.json");
  REQUIRE(second["files"].size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    const auto& now = second["files"][i];
    const auto& then = first["files"][i];
    CHECK(now["path"] == then["path"]);
    CHECK(now["status"] == "ok");
    if (i == 2) {  // redone: the new record
      CHECK_FALSE(now.contains("earlier_run"));
      CHECK(now["width"] == 30);
      CHECK(now["height"] == 20);
    } else {  // kept as the first run wrote it
      CHECK(now["earlier_run"] == true);
      CHECK(now["width"] == then["width"]);
      CHECK(now["device"] == then["device"]);
      CHECK(now["ms"] == then["ms"]);
      CHECK(now["finished_s"] == then["finished_s"]);
    }
  }
  CHECK(second["totals"]["ok"] == 4);
  CHECK(second["totals"]["done_earlier"] == 3);
  CHECK(second["totals"]["skipped"] == 0);

  // A third run skips every file, and the report still holds them all as done.
  const auto third_run = wk_image_split(dir, "gray --device cpu -v -o out in --resume run.json");
  CHECK(third_run.exit_code == 0);
  CHECK_THAT(third_run.err, Catch::Contains("in/p2.png: skipped (done in an earlier run)") &&
                                Catch::Contains("0 converted, 0 failed, 4 done in an earlier run"));
  const auto third = report_of(dir / "run.json");
  REQUIRE(third["files"].size() == 4);
  for (const auto& f : third["files"]) CHECK(f["status"] == "ok");
  CHECK(third["files"][2]["width"] == 30);
  CHECK(third["totals"]["done_earlier"] == 4);
}

TEST_CASE("wk-image report names the backend that ran", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 3);
  REQUIRE(wk_image_split(dir, "gray --device cpu -q -o o1 in --report r1.json").exit_code == 0);
  CHECK(report_of(dir / "r1.json")["backend"] == "cpu");
  // --device auto, a job too small to start the GPU: every file ran on the CPU.
  REQUIRE(wk_image_split(dir, "gray -q -o o2 in --report r2.json").exit_code == 0);
  const auto small = report_of(dir / "r2.json");
  CHECK(small["backend"] == "cpu");
  CHECK(small["gpu"]["files_gpu"] == 0);
  // WK_CPU_START_FILES starts the GPU whatever the size: without one, the CPU still did it all.
  wk::test::ScopedEnv start("WK_CPU_START_FILES", "100");
  REQUIRE(wk_image_split(dir, "gray -q -o o3 in --report r3.json").exit_code == 0);
  const auto started = report_of(dir / "r3.json");
  if (wk::probe_gpu().usable) {
    CHECK(started["backend"] == (started["gpu"]["files_gpu"].get<int>() > 0 ? "gpu" : "cpu"));
  } else {
    CHECK(started["backend"] == "cpu");
    CHECK(started["gpu"]["files_gpu"] == 0);
  }
}

TEST_CASE("wk-image refuses a format it cannot write, and other bad options, with exit 2 and no output", "[cli][wk-image][streams]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 2);
  for (const char* args : {"gray --device cpu --format foo -o out in", "gray --device cpu --format exr -o out in",
                           "gray --device cpu --format png -o out in --report in",
                           "gray --device cpu --format png -o out in --report out"}) {
    CAPTURE(args);
    if (std::string(args).ends_with("--report out")) fs::create_directories(dir / "out");
    const auto r = wk_image_split(dir, args);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(files_below(dir / "out").empty());
    CHECK(files_below(dir / "in") == std::vector<std::string>{"p0.png", "p1.png"});
  }
  CHECK_THAT(wk_image_split(dir, "gray --device cpu --format exr -o out in").err, Catch::Contains("--format 'exr'"));
  // --gpus is for the GPU backend: --device cpu touches no GPU, whatever it names.
  const auto r = wk_image_split(dir, "gray --device cpu -q --gpus 7 -o out in");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(files_below(dir / "out").size() == 2);
}
