// What wk-image guarantees about the user's files (docs/file-safety.md), end to end on the CPU
// backend: no output or report replaces an input, links stay links, unreadable folders are named,
// --resume redoes what changed, SIGHUP stops cleanly, memory stays within --memory, names are
// printed escaped, -q is quiet.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::files_below;
using wk::test::sh_quote;

namespace {

std::string wk_image(const std::string& args) { return std::string(WK_IMAGE_EXE) + " " + args; }
std::string q(const fs::path& p) { return sh_quote(p.string()); }

void write_image(const fs::path& p, int w, int h, unsigned seed) {
  fs::create_directories(p.parent_path());
  REQUIRE(cv::imwrite(p.string(), wk::test::random_image(w, h, 3, seed)));
}

nlohmann::json report_of(const fs::path& p) { return nlohmann::json::parse(wk::test::read_bytes(p)); }

}  // namespace

TEST_CASE("wk-image: an output that would replace another input is a usage error before any work", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  write_image(dir / "s2" / "a.jpg", 20, 10, 1);
  write_image(dir / "s2" / "a.png", 20, 10, 2);
  write_image(dir / "s2" / "b.bmp", 20, 10, 3);
  const std::string png_before = wk::test::read_bytes(dir / "s2" / "a.png");
  const auto r = wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "s2") + " " + q(dir / "s2") + " --format png"));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("a.png"));
  CHECK(wk::test::read_bytes(dir / "s2" / "a.png") == png_before);
  CHECK_FALSE(fs::exists(dir / "s2" / "b.png"));  // no work at all
}

TEST_CASE("wk-image: a --report named like an input or an output is refused", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  write_image(dir / "rp" / "a.jpg", 20, 10, 1);
  const std::string before = wk::test::read_bytes(dir / "rp" / "a.jpg");
  const auto r = wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "out") + " " + q(dir / "rp") + " --report " +
                                        q(dir / "rp" / "a.jpg")));
  CHECK(r.exit_code == 2);
  CHECK(wk::test::read_bytes(dir / "rp" / "a.jpg") == before);
  const auto r2 = wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "out") + " " + q(dir / "rp") + " --report " +
                                         q(dir / "out" / "a.jpg")));
  CHECK(r2.exit_code == 2);
  CHECK_FALSE(fs::exists(dir / "out" / "a.jpg"));
}

TEST_CASE("wk-image: outputs and the report written through symbolic links keep the links", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  write_image(dir / "in" / "a.png", 20, 10, 1);
  fs::create_directories(dir / "out");
  wk::test::write_bytes(dir / "elsewhere.png", "old");
  wk::test::write_bytes(dir / "report-target.json", "old");
  fs::create_symlink(dir / "elsewhere.png", dir / "out" / "a.png");
  fs::create_symlink("report-target.json", dir / "report.json");
  const auto r = wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "out") + " " + q(dir / "in") + " --report " +
                                        q(dir / "report.json")));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::is_symlink(fs::symlink_status(dir / "out" / "a.png")));
  CHECK(cv::imread((dir / "elsewhere.png").string(), cv::IMREAD_UNCHANGED).channels() == 1);
  CHECK(fs::is_symlink(fs::symlink_status(dir / "report.json")));
  CHECK(report_of(dir / "report-target.json")["totals"]["ok"] == 1);
}

TEST_CASE("wk-image: an unreadable subfolder is an error, and the others are still converted", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  for (const char* sub : {"a", "b", "c", "d"}) write_image(dir / "tree" / sub / "img.png", 16, 8, 1);
  // The user "nobody" (when the tests run as root) must reach everything but b/.
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) fs::permissions(e.path(), fs::perms::all);
  fs::permissions(dir.path(), fs::perms::all);
  fs::permissions(dir / "tree" / "b", fs::perms::none);
  const auto r = wk::test::run(wk::test::unprivileged_prefix() +
                               wk_image("gray --device cpu -o " + q(dir / "out") + " " + q(dir / "tree") + " --report " +
                                        q(dir / "out" / "r.json")));
  fs::permissions(dir / "tree" / "b", fs::perms::all);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains((dir / "tree" / "b").string() + ": cannot list folder"));
  CHECK_THAT(r.output, Catch::Contains("3 converted, 1 failed"));
  CHECK(files_below(dir / "out") == std::vector<std::string>{"a/img.png", "c/img.png", "d/img.png", "r.json"});
  CHECK(report_of(dir / "out" / "r.json")["input_errors"].size() == 1);
}

