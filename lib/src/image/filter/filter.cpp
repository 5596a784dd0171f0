// The convolution family's host-side vocabulary: borders, kernel parsing, rank-1 factors, and the
// rung table of the single-filter ops (conv, box).
#include "wk/image/filter.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "image/filter/filter_rungs.hpp"
#include "wk/core/error.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"

namespace wk::image {

namespace {

[[noreturn]] void usage(const std::string& message) { throw Error(ErrorCategory::usage, message); }

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// One weight, the `index`-th of its row (from 1); `where` prefixes the message ("conv:[...]" or
// "FILE:LINE"). A kernel typed on the command line is quoted back (`quote`); one from a file is
// not: the message names the position only, since a file named by mistake (a password file, say)
// must not be echoed to the terminal.
float parse_weight(std::string_view token, std::size_t index, const std::string& where, bool quote) {
  std::string_view t = token;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  float v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  const std::string which = quote ? "kernel weight '" + std::string(token) + "'" : "weight " + std::to_string(index) + " of the row";
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) usage(where + ": " + which + " is not a number");
  if (!std::isfinite(v)) usage(where + ": " + which + " is not finite");
  return v;
}

std::vector<float> parse_row(std::string_view row, const std::string& where, bool quote) {
  std::vector<float> values;
  std::size_t i = 0;
  while (i < row.size()) {
    while (i < row.size() && (row[i] == ' ' || row[i] == '\t' || row[i] == ',' || row[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < row.size() && row[j] != ' ' && row[j] != '\t' && row[j] != ',' && row[j] != '\r') ++j;
    if (j > i) values.push_back(parse_weight(row.substr(i, j - i), values.size() + 1, where, quote));
    i = j;
  }
  return values;
}

void add_row(FilterKernel& k, std::vector<float> row, const std::string& where) {
  if (row.empty()) return;
  if (k.width == 0) k.width = static_cast<int>(row.size());
  if (static_cast<int>(row.size()) != k.width)
    usage(where + ": kernel row " + std::to_string(k.height + 1) + " has " + std::to_string(row.size()) +
          " values, the first row has " + std::to_string(k.width));
  k.weights.insert(k.weights.end(), row.begin(), row.end());
  ++k.height;
}

void check_kernel(const FilterKernel& k, const std::string& where) {
  if (k.width == 0 || k.height == 0) usage(where + ": empty kernel (no weights)");
  if (k.width > kMaxKernelSize || k.height > kMaxKernelSize)
    usage(where + ": the " + std::to_string(k.width) + "x" + std::to_string(k.height) + " kernel is larger than " +
          std::to_string(kMaxKernelSize) + "x" + std::to_string(kMaxKernelSize));
}


}  // namespace

Border parse_border(std::string_view text) {
  Border b;
  const std::string_view name = text.substr(0, text.find(':'));
  const bool has_value = name.size() < text.size();
  if (name == "replicate") b.mode = BorderMode::replicate;
  else if (name == "reflect") b.mode = BorderMode::reflect;
  else if (name == "reflect101") b.mode = BorderMode::reflect101;
  else if (name == "wrap") b.mode = BorderMode::wrap;
  else if (name == "constant") b.mode = BorderMode::constant;
  else usage("unknown border '" + std::string(text) + "' (known: replicate, reflect, reflect101, constant:V, wrap)");
  if (has_value) {
    if (b.mode != BorderMode::constant) usage("border: only constant takes a value ('" + std::string(text) + "')");
    const std::string_view v = text.substr(name.size() + 1);
    double value = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || !std::isfinite(value))
      usage("border: constant value '" + std::string(v) + "' is not a number");
    b.value = value;
  }
  return b;
}

std::string to_string(const Border& b) {
  switch (b.mode) {
    case BorderMode::replicate: return "replicate";
    case BorderMode::reflect: return "reflect";
    case BorderMode::reflect101: return "reflect101";
    case BorderMode::wrap: return "wrap";
    case BorderMode::constant: {
      std::ostringstream s;
      s << "constant:" << b.value;
      return s.str();
    }
  }
  return "?";
}

FilterKernel parse_kernel_text(std::string_view text, std::string_view what) {
  const std::string where(what);
  std::string_view t = trim(text);
  if (t.size() < 2 || t.front() != '[' || t.back() != ']')
    usage(where + ": an inline kernel is written in brackets, rows separated by ';': [1 2 1; 2 4 2; 1 2 1]");
  t = t.substr(1, t.size() - 2);
  if (t.find_first_of("[]") != std::string_view::npos) usage(where + ": nested brackets in a kernel");
  FilterKernel k;
  std::size_t start = 0;
  while (start <= t.size()) {
    const std::size_t end = std::min(t.find(';', start), t.size());
    add_row(k, parse_row(t.substr(start, end - start), where, true), where);
    start = end + 1;
  }
  check_kernel(k, where);
  return k;
}

FilterKernel load_kernel_file(const std::filesystem::path& path) {
  // A regular file of at most 1 MiB (a 64x64 kernel of long numbers is ~100 KB): no FIFO, device
  // or huge file is read (io::read_file opens without blocking and checks before reading).
  constexpr std::uint64_t kMaxKernelFileBytes = 1 << 20;
  std::vector<std::uint8_t> bytes;
  try {
    bytes = io::read_file(path, kMaxKernelFileBytes);
  } catch (const Error& e) {
    throw Error(e.category(), std::string("cannot read kernel file ") + e.what());
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  FilterKernel k;
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    const std::string where = io::printable(path.string()) + ":" + std::to_string(number);
    const std::string_view line = text.substr(start, nl - start);
    add_row(k, parse_row(line.substr(0, line.find('#')), where, false), where);
    start = nl + 1;
  }
  check_kernel(k, io::printable(path.string()));
  return k;
}

std::optional<SeparableKernel> separate(const FilterKernel& k) {
  if (k.width <= 0 || k.height <= 0) return std::nullopt;
  int py = 0, px = 0;
  double peak = 0;
  for (int y = 0; y < k.height; ++y)
    for (int x = 0; x < k.width; ++x)
      if (std::abs(double(k.at(y, x))) > peak) {
        peak = std::abs(double(k.at(y, x)));
        py = y;
        px = x;
      }
  if (peak == 0) return std::nullopt;
  const double pivot = k.at(py, px);
  SeparableKernel s;
  s.column.resize(k.height);
  s.row.resize(k.width);
  for (int y = 0; y < k.height; ++y) s.column[y] = k.at(y, px);
  for (int x = 0; x < k.width; ++x) s.row[x] = static_cast<float>(double(k.at(py, x)) / pivot);
  // Rank 1 when every weight is reproduced to within float rounding of the largest one.
  const double tolerance = 1e-6 * peak;
  for (int y = 0; y < k.height; ++y)
    for (int x = 0; x < k.width; ++x)
      if (std::abs(double(k.at(y, x)) - double(k.at(y, px)) * double(k.at(py, x)) / pivot) > tolerance) return std::nullopt;
  return s;
}

void check_kernel_fits(std::string_view op, int kw, int kh, int w, int h) {
  if (kw > w || kh > h)
    usage(std::string(op) + ": the " + std::to_string(kw) + "x" + std::to_string(kh) + " kernel is larger than the " +
          std::to_string(w) + "x" + std::to_string(h) + " image");
}

}  // namespace wk::image

