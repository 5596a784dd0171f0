// md5crypt on the GPU: the round kernels of shacrypt_kernels.cuh instantiated for its digest, one
// block kernel per entry of hd::BlockConfigs<hd::Md5Traits> (hash/hd/block_rounds.hpp).
#include "shacrypt_kernels.cuh"

namespace wk::hash::gpu::detail {

const ShaKernels& md5crypt_kernels() { return make_kernels<hd::Md5Traits>(hd::kMd5cryptHashChars); }

}  // namespace wk::hash::gpu::detail
