#pragma once
// A non-owning view of a 2-D image, interleaved channels, rows `pitch_bytes` apart.
// The same type describes host and device memory; the function taking it says which.
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace wk {

template <class T>
struct ImageViewT {
  T* data = nullptr;
  int width = 0;   // pixels
  int height = 0;  // rows
  std::size_t pitch_bytes = 0;
  int channels = 1;

  using byte_type = std::conditional_t<std::is_const_v<T>, const std::uint8_t, std::uint8_t>;

  T* row(int y) const {
    return reinterpret_cast<T*>(reinterpret_cast<byte_type*>(data) + static_cast<std::size_t>(y) * pitch_bytes);
  }
  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels * sizeof(T); }
  bool empty() const { return width <= 0 || height <= 0; }
  // Implicit view-to-const conversion, as with pointers.
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  operator ImageViewT<const U>() const {
    return {data, width, height, pitch_bytes, channels};
  }
};

using ImageView = ImageViewT<std::uint8_t>;
using ConstImageView = ImageViewT<const std::uint8_t>;

}  // namespace wk
