// wk-image at scale on the CPU backend: report, --format, --skip-existing, --resume, limits,
// special files and interruption.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::files_below;
using wk::test::sh_quote;

namespace {
std::string wk_image(const std::string& args) { return std::string(WK_IMAGE_EXE) + " " + args; }

void make_images(const fs::path& dir, int count, int w, int h) {
  fs::create_directories(dir);
  for (int i = 0; i < count; ++i)
    cv::imwrite((dir / ("img" + std::to_string(1000 + i) + ".png")).string(), wk::test::random_image(w, h, 3, unsigned(i)));
}
}  // namespace

TEST_CASE("wk-image --report writes one record per input and totals", "[cli][wk-image][job]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 4, 24, 16);
  wk::test::write_bytes(dir / "in" / "broken.jpg", "not a jpeg");
  const auto r = wk::test::run(wk_image("gray --device cpu -q --threads 2 -o " + sh_quote((dir / "out").string()) + " --report " +
                                        sh_quote((dir / "r.json").string()) + " " + sh_quote((dir / "in").string())));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const auto j = nlohmann::json::parse(wk::test::read_bytes(dir / "r.json"));
  REQUIRE(j["files"].size() == 5);
  int ok = 0;
  for (const auto& f : j["files"]) {
    CHECK(f.contains("path"));
    CHECK(f.contains("ms"));
    if (f["status"] == "ok") {
      ++ok;
      CHECK(f["width"] == 24);
      CHECK(f["height"] == 16);
    } else {
      CHECK(f["status"] == "failed");
      CHECK_THAT(f["error"].get<std::string>(), Catch::Contains("not a decodable image"));
    }
  }
  CHECK(ok == 4);
  CHECK(j["totals"]["ok"] == 4);
  CHECK(j["totals"]["failed"] == 1);
  CHECK(j["totals"]["interrupted"] == false);
}

TEST_CASE("wk-image --format converts every output and --skip-existing leaves outputs alone", "[cli][wk-image][job]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 3, 16, 16);
  auto r = wk::test::run(wk_image("gray --device cpu -q --format jpg -o " + sh_quote((dir / "out").string()) + " " + sh_quote((dir / "in").string())));
  REQUIRE(r.exit_code == 0);
  CHECK(files_below(dir / "out") == std::vector<std::string>{"img1000.jpg", "img1001.jpg", "img1002.jpg"});
  wk::test::write_bytes(dir / "out" / "img1001.jpg", "keep me");
  r = wk::test::run(wk_image("gray --device cpu --skip-existing --format jpg -o " + sh_quote((dir / "out").string()) + " " + sh_quote((dir / "in").string())));
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("3 skipped"));
  CHECK(wk::test::read_bytes(dir / "out" / "img1001.jpg") == "keep me");
}

TEST_CASE("wk-image refuses images over --max-pixels before decoding them", "[cli][wk-image][job]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 2, 100, 100);
  const auto r = wk::test::run(wk_image("gray --device cpu -q --max-pixels 5000 -o " + sh_quote((dir / "out").string()) + " " + sh_quote((dir / "in").string())));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("img1000.png: 100x100 pixels is more than the --max-pixels limit of 5000"));
  CHECK(files_below(dir / "out").empty());
}

TEST_CASE("wk-image reports FIFOs and dangling links instead of hanging on them", "[cli][wk-image][job]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 1, 8, 8);
  REQUIRE(::mkfifo((dir / "in" / "pipe.png").c_str(), 0600) == 0);
  fs::create_symlink(dir / "in" / "gone.png", dir / "in" / "link.png");
  const auto r = wk::test::run("timeout 60 " + wk_image("gray --device cpu -q -o " + sh_quote((dir / "out").string()) + " " + sh_quote((dir / "in").string())));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("pipe.png: not a regular file"));
  CHECK_THAT(r.output, Catch::Contains("link.png: dangling symbolic link"));
  CHECK(files_below(dir / "out") == std::vector<std::string>{"img1000.png"});
}

TEST_CASE("wk-image stops cleanly on SIGTERM and --resume finishes the job", "[cli][wk-image][job]") {
  wk::test::TempDir dir;
  const int total = 160;
  make_images(dir / "in", total, 640, 480);
  const std::string out = sh_quote((dir / "out").string()), report = sh_quote((dir / "r.json").string());
  // Start the job, wait until a few outputs exist, then ask it to stop.
  const std::string script = wk_image("gray --device cpu -q --threads 1 -o " + out + " --report " + report + " " +
                                      sh_quote((dir / "in").string())) +
                             " & p=$!; n=0; while [ $(ls " + out + " 2>/dev/null | wc -l) -lt 3 ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done;"
                             " kill -TERM $p; wait $p; echo exit=$?";
  const auto r = wk::test::run("bash -c " + sh_quote(script));
  INFO(r.output);
  REQUIRE_THAT(r.output, Catch::Contains("exit=130"));
  const auto j = nlohmann::json::parse(wk::test::read_bytes(dir / "r.json"));
  CHECK(j["totals"]["interrupted"] == true);
  const auto written = files_below(dir / "out");
  CHECK(j["totals"]["ok"].get<std::size_t>() == written.size());
  CHECK(written.size() < std::size_t(total));
  for (const auto& n : written) CHECK(n[0] != '.');  // no temporary files left

  const auto again = wk::test::run(wk_image("gray --device cpu -q -o " + out + " --resume " + report + " " + sh_quote((dir / "in").string())));
  INFO(again.output);
  CHECK(again.exit_code == 0);
  CHECK(files_below(dir / "out").size() == std::size_t(total));
  const auto j2 = nlohmann::json::parse(wk::test::read_bytes(dir / "r.json"));
  // The report holds every file as done: the first run's records kept, the rest this run's.
  CHECK(j2["totals"]["ok"].get<std::size_t>() == std::size_t(total));
  CHECK(j2["totals"]["skipped"].get<std::size_t>() == 0);
  CHECK(j2["totals"]["done_earlier"].get<std::size_t>() == written.size());
}

TEST_CASE("wk-image: a second signal ends at once and leaves no temporary file", "[cli][wk-image][job]") {
  wk::test::TempDir dir;
  make_images(dir / "in", 120, 640, 480);
  const std::string out = sh_quote((dir / "out").string());
  const std::string script = wk_image("gray --device cpu -q --threads 2 -o " + out + " " + sh_quote((dir / "in").string())) +
                             " & p=$!; n=0; while [ $(ls " + out + " 2>/dev/null | wc -l) -lt 2 ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done;"
                             " kill -INT $p; kill -INT $p; wait $p; echo exit=$?";
  const auto r = wk::test::run("bash -c " + sh_quote(script));
  INFO(r.output);
  REQUIRE_THAT(r.output, Catch::Contains("exit=130"));
  for (const auto& n : files_below(dir / "out")) CHECK(n[0] != '.');  // no temporary files left
}
