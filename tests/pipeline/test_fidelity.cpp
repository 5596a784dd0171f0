// What wk-image keeps and what it writes: resize and thumbnail through the folder job (with
// JPEG shrink-on-load), analysis-only pipelines writing no image, 16-bit and alpha inputs refused
// unless converted on request, and the encoders' quality and level settings.
#include <catch2/catch.hpp>

#include <filesystem>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/image/pipeline.hpp"
#include "wk/io/files.hpp"
#include "wk/io/image_codec.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

// A smooth colour image (JPEG-friendly: shrink-on-load and area averaging then agree closely).
cv::Mat smooth_image(int w, int h) {
  cv::Mat m(h, w, CV_8UC3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) m.at<cv::Vec3b>(y, x) = cv::Vec3b(std::uint8_t(x * 255 / w), std::uint8_t(y * 255 / h), std::uint8_t((x + y) % 256));
  return m;
}

pipeline::FolderJobOptions cpu_job(const test::TempDir& dir, const std::string& ops) {
  pipeline::FolderJobOptions opt;
  opt.pipeline_text = ops;
  opt.inputs = {(dir / "in").string()};
  opt.outdir = dir / "out";
  opt.threads = 2;
  return opt;
}

}  // namespace

TEST_CASE("Pipeline: thumbnail shrinks JPEGs on load only while the reduced image still covers the box", "[fidelity]") {
  const image::Pipeline thumb("thumbnail:1920x1080", Backend::cpu);
  CHECK(thumb.jpeg_shrink(3840, 2160) == 2);
  CHECK(thumb.jpeg_shrink(7680, 4320) == 4);
  CHECK(thumb.jpeg_shrink(3839, 2160) == 2);  // ceil(3839 / 2) = 1920: still covers it
  CHECK(thumb.jpeg_shrink(3000, 2000) == 1);  // 1500 x 1000 would not hold 1620 x 1080
  CHECK(thumb.jpeg_shrink(800, 600) == 1);    // never enlarged: kept as it is
  const image::Pipeline later("gray,thumbnail:100", Backend::cpu);
  CHECK(later.jpeg_shrink(4000, 3000) == 1);  // only a first operation decides the decode
  const image::Pipeline resize("resize:100", Backend::cpu);
  CHECK(resize.jpeg_shrink(4000, 3000) == 1);  // resize is cv::resize of the full image
}

TEST_CASE("Pipeline: only reading operations make an analysis-only pipeline", "[fidelity]") {
  CHECK(image::Pipeline("hist", Backend::cpu).analysis_only());
  CHECK(image::Pipeline("hist,hist", Backend::cpu).analysis_only());
  CHECK_FALSE(image::Pipeline("gray,hist", Backend::cpu).analysis_only());
  CHECK_FALSE(image::Pipeline("thumbnail:10", Backend::cpu).analysis_only());
}

TEST_CASE("resize and thumbnail syntax: sizes, modes and interpolations, errors naming what is wrong", "[fidelity]") {
  for (const char* ok : {"resize:640x480", "resize:640", "resize:x480", "resize:50%", "resize:640x480:fill",
                         "resize:640x480:lanczos:exact", "resize:10x10:nearest", "thumbnail:256", "thumbnail:1920x1080"}) {
    CAPTURE(ok);
    CHECK_NOTHROW(image::Pipeline(ok, Backend::cpu));
  }
  auto usage = [](const char* text) {
    try {
      image::Pipeline(text, Backend::cpu);
    } catch (const Error& e) {
      return e.category() == ErrorCategory::usage ? std::string(e.what()) : std::string("other: ") + e.what();
    }
    return std::string("no error");
  };
  CHECK_THAT(usage("resize"), Catch::Contains("missing argument"));
  CHECK_THAT(usage("resize:big"), Catch::Contains("'big' is not a size"));
  CHECK_THAT(usage("resize:0x10"), Catch::Contains("from 1 to"));
  CHECK_THAT(usage("resize:-5%"), Catch::Contains("not a size"));
  CHECK_THAT(usage("resize:640:fit:fill"), Catch::Contains("more than one fit mode"));
  CHECK_THAT(usage("resize:640:bicubic"), Catch::Contains("unknown word 'bicubic'"));
  CHECK_THAT(usage("thumbnail:50%"), Catch::Contains("not a percentage"));
}

