#pragma once
// Shared pieces of wk-bench: GPU timing with CUDA events (median of repeats), the device copy
// roofline measured in the same run, and the book-style table.
#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/backend.hpp"
#include "wk/core/image_view.hpp"
#include "wk/core/rung.hpp"

namespace wk::bench {

struct Options {
  bool ladder = false;
  int width = 8192, height = 8192;
  int repeats = 20;
  std::string variant;  // empty: every rung with --ladder, else the default one
  std::string device = "auto";
};

// "WxH" -> width, height; throws wk::Error{usage}.
void parse_size(const std::string& text, int& width, int& height);

// Median milliseconds of `repeats` timed calls of `launch` on `stream`, after 3 warm-ups.
double time_gpu_ms(cudaStream_t stream, int repeats, const std::function<void()>& launch);
// Median milliseconds of `repeats` calls of a host function, after 1 warm-up.
double time_cpu_ms(int repeats, const std::function<void()>& fn);

// Device-to-device cudaMemcpyAsync of `bytes`: returns GB/s counting bytes read plus written.
double copy_bandwidth_gbps(std::size_t bytes, cudaStream_t stream, int repeats);

// Reads `bytes` at d_src (16-byte aligned) once with 128-bit loads and nothing else: the read
// roofline of a one-pass kernel, timed like a rung. d_sink: one device word, written (almost) never.
void read_only_pass(const void* d_src, std::size_t bytes, unsigned* d_sink, cudaStream_t stream);
// d_dst = d_src widened to 16 bits (1-channel), no arithmetic: the traffic of a u8 -> s16 filter.
void widen_pass(ConstImageView d_src, std::int16_t* d_dst, std::size_t dst_pitch, cudaStream_t stream);

struct Row {
  std::string name;
  std::string note;   // "", "peer", "roofline", "default", ...
  double ms = 0;
  double pixels = 0;  // per call
  double bytes = 0;   // moved per call (read + written)
};

// Prints the table: rung, ms, Mpx/s, Gpx/s, GB/s, % of copy bandwidth, ratio to `peer_name`.
void print_table(const std::string& title, const std::vector<Row>& rows, double copy_gbps, const std::string& peer_name);

// After a table with a "default" and a "roofline" row: the default rung's speed as a share of the
// roofline's, against `target_pct` (e.g. "default rung: 91.2 % of the read-only pass (target >= 95 %: not met)").
void print_roofline_share(const std::vector<Row>& rows, const std::string& roofline, double target_pct);

// "NVIDIA H100 80GB HBM3 (132 SMs), CUDA 13.0, driver 580.x, 2026-11-22"
std::string describe_device(const GpuStatus& gpu);
std::string today();

// The rungs a bench times, as the names to ask the op for: "" (the default) alone, every rung of
// `rungs` with --ladder, or the one --variant names (an unknown name is a usage error that lists
// the choices).
std::vector<std::string> rungs_to_time(const Options& o, std::string_view op, std::span<const RungInfo> rungs);

// The row of a timed rung: named after the rung that ran (`ran`), noted "default" when it is the
// one the default runs, and naming the rung asked for when that one did not apply.
Row rung_row(const std::string& asked, const std::string& ran, const std::string& default_ran, double ms, double pixels,
             double bytes);

}  // namespace wk::bench
