// sha512crypt on the GPU: the round kernels of shacrypt_kernels.cuh instantiated for its digest, one
// block kernel per entry of hd::BlockConfigs<hd::Sha512Traits> (hash/hd/block_rounds.hpp).
#include "shacrypt_kernels.cuh"

namespace wk::hash::gpu::detail {

const ShaKernels& sha512crypt_kernels() { return make_kernels<hd::Sha512Traits>(hd::kSha512cryptHashChars); }

}  // namespace wk::hash::gpu::detail
