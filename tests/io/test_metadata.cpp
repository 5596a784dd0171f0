// wk::io::read_metadata / apply_metadata, and the folder job carrying metadata (or not, strip).
#include <catch2/catch.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "wk/io/metadata.hpp"
#include "wk/pipeline/folder_job.hpp"

#ifdef WK_HAVE_EXIV2
#include <exiv2/exiv2.hpp>
#endif

namespace fs = std::filesystem;
using namespace wk;

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes encode(const cv::Mat& image, const std::string& ext) {
  std::vector<uchar> buf;
  REQUIRE(cv::imencode(ext, image, buf));
  return Bytes(buf.begin(), buf.end());
}

Bytes as_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

bool find(const Bytes& haystack, const std::string& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) != haystack.end();
}

}  // namespace

TEST_CASE("metadata: no metadata writes nothing, without libexiv2 none is read", "[metadata]") {
  const Bytes jpeg = encode(test::random_image(16, 8, 3, 1), ".jpg");
  CHECK(io::apply_metadata(jpeg, io::ImageMetadata{}, 16, 8) == jpeg);
  CHECK(io::read_metadata({}).empty());
  CHECK(io::read_metadata(jpeg).empty());  // OpenCV writes none
}

#ifdef WK_HAVE_EXIV2

namespace {

// An ICC profile: Debian's icc-profiles-free sRGB.icc where installed, else a v2.1 display-class
// RGB header (size, 'acsp', D50 illuminant) without tags. libexiv2 stores profiles as they are;
// libpng checks them when OpenCV decodes a PNG (and only warns about the made-up one).
Bytes small_icc() {
  static const Bytes srgb = [] {
    const std::string s = fs::exists("/usr/share/color/icc/sRGB.icc") ? test::read_bytes("/usr/share/color/icc/sRGB.icc")
                                                                        : std::string();
    return Bytes(s.begin(), s.end());
  }();
  if (srgb.size() >= 132 && std::string(srgb.begin() + 16, srgb.begin() + 20) == "RGB ") return srgb;
  Bytes icc(132, 0);
  auto be32 = [&](std::size_t at, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) icc[at + k] = std::uint8_t(v >> (24 - 8 * k));
  };
  auto tag = [&](std::size_t at, const char* four) {
    for (int k = 0; k < 4; ++k) icc[at + k] = std::uint8_t(four[k]);
  };
  be32(0, std::uint32_t(icc.size()));
  be32(8, 0x02100000);
  tag(12, "mntr");
  tag(16, "RGB ");
  tag(20, "XYZ ");
  tag(36, "acsp");
  be32(68, 0x0000F6D6);  // D50: X 0.9642, Y 1.0, Z 0.8249
  be32(72, 0x00010000);
  be32(76, 0x0000D32D);
  be32(128, 0);  // tag count
  return icc;
}

const char* const kMake = "WarpkitTestCam";
const char* const kTitle = "lang=\"x-default\" Harbour at dusk";
const char* const kComment = "taken from the pier";

// A JPEG of width x height with an ICC profile, EXIF (Make, Orientation 6, the pixel dimensions
// and a thumbnail), XMP (a title, tiff:Orientation, exif:PixelXDimension) and a comment.
Bytes jpeg_with_metadata(int width, int height) {
  const Bytes plain = encode(test::random_image(width, height, 3, 7), ".jpg");
  REQUIRE(io::metadata_supported());  // sets libexiv2 up (its XMP lock) before the test uses it
  auto image = Exiv2::ImageFactory::open(plain.data(), long(plain.size()));
  const Bytes icc = small_icc();
  Exiv2::DataBuf icc_buf(icc.data(), long(icc.size()));
  image->setIccProfile(icc_buf, true);
  Exiv2::ExifData exif;
  exif["Exif.Image.Make"] = kMake;
  exif["Exif.Image.Orientation"] = std::uint16_t(6);
  exif["Exif.Photo.PixelXDimension"] = std::uint32_t(width);
  exif["Exif.Photo.PixelYDimension"] = std::uint32_t(height);
  const Bytes thumb = encode(test::random_image(8, 8, 3, 3), ".jpg");
  Exiv2::ExifThumb(exif).setJpegThumbnail(thumb.data(), long(thumb.size()));
  image->setExifData(exif);
  Exiv2::XmpData xmp;
  xmp["Xmp.dc.title"] = kTitle;
  xmp["Xmp.tiff.Orientation"] = "6";
  xmp["Xmp.exif.PixelXDimension"] = std::to_string(width);
  image->setXmpData(xmp);
  image->setComment(kComment);
  image->writeMetadata();
  Exiv2::BasicIo& io = image->io();
  Bytes out(std::size_t(io.size()));
  REQUIRE(io.open() == 0);
  REQUIRE(io.read(out.data(), long(out.size())) == long(out.size()));
  io.close();
  return out;
}

