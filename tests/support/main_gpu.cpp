// GPU tests: skip cleanly (exit 77, ctest's SKIP_RETURN_CODE) when no GPU is usable, so a CPU
// machine reports them as skipped, never as passed; WK_TEST_MIN_GPUS=N also skips them on a
// machine with fewer than N GPUs (the multi-GPU ctest).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "wk/core/backend.hpp"

int main(int argc, char** argv) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  const auto& cfg = session.configData();
  const bool listing = cfg.listTests || cfg.listTestNamesOnly || cfg.listTags || cfg.listReporters;
  if (!listing) {
    const wk::GpuStatus gpu = wk::probe_gpu();
    if (!gpu.usable) {
      std::printf("SKIPPED: no usable CUDA GPU (%s)\n", gpu.reason.c_str());
      return 77;
    }
    if (const char* need = std::getenv("WK_TEST_MIN_GPUS"); need && gpu.device_count < std::atoi(need)) {
      std::printf("SKIPPED: %d CUDA GPU(s); these tests need %s\n", gpu.device_count, need);
      return 77;
    }
  }
  return session.run();
}