TEST_CASE("wk-image --resume skips only what is still done: same settings, output, unchanged input", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  for (int i = 0; i < 4; ++i) write_image(dir / "in" / ("p" + std::to_string(i) + ".png"), 24, 12, unsigned(i));
  const std::string in = q(dir / "in"), report = q(dir / "r.json");
  REQUIRE(wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "rs1") + " " + in + " --report " + report)).exit_code == 0);
  const std::string first = wk::test::read_bytes(dir / "r.json");
  auto totals = [&](const std::string& cmd) {
    wk::test::write_bytes(dir / "r.json", first);  // each case resumes the same first run
    const auto r = wk::test::run(cmd);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto j = report_of(dir / "r.json");
    return std::make_pair(j["totals"]["ok"].get<int>(), j["totals"]["skipped"].get<int>());
  };
  // Another pipeline into the same folder: everything is done again (with a notice).
  CHECK(totals(wk_image("sobel --device cpu -o " + q(dir / "rs1") + " " + in + " --resume " + report)) == std::make_pair(4, 0));
  // The same pipeline into another folder: everything is done again.
  CHECK(totals(wk_image("gray --device cpu -q -o " + q(dir / "rs2") + " " + in + " --resume " + report)) == std::make_pair(4, 0));
  CHECK(files_below(dir / "rs2").size() == 4);
  // A changed input and a deleted output are done again; the rest is skipped.
  REQUIRE(wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "rs1") + " " + in + " --report " + report)).exit_code == 0);
  const std::string second = wk::test::read_bytes(dir / "r.json");
  write_image(dir / "in" / "p1.png", 24, 12, 99);
  fs::remove(dir / "rs1" / "p2.png");
  wk::test::write_bytes(dir / "r.json", second);
  const auto r = wk::test::run(wk_image("gray --device cpu -o " + q(dir / "rs1") + " " + in + " --resume " + report));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("input changed"));
  CHECK_THAT(r.output, Catch::Contains("output is gone"));
  // The report holds all four as done: the two redone, the two of the run it resumed.
  const auto j = report_of(dir / "r.json");
  CHECK(j["totals"]["ok"] == 4);
  CHECK(j["totals"]["done_earlier"] == 2);
  CHECK(j["totals"]["skipped"] == 0);
  CHECK(fs::exists(dir / "rs1" / "p2.png"));
}

TEST_CASE("wk-image stops cleanly on SIGHUP: report written, no temporary file", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  for (int i = 0; i < 120; ++i) write_image(dir / "in" / ("p" + std::to_string(i) + ".png"), 640, 480, unsigned(i));
  const std::string out = q(dir / "out"), report = q(dir / "r.json");
  const std::string script = wk_image("gray --device cpu -q --threads 1 -o " + out + " --report " + report + " " + q(dir / "in")) +
                             " & p=$!; n=0; while [ $(ls " + out + " 2>/dev/null | wc -l) -lt 2 ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done;"
                             " kill -HUP $p; wait $p; echo exit=$?";
  const auto r = wk::test::run("bash -c " + sh_quote(script));
  INFO(r.output);
  REQUIRE_THAT(r.output, Catch::Contains("exit=130"));
  const auto j = report_of(dir / "r.json");
  CHECK(j["totals"]["interrupted"] == true);
  for (const auto& n : files_below(dir / "out")) CHECK(n[0] != '.');
  CHECK(j["totals"]["ok"].get<std::size_t>() == files_below(dir / "out").size());
}

TEST_CASE("wk-image --memory bounds the images in flight over all workers", "[cli][wk-image][files]") {
  if (wk::test::sanitizer_run()) return;
  wk::test::TempDir dir;
  // Four flat 4000 x 4000 PNGs: tiny files, 48 MB each decoded.
  fs::create_directories(dir / "in");
  for (int i = 0; i < 4; ++i)
    REQUIRE(cv::imwrite((dir / "in" / ("f" + std::to_string(i) + ".png")).string(),
                        cv::Mat(4000, 4000, CV_8UC3, cv::Scalar(i * 40, 90, 200))));
  auto peak_rss_mb = [&](const std::string& extra) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      const std::string cmd = wk_image("gauss:5 --device cpu -q --threads 4 -o " + q(dir / "out") + " " + q(dir / "in") + extra);
      ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    struct rusage ru {};
    REQUIRE(::wait4(child, &status, 0, &ru) == child);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return double(ru.ru_maxrss) / 1024.0;  // KiB -> MiB
  };
  const double bounded = peak_rss_mb(" --memory 150M");
  const double free_run = peak_rss_mb("");
  INFO("peak RSS: --memory 150M " << bounded << " MiB, default " << free_run << " MiB");
  // One image at a time: 48 MB decoded + 48 MB blurred + the encoder's copy; four at once more
  // than twice that.
  CHECK(bounded < 300);
  CHECK(bounded < free_run * 0.75);
  const auto bad = wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "out") + " " + q(dir / "in") + " --memory lots"));
  CHECK(bad.exit_code == 2);
}

