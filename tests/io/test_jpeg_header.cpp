// parse_jpeg_header and nvjpeg_unsuitable_reason: which JPEGs nvJPEG may decode for the folder
// job (the rest go through OpenCV), decided from the marker segments alone.
#include <catch2/catch.hpp>
#include <opencv2/imgcodecs.hpp>

#include "test_support.hpp"
#include "wk/io/jpeg_header.hpp"

using namespace wk;

namespace {

std::vector<std::uint8_t> encode_jpeg(const cv::Mat& m, std::vector<int> params = {}) {
  std::vector<std::uint8_t> b;
  REQUIRE(cv::imencode(".jpg", m, b, params));
  return b;
}

// Inserts a marker segment right after SOI.
void insert_segment(std::vector<std::uint8_t>& jpeg, std::uint8_t marker, const std::vector<std::uint8_t>& payload) {
  const std::size_t len = payload.size() + 2;
  std::vector<std::uint8_t> seg{0xFF, marker, std::uint8_t(len >> 8), std::uint8_t(len & 0xFF)};
  seg.insert(seg.end(), payload.begin(), payload.end());
  jpeg.insert(jpeg.begin() + 2, seg.begin(), seg.end());
}

// Removes the first segment with this marker (OpenCV writes a JFIF APP0 first).
void remove_segment(std::vector<std::uint8_t>& jpeg, std::uint8_t marker) {
  std::size_t i = 2;
  while (i + 4 <= jpeg.size() && jpeg[i] == 0xFF && jpeg[i + 1] != 0xDA) {
    const std::size_t len = (jpeg[i + 2] << 8) | jpeg[i + 3];
    if (jpeg[i + 1] == marker) {
      jpeg.erase(jpeg.begin() + i, jpeg.begin() + i + 2 + len);
      return;
    }
    i += 2 + len;
  }
  FAIL("no such segment");
}

// An APP1 EXIF payload with one IFD0 entry: orientation (SHORT, count 1).
std::vector<std::uint8_t> exif_orientation_payload(int orientation, bool little_endian) {
  std::vector<std::uint8_t> p{'E', 'x', 'i', 'f', 0, 0};
  auto u16 = [&](unsigned v) {
    if (little_endian) p.insert(p.end(), {std::uint8_t(v), std::uint8_t(v >> 8)});
    else p.insert(p.end(), {std::uint8_t(v >> 8), std::uint8_t(v)});
  };
  auto u32 = [&](unsigned v) {
    if (little_endian) { u16(v & 0xFFFF); u16(v >> 16); }
    else { u16(v >> 16); u16(v & 0xFFFF); }
  };
  p.push_back(little_endian ? 'I' : 'M');
  p.push_back(little_endian ? 'I' : 'M');
  u16(42);
  u32(8);        // IFD0 right after the header
  u16(1);        // one entry
  u16(0x0112);   // orientation
  u16(3);        // SHORT
  u32(1);        // count
  u16(unsigned(orientation));
  u16(0);        // value field padding
  u32(0);        // no next IFD
  return p;
}

}  // namespace

TEST_CASE("parse_jpeg_header reads OpenCV's baseline, progressive and gray JPEGs", "[io][jpeg_header]") {
  const cv::Mat colour = test::random_image(37, 21, 3, 1);
  auto h = io::parse_jpeg_header(encode_jpeg(colour));
  REQUIRE(h.has_value());
  CHECK(h->width == 37);
  CHECK(h->height == 21);
  CHECK(h->precision == 8);
  CHECK(h->components == 3);
  CHECK(h->sof_marker == 0xC0);
  CHECK(h->jfif);
  CHECK(h->adobe_transform == -1);
  CHECK(h->exif_orientation == 1);
  CHECK(io::nvjpeg_unsuitable_reason(*h).empty());

  h = io::parse_jpeg_header(encode_jpeg(colour, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}));
  REQUIRE(h.has_value());
  CHECK(h->sof_marker == 0xC2);
  CHECK(io::nvjpeg_unsuitable_reason(*h).empty());  // the hardware backend's own check routes it

  h = io::parse_jpeg_header(encode_jpeg(test::random_image(5, 3, 1, 2)));
  REQUIRE(h.has_value());
  CHECK(h->components == 1);
  CHECK(io::nvjpeg_unsuitable_reason(*h).empty());
}

