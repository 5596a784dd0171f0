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
//   scrypt_lanes  classic scrypt (r = 1, 2, 4 or 8) on 4 threads per hash, the block in registers
//              and Salsa20/8's rows exchanged with warp shuffles (see ScryptQuad).
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

__device__ hy::Params params_of(const YescryptJob& j) { return hy::make_params(j.flags, j.n_log2, j.r, j.p, j.t); }

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

  // One SMix step on this lane's columns: X ^= V_j (when Vj), then X = BlockMix_pwxform(X); in
  // SMix1 the old X is stored to V_i first (Vi), in RW SMix2 the mixed X back to V_j (write_j).
  // The V_j rows are loaded D sub-blocks ahead of the pwxform chain that needs them, so their
  // latency hides behind the S-box lookups instead of stalling a separate XOR pass.
  template <int D>
  __device__ void step(const std::uint32_t* Vj, std::uint32_t* Vi, bool write_j) {
    const std::uint32_t blocks = 2 * r;
    const uint4 zero = make_uint4(0, 0, 0, 0);
    auto vj = [&](std::uint32_t k) { return Vj ? *reinterpret_cast<const uint4*>(Vj + k * 16 + lane * 4) : zero; };
    auto mix = [](uint4 a, const uint4& b) {
      a.x ^= b.x, a.y ^= b.y, a.z ^= b.z, a.w ^= b.w;
      return a;
    };
    uint4 ahead[D];
#pragma unroll
    for (int d = 0; d < D; ++d) ahead[d] = std::uint32_t(d) < blocks ? vj(d) : zero;
    // the chain starts from the last sub-block, mixed
    uint4 x = mix(col(X, blocks - 1), vj(blocks - 1));
    for (std::uint32_t i0 = 0; i0 < blocks; i0 += D) {
#pragma unroll
      for (int d = 0; d < D; ++d) {
        const std::uint32_t i = i0 + d;
        uint4& xi = col(X, i);
        const uint4 old = xi;
        if (Vi) col(Vi, i) = old;
        const uint4 y = mix(old, ahead[d]);
        if (write_j) *reinterpret_cast<uint4*>(const_cast<std::uint32_t*>(Vj) + i * 16 + lane * 4) = y;
        if (i + D < blocks) ahead[d] = vj(i + D);
        if (blocks > 1) x = mix(x, y);
        pwxform(x);
        xi = x;
        __syncwarp(mask);  // this block's S2 is the next one's S0
      }
    }
    if (lane == 0) hy::salsa20(X + (blocks - 1) * 16, 2);
    __syncwarp(mask);
  }

  __device__ void step(const std::uint32_t* Vj, std::uint32_t* Vi, bool write_j) {
    if (r % 2 == 0) step<4>(Vj, Vi, write_j);  // 2r sub-blocks, a multiple of 4
    else step<2>(Vj, Vi, write_j);
  }

  // SMix1 of the RW mode: V_i = X, X ^= V_wrap(i) for i > 1, X = BlockMix(X).
  __device__ void smix1(std::uint32_t* V, std::uint64_t N) {
    const std::size_t s = 32 * std::size_t(r);
    for (std::uint64_t i = 0; i < N; ++i) step(i > 1 ? V + hy::wrap(integerify(), i) * s : nullptr, V + i * s, false);
  }

  // SMix2: `loops` steps of X ^= V_j (and V_j = X when `write`), X = BlockMix(X).
  __device__ void smix2(std::uint32_t* V, std::uint64_t N, std::uint64_t loops, bool write) {
    const std::size_t s = 32 * std::size_t(r);
    for (std::uint64_t i = 0; i < loops; ++i) step(V + (integerify() & (N - 1)) * s, nullptr, write);
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

// ---- scrypt_lanes ---------------------------------------------------------------------------------
// Classic scrypt on 4 threads per hash, the block in registers: thread c holds the words at
// positions c, c + 4, c + 8, c + 12 (shuffled order) of every 64-byte sub-block -- one element of
// each of Salsa20's four SIMD rows -- so a column round is local to a thread and a row round
// reads its three rotated partners with __shfl_sync (and hands them back). V is private to the
// kernel and laid out thread-major within a sub-block: each thread moves 16 bytes per sub-block.

constexpr int kScryptHashes = 8;  // hashes per block: one warp

struct ScryptQuad {
  int c;          // 0..3
  unsigned mask;  // the 4 threads of this hash
  __device__ std::uint32_t from(std::uint32_t v, int lane) const { return __shfl_sync(mask, v, lane, 4); }

  // Salsa20/8 of one sub-block (this thread's 4 words), added to it.
  __device__ void salsa8(std::uint32_t x[4]) const {
    std::uint32_t a = x[0], b = x[1], cc = x[2], d = x[3];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      b ^= hy::rotl(a + d, 7), cc ^= hy::rotl(b + a, 9), d ^= hy::rotl(cc + b, 13), a ^= hy::rotl(d + cc, 18);
      std::uint32_t rb = from(d, (c + 1) & 3), rc = from(cc, (c + 2) & 3), rd = from(b, (c + 3) & 3);
      rb ^= hy::rotl(a + rd, 7), rc ^= hy::rotl(rb + a, 9), rd ^= hy::rotl(rc + rb, 13), a ^= hy::rotl(rd + rc, 18);
      d = from(rb, (c + 3) & 3), cc = from(rc, (c + 2) & 3), b = from(rd, (c + 1) & 3);
    }
    x[0] += a, x[1] += b, x[2] += cc, x[3] += d;
  }

  template <int R>
  __device__ void blockmix(std::uint32_t X[2 * R][4]) const {
    std::uint32_t x[4], Y[2 * R][4];
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = X[2 * R - 1][k];
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) {
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] ^= X[i][k];
      salsa8(x);
      const int to = (i % 2 == 0) ? i / 2 : R + i / 2;  // even sub-blocks first, then the odd ones
#pragma unroll
      for (int k = 0; k < 4; ++k) Y[to][k] = x[k];
    }
