#pragma once
// Image decoding and encoding through OpenCV's imgcodecs, with warpkit's stricter checks.
#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <string>
#include <vector>

namespace wk::io {

// How decode_image treats what warpkit's operations cannot take (8 bits, 1 or 3 channels):
// without the flags such an image is refused with wk::Error{unsupported} naming the flag that
// converts it; nothing is converted silently.
struct DecodeOptions {
  int jpeg_shrink = 1;      // JPEG: decode at 1/2, 1/4 or 1/8 a side through libjpeg's DCT scaling
  bool to_8bit = false;     // 16-bit and float images: reduced to 8 bits as cv::imread(IMREAD_COLOR) does
  bool drop_alpha = false;  // images with an alpha channel: the alpha is dropped as cv::imread does
  // For pipelines whose every operation takes any depth and channel count (geometry, resize):
  // 16-bit and float images keep their depth (unless to_8bit) and images with an alpha channel
  // come as BGRA (gray + alpha as well; unless drop_alpha), EXIF orientation applied, instead of
  // being refused.
  bool keep_deep = false;
};

// Decodes like cv::imread(path, IMREAD_COLOR) except that 1-channel images stay 1-channel:
// 8-bit, EXIF orientation applied (OpenCV's IMREAD_ANYCOLOR), and an image of more than 8 bits
// or with an alpha channel refused unless `options` say to convert it. The format is taken from
// the content, not the extension. Throws wk::Error{decode} with the reason for an empty file,
// bytes that no codec recognises, or a JPEG without its end-of-image marker (OpenCV would return
// the partial picture; warpkit calls it truncated). Only the formats probe_dimensions sizes go to
// OpenCV (sniff_image_format: jpeg .. jpeg2000); Radiance HDR (OpenCV 4.6's reader leaks a file
// descriptor per damaged file) and DICOM (GDCM can abort the process) are refused with
// wk::Error{unsupported}, anything else with {decode}.
cv::Mat decode_image(std::span<const std::uint8_t> bytes, const DecodeOptions& options = {});
// The same for the bytes read from `source`. OpenCV decodes JPEG 2000, Sun raster and PFM only
// from files: from memory it would copy the data to a temporary file of its own in /tmp, outside
// the job. Those formats are decoded from `source` instead; without one they are refused
// (wk::Error{unsupported}).
cv::Mat decode_image(std::span<const std::uint8_t> bytes, const std::filesystem::path& source, const DecodeOptions& options = {});

// True when the file's header declares an alpha channel: PNG (gray + alpha, RGBA, or a tRNS
// transparency chunk), WebP (the VP8X alpha flag, or a lossless image marked as using alpha) and
// TIFF (extra samples, or 2 or 4 samples a pixel). Other formats: false.
bool has_alpha_channel(std::span<const std::uint8_t> bytes);

// Image formats by their leading bytes, as OpenCV's imdecode tells them apart (whatever the
// file's name). DICOM ("DICM" at byte 128) is not a format here: OpenCV's GDCM decoder takes
// such data whenever the decoder of its leading bytes rejects it, so decode_image checks for it
// before anything else. One list for decode_image (which formats go to OpenCV at all) and for the folder
// job's probe_dimensions (how to read each one's size before decoding).
enum class ImageFormat {
  unknown,
  jpeg,          // FF D8
  png,
  bmp,           // "BM"
  pnm,           // P1..P6 and PFM (PF, Pf)
  pam,           // P7
  sun_raster,
  tiff,          // classic or BigTIFF, either byte order
  webp,          // RIFF....WEBP
  jpeg2000,      // codestream (FF 4F FF 51) or JP2 box file
  radiance_hdr,  // "#?RADIANCE" or "#?RGBE": refused by decode_image
  gif,           // "GIF87a" / "GIF89a": named and refused by decode_image (no decoder in this OpenCV)
  heif,          // ISO-BMFF "ftyp" with a HEIF or AVIF brand: named and refused by decode_image
};
ImageFormat sniff_image_format(std::span<const std::uint8_t> bytes);

// True when this build can write images with the extension `ext` ("png", "webp"; no dot).
bool can_encode(std::string_view ext);
// The extensions this build writes, "bmp, jp2, jpg, ...", for messages.
std::string writable_formats();

// True when `bytes` start like a JPEG file (SOI marker FF D8 followed by another marker).
bool is_jpeg_data(std::span<const std::uint8_t> bytes);

// True when `path`'s extension names JPEG (.jpg, .jpeg, .jpe, any case): encode_image writes
// such a path as JPEG at EncodeOptions::jpeg_quality.
bool is_jpeg_path(const std::filesystem::path& path);

// True when JPEG data ends with the end-of-image marker FF D9 (trailing NUL, CR, LF or space
// padding that some writers add is allowed). Non-JPEG data returns true.
bool jpeg_complete(std::span<const std::uint8_t> bytes);

struct EncodeOptions {
  int jpeg_quality = 95;  // OpenCV's default
  // WebP: 1..100 writes lossy WebP at that quality; 0 (the default) writes lossless WebP, so that
  // nothing is lost unless a quality is asked for.
  int webp_quality = 0;
  int png_level = 3;  // PNG zlib level, 0 (none, fastest) .. 9 (smallest); 3 is OpenCV's default
};

// Encodes in the format named by `path`'s extension, at `options`' quality or level for JPEG,
// WebP and PNG. Throws wk::Error{unsupported} when OpenCV
// cannot write that format, wk::Error{usage} when the extension is missing.
std::vector<std::uint8_t> encode_image(const cv::Mat& image, const std::filesystem::path& path,
                                       const EncodeOptions& options = {});

}  // namespace wk::io
