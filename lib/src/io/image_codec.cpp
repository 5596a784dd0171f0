#include "wk/io/image_codec.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <functional>
#include <string_view>

#include "wk/core/error.hpp"
#include "wk/io/jpeg_header.hpp"

namespace wk::io {

namespace {
std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

std::string short_cv_message(const cv::Exception& e) { return e.err.empty() ? std::string(e.what()) : e.err; }
}  // namespace

bool is_jpeg_data(std::span<const std::uint8_t> b) { return b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF; }

ImageFormat sniff_image_format(std::span<const std::uint8_t> b) {
  auto at = [&](std::size_t offset, std::string_view magic) {
    return b.size() >= offset + magic.size() &&
           std::equal(magic.begin(), magic.end(), b.begin() + std::ptrdiff_t(offset), [](char m, std::uint8_t c) { return std::uint8_t(m) == c; });
  };
  using F = ImageFormat;
  if (at(0, "\xFF\xD8")) return F::jpeg;
  if (at(0, std::string_view("\x89PNG\r\n\x1A\n", 8))) return F::png;
  if (at(0, "BM")) return F::bmp;
  if (b.size() >= 2 && b[0] == 'P' && ((b[1] >= '1' && b[1] <= '6') || b[1] == 'F' || b[1] == 'f')) return F::pnm;
  if (at(0, "P7")) return F::pam;
  if (at(0, "\x59\xA6\x6A\x95")) return F::sun_raster;
  if (at(0, std::string_view("II*\0", 4)) || at(0, std::string_view("MM\0*", 4)) || at(0, std::string_view("II+\0", 4)) ||
      at(0, std::string_view("MM\0+", 4)))
    return F::tiff;
  if (at(0, "RIFF") && at(8, "WEBP")) return F::webp;
  if (at(0, "\xFF\x4F\xFF\x51") || at(0, std::string_view("\0\0\0\x0CjP  \r\n\x87\n", 12))) return F::jpeg2000;
  if (at(0, "#?RADIANCE") || at(0, "#?RGBE")) return F::radiance_hdr;
  if (at(0, "GIF87a") || at(0, "GIF89a")) return F::gif;
  if (at(4, "ftyp"))
    for (std::string_view brand : {"heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"})
      if (at(8, brand)) return F::heif;
  return F::unknown;
}

bool can_encode(std::string_view ext) {
  if (ext.empty() || ext.find_first_of("./\\") != std::string_view::npos) return false;
  try {
    return cv::haveImageWriter("x." + std::string(ext));
  } catch (const cv::Exception&) {
    return false;
  }
}

std::string writable_formats() {
  std::string out;
  for (const char* ext : {"bmp", "jp2", "jpg", "pam", "pbm", "pfm", "pgm", "png", "pnm", "ppm", "ras", "tif", "webp"})
    if (can_encode(ext)) out += (out.empty() ? "" : ", ") + std::string(ext);
  return out;
}

bool is_jpeg_path(const std::filesystem::path& path) {
  const std::string ext = lower_extension(path);
  return ext == ".jpg" || ext == ".jpeg" || ext == ".jpe";
}

bool jpeg_complete(std::span<const std::uint8_t> bytes) {
  if (!is_jpeg_data(bytes)) return true;
  std::size_t n = bytes.size();
  while (n > 0 && (bytes[n - 1] == 0x00 || bytes[n - 1] == '\n' || bytes[n - 1] == '\r' || bytes[n - 1] == ' ')) --n;
  return n >= 4 && bytes[n - 2] == 0xFF && bytes[n - 1] == 0xD9;
}

namespace {
// Formats whose OpenCV decoder reads only files (imdecode writes the data to a temporary file).
bool decoded_from_files_only(std::span<const std::uint8_t> bytes) {
  const ImageFormat f = sniff_image_format(bytes);
  return f == ImageFormat::jpeg2000 || f == ImageFormat::sun_raster ||
         (f == ImageFormat::pnm && bytes.size() >= 2 && (bytes[1] == 'F' || bytes[1] == 'f'));
}

std::uint32_t be32(const std::uint8_t* p) { return (std::uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }

bool png_has_alpha(std::span<const std::uint8_t> b) {
  // IHDR first: colour type 4 (gray + alpha) or 6 (RGBA); then a tRNS chunk before the data.
  if (b.size() < 33) return false;
  if (b[25] == 4 || b[25] == 6) return true;
  for (std::size_t i = 8; i + 8 <= b.size();) {
    const std::uint32_t len = be32(&b[i]);
    const std::string_view type(reinterpret_cast<const char*>(&b[i + 4]), 4);
    if (type == "tRNS") return true;
    if (type == "IDAT" || type == "IEND" || len > b.size()) return false;
    i += 12 + std::size_t(len);
  }
  return false;
}

bool webp_has_alpha(std::span<const std::uint8_t> b) {
  if (b.size() < 30) return false;
  const std::string_view chunk(reinterpret_cast<const char*>(&b[12]), 4);
  if (chunk == "VP8X") return (b[20] & 0x10) != 0;
  // VP8L: signature 0x2F, then 14 bits width-1, 14 bits height-1, 1 bit alpha_is_used.
  if (chunk == "VP8L" && b[20] == 0x2F) return (b[24] & 0x10) != 0;
  return false;
}

bool tiff_has_alpha(std::span<const std::uint8_t> b) {
  if (b.size() < 8 || b[2] == 43 || b[3] == 43) return false;  // BigTIFF: not looked into
  const bool le = b[0] == 'I';
  auto u16 = [&](std::size_t o) { return le ? b[o] | (b[o + 1] << 8) : (b[o] << 8) | b[o + 1]; };
  auto u32 = [&](std::size_t o) { return le ? std::uint32_t(u16(o)) | (std::uint32_t(u16(o + 2)) << 16) : (std::uint32_t(u16(o)) << 16) | u16(o + 2); };
  const std::size_t ifd = u32(4);
  if (ifd + 2 > b.size()) return false;
  const int entries = u16(ifd);
  int samples = 1, photometric = -1;
  for (int k = 0; k < entries; ++k) {
    const std::size_t e = ifd + 2 + std::size_t(k) * 12;
    if (e + 12 > b.size()) break;
    const int tag = u16(e), type = u16(e + 2);
    const int value = type == 3 ? u16(e + 8) : int(u32(e + 8));
    if (tag == 338) return true;  // ExtraSamples
    if (tag == 277) samples = value;
    if (tag == 262) photometric = value;
  }
  return (samples == 2 && (photometric == 0 || photometric == 1)) || (samples == 4 && photometric == 2);
}

cv::Mat checked(cv::Mat img) {
  if (img.empty()) throw Error(ErrorCategory::decode, "not a decodable image (unknown format or corrupt data)");
  if (img.channels() != 1 && img.channels() != 3 && img.channels() != 4)
    throw Error(ErrorCategory::internal, "decoder returned an unexpected pixel type");
  return img;
}

const char* format_name(ImageFormat f) {
  switch (f) {
    case ImageFormat::png: return "PNG";
    case ImageFormat::tiff: return "TIFF";
    case ImageFormat::webp: return "WebP";
    case ImageFormat::pnm: return "PNM/PFM";
    case ImageFormat::pam: return "PAM";
    case ImageFormat::jpeg2000: return "JPEG 2000";
    default: return "image";
  }
}

// cv::imread / cv::imdecode with `flags`; OpenCV's exceptions as wk::Error{decode}.
cv::Mat cv_decode(std::span<const std::uint8_t> bytes, const std::filesystem::path& source, bool from_file, int flags) {
  try {
    if (from_file) return checked(cv::imread(source.string(), flags));
    const cv::Mat buf(1, static_cast<int>(bytes.size()), CV_8UC1, const_cast<std::uint8_t*>(bytes.data()));
    return checked(cv::imdecode(buf, flags));
  } catch (const cv::Exception& e) {
    throw Error(ErrorCategory::decode, "cannot decode image: " + short_cv_message(e));
  }
}

// libjpeg's reduced decodes: gray stays gray, as with IMREAD_ANYCOLOR.
int reduced_flags(std::span<const std::uint8_t> bytes, int shrink) {
  const auto header = parse_jpeg_header(bytes);
  const bool gray = header && header->components == 1;
  switch (shrink) {
    case 2: return gray ? cv::IMREAD_REDUCED_GRAYSCALE_2 : cv::IMREAD_REDUCED_COLOR_2;
    case 4: return gray ? cv::IMREAD_REDUCED_GRAYSCALE_4 : cv::IMREAD_REDUCED_COLOR_4;
    case 8: return gray ? cv::IMREAD_REDUCED_GRAYSCALE_8 : cv::IMREAD_REDUCED_COLOR_8;
  }
  return cv::IMREAD_ANYCOLOR;
}
// The decode with alpha (IMREAD_UNCHANGED: BGRA, or gray + alpha as BGRA) turned as OpenCV
// turned `oriented` (the same image decoded without alpha, EXIF orientation applied):
// IMREAD_UNCHANGED skips the orientation, so the quarter turn or mirror whose colour channels
// equal `oriented`'s is applied. None matching: refused, never a guess. `to_8bit`: 16 bits kept
// as their high byte (as libpng's 16-to-8 reduction does), floats times 255.
cv::Mat with_alpha(cv::Mat bgra, const cv::Mat& oriented, ImageFormat format, bool to_8bit) {
  if (bgra.channels() != 4 || bgra.depth() != oriented.depth())
    throw Error(ErrorCategory::unsupported, std::string(format_name(format)) + " with an alpha channel of an unexpected layout (--alpha drop removes it)");
  auto colour_of = [&](const cv::Mat& m) {
    cv::Mat c;
    cv::cvtColor(m, c, oriented.channels() == 1 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGRA2BGR);
    return c;
  };
  auto same = [&](const cv::Mat& m) { return m.size() == oriented.size() && cv::norm(colour_of(m), oriented, cv::NORM_INF) == 0; };
  cv::Mat turned = bgra;
  if (!same(turned)) {
    const std::function<void(const cv::Mat&, cv::Mat&)> turns[] = {
        [](const cv::Mat& a, cv::Mat& b) { cv::flip(a, b, 1); },
        [](const cv::Mat& a, cv::Mat& b) { cv::rotate(a, b, cv::ROTATE_180); },
        [](const cv::Mat& a, cv::Mat& b) { cv::flip(a, b, 0); },
        [](const cv::Mat& a, cv::Mat& b) { cv::transpose(a, b); },
        [](const cv::Mat& a, cv::Mat& b) { cv::rotate(a, b, cv::ROTATE_90_CLOCKWISE); },
        [](const cv::Mat& a, cv::Mat& b) {
          cv::Mat half;
          cv::rotate(a, half, cv::ROTATE_180);
          cv::transpose(half, b);
        },
        [](const cv::Mat& a, cv::Mat& b) { cv::rotate(a, b, cv::ROTATE_90_COUNTERCLOCKWISE); },
    };
    bool found = false;
    for (const auto& turn : turns) {
      turn(bgra, turned);
      if ((found = same(turned))) break;
    }
    if (!found)
      throw Error(ErrorCategory::unsupported, std::string(format_name(format)) +
                                                  " with an alpha channel whose orientation cannot be matched (--alpha drop removes it)");
  }
  if (!to_8bit || turned.depth() == CV_8U) return turned;
  cv::Mat out;
  if (turned.depth() == CV_16U) {
    out.create(turned.size(), CV_8UC4);
    for (int y = 0; y < turned.rows; ++y) {
      const auto* in = turned.ptr<std::uint16_t>(y);
      auto* o = out.ptr<std::uint8_t>(y);
      for (int x = 0; x < turned.cols * 4; ++x) o[x] = std::uint8_t(in[x] >> 8);
    }
    return out;
  }
  turned.convertTo(out, CV_8U, 255.0);
  return out;
}
}  // namespace

bool has_alpha_channel(std::span<const std::uint8_t> bytes) {
  switch (sniff_image_format(bytes)) {
    case ImageFormat::png: return png_has_alpha(bytes);
    case ImageFormat::webp: return webp_has_alpha(bytes);
    case ImageFormat::tiff: return tiff_has_alpha(bytes);
    default: return false;
  }
}

cv::Mat decode_image(std::span<const std::uint8_t> bytes, const DecodeOptions& options) { return decode_image(bytes, {}, options); }

cv::Mat decode_image(std::span<const std::uint8_t> bytes, const std::filesystem::path& source, const DecodeOptions& options) {
  if (bytes.empty()) throw Error(ErrorCategory::decode, "empty file");
  if (!jpeg_complete(bytes)) throw Error(ErrorCategory::decode, "truncated JPEG (no end-of-image marker)");
  // Debian's OpenCV picks a decoder by content and has more than warpkit sizes before decoding:
  // GDCM's DICOM reader aborts the whole process on some damaged files (found by
  // tests/fuzz/fuzz_image_decode). It tries any data with "DICM" at byte 128 that the decoder of
  // its leading bytes turns down, so that marker is refused first, whatever the leading bytes.
  if (bytes.size() >= 132 && std::equal(bytes.begin() + 128, bytes.begin() + 132, "DICM"))
    throw Error(ErrorCategory::unsupported, "DICOM input is not supported (OpenCV's GDCM reader can abort on damaged files)");
  const ImageFormat format = sniff_image_format(bytes);
  switch (format) {
    case ImageFormat::radiance_hdr:
      // OpenCV 4.6's Radiance reader throws past its fclose: every damaged .hdr file would leak
      // a file descriptor, and a folder of them would make every later file fail (found by
      // tests/fuzz/fuzz_image_decode: "Too many open files").
      throw Error(ErrorCategory::unsupported, "Radiance HDR input is not supported (OpenCV's reader leaks a file per damaged file)");
    case ImageFormat::gif:
      throw Error(ErrorCategory::unsupported, "unsupported format: GIF (this build's OpenCV has no GIF decoder)");
    case ImageFormat::heif:
      throw Error(ErrorCategory::unsupported, "unsupported format: HEIF/AVIF (this build's OpenCV has no HEIF decoder)");
    case ImageFormat::unknown:  // only the formats probe_dimensions reads go on
      throw Error(ErrorCategory::decode, "not a decodable image (unknown format or corrupt data)");
    default:
      break;
  }
  const bool from_file = decoded_from_files_only(bytes);
  if (from_file && source.empty())
    throw Error(ErrorCategory::unsupported,
                "JPEG 2000, Sun raster and PFM images are decoded from their files only (OpenCV would copy the data "
                "to a temporary file)");
  if (format == ImageFormat::jpeg) {  // always 8 bits without alpha here
    const int shrink = options.jpeg_shrink == 2 || options.jpeg_shrink == 4 || options.jpeg_shrink == 8 ? options.jpeg_shrink : 1;
    return cv_decode(bytes, source, from_file, reduced_flags(bytes, shrink));
  }
  const bool alpha = !options.drop_alpha && has_alpha_channel(bytes);
  if (alpha && !options.keep_deep)
    throw Error(ErrorCategory::unsupported, std::string(format_name(format)) +
                                                " with an alpha channel: these operations take 1 or 3 channels (--alpha drop "
                                                "removes it)");
  // The true depth first (one decode); only an image that must be reduced to 8 bits is decoded
  // again, the way OpenCV reduces it.
  cv::Mat img = cv_decode(bytes, source, from_file, cv::IMREAD_ANYCOLOR | cv::IMREAD_ANYDEPTH);
  if (img.depth() != CV_8U && !options.keep_deep && !options.to_8bit) {
    const std::string depth = img.depth() == CV_16U ? "16-bit" : img.depth() == CV_32F ? "floating-point" : "deep";
    throw Error(ErrorCategory::unsupported, depth + " " + format_name(format) +
                                                ": these operations take 8-bit images (--depth 8 converts it)");
  }
  if (alpha) return with_alpha(cv_decode(bytes, source, from_file, cv::IMREAD_UNCHANGED), img, format, options.to_8bit);
  if (img.depth() != CV_8U && options.to_8bit) {
    img = cv_decode(bytes, source, from_file, cv::IMREAD_ANYCOLOR);
    if (img.depth() != CV_8U) throw Error(ErrorCategory::internal, "decoder returned an unexpected pixel type");
  }
  return img;
}

std::vector<std::uint8_t> encode_image(const cv::Mat& image, const std::filesystem::path& path, const EncodeOptions& options) {
  const std::string ext = lower_extension(path);
  if (ext.empty()) throw Error(ErrorCategory::usage, path.string() + ": no file extension to choose the output format");
  // OpenCV's JPEG, BMP and WebP writers would drop an alpha channel or the bits above 8 without a
  // word: such an image goes only to a format that holds it.
  const bool alpha = image.channels() == 4, bits16 = image.depth() == CV_16U, floating = image.depth() == CV_32F;
  if (alpha || image.depth() != CV_8U) {
    auto one_of = [&](std::initializer_list<const char*> exts) {
      return std::any_of(exts.begin(), exts.end(), [&](const char* e) { return ext == e; });
    };
    const bool holds = (!alpha || one_of({".png", ".tif", ".tiff", ".webp"})) &&
                       (!bits16 || one_of({".png", ".tif", ".tiff", ".ppm", ".pgm", ".pnm"})) &&
                       (!floating || one_of({".tif", ".tiff", ".pfm"})) && (image.depth() == CV_8U || bits16 || floating);
    if (!holds) {
      const std::string what = std::string(alpha ? "an alpha channel" : "") + (alpha && image.depth() != CV_8U ? " and " : "") +
                               (bits16 ? "16 bits a channel" : floating ? "floating-point pixels" : "");
      throw Error(ErrorCategory::unsupported, ext.substr(1) + " cannot hold " + what + ": write " +
                                                  (floating ? "TIFF (--format tif)" : alpha ? "PNG, TIFF or WebP (--format png)" : "PNG or TIFF (--format png)") +
                                                  ", or convert the input (" + (alpha ? "--alpha drop" : "") +
                                                  (alpha && image.depth() != CV_8U ? ", " : "") + (image.depth() != CV_8U ? "--depth 8" : "") + ")");
    }
  }
  std::vector<int> params;
  if (is_jpeg_path(path)) params = {cv::IMWRITE_JPEG_QUALITY, options.jpeg_quality};
  if (ext == ".webp") params = {cv::IMWRITE_WEBP_QUALITY, options.webp_quality >= 1 && options.webp_quality <= 100 ? options.webp_quality : 101};
  if (ext == ".png") params = {cv::IMWRITE_PNG_COMPRESSION, options.png_level};
  // PPM holds only colour: a 1-channel result is written with the gray value in all three
  // channels (lossless; reading it back as gray gives the same pixels).
  cv::Mat to_write = image;
  if (ext == ".ppm" && image.channels() == 1) cv::cvtColor(image, to_write, cv::COLOR_GRAY2BGR);
  std::vector<std::uint8_t> out;
  try {
    if (!cv::imencode(ext, to_write, out, params))
      throw Error(ErrorCategory::unsupported, "OpenCV could not encode a " + ext + " image");
  } catch (const cv::Exception& e) {
    throw Error(ErrorCategory::unsupported, "cannot write " + ext + " files: " + short_cv_message(e));
  }
  return out;
}

}  // namespace wk::io