TEST_CASE("parse_jpeg_header: EXIF orientation in both byte orders, OpenCV rotates, so nvJPEG must not decode", "[io][jpeg_header]") {
  for (const bool little : {true, false}) {
    CAPTURE(little);
    auto jpeg = encode_jpeg(test::random_image(40, 16, 3, 3));
    insert_segment(jpeg, 0xE1, exif_orientation_payload(6, little));
    const auto h = io::parse_jpeg_header(jpeg);
    REQUIRE(h.has_value());
    CHECK(h->exif_orientation == 6);
    CHECK_THAT(io::nvjpeg_unsuitable_reason(*h), Catch::Contains("EXIF orientation 6"));
    // The reason it matters: OpenCV applies it (90 degrees: width and height swap).
    const cv::Mat decoded = cv::imdecode(jpeg, cv::IMREAD_ANYCOLOR);
    CHECK(decoded.cols == 16);
    CHECK(decoded.rows == 40);
  }
  auto jpeg = encode_jpeg(test::random_image(8, 8, 3, 4));
  insert_segment(jpeg, 0xE1, exif_orientation_payload(1, true));
  auto h = io::parse_jpeg_header(jpeg);
  REQUIRE(h.has_value());
  CHECK(h->exif_orientation == 1);
  CHECK(io::nvjpeg_unsuitable_reason(*h).empty());

  // An EXIF segment that cannot be read: OpenCV decides.
  jpeg = encode_jpeg(test::random_image(8, 8, 3, 4));
  insert_segment(jpeg, 0xE1, {'E', 'x', 'i', 'f', 0, 0, 'X', 'X', 0, 42});
  h = io::parse_jpeg_header(jpeg);
  REQUIRE(h.has_value());
  CHECK(h->exif_orientation == 0);
  CHECK_FALSE(io::nvjpeg_unsuitable_reason(*h).empty());
}

