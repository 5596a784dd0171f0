#pragma once
// NVTX ranges in the "warpkit" domain. NVTX3 is header-only: with no tool attached every call is
// a check of one function pointer, so ranges stay in release builds.
//
// Naming scheme (docs/profiling.md): app stages are plain names ("read", "decode", "h2d", "gray",
// "d2h", "encode", "write"), one range per image or batch, the image/batch index as payload.
#include <cstdint>

namespace wk::nvtx {

// Colours by stage kind, so a timeline reads at a glance.
enum class Color : std::uint32_t {
  app = 0xFF808080,      // whole-app phases (grey)
  io = 0xFF4E79A7,       // read / write files (blue)
  codec = 0xFFF28E2B,    // decode / encode (orange)
  transfer = 0xFFE15759, // h2d / d2h (red)
  compute = 0xFF59A14F,  // kernels and CPU operations (green)
};

void push(const char* name, Color color, std::int64_t payload);
void pop();

class Range {
 public:
  explicit Range(const char* name, Color color = Color::app, std::int64_t payload = -1) { push(name, color, payload); }
  ~Range() { pop(); }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
};

}  // namespace wk::nvtx
