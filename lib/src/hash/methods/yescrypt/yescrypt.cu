// yescrypt and scrypt on the GPU (rungs: hash/crypt_gpu.hpp; ladder: docs/apod/yescrypt.md).
//
// Both kernels are persistent: `slots` hashes are in flight, each with its own slice of global
// scratch (V: 128 * r * N bytes, 16 MiB at yescrypt's default cost), and a hash that finishes
// takes the next job of the batch from a counter. Memory, not threads, bounds the hashes in
// flight: the batch sizes `slots` from the device's free memory.
//
//   reference  one thread per hash running the host code (hash/hd/yescrypt.hpp) on global memory:
//              every parameter, classic scrypt included.
//   lanes      yescrypt's RW mode with p = 1 (every $y$ string libxcrypt generates) on 4 threads
//              per hash, one per pwxform gather lane. pwxform's lanes are independent within a
//              64-byte block, so lane j owns words 4j..4j+3 of every sub-block: its column of X
//              and of V (16 bytes, one vector load or store). The S-boxes (12 KiB) and X (128 r
//              bytes) live in shared memory; S2's writes reach the other lanes through a
//              __syncwarp after every pwxform block (the next block reads them as S0). The
//              Salsa20/2 that ends each BlockMix, PBKDF2 and the S-box set-up (SMix1 with r = 1)
//              run on lane 0: a few percent of the work.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "hash/hd/yescrypt.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "yescrypt_launch.hpp"

namespace wk::hash::gpu::detail {

namespace {

namespace hy = hd::yescrypt;

__device__ hy::Params params_of(const YescryptJob& j) {
  hy::Params P;
  P.flags = j.flags;
  P.N = std::uint64_t(1) << j.n_log2;
  P.r = j.r;
  P.p = j.p;
  P.t = j.t;
  return P;
}

__device__ void encode_out(const YescryptBatch& b, unsigned job, const std::uint8_t dk[32]) {
  char chars[hy::kHashChars + 1];
  hy::encode64(chars, dk, 32);
  char* out = b.out + std::size_t(job) * b.out_stride;
  for (int k = 0; k < hy::kHashChars; ++k) out[k] = chars[k];
}

// ---- reference ----------------------------------------------------------------------------------

__global__ void __launch_bounds__(32) yescrypt_reference_kernel(YescryptBatch b) {
  const int slot = blockIdx.x * blockDim.x + threadIdx.x;
  if (slot >= b.slots) return;
  std::uint32_t* base = b.scratch + std::size_t(slot) * b.slot.total();
  hy::Scratch m;
  m.V = base;
  m.B = m.V + b.slot.V;
  m.XY = m.B + b.slot.B;
  m.S = m.XY + b.slot.XY;
  m.pwx = reinterpret_cast<hy::Pwx*>(m.S + b.slot.S);
  for (unsigned job = atomicAdd(b.next, 1u); job < unsigned(b.n); job = atomicAdd(b.next, 1u)) {
    const YescryptJob j = b.jobs[job];
    std::uint8_t dk[32];
    hy::kdf(b.bytes + j.pw_off, j.pw_len, b.bytes + j.salt_off, j.salt_len, params_of(j), m, dk);
    encode_out(b, job, dk);
  }
}

// ---- lanes --------------------------------------------------------------------------------------

constexpr int kLanesHashes = 7;  // hashes per block: 7 x 16 KiB of shared memory fill an SM twice

// One hash's view on 4 lanes: its shared S-boxes and block, the lane, the mask of its lanes.
struct Quad {
  std::uint32_t* S;  // hy::kSWords
  std::uint32_t* X;  // 32 * r words, shuffled order
  int lane;          // 0..3: pwxform's gather lane
  unsigned mask;     // the 4 threads of this hash
  std::uint32_t r;
  // the pwxform state, the same in all 4 lanes
  std::uint32_t s0, s1, s2, w;

  __device__ uint4& col(std::uint32_t* base, std::uint32_t sub) const {
    return *reinterpret_cast<uint4*>(base + sub * 16 + lane * 4);
  }
  __device__ std::uint64_t integerify() const { return hy::integerify(X, r); }

  // pwxform of this lane's 16 bytes of a 64-byte block.
  __device__ void pwxform(uint4& x) {
    const std::uint32_t* S0 = S + s0;
    const std::uint32_t* S1 = S + s1;
    std::uint32_t* S2 = S + s2;
#pragma unroll
    for (int i = 0; i < hy::kPwxRounds; ++i) {
      const uint4 a = *reinterpret_cast<const uint4*>(S0 + (x.x & hy::kSMask) / 4);
      const uint4 c = *reinterpret_cast<const uint4*>(S1 + (x.y & hy::kSMask) / 4);
      std::uint64_t v0 = std::uint64_t(x.y) * x.x + (std::uint64_t(a.y) << 32 | a.x);
      std::uint64_t v1 = std::uint64_t(x.w) * x.z + (std::uint64_t(a.w) << 32 | a.z);
      v0 ^= std::uint64_t(c.y) << 32 | c.x;
      v1 ^= std::uint64_t(c.w) << 32 | c.z;
      x = make_uint4(std::uint32_t(v0), std::uint32_t(v0 >> 32), std::uint32_t(v1), std::uint32_t(v1 >> 32));
      if (i != 0 && i != hy::kPwxRounds - 1)
        *reinterpret_cast<uint4*>(S2 + 2 * (w + (i - 1) * 8 + lane * 2)) = x;
    }
    const std::uint32_t old0 = s0;
    s0 = s2;
    s2 = s1;
    s1 = old0;
    w = (w + 32) & hy::kSWriteMask;  // 4 rounds x 4 lanes x 2 words
  }

