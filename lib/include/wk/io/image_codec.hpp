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

// Decodes like cv::imread(path, IMREAD_COLOR) except that 1-channel images stay 1-channel:
// 8-bit, EXIF orientation applied, alpha dropped (OpenCV's IMREAD_ANYCOLOR). The format is
// taken from the content, not the extension. Throws wk::Error{decode} with the reason for an
// empty file, bytes that no codec recognises, or a JPEG without its end-of-image marker
// (OpenCV would return the partial picture; warpkit calls it truncated). Only the formats
// probe_dimensions sizes go to OpenCV (sniff_image_format: jpeg .. jpeg2000); Radiance HDR
// (OpenCV 4.6's reader leaks a file descriptor per damaged file) and DICOM (GDCM can abort the
// process) are refused with wk::Error{unsupported}, anything else with {decode}.
cv::Mat decode_image(std::span<const std::uint8_t> bytes);
// The same for the bytes read from `source`. OpenCV decodes JPEG 2000, Sun raster and PFM only
// from files: from memory it would copy the data to a temporary file of its own in /tmp, outside
// the job. Those formats are decoded from `source` instead; without one they are refused
// (wk::Error{unsupported}).
cv::Mat decode_image(std::span<const std::uint8_t> bytes, const std::filesystem::path& source);

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
};

// Encodes in the format named by `path`'s extension. Throws wk::Error{unsupported} when OpenCV
// cannot write that format, wk::Error{usage} when the extension is missing.
std::vector<std::uint8_t> encode_image(const cv::Mat& image, const std::filesystem::path& path,
                                       const EncodeOptions& options = {});

}  // namespace wk::io
