// sha256crypt on the GPU: the round kernels of shacrypt_kernels.cuh instantiated for its digest, one
// block kernel per entry of hd::BlockConfigs<hd::Sha256Traits> (hash/hd/block_rounds.hpp).
#include "shacrypt_kernels.cuh"

namespace wk::hash::gpu::detail {

const ShaKernels& sha256crypt_kernels() { return make_kernels<hd::Sha256Traits>(hd::kSha256cryptHashChars); }

}  // namespace wk::hash::gpu::detail
