// IDEA kernels and the host->host GPU engine: the APOD ladder of Professional CUDA C Programming,
// chapter 10 (crypt), from one block per thread with synchronous copies to overlapped, coarsened
// kernels. The cipher is idea_crypt_words() from idea_round.hpp, shared with the CPU path.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cipher/idea/idea_engine.hpp"
#include "cipher/idea/idea_rungs.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"

namespace wk::cipher {

namespace {

// ---- Block <-> words. Memory holds big-endian 16-bit words; the GPU loads little-endian 32-bit
// values, so one byte permute (PRMT) per word puts the two bytes of a word in order.
//   word 1 = b0:b1 = prmt(v.x, 0, 0x4401), word 2 = b2:b3 = prmt(v.x, 0, 0x4423), and back:
//   bytes y1.hi y1.lo y2.hi y2.lo = prmt(y1, y2, 0x4501).
__device__ __forceinline__ std::uint32_t word_hi(std::uint32_t v) { return __byte_perm(v, 0, 0x4401); }
__device__ __forceinline__ std::uint32_t word_lo(std::uint32_t v) { return __byte_perm(v, 0, 0x4423); }
__device__ __forceinline__ std::uint32_t pack_words(std::uint32_t a, std::uint32_t b) { return __byte_perm(a, b, 0x4501); }

// ECB: the block held in v (8 bytes as loaded) through the cipher.
template <class K>
__device__ __forceinline__ uint2 ecb_block(uint2 v, const K& key) {
  std::uint32_t x1 = word_hi(v.x), x2 = word_lo(v.x), x3 = word_hi(v.y), x4 = word_lo(v.y);
  idea_crypt_words(x1, x2, x3, x4, key);
  return make_uint2(pack_words(x1, x2), pack_words(x3, x4));
}

// CTR: v XOR E(counter). The counter's words need no masking: idea_crypt_words tolerates garbage
// above bit 15, so x2 and x4 are the raw 32-bit halves.
template <class K>
__device__ __forceinline__ uint2 ctr_block(uint2 v, std::uint64_t counter, const K& key) {
  const std::uint32_t hi = static_cast<std::uint32_t>(counter >> 32), lo = static_cast<std::uint32_t>(counter);
  std::uint32_t x1 = hi >> 16, x2 = hi, x3 = lo >> 16, x4 = lo;
  idea_crypt_words(x1, x2, x3, x4, key);
  return make_uint2(v.x ^ pack_words(x1, x2), v.y ^ pack_words(x3, x4));
}

template <IdeaMode M, class K>
__device__ __forceinline__ uint2 crypt_block(uint2 v, std::uint64_t counter, const K& key) {
  if constexpr (M == IdeaMode::ecb) return ecb_block(v, key);
  else return ctr_block(v, counter, key);
}

// ---- Rungs 1-3: one 8-byte block per thread (the book's doCrypt per chunk), subkeys read from
// global memory by every thread. Grid-stride so any run fits the grid limits.
template <IdeaMode M>
__global__ void idea_global_key_kernel(const uint2* __restrict__ in, uint2* __restrict__ out, std::size_t nblocks,
                                       const std::uint32_t* __restrict__ d_subkeys, std::uint64_t counter) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < nblocks;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = crypt_block<M>(in[i], counter + i, d_subkeys);
}

// ---- Rung 4: the same with the subkeys a kernel parameter. Parameters live in the constant
// bank: every thread of a warp reads the same subkey, which the constant cache broadcasts, and
// the compiler uses it straight as an instruction operand (IMAD R, R, c[0x0][...]). This is the
// book's __constant__ key without its global symbol: no cudaMemcpyToSymbol, and two runs with
// different keys on one device cannot overwrite each other's key.
template <IdeaMode M>
__global__ void idea_constant_key_kernel(const uint2* __restrict__ in, uint2* __restrict__ out, std::size_t nblocks,
                                         const IdeaSubkeys key, std::uint64_t counter) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < nblocks;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = crypt_block<M>(in[i], counter + i, key);
}