// What libexiv2 reads back from a file.
struct ReadBack {
  Bytes icc;
  std::string make, title, xmp_orientation, xmp_width, comment;
  long orientation = -1, pixel_x = -1, pixel_y = -1;
  bool thumbnail = false;
  bool any_exif = false, any_xmp = false;
};

std::string exif_string(const Exiv2::ExifData& exif, const char* key) {
  const auto it = exif.findKey(Exiv2::ExifKey(key));
  return it == exif.end() ? std::string() : it->toString();
}
long exif_long(const Exiv2::ExifData& exif, const char* key) {
  const auto it = exif.findKey(Exiv2::ExifKey(key));
  return it == exif.end() ? -1 : it->toLong();
}
std::string xmp_string(const Exiv2::XmpData& xmp, const char* key) {
  const auto it = xmp.findKey(Exiv2::XmpKey(key));
  return it == xmp.end() ? std::string() : it->toString();
}

ReadBack read_back(const Bytes& file) {
  auto image = Exiv2::ImageFactory::open(file.data(), long(file.size()));
  image->readMetadata();
  ReadBack r;
  if (image->iccProfileDefined())
    r.icc.assign(image->iccProfile()->pData_, image->iccProfile()->pData_ + image->iccProfile()->size_);
  const Exiv2::ExifData& exif = image->exifData();
  r.any_exif = !exif.empty();
  r.make = exif_string(exif, "Exif.Image.Make");
  r.orientation = exif_long(exif, "Exif.Image.Orientation");
  r.pixel_x = exif_long(exif, "Exif.Photo.PixelXDimension");
  r.pixel_y = exif_long(exif, "Exif.Photo.PixelYDimension");
  r.thumbnail = Exiv2::ExifThumbC(exif).copy().size_ > 0;
  const Exiv2::XmpData& xmp = image->xmpData();
  r.any_xmp = !xmp.empty();
  r.title = xmp_string(xmp, "Xmp.dc.title");
  r.xmp_orientation = xmp_string(xmp, "Xmp.tiff.Orientation");
  r.xmp_width = xmp_string(xmp, "Xmp.exif.PixelXDimension");
  r.comment = image->comment();
  return r;
}

}  // namespace

