// wk-image's image operations end to end on the CPU backend: histogram side outputs, equalize,
// the convolution family, --border, and clear errors for bad arguments.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <sstream>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

namespace {

wk::test::CommandResult wk_image(const std::string& args) { return wk::test::run(std::string(WK_IMAGE_EXE) + " " + args); }

struct Dirs {
  wk::test::TempDir dir;
  fs::path in = dir / "in", out = dir / "out";
  Dirs() { fs::create_directories(in); }
  std::string io() const { return "-o " + sh_quote(out.string()) + " " + sh_quote(in.string()); }
};

cv::Mat read(const fs::path& p) { return cv::imread(p.string(), cv::IMREAD_UNCHANGED); }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("wk-image histogram writes NAME.hist.csv equal to cv::calcHist and passes the image through", "[cli][wk-image][histogram]") {
  Dirs d;
  const cv::Mat colour = wk::test::random_image(40, 30, 3, 1), gray = wk::test::random_image(17, 5, 1, 2);
  cv::imwrite((d.in / "c.png").string(), colour);
  cv::imwrite((d.in / "g.png").string(), gray);
  for (const char* name : {"histogram", "hist"}) {
    CAPTURE(name);
    fs::remove_all(d.out);
    const auto r = wk_image(std::string(name) + " --device cpu -q " + d.io());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(cv::norm(read(d.out / "c.png"), colour, cv::NORM_INF) == 0);
    CHECK(cv::norm(read(d.out / "g.png"), gray, cv::NORM_INF) == 0);
    const auto c = lines(wk::test::read_bytes(d.out / "c.hist.csv"));
    const auto g = lines(wk::test::read_bytes(d.out / "g.hist.csv"));
    REQUIRE(c.size() == 257);
    REQUIRE(g.size() == 257);
    CHECK(c[0] == "bin,b,g,r");
    CHECK(g[0] == "bin,count");
    const int size = 256;
    const float range[] = {0, 256};
    const float* ranges[] = {range};
    std::vector<cv::Mat> hc(3);
    for (int ch = 0; ch < 3; ++ch) cv::calcHist(&colour, 1, &ch, cv::Mat(), hc[ch], 1, &size, ranges);
    cv::Mat hg;
    const int zero = 0;
    cv::calcHist(&gray, 1, &zero, cv::Mat(), hg, 1, &size, ranges);
    for (int b = 0; b < 256; ++b) {
      CHECK(c[b + 1] == std::to_string(b) + "," + std::to_string(int(hc[0].at<float>(b))) + "," + std::to_string(int(hc[1].at<float>(b))) +
                            "," + std::to_string(int(hc[2].at<float>(b))));
      CHECK(g[b + 1] == std::to_string(b) + "," + std::to_string(int(hg.at<float>(b))));
    }
    CHECK_FALSE(fs::exists(d.out / "c.hist.png"));
  }
}

TEST_CASE("wk-image histogram --plot adds NAME.hist.png; two histograms in a chain are numbered", "[cli][wk-image][histogram]") {
  Dirs d;
  cv::imwrite((d.in / "a.png").string(), wk::test::random_image(64, 48, 3, 3));
  const auto r = wk_image("hist,equalize,hist --plot --device cpu -q " + d.io());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::exists(d.out / "a.png"));
  CHECK_FALSE(cv::imread((d.out / "a.hist.png").string()).empty());
  CHECK_FALSE(cv::imread((d.out / "a.hist2.png").string()).empty());
  CHECK(fs::exists(d.out / "a.hist.csv"));
  CHECK(fs::exists(d.out / "a.hist2.csv"));
  CHECK(wk::test::read_bytes(d.out / "a.hist.csv") != wk::test::read_bytes(d.out / "a.hist2.csv"));
}

TEST_CASE("wk-image equalize equals cv::equalizeHist (gray) and the YCrCb path (colour)", "[cli][wk-image][equalize]") {
  Dirs d;
  const cv::Mat colour = wk::test::random_image(33, 21, 3, 4) / 3 + cv::Scalar::all(40), gray = wk::test::random_image(20, 9, 1, 5) / 2;
  cv::imwrite((d.in / "c.png").string(), colour);
  cv::imwrite((d.in / "g.png").string(), gray);
  const auto r = wk_image("equalize --device cpu -q " + d.io());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  cv::Mat eg, ycc, ec;
  cv::equalizeHist(gray, eg);
  cv::cvtColor(colour, ycc, cv::COLOR_BGR2YCrCb);
  std::vector<cv::Mat> p;
  cv::split(ycc, p);
  cv::equalizeHist(p[0], p[0]);
  cv::merge(p, ycc);
  cv::cvtColor(ycc, ec, cv::COLOR_YCrCb2BGR);
  CHECK(cv::norm(read(d.out / "g.png"), eg, cv::NORM_INF) == 0);
  CHECK(cv::norm(read(d.out / "c.png"), ec, cv::NORM_INF) == 0);
}

TEST_CASE("wk-image --border and --help", "[cli][wk-image]") {
  Dirs d;
  cv::imwrite((d.in / "a.png").string(), wk::test::random_image(8, 8, 1, 6));
  auto r = wk_image("gray --border mirror --device cpu " + d.io());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--border") && Catch::Contains("mirror"));
  r = wk_image("gray --border constant:abc --device cpu " + d.io());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("abc"));
  r = wk_image("--help");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("Operations:") && Catch::Contains("histogram, hist") && Catch::Contains("equalize") &&
                           Catch::Contains("--border") && Catch::Contains("--plot"));
}
