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

TEST_CASE("wk-image histogram writes NAME.hist.csv equal to cv::calcHist and no copy of the image", "[cli][wk-image][histogram]") {
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
    CHECK_FALSE(fs::exists(d.out / "c.png"));  // analysis only: the side outputs, no re-encoded image
    CHECK_FALSE(fs::exists(d.out / "g.png"));
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

TEST_CASE("wk-image histogram --plot adds NAME.hist.png, two histograms in a chain are numbered", "[cli][wk-image][histogram]") {
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

TEST_CASE("wk-image convolution family equals OpenCV (CPU backend), with --border", "[cli][wk-image][conv]") {
  Dirs d;
  const cv::Mat gray = wk::test::random_image(40, 31, 1, 7), colour = wk::test::random_image(23, 17, 3, 8);
  cv::imwrite((d.in / "g.png").string(), gray);
  cv::imwrite((d.in / "c.png").string(), colour);
  auto run_op = [&](const std::string& op, const std::string& extra = "") {
    fs::remove_all(d.out);
    const auto r = wk_image(sh_quote(op) + " --device cpu -q " + extra + " " + d.io());
    INFO(op << ": " << r.output);
    REQUIRE(r.exit_code == 0);
  };
  cv::Mat e;
  run_op("gauss:5");
  cv::GaussianBlur(gray, e, cv::Size(5, 5), 0);
  CHECK(cv::norm(read(d.out / "g.png"), e, cv::NORM_INF) == 0);
  run_op("gauss:7:2.5", "--border replicate");
  cv::GaussianBlur(colour, e, cv::Size(7, 7), 2.5, 2.5, cv::BORDER_REPLICATE);
  CHECK(cv::norm(read(d.out / "c.png"), e, cv::NORM_INF) == 0);
  run_op("box:4", "--border reflect");
  cv::blur(gray, e, cv::Size(4, 4), cv::Point(-1, -1), cv::BORDER_REFLECT);
  CHECK(cv::norm(read(d.out / "g.png"), e, cv::NORM_INF) == 0);
  run_op("sobel:dx");
  cv::Mat s16;
  cv::Sobel(gray, s16, CV_16S, 1, 0);
  cv::convertScaleAbs(s16, e);
  CHECK(cv::norm(read(d.out / "g.png"), e, cv::NORM_INF) == 0);
  run_op("laplacian");
  cv::Laplacian(colour, s16, CV_16S, 1);
  cv::convertScaleAbs(s16, e);
  CHECK(cv::norm(read(d.out / "c.png"), e, cv::NORM_INF) == 0);
  run_op("sharpen");
  cv::Mat blur;
  cv::GaussianBlur(gray, blur, cv::Size(5, 5), 0);
  cv::addWeighted(gray, 2.0, blur, -1.0, 0, e);
  CHECK(cv::norm(read(d.out / "g.png"), e, cv::NORM_INF) == 0);
  run_op("conv:[0 -1 0; -1 5 -1; 0 -1 0]", "--border constant:9");
  cv::Mat padded, f;
  cv::copyMakeBorder(gray, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(9));
  const float k[] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  cv::filter2D(padded, f, -1, cv::Mat(3, 3, CV_32F, const_cast<float*>(k)));
  CHECK(cv::norm(read(d.out / "g.png"), f(cv::Rect(1, 1, gray.cols, gray.rows)), cv::NORM_INF) == 0);
  // A chain: gray, then blur, then equalize.
  run_op("gray,gauss:5,equalize");
  cv::Mat g2, b2;
  cv::cvtColor(colour, g2, cv::COLOR_BGR2GRAY);
  cv::GaussianBlur(g2, b2, cv::Size(5, 5), 0);
  cv::equalizeHist(b2, e);
  CHECK(cv::norm(read(d.out / "c.png"), e, cv::NORM_INF) == 0);
}

TEST_CASE("wk-image conv reads kernel files, bad kernels and arguments are usage errors naming the operation", "[cli][wk-image][conv]") {
  Dirs d;
  cv::imwrite((d.in / "a.png").string(), wk::test::random_image(20, 20, 1, 9));
  wk::test::write_bytes(d.dir / "k.txt", "# sharpen\n0 -1 0\n-1 5 -1\n0,-1,0\n");
  auto r = wk_image("conv:" + sh_quote((d.dir / "k.txt").string()) + " --device cpu -q " + d.io());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  wk::test::write_bytes(d.dir / "empty.txt", "# nothing\n");
  wk::test::write_bytes(d.dir / "bad.txt", "1 2\n3 four\n");
  const std::pair<std::string, std::string> cases[] = {
      {"conv:" + (d.dir / "empty.txt").string(), "empty kernel"},
      {"conv:" + (d.dir / "bad.txt").string(), "bad.txt:2"},
      {"conv:" + (d.dir / "missing.txt").string(), "cannot read"},
      {"conv:[1 x 1]", "'x'"},
      {"conv:[]", "empty kernel"},
      {"gauss:4", "odd"},
      {"gauss:0", "odd"},
      {"gauss:5:-1", "sigma"},
      {"gauss:x", "integer"},
      {"box:0", "box"},
      {"box", "missing"},
      {"sobel:dz", "sobel"},
      {"sharpen:abc", "sharpen"},
      {"laplacian:3", "laplacian"},
  };
  for (const auto& [op, what] : cases) {
    CAPTURE(op);
    r = wk_image(sh_quote(op) + " --device cpu " + d.io());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
  }
}

TEST_CASE("wk-image: a kernel larger than an image fails that file, names it, and the rest is written", "[cli][wk-image][conv]") {
  Dirs d;
  cv::imwrite((d.in / "big.png").string(), wk::test::random_image(40, 40, 1, 1));
  cv::imwrite((d.in / "tiny.png").string(), wk::test::random_image(3, 40, 1, 2));
  const auto r = wk_image("gauss:5 --device cpu " + d.io());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("tiny.png") && Catch::Contains("gauss") && Catch::Contains("larger"));
  CHECK(fs::exists(d.out / "big.png"));
  CHECK_FALSE(fs::exists(d.out / "tiny.png"));
}
