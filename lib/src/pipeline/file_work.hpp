#pragma once
// One input file of the folder job from its claim to its record (internal to lib/src/pipeline).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/nvjpeg_decoder.hpp"
#include "wk/io/jpeg_header.hpp"
#include "wk/core/buffer.hpp"
#include "wk/pipeline/folder_job.hpp"

namespace wk::pipeline {

struct FileWork {
  std::size_t i = 0;                // the file's number in the job (input order; NVTX payload)
  FileRecord r;
  std::vector<std::uint8_t> bytes;  // the file; kept until the file is done when nvJPEG decodes it
                                    // (a GPU failure after the decode decodes it again on the CPU)
  bool finished = false;            // r is final: skipped, or failed before decoding
  io::JpegHeader header;            // warpkit's parse of its headers (when it goes to nvJPEG)
  io::NvjpegImageInfo jpeg;         // what nvJPEG will decode this file to; channels 0: not nvJPEG's
  bool inspected = false;           // the decoder's limits were checked (JpegDecodeService::inspect:
                                    // nvJPEG's look or warpkit's); else `jpeg` is from the header parse only
  // Filled by the JpegDecodeService: the decoded pixels (on the service's GPU) when `decoded`.
  bool decoded = false;
  DeviceImage image;
  std::size_t device_bytes = 0;     // width * height * channels, the service's memory accounting
};

}  // namespace wk::pipeline
