// Image sizes read from file headers before decoding, and the pixel limit, so the folder job can
// refuse a decompression bomb (a small file that decodes to gigabytes) before OpenCV allocates
// for it. Kept apart from the job so tests/fuzz can drive them alone.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "wk/core/error.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace wk::pipeline {

namespace {

std::uint32_t be32(const std::uint8_t* p) { return (std::uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }
std::uint32_t le32(const std::uint8_t* p) { return (std::uint32_t(p[3]) << 24) | (p[2] << 16) | (p[1] << 8) | p[0]; }

std::optional<std::pair<int, int>> probe_jpeg(std::span<const std::uint8_t> b) {
  std::size_t i = 2;
  while (i + 4 <= b.size()) {
    if (b[i] != 0xFF) return std::nullopt;
    const std::uint8_t m = b[i + 1];
    if (m == 0xFF) { ++i; continue; }  // fill byte
    if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) { i += 2; continue; }
    const std::size_t len = (std::size_t(b[i + 2]) << 8) | b[i + 3];
    const bool sof = (m >= 0xC0 && m <= 0xCF) && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof) {
      if (i + 9 > b.size()) return std::nullopt;
      return std::pair<int, int>{(b[i + 7] << 8) | b[i + 8], (b[i + 5] << 8) | b[i + 6]};
    }
    if (m == 0xDA || len < 2) return std::nullopt;  // scan data before any frame header
    i += 2 + len;
  }
  return std::nullopt;
}

std::optional<std::pair<int, int>> probe_pnm(std::span<const std::uint8_t> b) {
  long vals[2] = {0, 0};
  std::size_t i = 2;
  for (long& v : vals) {
    while (i < b.size() && (std::isspace(b[i]) || b[i] == '#')) {
      if (b[i] == '#') while (i < b.size() && b[i] != '\n') ++i;
      else ++i;
    }
    if (i >= b.size() || !std::isdigit(b[i])) return std::nullopt;
    while (i < b.size() && std::isdigit(b[i]) && v < (1L << 31)) v = v * 10 + (b[i++] - '0');
  }
  if (vals[0] >= (1L << 31) || vals[1] >= (1L << 31)) return std::pair<int, int>{INT32_MAX, INT32_MAX};
  return std::pair<int, int>{int(vals[0]), int(vals[1])};
}

}  // namespace

std::optional<std::pair<int, int>> probe_dimensions(std::span<const std::uint8_t> b) {
  static constexpr std::uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (b.size() >= 24 && std::equal(kPng, kPng + 8, b.begin())) {
    const std::uint32_t w = be32(&b[16]), h = be32(&b[20]);
    return std::pair<int, int>{int(std::min<std::uint32_t>(w, INT32_MAX)), int(std::min<std::uint32_t>(h, INT32_MAX))};
  }
  if (b.size() >= 4 && b[0] == 0xFF && b[1] == 0xD8) return probe_jpeg(b);
  if (b.size() >= 26 && b[0] == 'B' && b[1] == 'M') {
    const std::int32_t w = std::int32_t(le32(&b[18])), h = std::int32_t(le32(&b[22]));
    if (w == INT32_MIN || h == INT32_MIN) return std::nullopt;
    return std::pair<int, int>{std::abs(w), std::abs(h)};
  }
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6') return probe_pnm(b);
  return std::nullopt;
}

void check_pixel_limit(long long max_pixels, int width, int height) {
  if (double(width) * height > double(max_pixels))
    throw Error(ErrorCategory::decode, std::to_string(width) + "x" + std::to_string(height) +
                                           " pixels is more than --max-pixels " + std::to_string(max_pixels) +
                                           " (a decompression bomb?); not decoded");
}

}  // namespace wk::pipeline
