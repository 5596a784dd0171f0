#include <cuda_runtime_api.h>

#include <map>

#include "wk/core/buffer.hpp"
#include "wk/core/cuda_check.hpp"

namespace wk {

namespace {
// This thread's blocking-sync events, one per device (an event belongs to its device's context).
struct ThreadEvents {
  std::map<int, cudaEvent_t> by_device;
  ~ThreadEvents() {
    for (auto& [device, event] : by_device) cudaEventDestroy(event);
  }
};
}  // namespace

void wait_sleeping(cudaStream_t stream) {
  thread_local ThreadEvents events;
  int device = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  cudaEvent_t& event = events.by_device[device];
  if (!event) WK_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventBlockingSync | cudaEventDisableTiming));
  WK_CUDA_CHECK(cudaEventRecord(event, stream));
  WK_CUDA_CHECK(cudaEventSynchronize(event));
}

}  // namespace wk
