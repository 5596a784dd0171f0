#pragma once
// yescrypt's and scrypt's device batch (yescrypt_batch.cpp), for the modules' GpuMethod.
#include <memory>

namespace wk::hash::gpu {
class MethodBatch;
struct BatchCore;
std::unique_ptr<MethodBatch> make_yescrypt_batch(BatchCore& core);
}  // namespace wk::hash::gpu
