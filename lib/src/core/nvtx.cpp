#include "wk/core/nvtx.hpp"

#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

namespace wk::nvtx {

namespace {
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t d = nvtxDomainCreateA("warpkit");
  return d;
}

// WK_TRACE=1: every range also prints its duration on standard error when it ends, for machines
// where no Nsight Systems report can be written (docs/profiling.md).
using Clock = std::chrono::steady_clock;
const bool kTrace = [] {
  const char* e = std::getenv("WK_TRACE");
  return e && *e && *e != '0';
}();
const Clock::time_point kStart = Clock::now();

struct Open {
  const char* name;
  std::int64_t payload;
  Clock::time_point start;
};
thread_local std::vector<Open> open_ranges;

double ms_since(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}
}  // namespace

void push(const char* name, Color color, std::int64_t payload) {
  nvtxEventAttributes_t attr{};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.colorType = NVTX_COLOR_ARGB;
  attr.color = static_cast<std::uint32_t>(color);
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = name;
  if (payload >= 0) {
    attr.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attr.payload.llValue = payload;
  }
  nvtxDomainRangePushEx(domain(), &attr);
  if (kTrace) open_ranges.push_back({name, payload, Clock::now()});
}

void pop() {
  nvtxDomainRangePop(domain());
  if (!kTrace || open_ranges.empty()) return;
  const Open r = open_ranges.back();
  open_ranges.pop_back();
  const Clock::time_point now = Clock::now();
  const std::size_t tid = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 1000;
  // One fprintf per line: lines from different threads do not interleave.
  if (r.payload >= 0)
    std::fprintf(stderr, "wk-trace %9.3f ms  t%03zu %*s%s [%lld] %.3f ms\n", ms_since(kStart, r.start), tid,
                 int(2 * open_ranges.size()), "", r.name, static_cast<long long>(r.payload), ms_since(r.start, now));
  else
    std::fprintf(stderr, "wk-trace %9.3f ms  t%03zu %*s%s %.3f ms\n", ms_since(kStart, r.start), tid,
                 int(2 * open_ranges.size()), "", r.name, ms_since(r.start, now));
}

}  // namespace wk::nvtx
