// The JPEG marker walk in front of nvJPEG (parse_jpeg_header, nvjpeg_unsuitable_reason,
// hardware_decoder_unsuitable_reason over the entropy-coded data) and the
// folder job's header probe (probe_dimensions, which guards the pixel limit).
// Invariants: no read outside the input (ASan); sizes are in 0..65535; when both the parser and
// the probe find a frame header in a JPEG, they report the same size (the pixel limit must judge
// the image nvJPEG would decode).
#include "fuzz_util.hpp"
#include "wk/io/jpeg_header.hpp"
#include "wk/pipeline/folder_job.hpp"

using wk::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const auto header = wk::io::parse_jpeg_header(bytes);
  const auto dims = wk::pipeline::probe_dimensions(bytes);
  if (header) {
    check(header->width >= 0 && header->width <= 65535 && header->height >= 0 && header->height <= 65535,
          "JPEG sizes are 16-bit");
    check(header->components >= 0 && header->components <= 255, "component count is a byte");
    check(header->exif_orientation >= 0 && header->exif_orientation <= 65535, "orientation is a 16-bit value");
    (void)wk::io::nvjpeg_unsuitable_reason(*header);
    check(header->scan_offset == 0 || header->scan_offset + 4 <= size, "the scan starts inside the input");
    (void)wk::io::hardware_decoder_unsuitable_reason(bytes, *header);
    if (dims) check(dims->first == header->width && dims->second == header->height, "probe and parser agree on the size");
  }
  if (dims) check(dims->first >= 0 && dims->second >= 0, "probed sizes are not negative");
  return 0;
}