TEST_CASE("folder job: resize and thumbnail give cv::resize's sizes, thumbnail decodes JPEGs reduced", "[fidelity]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  const cv::Mat big = smooth_image(640, 360);
  REQUIRE(cv::imwrite((dir / "in" / "a.jpg").string(), big, {cv::IMWRITE_JPEG_QUALITY, 95}));
  REQUIRE(cv::imwrite((dir / "in" / "b.png").string(), smooth_image(50, 100)));

  auto opt = cpu_job(dir, "thumbnail:320x320");
  auto res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 2);
  const cv::Mat a = cv::imread((dir / "out" / "a.jpg").string());
  CHECK(a.size() == cv::Size(320, 180));
  CHECK(cv::imread((dir / "out" / "b.png").string()).size() == cv::Size(50, 100));  // never enlarged
  for (const auto& r : res.records) {
    CAPTURE(r.path);
    CHECK(r.decoder == (r.path.ends_with("a.jpg") ? "opencv/2" : "opencv"));
    CHECK(r.width == (r.path.ends_with("a.jpg") ? 640 : 50));  // the input's size, not the reduced decode's
  }
  // Shrink-on-load against a full decode and area averaging: the same picture, within JPEG noise.
  cv::Mat full = cv::imread((dir / "in" / "a.jpg").string()), ref;
  cv::resize(full, ref, cv::Size(320, 180), 0, 0, cv::INTER_AREA);
  CHECK(cv::PSNR(a, ref) > 30);

  fs::remove_all(dir / "out");
  opt = cpu_job(dir, "resize:100x100:fill:nearest");
  res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 2);
  const cv::Mat b = cv::imread((dir / "out" / "b.png").string());
  REQUIRE(b.size() == cv::Size(100, 100));
  cv::Mat scaled;
  cv::resize(smooth_image(50, 100), scaled, cv::Size(100, 200), 0, 0, cv::INTER_NEAREST);
  CHECK(cv::norm(b, scaled(cv::Rect(0, 50, 100, 100)), cv::NORM_INF) == 0);
}

TEST_CASE("folder job: an analysis-only pipeline writes its side outputs and no copy of the image", "[fidelity]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  REQUIRE(cv::imwrite((dir / "in" / "a.jpg").string(), smooth_image(64, 48)));
  auto opt = cpu_job(dir, "hist");
  const auto res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 1);
  CHECK(fs::exists(dir / "out" / "a.hist.csv"));
  CHECK_FALSE(fs::exists(dir / "out" / "a.jpg"));
  CHECK(res.records[0].output == (dir / "out" / "a.hist.csv").string());
}

