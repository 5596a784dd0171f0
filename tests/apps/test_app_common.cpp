// What every app shares (apps/common): the process settings made first thing in main.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "app_common.hpp"
#include "test_support.hpp"

TEST_CASE("widen_gpu_work_queues: 12 CUDA work queues unless the user chose", "[app]") {
  wk::test::ScopedEnv queues("CUDA_DEVICE_MAX_CONNECTIONS");
  SECTION("unset: set to 12") {
    queues.unset();
    wk::app::widen_gpu_work_queues();
    const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    REQUIRE(v != nullptr);
    CHECK(std::string(v) == "12");
    CHECK(std::string(v) == wk::app::kGpuWorkQueues);
  }
  SECTION("set: kept, even when empty") {
    for (const char* mine : {"4", "32", ""}) {
      queues.set(mine);
      wk::app::widen_gpu_work_queues();
      CHECK(std::string(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) == mine);
    }
  }
}
