// md5crypt on the GPU: the round engine's kernels (hash/gpu/shacrypt_kernels.cuh) instantiated for
// MD5, one block kernel per entry of hd::BlockConfigs<hd::Md5Traits> (hash/hd/block_rounds.hpp).
#include "hash/gpu/shacrypt_kernels.cuh"
#include "md5crypt_gpu.hpp"

// Minimum resident blocks per SM of the block kernels (__launch_bounds__), measured on the H100
// (docs/apod/hash.md): the shared-template kernels took 122-168 registers (4 blocks); at 6 blocks
// (80 registers) md5crypt ran 4-9 % faster; 5 and 7 blocks measure within 1 % of 6. The macro
// exists for that experiment.
#ifndef WK_MD5_MIN_BLOCKS
#define WK_MD5_MIN_BLOCKS 6
#endif

namespace wk::hash::gpu::detail {

namespace {
// md5crypt as the round engine sees it: the rounds hash the password and salt themselves.
struct Md5cryptRounds {
  using H = hd::Md5Traits;
  static constexpr int kHashChars = hd::kMd5cryptHashChars;
  static constexpr int kMinBlocks = WK_MD5_MIN_BLOCKS;
  static constexpr bool kDerivedSequences = false;
  WK_HD static void setup(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                          std::uint8_t* c, std::uint8_t*, std::uint8_t*) {
    hd::md5crypt_setup(pw, pl, salt, sl, c);
  }
  WK_HD static void encode(const std::uint8_t* c, char* out) { hd::encode_md5crypt(c, out); }
};
}  // namespace

const ShaKernels& md5crypt_kernels() { return make_kernels<Md5cryptRounds>(); }

}  // namespace wk::hash::gpu::detail