#pragma unroll
    for (int i = 0; i < 2 * R; ++i)
#pragma unroll
      for (int k = 0; k < 4; ++k) X[i][k] = Y[i][k];
  }

  template <int R>
  __device__ std::uint64_t integerify(const std::uint32_t X[2 * R][4]) const {
    const std::uint32_t lo = from(X[2 * R - 1][0], 0), hi = from(X[2 * R - 1][3], 1);  // positions 0 and 13
    return (std::uint64_t(hi) << 32) | lo;
  }

  // SMix of one lane of B (32 * R words, natural order) over V: SMix1 then N steps of SMix2.
  template <int R>
  __device__ void smix(std::uint32_t* B, std::uint32_t* V, std::uint64_t N) const {
    std::uint32_t X[2 * R][4];
#pragma unroll
    for (int k = 0; k < 2 * R; ++k)
#pragma unroll
      for (int m = 0; m < 4; ++m) X[k][m] = B[k * 16 + (c + 4 * m) * 5 % 16];
    constexpr int s = 32 * R;
    for (std::uint64_t i = 0; i < N; ++i) {
      uint4* Vi = reinterpret_cast<uint4*>(V + i * s) + c;
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) Vi[4 * k] = make_uint4(X[k][0], X[k][1], X[k][2], X[k][3]);
      blockmix<R>(X);
    }
    for (std::uint64_t i = 0; i < N; ++i) {
      const uint4* Vj = reinterpret_cast<const uint4*>(V + (integerify<R>(X) & (N - 1)) * s) + c;
      uint4 v[2 * R];
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) v[k] = Vj[4 * k];
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) X[k][0] ^= v[k].x, X[k][1] ^= v[k].y, X[k][2] ^= v[k].z, X[k][3] ^= v[k].w;
      blockmix<R>(X);
    }
    __syncwarp(mask);
#pragma unroll
    for (int k = 0; k < 2 * R; ++k)
#pragma unroll
      for (int m = 0; m < 4; ++m) B[k * 16 + (c + 4 * m) * 5 % 16] = X[k][m];
    __syncwarp(mask);
  }
};

