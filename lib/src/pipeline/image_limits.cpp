// Image sizes read from file headers before decoding, and the pixel limit, so the folder job can
// refuse a decompression bomb (a small file that decodes to gigabytes) before OpenCV allocates
// for it. Kept apart from the job so tests/fuzz can drive them alone.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "wk/core/error.hpp"
#include "wk/io/image_codec.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace wk::pipeline {

namespace {

using Dims = std::optional<std::pair<int, int>>;

std::uint32_t be32(const std::uint8_t* p) { return (std::uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }
std::uint32_t le32(const std::uint8_t* p) { return (std::uint32_t(p[3]) << 24) | (p[2] << 16) | (p[1] << 8) | p[0]; }
int clamp_int(std::uint64_t v) { return int(std::min<std::uint64_t>(v, INT32_MAX)); }
Dims dims(std::uint64_t w, std::uint64_t h) { return std::pair<int, int>{clamp_int(w), clamp_int(h)}; }
bool starts_with(std::span<const std::uint8_t> b, std::string_view magic) {
  return b.size() >= magic.size() && std::equal(magic.begin(), magic.end(), b.begin(), [](char m, std::uint8_t c) { return std::uint8_t(m) == c; });
}

Dims probe_jpeg(std::span<const std::uint8_t> b) {
  std::size_t i = 2;
  while (i + 4 <= b.size()) {
    // libjpeg skips any bytes between segments ("Corrupt JPEG data: N extraneous bytes before
    // marker") and decodes on: so does the probe, or one junk byte would hide the frame size
    // from the pixel limit (found by tests/fuzz/fuzz_image_decode).
    if (b[i] != 0xFF) { ++i; continue; }
    const std::uint8_t m = b[i + 1];
    if (m == 0xFF) { ++i; continue; }  // fill byte
    if (m == 0x00) { i += 2; continue; }  // a stuffed 0xFF, not a marker
    if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) { i += 2; continue; }
    const std::size_t len = (std::size_t(b[i + 2]) << 8) | b[i + 3];
    const bool sof = (m >= 0xC0 && m <= 0xCF) && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof) {
      if (i + 9 > b.size()) return std::nullopt;
      return std::pair<int, int>{(b[i + 7] << 8) | b[i + 8], (b[i + 5] << 8) | b[i + 6]};
    }
    if (m == 0xDA) return std::nullopt;  // scan data before any frame header
    // A length below 2 (the length field counts itself): libjpeg skips no data after it and goes
    // on looking for the next marker, so the probe does too (found by fuzz_image_decode: an APP1
    // of length 0 hid a 21580x24931 frame from the pixel limit).
    i += len < 2 ? 4 : 2 + len;
  }
  return std::nullopt;
}

// Netpbm P1..P6 and PFM (PF, Pf): the first two numbers after the magic, read as OpenCV reads them.
// P1..P6 (its PxM reader): '#' comments run to '\n' or '\r', and the byte right after a number
// ends it, whatever it is ("5#1" is 5 then 1, not 5 then a comment).
// PF/Pf (its PFM reader): after "PF\n", each number is the token up to the next whitespace byte,
// read as atoi reads it ("3111BM" is 3111; nothing before the digits but a sign).
Dims probe_pnm(std::span<const std::uint8_t> b) {
  std::uint64_t vals[2] = {0, 0};
  std::size_t i = 2;
  auto get = [&]() -> int { return i < b.size() ? b[i++] : -1; };
  auto space = [](int c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  constexpr std::uint64_t kCap = std::uint64_t(1) << 40;
  if (b.size() > 1 && b[1] >= '1' && b[1] <= '6') {
    for (std::uint64_t& v : vals) {
      int code = get();
      while (code < 0 || !std::isdigit(code)) {
        if (code == '#') {
          do code = get();
          while (code >= 0 && code != '\n' && code != '\r');
          code = get();
        } else if (code >= 0 && space(code)) {
          while (code >= 0 && space(code)) code = get();
        } else {
          return std::nullopt;  // OpenCV refuses it too
        }
      }
      do {
        v = std::min(v * 10 + std::uint64_t(code - '0'), kCap);
        code = get();
      } while (code >= 0 && std::isdigit(code));
    }
    return dims(vals[0], vals[1]);
  }
  if (get() != '\n') return std::nullopt;  // OpenCV wants the line break right after "PF"
  for (std::uint64_t& v : vals) {
    std::string token;
    for (int c = get(); c >= 0 && !space(c) && token.size() < 2048; c = get()) token.push_back(char(c));
    std::size_t k = 0;
    if (k < token.size() && (token[k] == '+' || token[k] == '-')) {
      if (token[k] == '-') return std::nullopt;  // a negative size: nothing is decoded
      ++k;
    }
    for (; k < token.size() && std::isdigit(static_cast<unsigned char>(token[k])); ++k)
      v = std::min(v * 10 + std::uint64_t(token[k] - '0'), kCap);
  }
  if (vals[0] == 0 || vals[1] == 0) return std::nullopt;
  return dims(vals[0], vals[1]);
}

// PAM (P7): "WIDTH w" and "HEIGHT h" lines before ENDHDR.
Dims probe_pam(std::span<const std::uint8_t> b) {
  std::optional<std::uint64_t> w, h;
  std::size_t i = 2;
  while (i < b.size()) {
    std::size_t end = i;
    while (end < b.size() && b[end] != '\n') ++end;
    std::string line(b.begin() + i, b.begin() + end);
    i = end + 1;
    const std::size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos || line[a] == '#') continue;
    line.erase(0, a);
    if (line.rfind("ENDHDR", 0) == 0) break;
    for (auto [key, out] : {std::pair{"WIDTH", &w}, std::pair{"HEIGHT", &h}}) {
      const std::size_t n = std::char_traits<char>::length(key);
      if (line.rfind(key, 0) != 0 || line.size() <= n || !std::isspace(static_cast<unsigned char>(line[n]))) continue;
      std::size_t k = line.find_first_not_of(" \t", n);
      std::uint64_t v = 0;
      if (k == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[k]))) return std::nullopt;
      while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k])))
        v = std::min<std::uint64_t>(v * 10 + (line[k++] - '0'), std::uint64_t(1) << 40);
      *out = v;
    }
  }
  if (!w || !h) return std::nullopt;
  return dims(*w, *h);
}

