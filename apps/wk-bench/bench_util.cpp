#include "bench_util.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"

namespace wk::bench {

void parse_size(const std::string& text, int& width, int& height) {
  const auto x = text.find_first_of("xX");
  try {
    if (x == std::string::npos) throw std::invalid_argument("no x");
    std::size_t used = 0;
    width = std::stoi(text.substr(0, x), &used);
    if (used != x) throw std::invalid_argument("width");
    height = std::stoi(text.substr(x + 1), &used);
    if (used != text.size() - x - 1) throw std::invalid_argument("height");
  } catch (const std::exception&) {
    throw Error(ErrorCategory::usage, "--size must look like 8192x8192, not '" + text + "'");
  }
  if (width < 1 || height < 1) throw Error(ErrorCategory::usage, "--size must be at least 1x1");
}

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

double time_gpu_ms(cudaStream_t stream, int repeats, const std::function<void()>& launch) {
  for (int i = 0; i < 3; ++i) launch();
  WK_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<Event> start(repeats), stop(repeats);
  for (int i = 0; i < repeats; ++i) {
    start[i].record(stream);
    launch();
    stop[i].record(stream);
  }
  WK_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) ms.push_back(stop[i].ms_since(start[i]));
  return median(ms);
}

void print_roofline_share(const std::vector<Row>& rows, const std::string& roofline, double target_pct) {
  const Row* def = nullptr;
  const Row* bound = nullptr;
  for (const Row& r : rows) {
    if (r.note == "default") def = &r;
    if (r.note == "roofline") bound = &r;
  }
  if (!def || !bound || def->ms <= 0) return;
  const double pct = 100 * bound->ms / def->ms;
  fmt::print("default rung: {:.1f} % of the {} (target >= {:.0f} %: {})\n", pct, roofline, target_pct, pct >= target_pct ? "met" : "not met");
}

double time_cpu_ms(int repeats, const std::function<void()>& fn) {
  fn();
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(ms);
}

double copy_bandwidth_gbps(std::size_t bytes, cudaStream_t stream, int repeats) {
  DeviceBuffer<std::uint8_t> a(bytes), b(bytes);
  WK_CUDA_CHECK(cudaMemsetAsync(a.get(), 1, bytes, stream));
  const double ms = time_gpu_ms(stream, repeats, [&] {
    WK_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  });
  return 2.0 * double(bytes) / (ms * 1e6);
}

void print_table(const std::string& title, const std::vector<Row>& rows, double copy_gbps, const std::string& peer_name) {
  fmt::print("{}\n", title);
  const Row* peer = nullptr;
  for (const Row& r : rows)
    if (r.name == peer_name) peer = &r;
  fmt::print("{:<24} {:>9} {:>12} {:>9} {:>9} {:>8} {:>8}\n", "rung", "ms", "Mpx/s", "Gpx/s", "GB/s", "% copy",
             peer ? "x " + peer_name : "");
  for (const Row& r : rows) {
    const double mpx = r.pixels / (r.ms * 1e3);
    const double gbps = r.bytes / (r.ms * 1e6);
    std::string pct = copy_gbps > 0 && r.bytes > 0 ? fmt::format("{:.1f}", 100.0 * gbps / copy_gbps) : "-";
    std::string ratio = peer && r.pixels > 0 ? fmt::format("{:.2f}", peer->ms / r.ms) : "";
    std::string name = r.note.empty() ? r.name : r.name + " (" + r.note + ")";
    fmt::print("{:<24} {:>9.4f} {:>12.0f} {:>9.1f} {:>9.1f} {:>8} {:>8}\n", name, r.ms, mpx, mpx / 1e3, gbps, pct, ratio);
  }
  if (copy_gbps > 0) fmt::print("device-to-device copy: {:.1f} GB/s (read + write), measured in this run\n", copy_gbps);
}

std::string describe_device(const GpuStatus& gpu) {
  if (!gpu.usable) return "no GPU (" + gpu.reason + ")";
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return fmt::format("{} ({} SMs, cc {}.{}), CUDA runtime {}.{}, driver API {}.{}", gpu.name, gpu.sm_count, gpu.cc_major,
                     gpu.cc_minor, runtime / 1000, (runtime % 1000) / 10, driver / 1000, (driver % 1000) / 10);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::localtime(&t));
  return buf;
}

std::vector<std::string> rungs_to_time(const Options& o, std::string_view op, std::span<const RungInfo> rungs) {
  if (!o.variant.empty()) {
    check_rung_name(op, rungs, o.variant);
    return {o.variant};
  }
  if (!o.ladder) return {""};
  std::vector<std::string> names;
  for (const RungInfo& r : rungs) names.emplace_back(r.name);
  return names;
}

Row rung_row(const std::string& asked, const std::string& ran, const std::string& default_ran, double ms, double pixels,
             double bytes) {
  std::string note = ran == default_ran ? "default" : "";
  if (!asked.empty() && asked != ran) note += (note.empty() ? "" : "; ") + ("asked " + asked + ": does not apply");
  return {ran, note, ms, pixels, bytes};
}

}  // namespace wk::bench
