// sha512crypt on the GPU: the round engine's kernels (hash/gpu/shacrypt_kernels.cuh) instantiated
// for SHA-512, one block kernel per entry of hd::BlockConfigs<hd::Sha512Traits>
// (hash/hd/block_rounds.hpp).
#include "hash/gpu/shacrypt_kernels.cuh"
#include "sha512crypt_gpu.hpp"

// Minimum resident blocks per SM of the block kernels (__launch_bounds__), measured on the H100
// (docs/apod/hash.md): the one-block kernel took 209 registers when left alone (2 blocks of 128
// threads per SM); capped at 168 (3 blocks) it spilled ~140 bytes to L1 and ran 8 % faster; 4 or
// 5 blocks were 1-4 % slower. The macro exists for that experiment.
#ifndef WK_SHA512_MIN_BLOCKS
#define WK_SHA512_MIN_BLOCKS 3
#endif

namespace wk::hash::gpu::detail {

namespace {
// sha512crypt as the round engine sees it: the rounds hash the P and S sequences of the set-up.
struct Sha512cryptRounds {
  using H = hd::Sha512Traits;
  static constexpr int kHashChars = hd::kSha512cryptHashChars;
  static constexpr int kMinBlocks = WK_SHA512_MIN_BLOCKS;
  static constexpr bool kDerivedSequences = true;
  WK_HD static void setup(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                          std::uint8_t* c, std::uint8_t* pseq, std::uint8_t* sseq) {
    hd::shacrypt_setup<H>(pw, pl, salt, sl, c, pseq, sseq);
  }
  WK_HD static void encode(const std::uint8_t* c, char* out) { hd::encode_sha512crypt(c, out); }
};
}  // namespace

const ShaKernels& sha512crypt_kernels() { return make_kernels<Sha512cryptRounds>(); }

}  // namespace wk::hash::gpu::detail