// Radiance RGBE: header lines up to an empty line, then the resolution line "-Y H +X W".
Dims probe_hdr(std::span<const std::uint8_t> b) {
  const std::string_view text(reinterpret_cast<const char*>(b.data()), std::min<std::size_t>(b.size(), 64 * 1024));
  const std::size_t blank = text.find("\n\n");
  if (blank == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(blank + 2);
  line = line.substr(0, line.find('\n'));
  std::uint64_t v[2] = {0, 0};
  std::size_t i = 0;
  for (int k = 0; k < 2; ++k) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i + 2 > line.size() || (line[i] != '-' && line[i] != '+') || line[i + 1] != (k == 0 ? 'Y' : 'X')) return std::nullopt;
    i += 2;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size() || !std::isdigit(static_cast<unsigned char>(line[i]))) return std::nullopt;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
      v[k] = std::min<std::uint64_t>(v[k] * 10 + (line[i++] - '0'), std::uint64_t(1) << 40);
  }
  return dims(v[1], v[0]);
}

// TIFF and BigTIFF: ImageWidth (256) and ImageLength (257) of the first directory, which is the
// image OpenCV decodes.
Dims probe_tiff(std::span<const std::uint8_t> b) {
  const bool le = b[0] == 'I';
  auto rd = [&](std::size_t at, int bytes) {
    std::uint64_t v = 0;
    for (int k = 0; k < bytes; ++k) v = le ? v | (std::uint64_t(b[at + k]) << (8 * k)) : (v << 8) | b[at + k];
    return v;
  };
  const bool big = rd(2, 2) == 43;
  const int off_bytes = big ? 8 : 4, count_bytes = big ? 8 : 2, entry_bytes = big ? 20 : 12;
  if (b.size() < (big ? 16u : 8u)) return std::nullopt;
  const std::uint64_t ifd = rd(big ? 8 : 4, off_bytes);
  if (ifd > b.size() || b.size() - ifd < std::uint64_t(count_bytes)) return std::nullopt;
  const std::uint64_t n = rd(std::size_t(ifd), count_bytes);
  std::optional<std::uint64_t> w, h;
  bool w_seen = false, h_seen = false;  // libtiff keeps a tag's first entry and ignores repeats
  for (std::uint64_t e = ifd + count_bytes, k = 0; k < n && e + entry_bytes <= b.size(); ++k, e += entry_bytes) {
    const std::uint64_t tag = rd(std::size_t(e), 2), type = rd(std::size_t(e) + 2, 2);
    const std::size_t value_at = std::size_t(e) + (big ? 12 : 8);
    std::optional<std::uint64_t> v;
    if (type == 3) v = rd(value_at, 2);       // SHORT
    else if (type == 4) v = rd(value_at, 4);  // LONG
    else if (type == 16 && big) v = rd(value_at, 8);  // LONG8
    if (tag == 256 && !std::exchange(w_seen, true)) w = v;
    if (tag == 257 && !std::exchange(h_seen, true)) h = v;
  }
  if (!w || !h) return std::nullopt;
  return dims(*w, *h);
}

