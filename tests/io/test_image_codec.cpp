// Decoding rules: OpenCV's imread semantics plus warpkit's strict truncation check.
#include <catch2/catch.hpp>

#include <tuple>
#include <opencv2/imgcodecs.hpp>

#include <filesystem>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/io/image_codec.hpp"

using namespace wk;

namespace {
std::vector<std::uint8_t> encode(const cv::Mat& m, const char* ext) {
  std::vector<std::uint8_t> b;
  REQUIRE(cv::imencode(ext, m, b));
  return b;
}
ErrorCategory decode_category(std::span<const std::uint8_t> bytes, std::string* message = nullptr) {
  try {
    io::decode_image(bytes);
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.category();
  }
  return ErrorCategory::internal;
}
}  // namespace

TEST_CASE("jpeg_complete requires the end-of-image marker", "[io]") {
  auto jpg = encode(test::random_image(32, 16, 3, 1), ".jpg");
  CHECK(io::jpeg_complete(jpg));
  auto padded = jpg;
  padded.insert(padded.end(), {0, 0, '\n'});
  CHECK(io::jpeg_complete(padded));
  auto cut = jpg;
  cut.resize(jpg.size() - 2);
  CHECK_FALSE(io::jpeg_complete(cut));
  cut.resize(jpg.size() / 2);
  CHECK_FALSE(io::jpeg_complete(cut));
  const auto png = encode(test::random_image(4, 4, 3, 1), ".png");
  CHECK(io::jpeg_complete(png));  // not a JPEG: not this check's business
}

TEST_CASE("decode_image rejects empty, truncated and non-image data", "[io]") {
  std::string msg;
  CHECK(decode_category({}, &msg) == ErrorCategory::decode);
  CHECK_THAT(msg, Catch::Contains("empty"));

  auto jpg = encode(test::random_image(64, 48, 3, 2), ".jpg");
  jpg.resize(jpg.size() * 2 / 3);  // OpenCV alone would still return pixels for this
  CHECK(decode_category(jpg, &msg) == ErrorCategory::decode);
  CHECK_THAT(msg, Catch::Contains("truncated"));

  const std::string text = "this is not an image\n";
  CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}, &msg) == ErrorCategory::decode);
  CHECK_THAT(msg, Catch::Contains("not a decodable image"));
}

// Found by tests/fuzz/fuzz_image_decode ("Too many open files" after ~10^5 inputs): OpenCV 4.6's
// Radiance reader throws past its fclose, one leaked descriptor per damaged .hdr file.
TEST_CASE("decode_image refuses Radiance HDR and leaks no file descriptor on damaged files", "[io]") {
  auto open_fds = [] {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) (void)e, ++n;
    return n;
  };
  const std::string damaged[] = {"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n", "#?RGBE\n", "#?RADIANCE\n\n-Y 2 +X 2\n\x01"};
  const std::size_t before = open_fds();
  for (int i = 0; i < 20; ++i)
    for (const std::string& d : damaged) {
      std::string msg;
      CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(d.data()), d.size()}, &msg) == ErrorCategory::unsupported);
      CHECK_THAT(msg, Catch::Contains("Radiance HDR"));
    }
  CHECK(open_fds() == before);
  // Every other damaged format OpenCV reads here fails without a leak as well.
  const std::string others[] = {"P7\nWIDTH 2\nHEIGHT\n", std::string("II*\0\x08\0\0\0\x01\0", 10),
                                std::string("RIFF\x10\0\0\0WEBPVP8 ", 16)};
  for (int i = 0; i < 20; ++i)
    for (const std::string& d : others) CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(d.data()), d.size()}) == ErrorCategory::decode);
  // JPEG 2000 and PFM are decoded from files only (see below): from memory they are refused.
  const std::string from_files[] = {std::string("\xFF\x4F\xFF\x51\x00\x29", 6), "PF\n2 2\n-1\n"};
  for (const std::string& d : from_files)
    CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(d.data()), d.size()}) == ErrorCategory::unsupported);
  CHECK(open_fds() == before);
}