  __device__ void blockmix() {
    const std::uint32_t blocks = 2 * r;
    uint4 x = col(X, blocks - 1);
    for (std::uint32_t i = 0; i < blocks; ++i) {
      uint4& xi = col(X, i);
      if (blocks > 1) {
        const uint4 y = xi;
        x.x ^= y.x, x.y ^= y.y, x.z ^= y.z, x.w ^= y.w;
      }
      pwxform(x);
      xi = x;
      __syncwarp(mask);  // this block's S2 is the next one's S0
    }
    if (lane == 0) hy::salsa20(X + (blocks - 1) * 16, 2);
    __syncwarp(mask);
  }

  // SMix1 of the RW mode: V_i = X, X ^= V_wrap(i) for i > 1, X = BlockMix(X).
  __device__ void smix1(std::uint32_t* V, std::uint64_t N) {
    const std::size_t s = 32 * std::size_t(r);
    for (std::uint64_t i = 0; i < N; ++i) {
      std::uint32_t* Vi = V + i * s;
      const std::uint32_t* Vj = i > 1 ? V + hy::wrap(integerify(), i) * s : nullptr;
#pragma unroll 8
      for (std::uint32_t k = 0; k < 2 * r; ++k) {
        uint4 v = col(X, k);
        col(Vi, k) = v;
        if (Vj) {
          const uint4 y = *reinterpret_cast<const uint4*>(Vj + k * 16 + lane * 4);
          v.x ^= y.x, v.y ^= y.y, v.z ^= y.z, v.w ^= y.w;
          col(X, k) = v;
        }
      }
      __syncwarp(mask);
      blockmix();
    }
  }