// WebP: the size in the first chunk (lossy VP8, lossless VP8L, or the VP8X canvas).
Dims probe_webp(std::span<const std::uint8_t> b) {
  if (b.size() < 30) return std::nullopt;
  const std::span<const std::uint8_t> chunk = b.subspan(12);
  if (starts_with(chunk, "VP8 ")) {
    if (b[23] != 0x9D || b[24] != 0x01 || b[25] != 0x2A) return std::nullopt;
    return dims((b[26] | (b[27] << 8)) & 0x3FFF, (b[28] | (b[29] << 8)) & 0x3FFF);
  }
  if (starts_with(chunk, "VP8L")) {
    if (b[20] != 0x2F) return std::nullopt;
    const std::uint32_t bits = le32(&b[21]);
    return dims(1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF));
  }
  if (starts_with(chunk, "VP8X"))
    return dims(1 + (b[24] | (b[25] << 8) | (b[26] << 16)), 1 + (b[27] | (b[28] << 8) | (std::uint32_t(b[29]) << 16)));
  return std::nullopt;
}

// JPEG 2000: a raw codestream (its SIZ segment: reference grid minus image offset) or a JP2 file
// (the ihdr box inside jp2h).
Dims probe_jpeg2000(std::span<const std::uint8_t> b) {
  if (starts_with(b, "\xFF\x4F\xFF\x51")) {
    if (b.size() < 24) return std::nullopt;
    const std::uint32_t xs = be32(&b[8]), ys = be32(&b[12]), xo = be32(&b[16]), yo = be32(&b[20]);
    if (xs < xo || ys < yo) return std::nullopt;
    return dims(xs - xo, ys - yo);
  }
  std::size_t pos = 0;
  while (pos + 8 <= b.size()) {
    std::uint64_t len = be32(&b[pos]);
    std::size_t header = 8;
    if (len == 1) {
      if (pos + 16 > b.size()) return std::nullopt;
      len = (std::uint64_t(be32(&b[pos + 8])) << 32) | be32(&b[pos + 12]);
      header = 16;
    } else if (len == 0) {
      len = b.size() - pos;  // the last box runs to the end
    }
    const std::span<const std::uint8_t> type = b.subspan(pos + 4, 4);
    if (starts_with(type, "ihdr")) {
      if (pos + header + 8 > b.size()) return std::nullopt;
      return dims(be32(&b[pos + header + 4]), be32(&b[pos + header]));  // HEIGHT, then WIDTH
    }
    if (starts_with(type, "jp2h")) {  // a superbox: its boxes follow its header
      pos += header;
      continue;
    }
    if (len < header || len > b.size() - pos) return std::nullopt;
    pos += std::size_t(len);
  }
  return std::nullopt;
}

}  // namespace

Dims probe_dimensions(std::span<const std::uint8_t> b) {
  switch (io::sniff_image_format(b)) {
    case io::ImageFormat::png:
      if (b.size() < 24) return std::nullopt;
      return dims(be32(&b[16]), be32(&b[20]));
    case io::ImageFormat::jpeg: return probe_jpeg(b);
    case io::ImageFormat::bmp: {
      if (b.size() < 26) return std::nullopt;
      const std::int32_t w = std::int32_t(le32(&b[18])), h = std::int32_t(le32(&b[22]));
      if (w == INT32_MIN || h == INT32_MIN) return std::nullopt;
      return std::pair<int, int>{std::abs(w), std::abs(h)};
    }
    case io::ImageFormat::pnm: return probe_pnm(b);
    case io::ImageFormat::pam: return probe_pam(b);
    case io::ImageFormat::sun_raster:
      if (b.size() < 32) return std::nullopt;
      return dims(be32(&b[4]), be32(&b[8]));
    case io::ImageFormat::radiance_hdr: return probe_hdr(b);
    case io::ImageFormat::tiff: return probe_tiff(b);
    case io::ImageFormat::webp: return probe_webp(b);
    case io::ImageFormat::jpeg2000: return probe_jpeg2000(b);
    case io::ImageFormat::gif:
    case io::ImageFormat::heif:  // refused by decode_image, which names them
    case io::ImageFormat::unknown: break;
  }
  return std::nullopt;
}

void check_pixel_limit(long long max_pixels, int width, int height) {
  if (double(width) * height > double(max_pixels))
    throw Error(ErrorCategory::decode, std::to_string(width) + "x" + std::to_string(height) +
                                           " pixels is more than the max_pixels limit of " + std::to_string(max_pixels) +
                                           " (a decompression bomb?); not decoded");
}

}  // namespace wk::pipeline