TEST_CASE("wk-image prints file names with control bytes escaped", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  const std::string evil = "x\x1b]0;owned\x07\nwk-image: 99 converted.png";
  fs::create_directories(dir / "in");
  wk::test::write_bytes(dir / "in" / evil, "not an image");
  const auto r = wk::test::run(wk_image("gray --device cpu -o " + q(dir / "out") + " " + q(dir / "in")));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find('\x1b') == std::string::npos);
  CHECK(r.output.find('\x07') == std::string::npos);
  CHECK_THAT(r.output, Catch::Contains("x\\033]0;owned\\007\\nwk-image: 99 converted.png"));
  CHECK(r.output.find("\nwk-image: 99 converted") == std::string::npos);  // no forged line
}

TEST_CASE("wk-image -q prints only its own errors, and one file named twice is converted once", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  write_image(dir / "in" / "good.png", 32, 16, 1);
  // A PNG whose CRC is wrong in an ancillary chunk makes libpng warn on its own; a truncated JPEG
  // makes libjpeg warn.
  std::vector<std::uint8_t> jpg;
  REQUIRE(cv::imencode(".jpg", wk::test::random_image(64, 64, 3, 2), jpg));
  jpg.resize(jpg.size() - 200);
  jpg.push_back(0xFF);
  jpg.push_back(0xD9);
  wk::test::write_bytes(dir / "in" / "cut.jpg", std::string(jpg.begin(), jpg.end()));
  const auto r = wk::test::run(wk_image("gray --device cpu -q -o " + q(dir / "out") + " " + q(dir / "in") + " " +
                                        q(dir / "in" / "good.png")));
  INFO(r.output);
  std::size_t start = 0;
  while (start < r.output.size()) {
    const std::size_t nl = r.output.find('\n', start);
    const std::string line = r.output.substr(start, nl - start);
    CHECK(line.rfind("wk-image: ", 0) == 0);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  CHECK(fs::exists(dir / "out" / "good.png"));
  CHECK(r.output.find("good.png") == std::string::npos);  // not a failure: converted once
}

TEST_CASE("wk-image conv:FILE reads a bounded regular file and quotes none of it", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  write_image(dir / "in" / "a.png", 16, 8, 1);
  // A file that is not a kernel (a shadow-like line): the error names the line, not its text.
  wk::test::write_bytes(dir / "secret.txt", "root:$6$salt$S3cretHashValue:19000:0:99999:7:::\n");
  const auto r = wk::test::run(wk_image("conv:" + dir.path().string() + "/secret.txt --device cpu -q -o " + q(dir / "out") +
                                        " " + q(dir / "in")));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("secret.txt:1"));
  CHECK(r.output.find("S3cret") == std::string::npos);
  CHECK(r.output.find("root:") == std::string::npos);
  // A device and a FIFO are refused at once, without reading (no hang, no 2 GB read).
  const fs::path fifo = dir / "k.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string kernel : {std::string("/dev/zero"), fifo.string()}) {
    CAPTURE(kernel);
    const auto t0 = std::chrono::steady_clock::now();
    const auto k = wk::test::run("timeout 20 " + wk_image("conv:" + kernel + " --device cpu -q -o " + q(dir / "out") + " " + q(dir / "in")));
    CHECK(k.exit_code == 2);
    CHECK_THAT(k.output, Catch::Contains("not a regular file"));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  }
}

TEST_CASE("wk-image: an output format this build cannot write is a usage error before any work", "[cli][wk-image][files]") {
  wk::test::TempDir dir;
  write_image(dir / "in" / "a.png", 12, 8, 4);
  write_image(dir / "in" / "b.png", 12, 8, 5);
  const auto r = wk::test::run(wk_image("gray --device cpu -o " + q(dir / "out") + " " + q(dir / "in") + " --format avif"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--format 'avif'") && Catch::Contains("png") && Catch::Contains("jpg"));
  CHECK_FALSE(fs::exists(dir / "out"));  // no file was touched, no folder made
}