namespace wk::image::detail {

namespace {
constexpr auto kTapsRungs = conv_family_rungs<TapsCall, 0>({});
}  // namespace

std::span<const Rung<TapsCall>> taps_rungs() { return kTapsRungs; }

std::span<const RungInfo> taps_rung_infos() {
  static const std::vector<RungInfo> infos = wk::detail::rung_infos<TapsCall>(kTapsRungs);
  return infos;
}

std::size_t pixel_bytes(PixelType type) {
  switch (type) {
    case PixelType::u8: return 1;
    case PixelType::s16: return 2;
    case PixelType::f32: return 4;
  }
  return 1;
}

BorderArgs border_args(const Border& border, PixelType input) {
  BorderArgs b{border.mode, static_cast<float>(border.value)};
  // OpenCV saturates the Scalar to the image type: cvRound, then clamp to 0..255 for 8-bit.
  if (input == PixelType::u8) b.value = static_cast<float>(std::clamp(static_cast<int>(std::lrint(border.value)), 0, 255));
  if (border.mode != BorderMode::constant) b.value = 0;
  return b;
}

Taps2D taps_2d(const FilterKernel& k) {
  Taps2D t;
  t.width = k.width;
  t.height = k.height;
  t.anchor_x = k.anchor_x();
  t.anchor_y = k.anchor_y();
  std::copy(k.weights.begin(), k.weights.end(), t.w);
  return t;
}

void check_filter_views(const char* op, const GpuImage& src, const GpuImage& dst) {
  const std::string name(op);
  if (src.channels != 1 && src.channels != 3 && src.channels != 4)
    usage(name + ": input must have 1, 3 or 4 channels, not " + std::to_string(src.channels));
  if (dst.channels != src.channels) usage(name + ": output must have as many channels as the input");
  if (src.width != dst.width || src.height != dst.height) usage(name + ": input and output sizes differ");
  if (src.width < 0 || src.height < 0) usage(name + ": negative image size");
  if (src.width > 0 && src.height > 0 &&
      (src.pitch < std::size_t(src.width) * src.channels * pixel_bytes(src.type) ||
       dst.pitch < std::size_t(dst.width) * dst.channels * pixel_bytes(dst.type)))
    usage(name + ": pitch smaller than a row");
}

}  // namespace wk::image::detail
