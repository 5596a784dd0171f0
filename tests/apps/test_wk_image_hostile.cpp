// wk-image against hostile inputs and outputs: decompression bombs in formats the header probe
// reads and in one it does not, symbolic-link loops, folders named like images, an -o that is a
// file, an output folder blocked by a file, a full disk, and names with newlines or leading
// dashes. Each ends as a named per-file error (or a usage error before any work); the other
// files are still converted and nothing partial is left behind.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::files_below;
using wk::test::sh_quote;

namespace {

std::string wk_image(const std::string& args) { return std::string(WK_IMAGE_EXE) + " " + args; }

// The job every case runs: gray on the CPU, quiet, `in` into `out`.
std::string gray_job(const fs::path& in, const fs::path& out) {
  return wk_image("gray --device cpu -q -o " + sh_quote(out.string()) + " " + sh_quote(in.string()));
}

std::string encoded(const std::string& ext, int w, int h, unsigned seed) {
  std::vector<std::uint8_t> buf;
  REQUIRE(cv::imencode(ext, wk::test::random_image(w, h, 3, seed), buf));
  return {buf.begin(), buf.end()};
}

std::uint32_t crc32(const std::string& bytes) {  // PNG's CRC (ISO 3309), bitwise
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

void put_be32(std::string& s, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) s[at + k] = char(v >> (24 - 8 * k));
}

// A real small PNG whose IHDR says 30000 x 30000 (CRC fixed, so a decoder believes it).
std::string png_bomb() {
  std::string png = encoded(".png", 16, 16, 1);
  put_be32(png, 16, 30000);
  put_be32(png, 20, 30000);
  put_be32(png, 29, crc32(png.substr(12, 17)));  // CRC over "IHDR" and its 13 data bytes
  return png;
}

// A real small JPEG whose frame header says 30000 x 30000.
std::string jpeg_bomb() {
  std::string jpg = encoded(".jpg", 16, 16, 2);
  for (std::size_t i = 2; i + 9 < jpg.size(); ++i)
    if (std::uint8_t(jpg[i]) == 0xFF && (std::uint8_t(jpg[i + 1]) == 0xC0 || std::uint8_t(jpg[i + 1]) == 0xC2)) {
      jpg[i + 5] = char(30000 >> 8), jpg[i + 6] = char(30000 & 0xFF);  // height
      jpg[i + 7] = char(30000 >> 8), jpg[i + 8] = char(30000 & 0xFF);  // width
      return jpg;
    }
  FAIL("no frame header in OpenCV's JPEG");
  return {};
}

}  // namespace

