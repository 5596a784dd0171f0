#pragma once
// What a JPEG's marker segments say before any pixel is decoded: the frame (size, precision,
// components, coding process), the colour-space hints (JFIF, Adobe) and the EXIF orientation.
// The folder job uses it to decide which JPEGs nvJPEG may decode so that the result matches
// io::decode_image (OpenCV) in everything but rounding; the others go through OpenCV.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace wk::io {

struct JpegHeader {
  int width = 0, height = 0;
  int precision = 0;               // bits per sample (8 or 12 in practice)
  int components = 0;              // 1 gray, 3 YCbCr (or RGB), 4 CMYK/YCCK
  std::uint8_t sof_marker = 0;     // 0xC0 baseline, 0xC1 extended, 0xC2 progressive, 0xC3 lossless, ...
  std::array<std::uint8_t, 4> component_ids{};
  std::array<std::uint8_t, 4> sampling{};  // per component: horizontal factor << 4 | vertical
  bool jfif = false;               // an APP0 "JFIF" segment: YCbCr by definition
  int adobe_transform = -1;        // APP14 "Adobe" colour transform (0 none/RGB/CMYK, 1 YCbCr, 2 YCCK); -1 absent
  // EXIF orientation (tag 0x0112 of IFD0): 1 when there is no EXIF or no such tag, 1..8 as
  // written, 0 when an EXIF segment is present but cannot be read.
  int exif_orientation = 1;
  std::size_t scan_offset = 0;     // where the first start-of-scan marker is (0: none before EOI)
  int scan_components = 0;         // components in that scan (all of them: an interleaved scan)
};

// Walks the marker segments up to the first start-of-scan. Returns nullopt for data that is not
// JPEG, a segment running past the end, or no frame header before the scan.
std::optional<JpegHeader> parse_jpeg_header(std::span<const std::uint8_t> bytes);

// Why nvJPEG must not decode this JPEG for warpkit ("" when it may): decode_image follows
// cv::imdecode(IMREAD_ANYCOLOR), which applies the EXIF orientation, converts CMYK/YCCK and
// keeps RGB-coded JPEGs un-transformed; nvJPEG does none of that in the folder job's setup, and
// it decodes only 8-bit Huffman DCT (baseline, extended, progressive) with 1 or 3 components.
std::string nvjpeg_unsuitable_reason(const JpegHeader& header);

// Why nvJPEG's hardware decoder cannot take this JPEG ("" when it can), from warpkit's own look
// at the file instead of nvJPEG's (nvjpegJpegStreamParseHeader + nvjpegDecodeBatchedSupported):
// nvjpeg.h says the hardware backend "supports baseline JPEG bitstream with single scan. 410 and
// 411 sub-samplings are not supported". Taken: baseline (SOF0) 8-bit, gray or YCbCr with 1x1
// chroma and luma 1x1, 2x1, 1x2 or 2x2 (4:4:4, 4:2:2, 4:4:0, 4:2:0), one interleaved scan and
// no marker segment after it but EOI. Walks the whole entropy-coded data for markers (a memchr
// per 0xFF byte). Call after nvjpeg_unsuitable_reason, on the bytes `header` was parsed from.
std::string hardware_decoder_unsuitable_reason(std::span<const std::uint8_t> bytes, const JpegHeader& header);

}  // namespace wk::io
