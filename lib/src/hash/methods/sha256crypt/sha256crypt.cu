// sha256crypt on the GPU: the round engine's kernels (hash/gpu/shacrypt_kernels.cuh) instantiated
// for SHA-256, one block kernel per entry of hd::BlockConfigs<hd::Sha256Traits>
// (hash/hd/block_rounds.hpp).
#include "hash/gpu/shacrypt_kernels.cuh"
#include "sha256crypt_gpu.hpp"

// Minimum resident blocks per SM of the block kernels (__launch_bounds__): sha256crypt is best
// left alone (1; docs/apod/hash.md). The macro exists for the experiment that measured it.
#ifndef WK_SHA256_MIN_BLOCKS
#define WK_SHA256_MIN_BLOCKS 1
#endif

namespace wk::hash::gpu::detail {

namespace {
// sha256crypt as the round engine sees it: the rounds hash the P and S sequences of the set-up.
struct Sha256cryptRounds {
  using H = hd::Sha256Traits;
  static constexpr int kHashChars = hd::kSha256cryptHashChars;
  static constexpr int kMinBlocks = WK_SHA256_MIN_BLOCKS;
  static constexpr bool kDerivedSequences = true;
  WK_HD static void setup(const std::uint8_t* pw, std::uint32_t pl, const std::uint8_t* salt, std::uint32_t sl,
                          std::uint8_t* c, std::uint8_t* pseq, std::uint8_t* sseq) {
    hd::shacrypt_setup<H>(pw, pl, salt, sl, c, pseq, sseq);
  }
  WK_HD static void encode(const std::uint8_t* c, char* out) { hd::encode_sha256crypt(c, out); }
};
}  // namespace

const ShaKernels& sha256crypt_kernels() { return make_kernels<Sha256cryptRounds>(); }

}  // namespace wk::hash::gpu::detail
