// Image metadata from input to output bytes through libexiv2 0.27 (optional: WK_HAVE_EXIV2).
//
// libexiv2 0.27's headers use std::auto_ptr (Image::AutoPtr; Image::UniquePtr is 0.28's), which
// C++17 removed. libstdc++ still declares it in C++20 (deprecated), so this file builds with the
// project's -std=c++20 and GCC or clang on libstdc++ without warnings, as long as the AutoPtr
// types are never named (auto below; naming them warns -Wdeprecated-declarations with clang).
// libc++ drops auto_ptr from C++17 on: such a build would need this one file compiled as C++14.
#include "wk/io/metadata.hpp"

#ifdef WK_HAVE_EXIV2
#include <exiv2/exiv2.hpp>
#include <exiv2/tiffimage.hpp>
#include <exiv2/webpimage.hpp>  // not among exiv2.hpp's

#include <array>
#include <climits>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#endif

namespace wk::io {

#ifndef WK_HAVE_EXIV2

struct ImageMetadata::Content {};

bool metadata_supported() { return false; }

ImageMetadata read_metadata(std::span<const std::uint8_t>) { return {}; }

std::vector<std::uint8_t> apply_metadata(std::vector<std::uint8_t> encoded, const ImageMetadata&, int, int, int) {
  return encoded;
}

#else

struct ImageMetadata::Content {
  std::vector<std::uint8_t> icc;
  Exiv2::ExifData exif;
  Exiv2::IptcData iptc;
  Exiv2::XmpData xmp;
  std::string comment;
};

namespace {

// The XMP toolkit registers the namespaces it meets in a process-wide table: the folder job's
// workers read and write metadata at the same time, so registrations go through this lock.
std::mutex xmp_mutex;
void xmp_lock(void* data, bool lock) {
  auto* m = static_cast<std::mutex*>(data);
  if (lock)
    m->lock();
  else
    m->unlock();
}

// Once per process, before any other use: libexiv2's warnings about odd metadata would land on
// stderr in the middle of a job's progress line (bad metadata only means nothing is carried);
// the XMP toolkit's initialisation is not thread-safe itself.
void init_exiv2() {
  static std::once_flag once;
  std::call_once(once, [] {
    Exiv2::LogMsg::setLevel(Exiv2::LogMsg::mute);
    Exiv2::XmpParser::initialize(xmp_lock, &xmp_mutex);
  });
}

// Tags of IFD0 that describe a TIFF file's own pixel data (a TIFF or raw input's EXIF holds
// them): they say nothing true of another file, and a TIFF output has its own.
constexpr std::array kImageStructureTags = {
    "Exif.Image.NewSubfileType",  "Exif.Image.SubfileType",        "Exif.Image.BitsPerSample",
    "Exif.Image.Compression",     "Exif.Image.PhotometricInterpretation", "Exif.Image.FillOrder",
    "Exif.Image.StripOffsets",    "Exif.Image.SamplesPerPixel",    "Exif.Image.RowsPerStrip",
    "Exif.Image.StripByteCounts", "Exif.Image.PlanarConfiguration", "Exif.Image.Predictor",
    "Exif.Image.TileWidth",       "Exif.Image.TileLength",         "Exif.Image.TileOffsets",
    "Exif.Image.TileByteCounts",  "Exif.Image.SubIFDs",            "Exif.Image.ExtraSamples",
    "Exif.Image.SampleFormat",    "Exif.Image.JPEGTables",         "Exif.Image.YCbCrSubSampling",
    "Exif.Image.YCbCrPositioning", "Exif.Image.InterColorProfile",
    "Exif.Image.JPEGInterchangeFormat", "Exif.Image.JPEGInterchangeFormatLength",
};

void erase_exif(Exiv2::ExifData& exif, const char* key) {
  const auto it = exif.findKey(Exiv2::ExifKey(key));
  if (it != exif.end()) exif.erase(it);
}

// value: std::uint16_t writes a SHORT, std::uint32_t a LONG.
template <class T>
void set_exif_if_present(Exiv2::ExifData& exif, const char* key, T value) {
  const auto it = exif.findKey(Exiv2::ExifKey(key));
  if (it != exif.end()) *it = value;
}

void set_xmp_if_present(Exiv2::XmpData& xmp, const char* key, long value) {
  const auto it = xmp.findKey(Exiv2::XmpKey(key));
  if (it != xmp.end()) it->setValue(std::to_string(value));
}

bool writes(const Exiv2::Image& image, Exiv2::MetadataId id) {
  return (image.checkMode(id) & Exiv2::amWrite) != 0;
}

// Whether an ICC profile's data colour space (header bytes 16..19) is that of an image of
// `channels` channels; 0 channels: not known, any profile goes.
bool icc_fits(const std::vector<std::uint8_t>& icc, int channels) {
  if (icc.size() < 128) return false;
  if (channels <= 0) return true;
  const char* space = reinterpret_cast<const char*>(icc.data() + 16);
  if (channels == 1) return std::memcmp(space, "GRAY", 4) == 0;
  return std::memcmp(space, "RGB ", 4) == 0;
}

// CRC-32 of PNG chunks (ISO 3309, as zlib's crc32).
std::uint32_t crc32(const std::uint8_t* data, std::size_t n) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::uint32_t get_be32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}
void put_be32(std::uint8_t* p, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = std::uint8_t(v >> (24 - 8 * k));
}

// libexiv2 0.27 writes a PNG's iCCP chunk with an empty profile name, which the PNG
// specification forbids (1 to 79 bytes): libpng drops such a profile ("iCCP: bad keyword").
// The chunk gets the name "ICC profile".
void name_png_icc_profile(std::vector<std::uint8_t>& png) {
  static constexpr char kName[] = "ICC profile";
  constexpr std::size_t name_len = sizeof kName - 1;
  std::size_t at = 8;  // after the signature
  while (at + 12 <= png.size()) {
    const std::uint32_t len = get_be32(&png[at]);
    if (len > png.size() - at - 12) return;
    const std::uint8_t* type = &png[at + 4];
    if (std::memcmp(type, "IDAT", 4) == 0 || std::memcmp(type, "IEND", 4) == 0) return;  // iCCP comes before
    if (std::memcmp(type, "iCCP", 4) == 0) {
      if (len == 0 || png[at + 8] != 0) return;  // named
      png.insert(png.begin() + std::ptrdiff_t(at + 8), kName, kName + name_len);
      put_be32(&png[at], len + std::uint32_t(name_len));
      const std::size_t crc_at = at + 8 + len + name_len;
      put_be32(&png[crc_at], crc32(&png[at + 4], 4 + len + name_len));
      return;
    }
    at += 12 + len;
  }
}

// libexiv2 0.27 writes a WebP's ICC profile chunk under the fourcc "VP8X" (the extended
// header's) instead of "ICCP": readers take it for a second header and find no profile. A "VP8X"
// chunk after the first chunk is that profile.
void name_webp_icc_chunk(std::vector<std::uint8_t>& webp) {
  std::size_t at = 12;  // after "RIFF" size "WEBP"
  bool first = true;
  while (at + 8 <= webp.size()) {
    const std::uint32_t len = std::uint32_t(webp[at + 4]) | std::uint32_t(webp[at + 5]) << 8 |
                              std::uint32_t(webp[at + 6]) << 16 | std::uint32_t(webp[at + 7]) << 24;
    if (!first && std::memcmp(&webp[at], "VP8X", 4) == 0) std::memcpy(&webp[at], "ICCP", 4);
    first = false;
    if (len > webp.size() - at - 8) return;
    at += 8 + len + (len & 1);
  }
}

bool exiv2_writes(int type) {
  switch (type) {
    case Exiv2::ImageType::jpeg:
#ifdef EXV_HAVE_LIBZ
    case Exiv2::ImageType::png:
#endif
    case Exiv2::ImageType::webp:
    case Exiv2::ImageType::tiff:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool metadata_supported() {
  init_exiv2();  // a caller that also uses libexiv2 itself gets the XMP lock set up first
  return true;
}

ImageMetadata read_metadata(std::span<const std::uint8_t> file) {
  if (file.empty() || file.size() > std::size_t(LONG_MAX)) return {};
  init_exiv2();
  try {
    // A view of `file` (libexiv2's MemIo copies nothing until written to).
    auto image = Exiv2::ImageFactory::open(file.data(), static_cast<long>(file.size()));
    if (!image.get()) return {};
    image->readMetadata();
    auto c = std::make_shared<ImageMetadata::Content>();
    if (image->iccProfileDefined()) {
      const Exiv2::DataBuf* icc = image->iccProfile();
      if (icc->pData_ && icc->size_ > 0) c->icc.assign(icc->pData_, icc->pData_ + icc->size_);
    }
    c->exif = image->exifData();
    if (!c->exif.empty()) {
      Exiv2::ExifThumb(c->exif).erase();
      for (const char* key : kImageStructureTags) erase_exif(c->exif, key);
    }
    c->iptc = image->iptcData();
    c->xmp = image->xmpData();
    c->comment = image->comment();
    if (c->icc.empty() && c->exif.empty() && c->iptc.empty() && c->xmp.empty() && c->comment.empty()) return {};
    return ImageMetadata(std::move(c));
  } catch (const std::exception&) {
    // Exiv2::AnyError (unknown format, damaged metadata), or a length in the file that asked for
    // more memory than there is: nothing is carried.
    return {};
  }
}

std::vector<std::uint8_t> apply_metadata(std::vector<std::uint8_t> encoded, const ImageMetadata& meta, int width,
                                         int height, int channels) {
  const ImageMetadata::Content* c = meta.content();
  if (!c || encoded.empty() || encoded.size() > std::size_t(LONG_MAX)) return encoded;
  init_exiv2();
  try {
    // The encoder's bytes are only read: writeMetadata puts the new file into the MemIo's own
    // buffer, so a failure leaves `encoded` as it was.
    auto image = Exiv2::ImageFactory::open(encoded.data(), static_cast<long>(encoded.size()));
    if (!image.get() || !exiv2_writes(image->imageType())) return encoded;

    // Each of the four formats holds a profile (checkMode knows nothing of ICC in 0.27).
    if (!c->icc.empty() && icc_fits(c->icc, channels)) {
      Exiv2::DataBuf icc(c->icc.data(), static_cast<long>(c->icc.size()));
      try {
        image->setIccProfile(icc, true);
      } catch (const std::exception&) {
        image->clearIccProfile();  // a profile whose header contradicts its size: left out
      }
    }
    if (!c->exif.empty() && writes(*image, Exiv2::mdExif)) {
      image->setExifData(c->exif);
      Exiv2::ExifData& exif = image->exifData();
      Exiv2::ExifThumb(exif).erase();
      set_exif_if_present(exif, "Exif.Image.Orientation", std::uint16_t(1));  // a SHORT
      exif["Exif.Photo.PixelXDimension"] = static_cast<std::uint32_t>(width);
      exif["Exif.Photo.PixelYDimension"] = static_cast<std::uint32_t>(height);
      set_exif_if_present(exif, "Exif.Image.ImageWidth", static_cast<std::uint32_t>(width));
      set_exif_if_present(exif, "Exif.Image.ImageLength", static_cast<std::uint32_t>(height));
    }
    if (!c->iptc.empty() && writes(*image, Exiv2::mdIptc)) image->setIptcData(c->iptc);
    if (!c->xmp.empty() && writes(*image, Exiv2::mdXmp)) {
      image->setXmpData(c->xmp);
      Exiv2::XmpData& xmp = image->xmpData();
      set_xmp_if_present(xmp, "Xmp.tiff.Orientation", 1);
      set_xmp_if_present(xmp, "Xmp.exif.PixelXDimension", width);
      set_xmp_if_present(xmp, "Xmp.exif.PixelYDimension", height);
      set_xmp_if_present(xmp, "Xmp.tiff.ImageWidth", width);
      set_xmp_if_present(xmp, "Xmp.tiff.ImageLength", height);
    }
    if (!c->comment.empty() && writes(*image, Exiv2::mdComment)) image->setComment(c->comment);

    image->writeMetadata();
    Exiv2::BasicIo& io = image->io();
    const long size = io.size();
    if (size <= 0 || io.open() != 0) return encoded;
    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    const long got = io.read(out.data(), size);
    io.close();
    if (got != size) return encoded;
    if (image->iccProfileDefined()) {
      if (image->imageType() == Exiv2::ImageType::webp) name_webp_icc_chunk(out);
#ifdef EXV_HAVE_LIBZ
      if (image->imageType() == Exiv2::ImageType::png) name_png_icc_profile(out);
#endif
    }
    return out;
  } catch (const std::exception&) {
    return encoded;  // libexiv2 could not write it (e.g. EXIF beyond a JPEG segment): no metadata
  }
}

#endif  // WK_HAVE_EXIV2

}  // namespace wk::io