TEST_CASE("wk-image refuses 30000x30000 PNG and JPEG bombs of a few kB by default, naming them", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  const std::string png = png_bomb(), jpg = jpeg_bomb();
  CHECK(png.size() < 4096);
  CHECK(jpg.size() < 4096);
  wk::test::write_bytes(dir / "in" / "bomb.png", png);
  wk::test::write_bytes(dir / "in" / "bomb.jpg", jpg);
  wk::test::write_bytes(dir / "in" / "good.png", encoded(".png", 20, 10, 3));
  // A bomb that got decoded would need gigabytes: the address-space cap turns that into a failure.
  const auto r = wk::test::run("ulimit -v 4000000; " +
                               gray_job(dir / "in", dir / "out"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("bomb.png: 30000x30000 pixels is more than the --max-pixels limit of 268435456"));
  CHECK_THAT(r.output, Catch::Contains("bomb.jpg: 30000x30000 pixels is more than the --max-pixels limit of 268435456"));
  CHECK(files_below(dir / "out") == std::vector<std::string>{"good.png"});
}

TEST_CASE("wk-image refuses a 30000x30000 PFM bomb from its header too (OpenCV's own cap would let it through)", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  // 30000 x 30000 float RGB would be 10 GB; the file is a header and 12 bytes.
  wk::test::write_bytes(dir / "in" / "bomb.pfm", std::string("PF\n30000 30000\n-1.0\n") + std::string(12, '\0'));
  wk::test::write_bytes(dir / "in" / "good.png", encoded(".png", 20, 10, 4));
  const auto r = wk::test::run("ulimit -v 4000000; " +
                               gray_job(dir / "in", dir / "out"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("bomb.pfm: 30000x30000 pixels is more than the --max-pixels limit of 268435456"));
  CHECK(files_below(dir / "out") == std::vector<std::string>{"good.png"});
}

TEST_CASE("wk-image: symbolic-link loops and folders named like images do not stop the job", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in" / "sub");
  fs::create_directories(dir / "in" / "folder.jpg");  // an empty folder with an image's name
  wk::test::write_bytes(dir / "in" / "folder.jpg" / "inside.png", encoded(".png", 8, 8, 5));
  wk::test::write_bytes(dir / "in" / "a.png", encoded(".png", 8, 8, 6));
  fs::create_symlink("self.jpg", dir / "in" / "self.jpg");  // a link to itself
  fs::create_symlink("ping.png", dir / "in" / "pong.png");  // two links to each other
  fs::create_symlink("pong.png", dir / "in" / "ping.png");
  fs::create_directory_symlink("..", dir / "in" / "sub" / "up");  // a folder cycle
  const auto r = wk::test::run("timeout 60 " + gray_job(dir / "in", dir / "out"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("self.jpg: "));
  CHECK_THAT(r.output, Catch::Contains("ping.png: "));
  CHECK_THAT(r.output, Catch::Contains("pong.png: "));
  CHECK(files_below(dir / "out") == std::vector<std::string>{"a.png", "folder.jpg/inside.png"});
}

TEST_CASE("wk-image: an -o that is a file is a usage error before any work", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  wk::test::write_bytes(dir / "in" / "a.png", encoded(".png", 8, 8, 7));
  wk::test::write_bytes(dir / "not-a-folder", "keep me");
  const auto r = wk::test::run(gray_job(dir / "in", dir / "not-a-folder"));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("not-a-folder: exists and is not a folder"));
  CHECK(wk::test::read_bytes(dir / "not-a-folder") == "keep me");
}

TEST_CASE("wk-image: an output folder blocked by a file fails those files only", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in" / "sub");
  wk::test::write_bytes(dir / "in" / "a.png", encoded(".png", 8, 8, 8));
  wk::test::write_bytes(dir / "in" / "sub" / "b.png", encoded(".png", 8, 8, 9));
  fs::create_directories(dir / "out");
  wk::test::write_bytes(dir / "out" / "sub", "a file where the folder should be");
  const auto r = wk::test::run(gray_job(dir / "in", dir / "out"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("b.png: ") && Catch::Contains("cannot create folder"));
  CHECK(files_below(dir / "out") == std::vector<std::string>{"a.png", "sub"});
}

TEST_CASE("wk-image on a full disk: the files that do not fit fail by name, no partial or temporary files", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  wk::test::write_bytes(dir / "in" / "big1.png", encoded(".png", 300, 200, 10));  // ~180 kB outputs
  wk::test::write_bytes(dir / "in" / "big2.png", encoded(".png", 300, 200, 11));
  wk::test::write_bytes(dir / "in" / "small.png", encoded(".png", 8, 8, 12));
  const std::string job = gray_job(dir / "in", dir / "out");

  SECTION("a write limit (EFBIG, as any failing write)") {
    // 16 KiB per file: SIGXFSZ ignored so the write fails instead of killing the process.
    const auto r = wk::test::run("trap '' XFSZ; ulimit -f 32; " + job);
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("big1.png: ") && Catch::Contains("big2.png: ") && Catch::Contains("write failed"));
    CHECK(files_below(dir / "out") == std::vector<std::string>{"small.png"});
  }
  SECTION("a 64 KiB tmpfs (ENOSPC), where this machine lets the test mount one") {
    const fs::path mnt = dir / "mnt";
    fs::create_directories(mnt);
    if (wk::test::run("unshare -rm sh -c " + sh_quote("mount -t tmpfs -o size=64k tmpfs " + sh_quote(mnt.string()))).exit_code != 0) {
      WARN("no tmpfs in a user and mount namespace here: the write-limit case stands for a full disk");
      return;
    }
    const std::string small_job = gray_job(dir / "in", mnt / "out");
    const auto r = wk::test::run("unshare -rm sh -c " + sh_quote("mount -t tmpfs -o size=64k tmpfs " + sh_quote(mnt.string()) + " && " +
                                                                 small_job + "; echo \"rc=$?\"; find " + sh_quote(mnt.string()) + " -type f"));
    INFO(r.output);
    CHECK_THAT(r.output, Catch::Contains("rc=1"));
    CHECK_THAT(r.output, Catch::Contains("No space left on device"));
    CHECK_THAT(r.output, Catch::Contains("out/small.png"));
    CHECK_THAT(r.output, !Catch::Contains(".tmp"));
  }
}

TEST_CASE("wk-image: names with newlines and leading dashes are converted like any other", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  wk::test::write_bytes(dir / "in" / "-rf.png", encoded(".png", 8, 8, 13));
  wk::test::write_bytes(dir / "in" / "new\nline.png", encoded(".png", 8, 8, 14));
  wk::test::write_bytes(dir / "in" / "--help.png", encoded(".png", 8, 8, 15));
  const auto r = wk::test::run(gray_job(dir / "in", dir / "out"));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(files_below(dir / "out") == std::vector<std::string>{"--help.png", "-rf.png", "new\nline.png"});
  // A file argument that starts with a dash, after "--".
  const auto one = wk::test::run("cd " + sh_quote((dir / "in").string()) + " && " +
                                 wk_image("gray --device cpu -q -o " + sh_quote((dir / "out2").string()) + " -- -rf.png"));
  INFO(one.output);
  CHECK(one.exit_code == 0);
  CHECK(files_below(dir / "out2") == std::vector<std::string>{"-rf.png"});
}

// Found by tests/fuzz/fuzz_resume_report: report_json threw (nlohmann type_error 316) for a name
// that is not UTF-8, so such a file ended the job without a report.
TEST_CASE("wk-image --report and --resume with a file name that is not UTF-8", "[cli][wk-image][hostile]") {
  wk::test::TempDir dir;
  fs::create_directories(dir / "in");
  const std::string latin1 = "caf\xe9.png";
  wk::test::write_bytes(dir / "in" / latin1, encoded(".png", 8, 8, 16));
  wk::test::write_bytes(dir / "in" / "b.png", encoded(".png", 8, 8, 17));
  const std::string args = "gray --device cpu -q -o " + sh_quote((dir / "out").string()) + " " + sh_quote((dir / "in").string());
  const auto r = wk::test::run(wk_image(args + " --report " + sh_quote((dir / "run.json").string())));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  const std::string report = wk::test::read_bytes(dir / "run.json");
  CHECK_THAT(report, Catch::Contains("caf\xef\xbf\xbd.png"));       // U+FFFD for people
  CHECK_THAT(report, Catch::Contains("\"path_hex\": \"") && Catch::Contains("636166e92e706e67"));  // exact bytes
  // --resume recognises both files as done.
  const auto again = wk::test::run(wk_image(args + " --resume " + sh_quote((dir / "run.json").string())));
  INFO(again.output);
  CHECK(again.exit_code == 0);
  const std::string second = wk::test::read_bytes(dir / "run.json");
  CHECK_THAT(second, Catch::Contains("\"done_earlier\": 2"));
}
