// Temporary: replaced by the CUDA runner.
#include "gpu_runner.hpp"
#include "wk/core/error.hpp"
namespace wk::hash::gpu {
struct Runner::Impl {};
Runner::Runner() { throw Error(ErrorCategory::unsupported, "GPU crypt not built yet"); }
Runner::~Runner() = default;
void Runner::run(std::span<const PreparedJob>, std::span<std::string>, const std::function<void(std::size_t)>&) {}
}  // namespace wk::hash::gpu