TEST_CASE("metadata: read from a JPEG, written into JPEG, PNG, WebP and TIFF outputs of another size",
          "[metadata]") {
  REQUIRE(io::metadata_supported());
  const Bytes source = jpeg_with_metadata(64, 48);
  const ReadBack in = read_back(source);
  REQUIRE(in.icc == small_icc());
  REQUIRE(in.make == kMake);
  REQUIRE(in.orientation == 6);
  REQUIRE(in.thumbnail);
  REQUIRE(in.title == kTitle);
  REQUIRE(in.comment == kComment);

  const io::ImageMetadata meta = io::read_metadata(source);
  REQUIRE_FALSE(meta.empty());
  const io::ImageMetadata copy = meta;  // copies share the content
  CHECK(copy.content() == meta.content());

  const int w = 40, h = 30;
  const cv::Mat pixels = test::random_image(w, h, 3, 11);
  for (const std::string ext : {".jpg", ".png", ".webp", ".tiff"}) {
    SECTION(ext) {
      const Bytes encoded = encode(pixels, ext);
      const Bytes out = io::apply_metadata(encoded, meta, w, h, 3);
      REQUIRE(out != encoded);
      const ReadBack r = read_back(out);
      CHECK(r.icc == small_icc());
      CHECK(r.make == kMake);
      CHECK(r.orientation == 1);
      CHECK(r.pixel_x == w);
      CHECK(r.pixel_y == h);
      CHECK_FALSE(r.thumbnail);
      CHECK(r.title == kTitle);
      CHECK(r.xmp_orientation == "1");
      CHECK(r.xmp_width == std::to_string(w));
      if (ext == ".jpg" || ext == ".png") CHECK(r.comment == kComment);  // WebP and TIFF hold none
      // Where other readers look for the profile: a named iCCP chunk (PNG), an ICCP chunk (WebP).
      if (ext == ".png") CHECK(find(out, "iCCPICC profile"));
      if (ext == ".webp") {
        CHECK(find(out, "ICCP"));
        CHECK_FALSE(find(Bytes(out.begin() + 20, out.end()), "VP8X"));  // only the header's
      }
      // Still the same picture, of the same size.
      const cv::Mat back = cv::imdecode(cv::Mat(1, int(out.size()), CV_8U, const_cast<std::uint8_t*>(out.data())),
                                        cv::IMREAD_UNCHANGED);
      REQUIRE(back.cols == w);
      REQUIRE(back.rows == h);
      const cv::Mat before = cv::imdecode(
          cv::Mat(1, int(encoded.size()), CV_8U, const_cast<std::uint8_t*>(encoded.data())), cv::IMREAD_UNCHANGED);
      CHECK(cv::norm(back, before, cv::NORM_INF) == 0);
    }
  }
}

TEST_CASE("metadata: an ICC profile of another colour space than the output's is left out", "[metadata]") {
  const io::ImageMetadata meta = io::read_metadata(jpeg_with_metadata(32, 32));
  REQUIRE_FALSE(meta.empty());
  const Bytes gray = encode(test::random_image(32, 32, 1, 2), ".png");
  const ReadBack r = read_back(io::apply_metadata(gray, meta, 32, 32, 1));
  CHECK(r.icc.empty());  // an RGB profile on a gray image
  CHECK(r.make == kMake);
  const ReadBack unknown = read_back(io::apply_metadata(gray, meta, 32, 32));
  CHECK(unknown.icc == small_icc());  // channels not given: kept
}

TEST_CASE("metadata: bad or missing metadata reads as none, never an exception", "[metadata]") {
  const Bytes plain = encode(test::random_image(16, 16, 3, 5), ".jpg");
  CHECK(io::read_metadata(plain).empty());
  CHECK(io::read_metadata(encode(test::random_image(16, 16, 3, 5), ".bmp")).empty());
  CHECK(io::read_metadata(as_bytes("not an image at all")).empty());

  // An APP1 Exif segment whose TIFF header points its first IFD far beyond the data, and an
  // APP1 XMP segment that is not XML, right after the SOI marker.
  Bytes bad = {0xFF, 0xD8};
  const std::string exif = std::string("Exif\0\0", 6) + std::string("II*\0\xF0\xFF\xFF\x7F", 8) + std::string(32, '\xEE');
  const std::string xmp = std::string("http://ns.adobe.com/xap/1.0/\0", 29) + "<x:xmpmeta <<<< not xml";
  for (const std::string& payload : {exif, xmp}) {
    const std::size_t len = payload.size() + 2;
    bad.insert(bad.end(), {0xFF, 0xE1, std::uint8_t(len >> 8), std::uint8_t(len & 0xFF)});
    bad.insert(bad.end(), payload.begin(), payload.end());
  }
  bad.insert(bad.end(), plain.begin() + 2, plain.end());
  io::ImageMetadata meta;
  CHECK_NOTHROW(meta = io::read_metadata(bad));
  // Whatever was read of it writes (or leaves the output as it was) without an exception.
  const Bytes png = encode(test::random_image(16, 16, 3, 6), ".png");
  CHECK_NOTHROW(io::apply_metadata(png, meta, 16, 16, 3));

  // Every prefix of a file with metadata: no exception.
  const Bytes good = jpeg_with_metadata(24, 24);
  for (std::size_t n = 0; n < good.size(); n += 37)
    CHECK_NOTHROW(io::read_metadata(std::span<const std::uint8_t>(good.data(), n)));

  // A format libexiv2 does not write, or garbage: returned as it was.
  const io::ImageMetadata real = io::read_metadata(good);
  REQUIRE_FALSE(real.empty());
  const Bytes bmp = encode(test::random_image(16, 16, 3, 5), ".bmp");
  CHECK(io::apply_metadata(bmp, real, 16, 16, 3) == bmp);
  CHECK(io::apply_metadata(as_bytes("garbage"), real, 16, 16, 3) == as_bytes("garbage"));
}