TEST_CASE("parse_jpeg_header: colour-space hints as libjpeg reads them", "[io][jpeg_header]") {
  auto jpeg = encode_jpeg(test::random_image(8, 8, 3, 5));
  remove_segment(jpeg, 0xE0);  // no JFIF: the Adobe marker decides
  auto with_adobe = [&](std::uint8_t transform) {
    auto j = jpeg;
    insert_segment(j, 0xEE, {'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, transform});
    return io::parse_jpeg_header(j);
  };
  auto h = with_adobe(0);
  REQUIRE(h.has_value());
  CHECK_FALSE(h->jfif);
  CHECK(h->adobe_transform == 0);
  CHECK_THAT(io::nvjpeg_unsuitable_reason(*h), Catch::Contains("RGB"));
  h = with_adobe(1);
  REQUIRE(h.has_value());
  CHECK(h->adobe_transform == 1);
  CHECK(io::nvjpeg_unsuitable_reason(*h).empty());
  // Neither JFIF nor Adobe: component ids 1, 2, 3 (OpenCV's) mean YCbCr.
  h = io::parse_jpeg_header(jpeg);
  REQUIRE(h.has_value());
  CHECK(h->component_ids[0] == 1);
  CHECK(io::nvjpeg_unsuitable_reason(*h).empty());
}

TEST_CASE("parse_jpeg_header: frames nvJPEG does not decode as OpenCV, and broken headers", "[io][jpeg_header]") {
  // SOI, then a frame header alone: precision, height, width, components (id, sampling, table).
  auto frame = [](std::uint8_t sof, std::uint8_t precision, std::vector<std::uint8_t> ids) {
    std::vector<std::uint8_t> p{precision, 0, 10, 0, 20, std::uint8_t(ids.size())};
    for (auto id : ids) p.insert(p.end(), {id, 0x11, 0});
    std::vector<std::uint8_t> j{0xFF, 0xD8, 0xFF, 0xD9};
    insert_segment(j, sof, p);
    return j;
  };
  auto h = io::parse_jpeg_header(frame(0xC0, 8, {1, 2, 3, 4}));
  REQUIRE(h.has_value());
  CHECK(h->components == 4);
  CHECK(h->width == 20);
  CHECK(h->height == 10);
  CHECK_THAT(io::nvjpeg_unsuitable_reason(*h), Catch::Contains("CMYK"));
  h = io::parse_jpeg_header(frame(0xC1, 12, {1, 2, 3}));
  REQUIRE(h.has_value());
  CHECK_THAT(io::nvjpeg_unsuitable_reason(*h), Catch::Contains("12-bit"));
  h = io::parse_jpeg_header(frame(0xC3, 8, {1}));
  REQUIRE(h.has_value());
  CHECK_THAT(io::nvjpeg_unsuitable_reason(*h), Catch::Contains("lossless"));
  h = io::parse_jpeg_header(frame(0xC9, 8, {1, 2, 3}));  // arithmetic coding
  REQUIRE(h.has_value());
  CHECK_FALSE(io::nvjpeg_unsuitable_reason(*h).empty());
  h = io::parse_jpeg_header(frame(0xC0, 8, {'R', 'G', 'B'}));
  REQUIRE(h.has_value());
  CHECK_THAT(io::nvjpeg_unsuitable_reason(*h), Catch::Contains("RGB"));

  // Not JPEG, cut inside a segment, a scan before any frame header.
  const std::string text = "plain text";
  CHECK_FALSE(io::parse_jpeg_header({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}).has_value());
  auto jpeg = encode_jpeg(test::random_image(8, 8, 3, 6));
  CHECK_FALSE(io::parse_jpeg_header(std::span(jpeg).first(30)).has_value());
  const std::vector<std::uint8_t> scan_first{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9};
  CHECK_FALSE(io::parse_jpeg_header(scan_first).has_value());
}

// Found by tests/fuzz/fuzz_jpeg_header: "FF 00" where a marker belongs was read as a segment with
// a length, so the parser took a later frame header (8 x 6) while libjpeg -- and the pixel-limit
// probe -- skip it as junk and meet an earlier one (16740 x 772).
TEST_CASE("parse_jpeg_header refuses a stuffed FF 00 where a marker belongs", "[io][jpeg_header]") {
  const std::vector<std::uint8_t> base = encode_jpeg(test::random_image(8, 6, 3, 1));
  std::vector<std::uint8_t> b = base;
  insert_segment(b, 0x00, {0x12, 0x34});
  CHECK_FALSE(io::parse_jpeg_header(b).has_value());
  REQUIRE(io::parse_jpeg_header(base).has_value());
}

namespace {
// The byte offset of a component's sampling factor in the first frame header of `jpeg`.
std::size_t sampling_offset(const std::vector<std::uint8_t>& jpeg, int component) {
  std::size_t i = 2;
  while (i + 4 <= jpeg.size() && jpeg[i] == 0xFF) {
    const std::uint8_t m = jpeg[i + 1];
    if (m >= 0xC0 && m <= 0xC2) return i + 4 + 6 + 3 * std::size_t(component) + 1;
    i += 2 + ((jpeg[i + 2] << 8) | jpeg[i + 3]);
  }
  FAIL("no frame header");
  return 0;
}

std::string hw_reason(const std::vector<std::uint8_t>& jpeg) {
  const auto h = io::parse_jpeg_header(jpeg);
  REQUIRE(h.has_value());
  return io::hardware_decoder_unsuitable_reason(jpeg, *h);
}
}  // namespace

// What nvjpegDecodeBatchedSupported answers for the hardware backend, decided by warpkit (the
// GPU tests check the two agree on the files the folder job meets).
TEST_CASE("hardware_decoder_unsuitable_reason: baseline single-scan 4:4:4/4:2:2/4:4:0/4:2:0 and gray only", "[io][jpeg_header]") {
  const cv::Mat colour = test::random_image(64, 48, 3, 7);
  const auto baseline = encode_jpeg(colour);
  const auto h = io::parse_jpeg_header(baseline);
  REQUIRE(h.has_value());
  CHECK(h->sampling[0] == 0x22);  // OpenCV's libjpeg writes 4:2:0
  CHECK(h->sampling[1] == 0x11);
  CHECK(h->scan_components == 3);
  CHECK(h->scan_offset > 2);
  CHECK(baseline[h->scan_offset] == 0xFF);
  CHECK(baseline[h->scan_offset + 1] == 0xDA);
  CHECK(io::hardware_decoder_unsuitable_reason(baseline, *h).empty());

  CHECK(hw_reason(encode_jpeg(test::random_image(40, 30, 1, 8))).empty());               // gray
  CHECK(hw_reason(encode_jpeg(colour, {cv::IMWRITE_JPEG_OPTIMIZE, 1})).empty());          // own Huffman tables
  CHECK(hw_reason(encode_jpeg(colour, {cv::IMWRITE_JPEG_RST_INTERVAL, 2})).empty());      // restart markers
  CHECK(hw_reason(encode_jpeg(colour, {cv::IMWRITE_JPEG_QUALITY, 100})).empty());         // many stuffed 0xFF bytes

  CHECK_THAT(hw_reason(encode_jpeg(colour, {cv::IMWRITE_JPEG_PROGRESSIVE, 1})), Catch::Contains("progressive"));

  // Luma sampling factors, chroma 1x1 (the frame header's bytes rewritten: only the header is judged).
  for (const auto& [luma, taken] : std::vector<std::pair<std::uint8_t, bool>>{
           {0x11, true}, {0x21, true}, {0x12, true}, {0x22, true}, {0x41, false}, {0x42, false}, {0x14, false}}) {
    CAPTURE(int(luma));
    auto j = baseline;
    j[sampling_offset(j, 0)] = luma;
    CHECK(hw_reason(j).empty() == taken);
  }
  auto chroma = baseline;
  chroma[sampling_offset(chroma, 1)] = 0x21;
  CHECK_THAT(hw_reason(chroma), Catch::Contains("chroma"));

  // A second scan, or any other marker segment after the first one, before EOI.
  auto before_eoi = [&](std::vector<std::uint8_t> extra) {
    auto j = baseline;
    REQUIRE(j.size() > 2);
    j.insert(j.end() - 2, extra.begin(), extra.end());
    return j;
  };
  CHECK_THAT(hw_reason(before_eoi({0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x12, 0x34})),
             Catch::Contains("more than one scan"));
  CHECK_THAT(hw_reason(before_eoi({0xFF, 0xDC, 0x00, 0x04, 0x00, 0x30})), Catch::Contains("0xFFDC"));
  CHECK(hw_reason(before_eoi({0xFF, 0xFF, 0xFF})).empty());  // fill bytes before EOI

  // No EOI at all, and a non-interleaved first scan (one component of three).
  auto cut = baseline;
  cut.resize(cut.size() - 2);
  CHECK_THAT(hw_reason(cut), Catch::Contains("end-of-image"));
  auto one_component = baseline;
  one_component[h->scan_offset + 4] = 1;
  CHECK_THAT(hw_reason(one_component), Catch::Contains("non-interleaved"));

  // An extended-sequential frame (SOF1): not baseline for the hardware decoder.
  auto extended = baseline;
  extended[sampling_offset(extended, 0) - 10] = 0xC1;  // the frame marker itself
  CHECK_THAT(hw_reason(extended), Catch::Contains("not baseline"));
}