// ---- Rungs 5-6: each thread takes V 16-byte vectors (2V blocks). The loads are interleaved
// across the thread block (vector j of thread t is at tile + j*blockDim + t), so every load and
// store instruction of a warp covers 512 contiguous bytes; all V loads are issued before the
// first block is encrypted (memory-level parallelism), and the 2V independent blocks give the
// scheduler instruction-level parallelism to hide the IMAD latency. Plain cached loads and stores
// (no evict-first hints): in the host->host pipeline the download of a chunk follows its kernel,
// and can then find the output still in L2 (gray measured the hints as no gain either).
template <IdeaMode M, int V>
__global__ void __launch_bounds__(1024) idea_coarsened_kernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                                                              std::size_t nvec, const IdeaSubkeys key,
                                                              std::uint64_t counter) {
  const std::size_t tile_vecs = std::size_t(blockDim.x) * V;
  for (std::size_t tile = blockIdx.x * tile_vecs; tile < nvec; tile += std::size_t(gridDim.x) * tile_vecs) {
    uint4 v[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::size_t idx = tile + std::size_t(j) * blockDim.x + threadIdx.x;
      v[j] = idx < nvec ? __ldg(in + idx) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::size_t idx = tile + std::size_t(j) * blockDim.x + threadIdx.x;
      const std::uint64_t c = counter + 2 * idx;
      const uint2 a = crypt_block<M>(make_uint2(v[j].x, v[j].y), c, key);
      const uint2 b = crypt_block<M>(make_uint2(v[j].z, v[j].w), c + 1, key);
      v[j] = make_uint4(a.x, a.y, b.x, b.y);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::size_t idx = tile + std::size_t(j) * blockDim.x + threadIdx.x;
      if (idx < nvec) out[idx] = v[j];
    }
  }
}

// Grid for a grid-stride kernel: enough thread blocks to cover the work, at most kMaxGrid (the
// loop takes the rest; 2^20 blocks is far more than any GPU keeps resident).
constexpr std::size_t kMaxGrid = std::size_t(1) << 20;
unsigned grid_for(std::size_t items, std::size_t items_per_block) {
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(kMaxGrid, (items + items_per_block - 1) / items_per_block)));
}

template <IdeaMode M>
void launch_one_per_thread(const IdeaJob& job, const uint2* in, uint2* out, std::size_t nblocks, const IdeaKernelConfig& c,
                           const IdeaSubkeys* d_subkeys, cudaStream_t stream) {
  const unsigned grid = grid_for(nblocks, std::size_t(c.threads_per_block));
  if (c.kernel == IdeaKernel::global_key)
    idea_global_key_kernel<M><<<grid, c.threads_per_block, 0, stream>>>(
        in, out, nblocks, reinterpret_cast<const std::uint32_t*>(d_subkeys), job.counter);
  else
    idea_constant_key_kernel<M><<<grid, c.threads_per_block, 0, stream>>>(in, out, nblocks, job.subkeys, job.counter);
}

template <IdeaMode M, int V>
void launch_coarsened(const IdeaJob& job, const uint4* in, uint4* out, std::size_t nvec, int threads, cudaStream_t stream) {
  const unsigned grid = grid_for(nvec, std::size_t(threads) * V);
  idea_coarsened_kernel<M, V><<<grid, threads, 0, stream>>>(in, out, nvec, job.subkeys, job.counter);
}

template <IdeaMode M>
void launch(const IdeaJob& job, const std::uint8_t* d_in, std::uint8_t* d_out, std::size_t nblocks,
            const IdeaKernelConfig& c, const IdeaSubkeys* d_subkeys, cudaStream_t stream) {
  const bool aligned16 = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(d_out) % 16 == 0;
  if (c.kernel != IdeaKernel::coarsened || c.blocks_per_thread == 1 || !aligned16 || nblocks < 2) {
    IdeaKernelConfig one = c;
    if (one.kernel == IdeaKernel::coarsened) one.kernel = IdeaKernel::constant_key;
    launch_one_per_thread<M>(job, reinterpret_cast<const uint2*>(d_in), reinterpret_cast<uint2*>(d_out), nblocks, one,
                             d_subkeys, stream);
    return;
  }
  const std::size_t nvec = nblocks / 2;
  const auto* in = reinterpret_cast<const uint4*>(d_in);
  auto* out = reinterpret_cast<uint4*>(d_out);
  switch (c.blocks_per_thread) {
    case 2: launch_coarsened<M, 1>(job, in, out, nvec, c.threads_per_block, stream); break;
    case 4: launch_coarsened<M, 2>(job, in, out, nvec, c.threads_per_block, stream); break;
    case 8: launch_coarsened<M, 4>(job, in, out, nvec, c.threads_per_block, stream); break;
  }
  if (nblocks % 2) {  // an odd last block: one thread of the one-per-thread kernel
    const std::size_t last = nblocks - 1;
    const IdeaJob tail = job.advanced(last);
    idea_constant_key_kernel<M><<<1, 32, 0, stream>>>(reinterpret_cast<const uint2*>(d_in) + last,
                                                      reinterpret_cast<uint2*>(d_out) + last, 1, tail.subkeys, tail.counter);
  }
}

