#include "wk/io/jpeg_header.hpp"

#include <cstring>

namespace wk::io {

namespace {

std::uint16_t be16(const std::uint8_t* p) { return std::uint16_t((p[0] << 8) | p[1]); }

// Orientation from the TIFF structure inside an APP1 "Exif\0\0" segment; 0 when unreadable.
int exif_orientation(std::span<const std::uint8_t> tiff) {
  if (tiff.size() < 8) return 0;
  bool little;
  if (tiff[0] == 'I' && tiff[1] == 'I') little = true;
  else if (tiff[0] == 'M' && tiff[1] == 'M') little = false;
  else return 0;
  auto u16 = [&](std::size_t at) -> std::uint32_t {
    return little ? tiff[at] | (tiff[at + 1] << 8) : (tiff[at] << 8) | tiff[at + 1];
  };
  auto u32 = [&](std::size_t at) -> std::uint32_t {
    return little ? u16(at) | (u16(at + 2) << 16) : (u16(at) << 16) | u16(at + 2);
  };
  if (u16(2) != 42) return 0;
  const std::size_t ifd = u32(4);
  if (ifd < 8 || ifd + 2 > tiff.size()) return 0;
  const std::size_t entries = u16(ifd);
  if (ifd + 2 + entries * 12 > tiff.size()) return 0;
  for (std::size_t e = 0; e < entries; ++e) {
    const std::size_t at = ifd + 2 + e * 12;
    if (u16(at) != 0x0112) continue;
    // SHORT (type 3), count 1: the value sits in the first two bytes of the value field.
    if (u16(at + 2) != 3 || u32(at + 4) != 1) return 0;
    const std::uint32_t v = u16(at + 8);
    return v >= 1 && v <= 8 ? int(v) : 0;
  }
  return 1;  // no orientation tag: as written
}

}  // namespace

std::optional<JpegHeader> parse_jpeg_header(std::span<const std::uint8_t> b) {
  if (b.size() < 4 || b[0] != 0xFF || b[1] != 0xD8) return std::nullopt;
  JpegHeader h;
  bool have_frame = false, have_exif = false;
  std::size_t i = 2;
  while (i + 2 <= b.size()) {
    if (b[i] != 0xFF) return std::nullopt;
    const std::uint8_t m = b[i + 1];
    if (m == 0xFF) { ++i; continue; }  // fill byte
    // FF 00 is a stuffed data byte, not a marker: libjpeg skips it as junk where the probe
    // (probe_dimensions) does too, so a length read from it would describe another file than
    // the one decoded (found by tests/fuzz/fuzz_jpeg_header). Not for nvJPEG, then.
    if (m == 0x00) return std::nullopt;
    if (m == 0x01 || (m >= 0xD0 && m <= 0xD8)) { i += 2; continue; }  // no length field
    if (m == 0xD9) break;  // end of image before any scan
    if (i + 4 > b.size()) return std::nullopt;
    const std::size_t len = be16(&b[i + 2]);
    if (len < 2 || i + 2 + len > b.size()) return std::nullopt;
    const std::span<const std::uint8_t> seg = b.subspan(i + 4, len - 2);
    if (m == 0xDA) {  // start of scan: the headers are over
      if (!seg.empty()) {
        h.scan_offset = i;
        h.scan_components = seg[0];
      }
      break;
    }
    const bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (sof && !have_frame) {
      if (seg.size() < 6) return std::nullopt;
      h.sof_marker = m;
      h.precision = seg[0];
      h.height = be16(&seg[1]);
      h.width = be16(&seg[3]);
      h.components = seg[5];
      if (seg.size() < 6 + 3 * std::size_t(h.components)) return std::nullopt;
      for (int c = 0; c < h.components && c < 4; ++c) {
        h.component_ids[c] = seg[6 + 3 * c];
        h.sampling[c] = seg[7 + 3 * c];
      }
      have_frame = true;
    } else if (m == 0xE0 && seg.size() >= 5 && std::memcmp(seg.data(), "JFIF\0", 5) == 0) {
      h.jfif = true;
    } else if (m == 0xE1 && !have_exif && seg.size() >= 6 && std::memcmp(seg.data(), "Exif\0\0", 6) == 0) {
      have_exif = true;  // the first EXIF segment counts, as for OpenCV
      h.exif_orientation = exif_orientation(seg.subspan(6));
    } else if (m == 0xEE && seg.size() >= 12 && std::memcmp(seg.data(), "Adobe", 5) == 0) {
      h.adobe_transform = seg[11];
    }
    i += 2 + len;
  }
  if (!have_frame) return std::nullopt;
  return h;
}

std::string nvjpeg_unsuitable_reason(const JpegHeader& h) {
  if (h.sof_marker != 0xC0 && h.sof_marker != 0xC1 && h.sof_marker != 0xC2)
    return "not Huffman-coded DCT (lossless, arithmetic or hierarchical JPEG)";
  if (h.precision != 8) return std::to_string(h.precision) + "-bit samples";
  if (h.components != 1 && h.components != 3)
    return std::to_string(h.components) + " components" + (h.components == 4 ? " (CMYK/YCCK)" : "");
  if (h.exif_orientation != 1)
    return h.exif_orientation == 0 ? "unreadable EXIF orientation" : "EXIF orientation " + std::to_string(h.exif_orientation);
  if (h.components == 3 && !h.jfif) {
    // libjpeg's rule without a JFIF marker: Adobe transform 0 means RGB, no Adobe marker and
    // component ids 'R','G','B' mean RGB, anything else YCbCr. nvJPEG assumes YCbCr.
    const auto& id = h.component_ids;
    if (h.adobe_transform == 0) return "RGB-coded JPEG (Adobe transform 0)";
    if (h.adobe_transform > 1) return "unusual Adobe colour transform " + std::to_string(h.adobe_transform);
    if (h.adobe_transform < 0 && id[0] == 'R' && id[1] == 'G' && id[2] == 'B') return "RGB-coded JPEG (component ids R, G, B)";
    // libjpeg-turbo's "big gamut" YCC (ids 1, 0x22, 0x23) is not what nvJPEG decodes either.
    if (h.adobe_transform < 0 && id[0] == 1 && id[1] == 0x22 && id[2] == 0x23) return "big-gamut YCC JPEG";
  }
  return "";
}

std::string hardware_decoder_unsuitable_reason(std::span<const std::uint8_t> b, const JpegHeader& h) {
  auto hex = [](unsigned v) {
    const char* digits = "0123456789ABCDEF";
    return std::string{digits[(v >> 4) & 15], digits[v & 15]};
  };
  if (h.sof_marker == 0xC2) return "progressive JPEG";
  if (h.sof_marker != 0xC0) return "not baseline (frame marker 0xFF" + hex(h.sof_marker) + ")";
  if (h.precision != 8) return std::to_string(h.precision) + "-bit samples";
  if (h.components == 3) {
    if (h.sampling[1] != 0x11 || h.sampling[2] != 0x11) return "chroma sampling factors other than 1x1";
    const std::uint8_t y = h.sampling[0];
    if (y != 0x11 && y != 0x21 && y != 0x12 && y != 0x22)
      return "luma sampling " + std::to_string(y >> 4) + "x" + std::to_string(y & 15) + " (4:1:1, 4:1:0 or rarer)";
  } else if (h.components != 1) {
    return std::to_string(h.components) + " components";
  }
  if (h.scan_offset == 0 || h.scan_offset + 4 > b.size()) return "no scan";
  if (h.scan_components != h.components) return "one scan per component (non-interleaved)";
  // The entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte), a restart marker, another
  // 0xFF (fill) or a real marker; the only one allowed is EOI.
  std::size_t i = h.scan_offset + 2 + be16(&b[h.scan_offset + 2]);
  while (i < b.size()) {
    const void* p = std::memchr(b.data() + i, 0xFF, b.size() - i);
    if (!p) break;
    i = std::size_t(static_cast<const std::uint8_t*>(p) - b.data());
    if (i + 1 >= b.size()) break;
    const std::uint8_t m = b[i + 1];
    if (m == 0xFF) {
      i += 1;
    } else if (m == 0x00 || (m >= 0xD0 && m <= 0xD7)) {
      i += 2;
    } else if (m == 0xD9) {
      return "";
    } else {
      return m == 0xDA ? "more than one scan" : "marker 0xFF" + hex(m) + " after the first scan";
    }
  }
  return "no end-of-image marker";
}

}  // namespace wk::io