// Found by tests/fuzz/fuzz_image_decode in CI's 30-s run: a 135-byte "DICOM" file made GDCM
// (one of Debian's OpenCV decoders, chosen by content) fail an assert and abort the process.
TEST_CASE("decode_image hands OpenCV only the formats it sizes first: DICOM and the rest are refused", "[io]") {
  std::string dicom(128, '\0');
  dicom += "DICMIGH";
  std::string msg;
  CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(dicom.data()), dicom.size()}, &msg) == ErrorCategory::unsupported);
  CHECK_THAT(msg, Catch::Contains("DICOM"));
  // With another format's leading bytes too: OpenCV's PAM decoder turns this down and GDCM
  // takes it (fuzz_image_decode aborted on it when the marker was checked after the format).
  std::string pam_dicom = "P76\x11" + std::string(124, ' ') + "DICM4";
  CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(pam_dicom.data()), pam_dicom.size()}) == ErrorCategory::unsupported);
  const std::string exr("\x76\x2f\x31\x01\x02\0\0\0", 8);
  CHECK(decode_category({reinterpret_cast<const std::uint8_t*>(exr.data()), exr.size()}) == ErrorCategory::decode);
  using F = io::ImageFormat;
  for (const auto& [ext, format] : {std::pair{".png", F::png}, {".jpg", F::jpeg}, {".bmp", F::bmp}, {".ppm", F::pnm}, {".pfm", F::pnm},
                                    {".ras", F::sun_raster}, {".tif", F::tiff}, {".webp", F::webp}}) {
    CAPTURE(ext);
    if (!cv::haveImageWriter(std::string("x") + ext)) continue;
    const auto b = encode(test::random_image(5, 4, 3, 2), ext);
    CHECK(io::sniff_image_format(b) == format);
    if (std::string(ext) == ".pfm" || std::string(ext) == ".ras") continue;  // from files only: below
    CHECK(io::decode_image(b).cols == 5);
  }
  CHECK(io::sniff_image_format({reinterpret_cast<const std::uint8_t*>(exr.data()), exr.size()}) == F::unknown);
}

TEST_CASE("decode_image names GIF and HEIF/AVIF input as unsupported formats, not corrupt data", "[io]") {
  // A whole 1x1 GIF89a: header, logical screen, 2-colour table, image descriptor, LZW data, trailer.
  const std::string gif("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;", 43);
  const std::string avif = std::string("\0\0\0\x1c", 4) + "ftypavif" + std::string(16, '\0');
  const std::string heic = std::string("\0\0\0\x18", 4) + "ftypheic" + std::string(12, '\0');
  using F = io::ImageFormat;
  for (const auto& [bytes, format, name] : {std::tuple{gif, F::gif, "GIF"}, {avif, F::heif, "AVIF"}, {heic, F::heif, "HEIF"}}) {
    CAPTURE(name);
    const std::span<const std::uint8_t> b{reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()};
    CHECK(io::sniff_image_format(b) == format);
    std::string msg;
    CHECK(decode_category(b, &msg) == ErrorCategory::unsupported);
    CHECK_THAT(msg, Catch::Contains("unsupported format") && Catch::Contains(name));
  }
}

TEST_CASE("can_encode and writable_formats: what this build writes", "[io]") {
  CHECK(io::can_encode("png"));
  CHECK(io::can_encode("jpg"));
  CHECK_FALSE(io::can_encode("avif"));
  CHECK_FALSE(io::can_encode("gif"));
  CHECK_FALSE(io::can_encode(""));
  CHECK_FALSE(io::can_encode("../png"));
  const std::string all = io::writable_formats();
  CHECK_THAT(all, Catch::Contains("png") && Catch::Contains("jpg"));
  CHECK_THAT(all, !Catch::Contains("gif"));
}

