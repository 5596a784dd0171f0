// bcrypt on the GPU: one thread per password, the EksBlowfish loop split into bounded launches.
//
// bcrypt is bound by S-box lookups: 4 data-dependent reads per Feistel round, 2^cost * 1042
// encryptions of 16 rounds each, on 4 KB of S-boxes per password. The S-boxes cannot live in
// registers; the rungs differ in where they live:
//   reference  thread-private local memory (the host code unchanged; L1/L2 traffic)
//   shared     shared memory, word w of thread t at w * 8 + t in a block of 8 threads: any 8
//              lanes reading any words hit 8 different banks, so no lookup ever conflicts.
//              32 KB per block: 6 blocks (48 passwords) per SM on the H100.
//   shared16   the same with blocks of 16 threads (64 KB): 3 blocks per SM.
//   shared_bytes  `shared` with every lookup addressed as a byte offset from one per-thread
//              base register: extract the byte, one multiply-add, LDS with the box as an
//              immediate offset. The word-index form cost 4 integer instructions before each LDS.
//   packed     byte offsets in blocks of 14 threads (56 KB): 4 blocks fill the 228 KB of an H100
//              SM, 56 passwords instead of 48, bytes extracted by PRMT. Stride 14 words means
//              two lanes can meet in a bank (a few cycles of replay), which costs far less than
//              the latency the 8 more passwords hide.
// The kernels are bound by the latency of the dependent chain extract -> address -> LDS ->
// add/xor -> next extract (measured ~75 cycles per Feistel round per warp with the word-index
// form), not by shared-memory bandwidth: more passwords per SM and a shorter chain are the levers.
// P (18 words), the expanded key (18) and the salt (4) stay in registers: the Feistel rounds
// are unrolled so every P index is a constant.
#include <cuda_runtime.h>

#include <cstdint>

#include "bcrypt_launch.hpp"
#include "hash/hd/bcrypt.hpp"
#include "hash/hd/crypt_base64.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"

namespace wk::hash::gpu::detail {

namespace {

// S-boxes interleaved across the T threads of a block (see above).
template <int T>
struct InterleavedSBoxes {
  std::uint32_t* base;  // smem + threadIdx.x
  __device__ __forceinline__ std::uint32_t get(int box, std::uint32_t i) const { return base[(256 * box + i) * T]; }
  __device__ __forceinline__ std::uint32_t& at(int k) const { return base[k * T]; }
};

// The same interleave addressed in bytes from a per-thread base (smem + threadIdx.x): a lookup is
// base + i * 4T + box * 1024T, so the compiler emits one multiply-add per lookup and puts the box
// offset into the load's immediate. With Prmt, F extracts its bytes with one PRMT each.
template <int T, bool Prmt>
struct ByteOffsetSBoxes {
  char* base;
  static constexpr std::uint32_t kStride = 4 * T;  // bytes between consecutive words of a column
  __device__ __forceinline__ std::uint32_t get(int box, std::uint32_t i) const {
    return *reinterpret_cast<const std::uint32_t*>(base + std::uint32_t(256 * box) * kStride + i * kStride);
  }
  __device__ __forceinline__ std::uint32_t& at(int k) const { return *reinterpret_cast<std::uint32_t*>(base + k * kStride); }
  __device__ __forceinline__ static std::uint32_t byte_of(std::uint32_t x, std::uint32_t selector) {
    std::uint32_t r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "r"(selector));
    return r;
  }
  // Only with Prmt; otherwise blowfish::feistel's shifts and masks apply.
  __device__ __forceinline__ std::uint32_t feistel(std::uint32_t x) const
    requires Prmt
  {
    return ((get(0, byte_of(x, 0x4443)) + get(1, byte_of(x, 0x4442))) ^ get(2, byte_of(x, 0x4441))) +
           get(3, byte_of(x, 0x4440));
  }
};

constexpr int kP = blowfish::kPWords;

template <class SB>
__device__ void bcrypt_body(const BcryptBatch& b, int g, const SB& S, std::uint64_t it0, std::uint64_t count) {
  const std::uint64_t total = std::uint64_t(1) << b.cost[g];
  if (it0 >= total) return;  // finished in an earlier launch
  std::uint32_t P[kP], K[kP], salt[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) salt[k] = b.salt[k * b.n + g];
  std::uint32_t* st = b.state;
  const std::size_t n = std::size_t(b.n);
  if (it0 == 0) {
    hd::bcrypt_set_key(b.pw + std::size_t(g) * kBcryptKeySlot, b.pl[g], b.flags[g], K, P);
    blowfish::load_initial_sboxes(S);
    hd::bcrypt_setup_state(P, S, salt);
  } else {
#pragma unroll
    for (int k = 0; k < kP; ++k) {
      P[k] = st[k * n + g];
      K[k] = st[(kP + k) * n + g];
    }
    for (int k = 0; k < blowfish::kSWords; ++k) S.at(k) = st[(2 * kP + k) * n + g];
  }
  const std::uint64_t todo = count < total - it0 ? count : total - it0;
  hd::bcrypt_iterations(P, S, K, salt, todo);
  if (it0 + todo == total) {
    std::uint32_t words[6];
    hd::bcrypt_finish(P, S, words);
    std::uint8_t bytes[24];
    for (int i = 0; i < 24; ++i) bytes[i] = std::uint8_t(words[i >> 2] >> (24 - 8 * (i & 3)));
    hd::bcrypt_b64_encode(b.out + std::size_t(g) * b.out_stride, bytes, 23);
  } else {
#pragma unroll
    for (int k = 0; k < kP; ++k) {
      st[k * n + g] = P[k];
      st[(kP + k) * n + g] = K[k];
    }
    for (int k = 0; k < blowfish::kSWords; ++k) st[(2 * kP + k) * n + g] = S.at(k);
  }
}

__global__ void __launch_bounds__(64) bcrypt_reference_kernel(BcryptBatch b, std::uint64_t it0, std::uint64_t count) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= b.n) return;
  std::uint32_t sboxes[blowfish::kSWords];
  bcrypt_body(b, g, blowfish::LinearSBoxes{sboxes}, it0, count);
}