  // SMix2: `loops` steps of X ^= V_j (and V_j = X when `write`), X = BlockMix(X).
  __device__ void smix2(std::uint32_t* V, std::uint64_t N, std::uint64_t loops, bool write) {
    const std::size_t s = 32 * std::size_t(r);
    for (std::uint64_t i = 0; i < loops; ++i) {
      std::uint32_t* Vj = V + (integerify() & (N - 1)) * s;
#pragma unroll 8
      for (std::uint32_t k = 0; k < 2 * r; ++k) {
        uint4 v = col(X, k);
        const uint4 y = col(Vj, k);
        v.x ^= y.x, v.y ^= y.y, v.z ^= y.z, v.w ^= y.w;
        col(X, k) = v;
        if (write) col(Vj, k) = v;
      }
      __syncwarp(mask);
      blockmix();
    }
  }
};

// yescrypt_kdf_body in RW mode with p = 1 (hy::kdf_body's steps), on the 4 lanes of `q`.
__device__ void lanes_kdf_body(Quad& q, const std::uint8_t* passwd, std::size_t passwd_len, const std::uint8_t* salt,
                               std::size_t salt_len, std::uint64_t N, std::uint32_t t, std::uint32_t flags,
                               const hy::Scratch& m, std::uint8_t out[32]) {
  const std::uint32_t r = q.r;
  const std::size_t s = 32 * std::size_t(r);
  auto* B = reinterpret_cast<std::uint8_t*>(m.B);
  std::uint8_t pw[32];
  if (q.lane == 0) {
    const char* key = "yescrypt-prehash";
    hy::hmac_sha256(reinterpret_cast<const std::uint8_t*>(key), (flags & hy::kPrehash) ? 16 : 8, passwd, passwd_len, pw);
    hy::pbkdf2_sha256(pw, 32, salt, salt_len, B, 128 * std::size_t(r));
    for (int k = 0; k < 32; ++k) pw[k] = B[k];
    // the S-boxes: SMix1 with r = 1 of B's first 128 bytes over 96 blocks, no flags
    hy::smix1(m.B, 1, hy::kSWords / 32, 0, q.S, m.XY, nullptr);
    std::uint8_t h[32];
    hy::hmac_sha256(B + 4 * (s - 16), 64, pw, 32, h);
    for (int k = 0; k < 32; ++k) pw[k] = h[k];
  }
  __syncwarp(q.mask);
  q.s2 = 0;
  q.s1 = hy::kSBoxWords;
  q.s0 = 2 * hy::kSBoxWords;
  q.w = 0;
  // X = B in shuffled order, each lane its columns
  for (std::uint32_t k = 0; k < 2 * r; ++k)
    for (int i = 4 * q.lane; i < 4 * q.lane + 4; ++i) q.X[k * 16 + i] = m.B[k * 16 + i * 5 % 16];
  __syncwarp(q.mask);
  const hy::Loops loops = hy::smix_loops(N, 1, t, flags);
  q.smix1(m.V, N);
  q.smix2(m.V, N, loops.rw, true);
  q.smix2(m.V, N, loops.all - loops.rw, false);
  for (std::uint32_t k = 0; k < 2 * r; ++k)
    for (int i = 4 * q.lane; i < 4 * q.lane + 4; ++i) m.B[k * 16 + i * 5 % 16] = q.X[k * 16 + i];
  __syncwarp(q.mask);
  if (q.lane == 0) {
    hy::pbkdf2_sha256(pw, 32, B, 128 * std::size_t(r), out, 32);
    if (!(flags & hy::kPrehash)) {
      std::uint8_t client[32];
      const char* label = "Client Key";
      hy::hmac_sha256(out, 32, reinterpret_cast<const std::uint8_t*>(label), 10, client);
      sha256::Context c;
      c.reset();
      c.update(client, 32);
      c.final(out);
    }
  }
  __syncwarp(q.mask);
}

__global__ void __launch_bounds__(kLanesHashes * 4) yescrypt_lanes_kernel(YescryptBatch b, std::uint32_t max_r) {
  extern __shared__ uint4 smem4[];
  const int h = threadIdx.x / 4;
  const int slot = blockIdx.x * kLanesHashes + h;
  if (slot >= b.slots) return;  // whole quads leave together
  auto* smem = reinterpret_cast<std::uint32_t*>(smem4);
  Quad q;
  q.S = smem + std::size_t(h) * (hy::kSWords + 32 * max_r);
  q.X = q.S + hy::kSWords;
  q.lane = threadIdx.x % 4;
  q.mask = 0xfu << (threadIdx.x % 32 / 4 * 4);
  std::uint32_t* base = b.scratch + std::size_t(slot) * b.slot.total();
  hy::Scratch m{};
  m.V = base;
  m.B = m.V + b.slot.V;
  m.XY = m.B + b.slot.B;
  for (;;) {
    unsigned job = 0;
    if (q.lane == 0) job = atomicAdd(b.next, 1u);
    job = __shfl_sync(q.mask, job, threadIdx.x % 32 / 4 * 4);
    if (job >= unsigned(b.n)) return;
    const YescryptJob j = b.jobs[job];
    q.r = j.r;
    const std::uint64_t N = std::uint64_t(1) << j.n_log2;
    const std::uint8_t* passwd = b.bytes + j.pw_off;
    std::size_t passwd_len = j.pw_len;
    const hy::Params P = params_of(j);
    std::uint8_t dk[32];
    if (hy::needs_prehash(P)) {
      lanes_kdf_body(q, passwd, passwd_len, b.bytes + j.salt_off, j.salt_len, N >> 6, 0, j.flags | hy::kPrehash, m, dk);
      passwd = dk;
      passwd_len = 32;
    }
    std::uint8_t out[32];
    lanes_kdf_body(q, passwd, passwd_len, b.bytes + j.salt_off, j.salt_len, N, j.t, j.flags, m, out);
    if (q.lane == 0) encode_out(b, job, out);
  }
}

std::size_t lanes_smem(std::uint32_t max_r) { return std::size_t(kLanesHashes) * (hy::kSWords + 32 * max_r) * 4; }

}  // namespace

int yescrypt_resident_slots(YescryptKernel kernel, std::uint32_t max_r) {
  int device = 0, sms = 0, blocks = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  WK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (kernel == YescryptKernel::lanes) {
    const std::size_t smem = lanes_smem(max_r);
    WK_CUDA_CHECK(cudaFuncSetAttribute(yescrypt_lanes_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, yescrypt_lanes_kernel, kLanesHashes * 4, smem));
    return std::max(1, blocks) * sms * kLanesHashes;
  }
  WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, yescrypt_reference_kernel, 32, 0));
  return std::max(1, blocks) * sms * 32;
}

void yescrypt_launch(YescryptKernel kernel, const YescryptBatch& b, std::uint32_t max_r, cudaStream_t stream) {
  if (b.n <= 0 || b.slots <= 0) return;
  if (kernel == YescryptKernel::lanes) {
    if (max_r > kLanesMaxR) throw Error(ErrorCategory::internal, "yescrypt lanes: r above the kernel's limit");
    const std::size_t smem = lanes_smem(max_r);
    WK_CUDA_CHECK(cudaFuncSetAttribute(yescrypt_lanes_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    WK_CUDA_CHECK(cudaFuncSetAttribute(yescrypt_lanes_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cudaSharedmemCarveoutMaxShared));
    yescrypt_lanes_kernel<<<(b.slots + kLanesHashes - 1) / kLanesHashes, kLanesHashes * 4, smem, stream>>>(b, max_r);
    WK_CUDA_CHECK_LAUNCH();
    return;
  }
  yescrypt_reference_kernel<<<(b.slots + 31) / 32, 32, 0, stream>>>(b);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::hash::gpu::detail