TEST_CASE("decode: 16-bit and alpha inputs are refused unless converted on request", "[fidelity]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  const cv::Mat deep(6, 5, CV_16UC3, cv::Scalar(1000, 20000, 65535));
  const cv::Mat bgra = test::random_image(9, 7, 4, 4);
  REQUIRE(cv::imwrite((dir / "in" / "deep.png").string(), deep));
  REQUIRE(cv::imwrite((dir / "in" / "alpha.png").string(), bgra));
  REQUIRE(cv::imwrite((dir / "in" / "plain.png").string(), test::random_image(9, 7, 3, 5)));

  // gray takes 8-bit 1- and 3-channel images only: the others are refused, named, not converted.
  auto opt = cpu_job(dir, "flip:h,gray");
  auto res = pipeline::run_folder_job(opt);
  CHECK(res.totals.ok == 1);
  CHECK(res.totals.failed == 2);
  for (const auto& r : res.records) {
    CAPTURE(r.path);
    if (r.path.ends_with("deep.png")) CHECK_THAT(r.error, Catch::Contains("16-bit PNG") && Catch::Contains("--depth 8"));
    if (r.path.ends_with("alpha.png")) CHECK_THAT(r.error, Catch::Contains("alpha channel") && Catch::Contains("--alpha drop"));
  }
  CHECK_FALSE(fs::exists(dir / "out" / "deep.png"));

  opt.decode.to_8bit = true;
  opt.decode.drop_alpha = true;
  res = pipeline::run_folder_job(opt);
  CHECK(res.totals.ok == 3);
  cv::Mat want, gray;
  cv::flip(cv::imread((dir / "in" / "deep.png").string(), cv::IMREAD_COLOR), want, 1);
  cv::cvtColor(want, gray, cv::COLOR_BGR2GRAY);
  CHECK(cv::norm(cv::imread((dir / "out" / "deep.png").string(), cv::IMREAD_UNCHANGED), gray, cv::NORM_INF) == 0);
  cv::flip(cv::imread((dir / "in" / "alpha.png").string(), cv::IMREAD_COLOR), want, 1);
  cv::cvtColor(want, gray, cv::COLOR_BGR2GRAY);
  CHECK(cv::norm(cv::imread((dir / "out" / "alpha.png").string(), cv::IMREAD_UNCHANGED), gray, cv::NORM_INF) == 0);
}

TEST_CASE("folder job: geometry and resize keep 16 bits and alpha, formats that cannot hold them are refused", "[fidelity]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  cv::Mat deep(37, 53, CV_16UC3), bgra = test::random_image(41, 29, 4, 8), deep_alpha(20, 30, CV_16UC4);
  cv::randu(deep, 0, 65536);
  cv::randu(deep_alpha, 0, 65536);
  REQUIRE(cv::imwrite((dir / "in" / "deep.png").string(), deep));
  REQUIRE(cv::imwrite((dir / "in" / "alpha.png").string(), bgra));
  REQUIRE(cv::imwrite((dir / "in" / "both.png").string(), deep_alpha));
  const std::string ops = "rotate:90,crop:center:16x16,flip:v,resize:24x20:exact:cubic";
  auto expected = [](const cv::Mat& in) {
    cv::Mat a, b;
    cv::rotate(in, a, cv::ROTATE_90_CLOCKWISE);
    b = a(cv::Rect((a.cols - 16) / 2, (a.rows - 16) / 2, 16, 16)).clone();
    cv::flip(b, b, 0);
    cv::resize(b, a, cv::Size(24, 20), 0, 0, cv::INTER_CUBIC);
    return a;
  };
  auto opt = cpu_job(dir, ops);
  auto res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 3);
  for (const auto& [name, in] : {std::pair<std::string, cv::Mat>{"deep.png", deep}, {"alpha.png", bgra}, {"both.png", deep_alpha}}) {
    CAPTURE(name);
    const cv::Mat got = cv::imread((dir / "out" / name).string(), cv::IMREAD_UNCHANGED);
    REQUIRE(got.type() == in.type());
    CHECK(cv::norm(got, expected(in), cv::NORM_INF) == 0);
  }
  // thumbnail on a 16-bit image: area averaging at 16 bits.
  fs::remove_all(dir / "out");
  opt = cpu_job(dir, "thumbnail:20x20");
  res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 3);
  cv::Mat want;
  cv::resize(deep, want, cv::Size(20, 14), 0, 0, cv::INTER_AREA);
  CHECK(cv::norm(cv::imread((dir / "out" / "deep.png").string(), cv::IMREAD_UNCHANGED), want, cv::NORM_INF) == 0);
  // JPEG holds neither: refused per file, naming what to do; nothing written.
  fs::remove_all(dir / "out");
  opt = cpu_job(dir, "flip:h");
  opt.format = "jpg";
  res = pipeline::run_folder_job(opt);
  CHECK(res.totals.failed == 3);
  for (const auto& r : res.records) {
    CAPTURE(r.path);
    CHECK_THAT(r.error, Catch::Contains("jpg cannot hold") && Catch::Contains("--format png"));
  }
  CHECK_FALSE(fs::exists(dir / "out" / "deep.jpg"));
  // --depth 8 and --alpha drop still convert, as cv::imread does.
  opt.decode.to_8bit = opt.decode.drop_alpha = true;
  res = pipeline::run_folder_job(opt);
  CHECK(res.totals.ok == 3);
}