__global__ void __launch_bounds__(kScryptHashes * 4) scrypt_lanes_kernel(YescryptBatch b) {
  const int slot = blockIdx.x * kScryptHashes + threadIdx.x / 4;
  if (slot >= b.slots) return;
  ScryptQuad q;
  q.c = threadIdx.x % 4;
  q.mask = 0xfu << (threadIdx.x % 32 / 4 * 4);
  std::uint32_t* base = b.scratch + std::size_t(slot) * b.slot.total();
  std::uint32_t* V = base;
  std::uint32_t* B = V + b.slot.V;
  for (;;) {
    unsigned job = 0;
    if (q.c == 0) job = atomicAdd(b.next, 1u);
    job = __shfl_sync(q.mask, job, 0, 4);
    if (job >= unsigned(b.n)) return;
    const YescryptJob j = b.jobs[job];
    const std::uint64_t N = std::uint64_t(1) << j.n_log2;
    const std::uint8_t* pw = b.bytes + j.pw_off;
    if (q.c == 0) hy::pbkdf2_sha256(pw, j.pw_len, b.bytes + j.salt_off, j.salt_len, reinterpret_cast<std::uint8_t*>(B), 128 * std::size_t(j.r) * j.p);
    __syncwarp(q.mask);
    for (std::uint32_t lane = 0; lane < j.p; ++lane) {
      std::uint32_t* Bl = B + std::size_t(lane) * 32 * j.r;
      switch (j.r) {
        case 1: q.smix<1>(Bl, V, N); break;
        case 2: q.smix<2>(Bl, V, N); break;
        case 4: q.smix<4>(Bl, V, N); break;
        default: q.smix<8>(Bl, V, N); break;
      }
    }
    if (q.c == 0) {
      std::uint8_t dk[32];
      hy::pbkdf2_sha256(pw, j.pw_len, reinterpret_cast<const std::uint8_t*>(B), 128 * std::size_t(j.r) * j.p, dk, 32);
      encode_out(b, job, dk);
    }
    __syncwarp(q.mask);
  }
}

std::size_t lanes_smem(std::uint32_t max_r) { return std::size_t(kLanesHashes) * (hy::kSWords + 32 * max_r) * 4; }

// Set before the occupancy query and every launch (attributes are per device; the S-boxes are the
// working set: all of the unified L1/shared storage as shared memory).
void set_lanes_attributes(std::size_t smem) {
  WK_CUDA_CHECK(cudaFuncSetAttribute(yescrypt_lanes_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  WK_CUDA_CHECK(cudaFuncSetAttribute(yescrypt_lanes_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
}

}  // namespace

int yescrypt_resident_slots(YescryptKernel kernel, std::uint32_t max_r) {
  int device = 0, sms = 0, blocks = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  WK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (kernel == YescryptKernel::lanes) {
    const std::size_t smem = lanes_smem(max_r);
    set_lanes_attributes(smem);
    WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, yescrypt_lanes_kernel, kLanesHashes * 4, smem));
    return std::max(1, blocks) * sms * kLanesHashes;
  }
  if (kernel == YescryptKernel::scrypt_lanes) {
    WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scrypt_lanes_kernel, kScryptHashes * 4, 0));
    return std::max(1, blocks) * sms * kScryptHashes;
  }
  WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, yescrypt_reference_kernel, 32, 0));
  return std::max(1, blocks) * sms * 32;
}

void yescrypt_launch(YescryptKernel kernel, const YescryptBatch& b, std::uint32_t max_r, cudaStream_t stream) {
  if (b.n <= 0 || b.slots <= 0) return;
  if (kernel == YescryptKernel::lanes) {
    if (max_r > kLanesMaxR) throw Error(ErrorCategory::internal, "yescrypt lanes: r above the kernel's limit");
    const std::size_t smem = lanes_smem(max_r);
    set_lanes_attributes(smem);
    yescrypt_lanes_kernel<<<(b.slots + kLanesHashes - 1) / kLanesHashes, kLanesHashes * 4, smem, stream>>>(b, max_r);
    WK_CUDA_CHECK_LAUNCH();
    return;
  }
  if (kernel == YescryptKernel::scrypt_lanes) {
    scrypt_lanes_kernel<<<(b.slots + kScryptHashes - 1) / kScryptHashes, kScryptHashes * 4, 0, stream>>>(b);
    WK_CUDA_CHECK_LAUNCH();
    return;
  }
  yescrypt_reference_kernel<<<(b.slots + 31) / 32, 32, 0, stream>>>(b);
  WK_CUDA_CHECK_LAUNCH();
}

}  // namespace wk::hash::gpu::detail