// Layout 0: word index (InterleavedSBoxes); 1: byte offsets; 2: byte offsets with PRMT.
template <int T, int Layout>
__global__ void __launch_bounds__(T) bcrypt_shared_kernel(BcryptBatch b, std::uint64_t it0, std::uint64_t count) {
  extern __shared__ std::uint32_t smem[];
  const int g = blockIdx.x * T + threadIdx.x;
  if (g >= b.n) return;  // each thread touches only its own column: no barrier anywhere
  if constexpr (Layout == 0) bcrypt_body(b, g, InterleavedSBoxes<T>{smem + threadIdx.x}, it0, count);
  else bcrypt_body(b, g, ByteOffsetSBoxes<T, Layout == 2>{reinterpret_cast<char*>(smem + threadIdx.x)}, it0, count);
}

template <int T, int Layout>
void launch_shared(const BcryptBatch& b, std::uint64_t it0, std::uint64_t count, cudaStream_t stream) {
  constexpr int smem = T * blowfish::kSWords * 4;
  // Set before every launch (cheap next to a launch of ~2^22 password-iterations): attributes
  // are per device, and several threads may launch at once.
  WK_CUDA_CHECK(cudaFuncSetAttribute(bcrypt_shared_kernel<T, Layout>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  // All of the unified L1/shared storage as shared memory: the S-boxes are the working set.
  WK_CUDA_CHECK(cudaFuncSetAttribute(bcrypt_shared_kernel<T, Layout>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
  bcrypt_shared_kernel<T, Layout><<<(b.n + T - 1) / T, T, smem, stream>>>(b, it0, count);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void bcrypt_launch(BcryptKernel kernel, const BcryptBatch& b, std::uint64_t it0, std::uint64_t count, cudaStream_t stream) {
  if (b.n <= 0) return;
  switch (kernel) {
    case BcryptKernel::reference:
      bcrypt_reference_kernel<<<(b.n + 63) / 64, 64, 0, stream>>>(b, it0, count);
      WK_CUDA_CHECK_LAUNCH();
      return;
    case BcryptKernel::shared: return launch_shared<8, 0>(b, it0, count, stream);
    case BcryptKernel::shared16: return launch_shared<16, 0>(b, it0, count, stream);
    case BcryptKernel::shared_bytes: return launch_shared<8, 1>(b, it0, count, stream);
    case BcryptKernel::packed: return launch_shared<14, 2>(b, it0, count, stream);
  }
  throw Error(ErrorCategory::internal, "bcrypt: unknown kernel");
}

}  // namespace wk::hash::gpu::detail