void check_config(const IdeaKernelConfig& c) {
  if (c.threads_per_block < 32 || c.threads_per_block > 1024 || c.threads_per_block % 32 != 0)
    throw Error(ErrorCategory::usage, "idea: threads per block must be a multiple of 32 in 32..1024, not " +
                                          std::to_string(c.threads_per_block));
  if (c.kernel == IdeaKernel::coarsened && c.blocks_per_thread != 1 && c.blocks_per_thread != 2 &&
      c.blocks_per_thread != 4 && c.blocks_per_thread != 8)
    throw Error(ErrorCategory::usage, "idea: blocks per thread must be 1, 2, 4 or 8, not " + std::to_string(c.blocks_per_thread));
}

}  // namespace

void idea_gpu(const IdeaJob& job, const std::uint8_t* d_in, std::uint8_t* d_out, std::size_t nblocks,
              const IdeaKernelConfig& config, const IdeaSubkeys* d_subkeys, cudaStream_t stream) {
  check_config(config);
  if (nblocks == 0) return;
  if (!d_in || !d_out) throw Error(ErrorCategory::usage, "idea_gpu: null buffer");
  if (reinterpret_cast<std::uintptr_t>(d_in) % 8 != 0 || reinterpret_cast<std::uintptr_t>(d_out) % 8 != 0)
    throw Error(ErrorCategory::usage, "idea_gpu: device buffers must be 8-byte aligned");
  if (config.kernel == IdeaKernel::global_key && !d_subkeys)
    throw Error(ErrorCategory::usage, "idea_gpu: the global_key kernel needs a device copy of the subkeys");
  if (job.mode == IdeaMode::ecb) launch<IdeaMode::ecb>(job, d_in, d_out, nblocks, config, d_subkeys, stream);
  else launch<IdeaMode::ctr>(job, d_in, d_out, nblocks, config, d_subkeys, stream);
  WK_CUDA_CHECK_LAUNCH();
}

// ---- The host->host engine of one GPU (its state: cipher/idea/idea_engine.hpp).
void IdeaGpuEngine::Impl::allocate(const IdeaKernelConfig& k, const IdeaStreaming& s) {
  check_config(k);
  if (s.streams < 1 || s.streams > 64)
    throw Error(ErrorCategory::usage, "idea: stream count must be in 1..64, not " + std::to_string(s.streams));
  if (s.chunk_bytes < 16 || s.chunk_bytes % 16 != 0)
    throw Error(ErrorCategory::usage, "idea: chunk size must be a positive multiple of 16 bytes");
  kernel = k;
  streaming = s;
  const int nstreams = synchronous() ? 1 : s.streams;
  for (int i = 0; i < nstreams; ++i) {
    streams.emplace_back();
    d_in.emplace_back(s.chunk_bytes);
    d_out.emplace_back(s.chunk_bytes);
  }
  d_subkeys = DeviceBuffer<IdeaSubkeys>(1);
}

IdeaGpuEngine::IdeaGpuEngine(int device, std::string_view rung) : impl_(std::make_unique<Impl>(device, rung)) {
  impl_->allocate(impl_->rung->kernel, impl_->rung->streaming);
}

IdeaGpuEngine::IdeaGpuEngine(int device, std::string_view rung, const IdeaKernelConfig& kernel, const IdeaStreaming& streaming)
    : impl_(std::make_unique<Impl>(device, rung)) {
  impl_->allocate(kernel, streaming);
}

IdeaGpuEngine::~IdeaGpuEngine() = default;
IdeaGpuEngine::IdeaGpuEngine(IdeaGpuEngine&&) noexcept = default;
IdeaGpuEngine& IdeaGpuEngine::operator=(IdeaGpuEngine&&) noexcept = default;

int IdeaGpuEngine::device() const { return impl_->device; }
const char* IdeaGpuEngine::rung() const { return impl_->rung->info.name; }

