#pragma once
// Shared by the libFuzzer targets in tests/fuzz: a failed invariant aborts with a message (so
// libFuzzer saves the input as a crash), and scratch files live in one private folder per process.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>

#include "wk/cipher/idea.hpp"

namespace wk::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A scratch folder of this process (tmpfs when there is one, for speed), removed at exit.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    std::filesystem::path d = base / ("wk-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] { std::error_code ec; std::filesystem::remove_all(scratch_dir(), ec); });
    return d;
  }();
  return dir;
}

inline void write_bytes(const std::filesystem::path& p, std::span<const std::uint8_t> bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) fail("cannot write scratch file " + p.string());
}

// The IDEA targets' executor: the CPU path on one thread (no CUDA call).
inline cipher::IdeaExecutor& idea_cpu_executor() {
  static cipher::IdeaExecutor ex([] {
    cipher::IdeaExecution e;
    e.backend = Backend::cpu;
    e.cpu_threads = 1;
    return e;
  }());
  return ex;
}

}  // namespace wk::fuzz