TEST_CASE("decode_image keeps 1-channel images, alpha and 16 bits only on request, as cv::imread converts them", "[io]") {
  const cv::Mat gray = test::random_image(9, 7, 1, 3);
  cv::Mat g = io::decode_image(encode(gray, ".png"));
  CHECK(g.channels() == 1);
  CHECK(cv::norm(g, gray, cv::NORM_INF) == 0);

  auto category = [](const std::vector<std::uint8_t>& b) {
    try {
      io::decode_image(b);
    } catch (const Error& e) {
      return e.category();
    }
    return ErrorCategory::internal;
  };
  io::DecodeOptions convert;
  convert.drop_alpha = convert.to_8bit = true;
  const cv::Mat bgra = test::random_image(9, 7, 4, 4);
  CHECK(category(encode(bgra, ".png")) == ErrorCategory::unsupported);
  cv::Mat c = io::decode_image(encode(bgra, ".png"), convert);
  CHECK(c.channels() == 3);
  CHECK(cv::norm(c, cv::imdecode(encode(bgra, ".png"), cv::IMREAD_COLOR), cv::NORM_INF) == 0);

  cv::Mat deep(5, 6, CV_16UC3, cv::Scalar(1000, 20000, 65535));
  CHECK(category(encode(deep, ".png")) == ErrorCategory::unsupported);
  cv::Mat d = io::decode_image(encode(deep, ".png"), convert);
  CHECK(d.depth() == CV_8U);
  CHECK(cv::norm(d, cv::imdecode(encode(deep, ".png"), cv::IMREAD_COLOR), cv::NORM_INF) == 0);
}

TEST_CASE("decode_image applies EXIF orientation as cv::imread does", "[io]") {
  test::TempDir dir;
  const cv::Mat src = test::random_image(40, 24, 3, 5);
  auto jpg = encode(src, ".jpg");
  // APP1 Exif segment, little-endian TIFF, one IFD entry: Orientation (0x0112) SHORT = 6
  // ("rotate 90 clockwise to display").
  const std::uint8_t app1[] = {0xFF, 0xE1, 0x00, 0x22, 'E', 'x', 'i', 'f', 0, 0,
                               'I', 'I', 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00,
                               0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
                               0x00, 0x00, 0x00, 0x00};
  jpg.insert(jpg.begin() + 2, std::begin(app1), std::end(app1));
  test::write_bytes(dir / "rot.jpg", std::string(jpg.begin(), jpg.end()));
  const cv::Mat expected = cv::imread((dir / "rot.jpg").string(), cv::IMREAD_COLOR);
  REQUIRE(expected.cols == 24);  // the marker was understood: rotated
  const cv::Mat got = io::decode_image(jpg);
  REQUIRE(got.size() == expected.size());
  CHECK(cv::norm(got, expected, cv::NORM_INF) == 0);
}

TEST_CASE("encode_image picks the format from the extension and honours JPEG quality", "[io]") {
  const cv::Mat m = test::random_image(16, 16, 3, 6);
  const auto q95 = io::encode_image(m, "x.JPG");
  std::vector<std::uint8_t> ref;
  cv::imencode(".jpg", m, ref, {cv::IMWRITE_JPEG_QUALITY, 95});
  CHECK(q95 == ref);
  const auto q50 = io::encode_image(m, "x.jpg", {50});
  cv::imencode(".jpg", m, ref, {cv::IMWRITE_JPEG_QUALITY, 50});
  CHECK(q50 == ref);
  CHECK_THROWS_AS(io::encode_image(m, "noextension"), Error);
  CHECK_THROWS_AS(io::encode_image(m, "x.unknownformat"), Error);
}

TEST_CASE("JPEG 2000, Sun raster and PFM are decoded from their files, never through OpenCV's temporary copy", "[io]") {
  // OpenCV decodes these only from files: imdecode would write the data to /tmp/__opencv_temp.*
  // (a readable copy of the user's image outside the job). From memory they are refused; with
  // the source file they decode as imread does.
  test::TempDir dir;
  for (const char* ext : {".ras", ".pfm", ".jp2"}) {
    CAPTURE(ext);
    if (!cv::haveImageWriter(std::string("x") + ext)) continue;
    const cv::Mat img = test::random_image(64, 48, 3, 3);
    const auto b = encode(img, ext);
    const std::filesystem::path file = dir / (std::string("a") + ext);
    test::write_bytes(file, std::string(b.begin(), b.end()));
    try {
      io::decode_image(b);
      FAIL("decoded from memory");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::unsupported);
    }
    io::DecodeOptions options;
    options.to_8bit = std::string(ext) == ".pfm";  // floating point: converted only on request
    if (options.to_8bit) CHECK_THROWS_AS(io::decode_image(b, file), Error);
    const cv::Mat got = io::decode_image(b, file, options);
    CHECK(got.cols == 64);
    CHECK(got.rows == 48);
    const cv::Mat ref = cv::imread(file.string(), cv::IMREAD_ANYCOLOR);
    CHECK(cv::norm(got, ref, cv::NORM_INF) == 0);
  }
}