TEST_CASE("decode: a 16-bit alpha image kept for geometry is reduced to 8 bits by its high byte with --depth 8", "[fidelity]") {
  cv::Mat deep_alpha(6, 9, CV_16UC4);
  cv::randu(deep_alpha, 0, 65536);
  std::vector<std::uint8_t> png;
  REQUIRE(cv::imencode(".png", deep_alpha, png));
  io::DecodeOptions o;
  o.keep_deep = true;
  o.to_8bit = true;
  const cv::Mat got = io::decode_image(png, o);
  REQUIRE(got.type() == CV_8UC4);
  cv::Mat want(deep_alpha.size(), CV_8UC4);
  for (int y = 0; y < want.rows; ++y)
    for (int x = 0; x < want.cols * 4; ++x) want.ptr<std::uint8_t>(y)[x] = std::uint8_t(deep_alpha.ptr<std::uint16_t>(y)[x] >> 8);
  CHECK(cv::norm(got, want, cv::NORM_INF) == 0);
  // The colour channels are those cv::imread reduces to 8 bits itself.
  cv::Mat bgr;
  cv::cvtColor(got, bgr, cv::COLOR_BGRA2BGR);
  CHECK(cv::norm(bgr, cv::imdecode(png, cv::IMREAD_COLOR), cv::NORM_INF) == 0);
}

TEST_CASE("decode: an alpha image keeps the EXIF orientation OpenCV applies to it", "[fidelity]") {
  // A 4x2 RGBA PNG whose eXIf chunk says orientation 6 (turn 90 degrees clockwise).
  auto chunk = [](const std::string& type, const std::string& data) {
    std::string c;
    for (int k = 3; k >= 0; --k) c += char((data.size() >> (8 * k)) & 0xFF);
    c += type + data;
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char b : type + data) {
      crc ^= b;
      for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    crc ^= 0xFFFFFFFFu;
    for (int k = 3; k >= 0; --k) c += char((crc >> (8 * k)) & 0xFF);
    return c;
  };
  std::vector<std::uint8_t> raw;
  for (int y = 0; y < 2; ++y) {
    raw.push_back(0);
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 4; ++c) raw.push_back(std::uint8_t(10 * x + 100 * y + c * 3 + (c == 3 ? 50 : 0)));
  }
  // The image data stored (zlib) with OpenCV's own encoder, then the eXIf chunk spliced in.
  cv::Mat rgba(2, 4, CV_8UC4);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 4; ++c) rgba.at<cv::Vec4b>(y, x)[c] = raw[std::size_t(y) * 17 + 1 + std::size_t(x) * 4 + c];
  std::vector<std::uint8_t> png;
  REQUIRE(cv::imencode(".png", rgba, png));
  const std::string exif = std::string("MM\0*\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0", 26);
  const std::string eXIf = chunk("eXIf", exif);
  png.insert(png.begin() + 33, eXIf.begin(), eXIf.end());  // after the IHDR chunk
  const cv::Mat oriented = cv::imdecode(png, cv::IMREAD_COLOR);
  REQUIRE(oriented.size() == cv::Size(2, 4));  // OpenCV turned it
  io::DecodeOptions o;
  o.keep_deep = true;
  const cv::Mat got = io::decode_image(png, o);
  REQUIRE(got.type() == CV_8UC4);
  cv::Mat want;
  cv::rotate(rgba, want, cv::ROTATE_90_CLOCKWISE);
  CHECK(cv::norm(got, want, cv::NORM_INF) == 0);
}

