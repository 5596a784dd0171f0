// What every app shares (apps/common): the process settings made first thing in main.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <optional>
#include <string>

#include "app_common.hpp"

namespace {
// Restores one environment variable when the test ends, whatever it did.
class SavedVariable {
 public:
  explicit SavedVariable(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) value_ = v;
  }
  ~SavedVariable() {
    if (value_) ::setenv(name_, value_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> value_;
};
}  // namespace

TEST_CASE("widen_gpu_work_queues: 12 CUDA work queues unless the user chose", "[app]") {
  SavedVariable saved("CUDA_DEVICE_MAX_CONNECTIONS");
  SECTION("unset: set to 12") {
    ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    wk::app::widen_gpu_work_queues();
    const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    REQUIRE(v != nullptr);
    CHECK(std::string(v) == "12");
    CHECK(std::string(v) == wk::app::kGpuWorkQueues);
  }
  SECTION("set: kept, even when empty") {
    for (const char* mine : {"4", "32", ""}) {
      ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", mine, 1);
      wk::app::widen_gpu_work_queues();
      CHECK(std::string(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) == mine);
    }
  }
}