void IdeaGpuEngine::run(const IdeaJob& job, const std::uint8_t* h_in, std::uint8_t* h_out, std::size_t nblocks) {
  if (nblocks == 0) return;
  if (!h_in || !h_out) throw Error(ErrorCategory::usage, "idea: null host buffer");
  try {
    impl_->run(job, h_in, h_out, nblocks);
  } catch (...) {
    // Copies already queued may still read or write the caller's memory: let them finish (or
    // fail) before the caller frees it.
    impl_->synchronize_all();
    throw;
  }
}

void IdeaGpuEngine::Impl::run(const IdeaJob& job, const std::uint8_t* h_in, std::uint8_t* h_out, std::size_t nblocks) {
  nvtx::Range range("idea-gpu", nvtx::Color::compute, device);
  WK_CUDA_CHECK(cudaSetDevice(device));
  const std::size_t chunk_blocks = streaming.chunk_bytes / kIdeaBlockBytes;
  const std::size_t nchunks = (nblocks + chunk_blocks - 1) / chunk_blocks;
  const bool global_key = kernel.kernel == IdeaKernel::global_key;

  if (synchronous()) {
    // Rungs 1-2: every copy waits for its completion before the next step starts, as the book's
    // first port does with cudaMemcpy. (cudaMemcpy itself would use the legacy default stream,
    // which does not order against our non-blocking stream; an async copy plus a synchronize on
    // the one stream is the same synchronous copy.)
    Stream& s = streams[0];
    WK_CUDA_CHECK(cudaMemcpyAsync(d_subkeys.get(), &job.subkeys, sizeof(IdeaSubkeys), cudaMemcpyHostToDevice, s));
    s.synchronize();
    for (std::size_t c = 0; c < nchunks; ++c) {
      const std::size_t first = c * chunk_blocks, count = std::min(chunk_blocks, nblocks - first);
      const std::size_t off = first * kIdeaBlockBytes, bytes = count * kIdeaBlockBytes;
      WK_CUDA_CHECK(cudaMemcpyAsync(d_in[0].get(), h_in + off, bytes, cudaMemcpyHostToDevice, s));
      s.synchronize();
      if (rung->copies == detail::IdeaCopies::synchronous_with_output) {
        // The needless upload: the kernel overwrites every byte of the output buffer.
        WK_CUDA_CHECK(cudaMemcpyAsync(d_out[0].get(), h_out + off, bytes, cudaMemcpyHostToDevice, s));
        s.synchronize();
      }
      idea_gpu(job.advanced(first), d_in[0].get(), d_out[0].get(), count, kernel, d_subkeys.get(), s);
      WK_CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out[0].get(), bytes, cudaMemcpyDeviceToHost, s));
      s.synchronize();
    }
    return;
  }

  // Rungs 3-6: chunk c goes to stream c % S: upload, kernel, download, all asynchronous. Stream
  // order makes chunk c+S wait for chunk c before reusing its device buffers; across streams the
  // upload of one chunk, the kernel of the next and the download of a third run at once.
  const std::size_t nstreams = streams.size();
  if (global_key) {
    WK_CUDA_CHECK(cudaMemcpyAsync(d_subkeys.get(), &job.subkeys, sizeof(IdeaSubkeys), cudaMemcpyHostToDevice, streams[0]));
    streams[0].synchronize();  // the host copy of the job may go out of scope before later streams run
  }
  for (std::size_t c = 0; c < nchunks; ++c) {
    Stream& s = streams[c % nstreams];
    const std::size_t i = c % nstreams;
    const std::size_t first = c * chunk_blocks, count = std::min(chunk_blocks, nblocks - first);
    const std::size_t off = first * kIdeaBlockBytes, bytes = count * kIdeaBlockBytes;
    WK_CUDA_CHECK(cudaMemcpyAsync(d_in[i].get(), h_in + off, bytes, cudaMemcpyHostToDevice, s));
    idea_gpu(job.advanced(first), d_in[i].get(), d_out[i].get(), count, kernel, d_subkeys.get(), s);
    WK_CUDA_CHECK(cudaMemcpyAsync(h_out + off, d_out[i].get(), bytes, cudaMemcpyDeviceToHost, s));
  }
  for (auto& s : streams) s.synchronize();
}

}  // namespace wk::cipher
