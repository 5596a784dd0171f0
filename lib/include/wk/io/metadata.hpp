#pragma once
// Image metadata carried from an input file to its output: ICC profile, EXIF, IPTC, XMP and the
// comment, read and written with libexiv2 on bytes in memory (no files). Without libexiv2 in the
// build (metadata_supported() false) reading gives nothing and writing changes nothing.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace wk::io {

// What read_metadata found in one file. Copies share the (immutable) content: copying is cheap,
// and an empty ImageMetadata holds nothing at all.
class ImageMetadata {
 public:
  struct Content;  // libexiv2's containers (lib/src/io/metadata.cpp)

  ImageMetadata() = default;
  explicit ImageMetadata(std::shared_ptr<const Content> content) : content_(std::move(content)) {}

  // True when there is nothing to carry: no ICC profile, EXIF, IPTC, XMP or comment.
  bool empty() const { return !content_; }
  const Content* content() const { return content_.get(); }

 private:
  std::shared_ptr<const Content> content_;
};

// True when this build has libexiv2 (the configure line "warpkit: exiv2 metadata: ON").
bool metadata_supported();

// The metadata of an image file's bytes, in any format libexiv2 reads (JPEG, PNG, WebP, TIFF,
// JPEG 2000, camera raw, ...). Never throws for bad or unreadable metadata, nor for a format
// without any: the result is then empty. Empty without libexiv2.
ImageMetadata read_metadata(std::span<const std::uint8_t> file);

// `encoded` (an image file's bytes in a format libexiv2 writes: JPEG, PNG, WebP, TIFF) with `meta`
// written into it, replacing what it had. Written as the pixels now are: EXIF and XMP orientation
// reset to 1 (decoding already turned the image), the pixel dimensions (Exif.Photo.PixelX/
// YDimension; Exif.Image.ImageWidth/ImageLength and Xmp.exif.PixelX/YDimension where present) set
// to width x height, the EXIF thumbnail dropped. `channels` (0: not known) is the output's: an ICC
// profile of another colour space (a CMYK input's profile on the decoded colour image, an RGB
// profile on a gray result) is left out. Each part goes where the format holds it (a WebP or TIFF
// has no comment). Formats libexiv2 cannot write, an empty `meta`, or a failure while writing:
// `encoded` unchanged. Never throws but for memory.
std::vector<std::uint8_t> apply_metadata(std::vector<std::uint8_t> encoded, const ImageMetadata& meta, int width,
                                         int height, int channels = 0);

}  // namespace wk::io