TEST_CASE("has_alpha_channel reads PNG, WebP and TIFF headers", "[fidelity]") {
  const cv::Mat bgr = test::random_image(8, 6, 3, 1), bgra = test::random_image(8, 6, 4, 2), gray = test::random_image(8, 6, 1, 3);
  cv::Mat gray_alpha;
  cv::Mat planes[] = {gray, gray};
  cv::merge(planes, 2, gray_alpha);
  auto enc = [](const cv::Mat& m, const char* ext, std::vector<int> params = {}) {
    std::vector<std::uint8_t> out;
    REQUIRE(cv::imencode(ext, m, out, params));
    return out;
  };
  for (const char* ext : {".png", ".tif", ".webp"}) {
    CAPTURE(ext);
    if (!cv::haveImageWriter(std::string("x") + ext)) continue;  // a build without TIFF or WebP
    CHECK_FALSE(io::has_alpha_channel(enc(bgr, ext)));
    CHECK_FALSE(io::has_alpha_channel(enc(gray, ext)));
    CHECK(io::has_alpha_channel(enc(bgra, ext)));
  }
  if (cv::haveImageWriter("x.webp")) CHECK(io::has_alpha_channel(enc(bgra, ".webp", {cv::IMWRITE_WEBP_QUALITY, 80})));  // lossy: VP8X
  CHECK_FALSE(io::has_alpha_channel(enc(bgr, ".jpg")));
}

TEST_CASE("decode: a reduced JPEG decode is libjpeg's DCT scaling, gray staying gray", "[fidelity]") {
  const cv::Mat colour = smooth_image(64, 40);
  std::vector<std::uint8_t> jpg, gray_jpg;
  REQUIRE(cv::imencode(".jpg", colour, jpg));
  cv::Mat gray;
  cv::cvtColor(colour, gray, cv::COLOR_BGR2GRAY);
  REQUIRE(cv::imencode(".jpg", gray, gray_jpg));
  for (int k : {2, 4, 8}) {
    CAPTURE(k);
    io::DecodeOptions o;
    o.jpeg_shrink = k;
    const cv::Mat got = io::decode_image(jpg, o);
    const int flag = k == 2 ? cv::IMREAD_REDUCED_COLOR_2 : k == 4 ? cv::IMREAD_REDUCED_COLOR_4 : cv::IMREAD_REDUCED_COLOR_8;
    CHECK(cv::norm(got, cv::imdecode(jpg, flag), cv::NORM_INF) == 0);
    CHECK(got.size() == cv::Size(64 / k, 40 / k + (40 % k != 0)));
    CHECK(io::decode_image(gray_jpg, o).channels() == 1);
  }
}

TEST_CASE("encode: WebP is lossless unless a quality is given, the PNG level changes the size only", "[fidelity]") {
  const cv::Mat img = test::random_image(40, 30, 3, 9);
  io::EncodeOptions o;
  if (!cv::haveImageWriter("x.webp")) return;  // a build without WebP
  const auto lossless = io::encode_image(img, "x.webp", o);
  CHECK(cv::norm(io::decode_image(lossless), img, cv::NORM_INF) == 0);
  o.webp_quality = 50;
  const auto lossy = io::encode_image(img, "x.webp", o);
  CHECK(lossy.size() < lossless.size());
  CHECK(cv::norm(io::decode_image(lossy), img, cv::NORM_INF) > 0);

  const cv::Mat smooth = smooth_image(200, 100);
  o.png_level = 0;
  const auto stored = io::encode_image(smooth, "x.png", o);
  o.png_level = 9;
  const auto packed = io::encode_image(smooth, "x.png", o);
  CHECK(packed.size() < stored.size());
  CHECK(cv::norm(io::decode_image(stored), io::decode_image(packed), cv::NORM_INF) == 0);
}