TEST_CASE("metadata: the folder job carries metadata to its outputs, strip leaves it out", "[metadata][pipeline]") {
  test::TempDir dir;
  fs::create_directories(dir / "in");
  const Bytes source = jpeg_with_metadata(64, 48);  // EXIF orientation 6: decoded 48 x 64
  test::write_bytes(dir / "in" / "photo.jpg", std::string(source.begin(), source.end()));

  pipeline::FolderJobOptions opt;
  opt.pipeline_text = "invert";
  opt.inputs = {(dir / "in").string()};
  opt.outdir = dir / "out";
  opt.threads = 2;
  opt.format = GENERATE(as<std::string>{}, "", "png");
  CAPTURE(opt.format);
  const fs::path out = dir / "out" / (opt.format.empty() ? "photo.jpg" : "photo." + opt.format);
  auto read_output = [&] {
    const std::string s = test::read_bytes(out);
    return Bytes(s.begin(), s.end());
  };

  auto res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 1);
  const Bytes kept = read_output();
  const cv::Mat decoded = cv::imdecode(cv::Mat(1, int(kept.size()), CV_8U, const_cast<std::uint8_t*>(kept.data())),
                                       cv::IMREAD_COLOR);
  REQUIRE(decoded.cols == 48);
  REQUIRE(decoded.rows == 64);
  ReadBack r = read_back(kept);
  CHECK(r.icc == small_icc());
  CHECK(r.make == kMake);
  CHECK(r.orientation == 1);
  CHECK(r.pixel_x == 48);
  CHECK(r.pixel_y == 64);
  CHECK_FALSE(r.thumbnail);
  CHECK(r.title == kTitle);
  CHECK(r.comment == kComment);

  // The exiv2 command-line tool, where installed, reads the same.
  if (test::run("command -v exiv2").exit_code == 0) {
    const auto cli = test::run("exiv2 -pa " + test::sh_quote(out.string()));
    CHECK(cli.output.find(kMake) != std::string::npos);
    CHECK(cli.output.find("Exif.Image.Orientation") != std::string::npos);
    CHECK(cli.output.find("top, left") != std::string::npos);
    CHECK(cli.output.find("Harbour at dusk") != std::string::npos);
  }

  // A gray result: the RGB profile is left out, the rest is kept.
  opt.pipeline_text = "gray";
  res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 1);
  r = read_back(read_output());
  CHECK(r.icc.empty());
  CHECK(r.make == kMake);

  opt.pipeline_text = "invert";
  opt.strip = true;
  res = pipeline::run_folder_job(opt);
  REQUIRE(res.totals.ok == 1);
  r = read_back(read_output());
  CHECK(r.icc.empty());
  CHECK_FALSE(r.any_exif);
  CHECK_FALSE(r.any_xmp);
  CHECK(r.comment.empty());
}

#else

TEST_CASE("metadata: libexiv2 tests", "[metadata]") {
  WARN("this build has no libexiv2 (Debian: libexiv2-dev): metadata is not carried and its tests are skipped");
}

#endif  // WK_HAVE_EXIV2
