// Authenticated IDEA runs on one GPU (the chunk layer of the wk-crypt container): the chunks in
// batches over the engine's streams, each batch uploaded, encrypted or decrypted by the engine's
// IDEA kernel, its 1 KiB leaves hashed one per thread, each chunk's tag computed by one thread
// from its leaf digests (chunk_tag.hpp, the code CI tests on the host), and the ciphertext and
// tags interleaved (seal) or split (open) on the device, so every copy is one contiguous range.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cipher/idea/chunk_tag.hpp"
#include "cipher/idea/idea_engine.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"

namespace wk::cipher {

namespace {

constexpr int kThreads = 128;

// Where a batch's chunks are: `chunks` chunks of chunk_bytes, the last one `last_bytes` long.
struct BatchShape {
  std::size_t chunk_bytes;
  std::size_t chunks;
  std::size_t last_bytes;
  __host__ __device__ std::size_t bytes_of(std::size_t c) const { return c + 1 == chunks ? last_bytes : chunk_bytes; }
};

__global__ void leaf_digest_kernel(const std::uint8_t* __restrict__ data, std::size_t bytes, std::size_t leaves,
                                   std::uint32_t* __restrict__ digests) {
  const std::size_t leaf = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (leaf >= leaves) return;
  const std::size_t off = leaf * detail::kLeafBytes;
  const std::size_t n = bytes - off < detail::kLeafBytes ? bytes - off : detail::kLeafBytes;
  std::uint32_t d[8];
  detail::leaf_digest(data + off, static_cast<std::uint32_t>(n), d);
  uint4* out = reinterpret_cast<uint4*>(digests + 8 * leaf);
  out[0] = make_uint4(d[0], d[1], d[2], d[3]);
  out[1] = make_uint4(d[4], d[5], d[6], d[7]);
}

// One thread per chunk. sealed_layout: the tag goes right after the chunk's ciphertext in the
// interleaved buffer; else to tags[32 c].
__global__ void chunk_tag_kernel(detail::HmacSha256State key, const std::uint32_t* __restrict__ digests, BatchShape shape,
                                 std::uint64_t first_index, bool last_final, bool sealed_layout, std::uint8_t* __restrict__ out) {
  const std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= shape.chunks) return;
  const std::size_t n = shape.bytes_of(c);
  const std::size_t leaves_per_chunk = shape.chunk_bytes / detail::kLeafBytes;
  const auto m = static_cast<std::uint32_t>((n + detail::kLeafBytes - 1) / detail::kLeafBytes);
  std::uint32_t tag[8];
  detail::chunk_tag(key, digests + 8 * leaves_per_chunk * c, m, first_index + c, last_final && c + 1 == shape.chunks, tag);
  std::uint8_t* dst = sealed_layout ? out + c * (shape.chunk_bytes + detail::kChunkTagBytes) + n : out + c * detail::kChunkTagBytes;
  if ((reinterpret_cast<std::uintptr_t>(dst) & 15) == 0) {
    uint4* v = reinterpret_cast<uint4*>(dst);
    auto be = [](std::uint32_t x) { return __byte_perm(x, 0, 0x0123); };
    v[0] = make_uint4(be(tag[0]), be(tag[1]), be(tag[2]), be(tag[3]));
    v[1] = make_uint4(be(tag[4]), be(tag[5]), be(tag[6]), be(tag[7]));
  } else {  // after a last chunk that is not a whole number of 16-byte vectors
    detail::store_tag_bytes(tag, dst);
  }
}

// Copies each chunk's ciphertext between the contiguous buffer and the interleaved one (chunk c at
// c * (chunk_bytes + 32)): 16-byte vectors, the bytes of a last chunk's tail one by one.
template <bool ToSealed>
__global__ void interleave_kernel(std::uint8_t* __restrict__ data, std::uint8_t* __restrict__ sealed, BatchShape shape) {
  const std::size_t c = blockIdx.y;
  const std::size_t n = shape.bytes_of(c);
  std::uint8_t* d = data + c * shape.chunk_bytes;
  std::uint8_t* s = sealed + c * (shape.chunk_bytes + detail::kChunkTagBytes);
  const std::size_t vectors = n / 16;
  for (std::size_t v = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; v < vectors; v += std::size_t(gridDim.x) * blockDim.x) {
    if constexpr (ToSealed) reinterpret_cast<uint4*>(s)[v] = reinterpret_cast<const uint4*>(d)[v];
    else reinterpret_cast<uint4*>(d)[v] = reinterpret_cast<const uint4*>(s)[v];
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 16) {
    const std::size_t i = vectors * 16 + threadIdx.x;
    if constexpr (ToSealed) s[i] = d[i];
    else d[i] = s[i];
  }
}

// The bytes after n up to the end of its 8-byte block: IDEA runs whole blocks, and the part of a
// partial last CTR block past the data is computed, then dropped; zeroed, it is defined.
void zero_partial_block(std::uint8_t* d, std::size_t n, cudaStream_t s) {
  if (n % kIdeaBlockBytes) WK_CUDA_CHECK(cudaMemsetAsync(d + n, 0, kIdeaBlockBytes - n % kIdeaBlockBytes, s));
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

detail::HmacSha256State state_of(const IdeaMacKey& mac) {
  detail::HmacSha256State s{};
  std::copy(mac.state.begin(), mac.state.begin() + 8, s.inner);
  std::copy(mac.state.begin() + 8, mac.state.end(), s.outer);
  return s;
}

}  // namespace

void IdeaGpuEngine::Impl::prepare_seal(std::size_t chunk_bytes) {
  if (chunk_bytes == 0 || chunk_bytes % detail::kLeafBytes != 0)
    throw Error(ErrorCategory::usage, "idea: the authenticated chunk size must be a positive multiple of 1 KiB");
  if (chunk_bytes == seal_chunk_bytes) return;
  seal_slots.clear();
  seal_chunk_bytes = chunk_bytes;
  // A batch is about one streaming chunk of whole chunks; the copy engines see one range each way.
  seal_batch_chunks = std::clamp<std::size_t>(streaming.chunk_bytes / chunk_bytes, 1, 65535);
  const std::size_t k = seal_batch_chunks;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    SealSlot slot;
    slot.data = DeviceBuffer<std::uint8_t>(k * chunk_bytes + 16);
    slot.sealed = DeviceBuffer<std::uint8_t>(k * (chunk_bytes + kIdeaTagBytes) + 16);
    slot.tags = DeviceBuffer<std::uint8_t>(k * kIdeaTagBytes);
    slot.digests = DeviceBuffer<std::uint32_t>(k * (chunk_bytes / detail::kLeafBytes) * detail::kDigestWords);
    seal_slots.push_back(std::move(slot));
  }
}

namespace {

// The kernel an authenticated batch runs: the rung's, with the subkeys as a kernel parameter
// (the global-memory copy of the first rungs is a step of the ladder, not of this path).
IdeaKernelConfig seal_kernel(IdeaKernelConfig k) {
  if (k.kernel == IdeaKernel::global_key) k.kernel = IdeaKernel::constant_key;
  return k;
}

}  // namespace

template <class Fn>
void IdeaGpuEngine::Impl::for_each_batch(const IdeaSealJob& job, std::size_t bytes, Fn&& fn) {
  WK_CUDA_CHECK(cudaSetDevice(device));
  prepare_seal(job.chunk_bytes);
  const std::size_t S = job.chunk_bytes, K = seal_batch_chunks;
  const std::size_t chunks = idea_sealed_chunks(bytes, S);
  for (std::size_t b = 0, first = 0; first < chunks; ++b, first += K) {
    const std::size_t i = b % streams.size();
    const std::size_t count = std::min(K, chunks - first);
    const std::size_t off = first * S, n = std::min(count * S, bytes - std::min(bytes, off));
    fn(SealBatch{streams[i], seal_slots[i], first, count, off, n, job.part(first, first + count == chunks)});
  }
  for (auto& s : streams) s.synchronize();
}

void IdeaGpuEngine::Impl::seal(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed) {
  nvtx::Range range("idea-seal-gpu", nvtx::Color::compute, device);
  const detail::HmacSha256State key = state_of(job.mac);
  const IdeaKernelConfig kc = seal_kernel(kernel);
  const std::size_t S = job.chunk_bytes;
  for_each_batch(job, bytes, [&](const SealBatch& b) {
    const BatchShape shape{S, b.count, b.n - (b.count - 1) * S};
    std::uint8_t* data = b.slot.data.get();
    if (b.n) WK_CUDA_CHECK(cudaMemcpyAsync(data, h_plain + b.off, b.n, cudaMemcpyHostToDevice, b.stream));
    zero_partial_block(data, b.n, b.stream);
    idea_gpu(b.part.cipher, data, data, (b.n + kIdeaBlockBytes - 1) / kIdeaBlockBytes, kc, nullptr, b.stream);
    const std::size_t leaves = (b.n + detail::kLeafBytes - 1) / detail::kLeafBytes;
    if (leaves) leaf_digest_kernel<<<blocks_for(leaves), kThreads, 0, b.stream>>>(data, b.n, leaves, b.slot.digests.get());
    chunk_tag_kernel<<<blocks_for(b.count), kThreads, 0, b.stream>>>(key, b.slot.digests.get(), shape, b.part.first_index,
                                                                     b.part.last_final, true, b.slot.sealed.get());
    interleave_kernel<true><<<dim3(std::max(1u, blocks_for(S / 16 / 4)), static_cast<unsigned>(b.count)), kThreads, 0, b.stream>>>(
        data, b.slot.sealed.get(), shape);
    WK_CUDA_CHECK_LAUNCH();
    WK_CUDA_CHECK(cudaMemcpyAsync(h_sealed + b.first * (S + kIdeaTagBytes), b.slot.sealed.get(), b.n + b.count * kIdeaTagBytes,
                                  cudaMemcpyDeviceToHost, b.stream));
  });
}

void IdeaGpuEngine::Impl::open(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
                               std::uint8_t* h_tags) {
  nvtx::Range range("idea-open-gpu", nvtx::Color::compute, device);
  const detail::HmacSha256State key = state_of(job.mac);
  const IdeaKernelConfig kc = seal_kernel(kernel);
  const std::size_t S = job.chunk_bytes;
  for_each_batch(job, bytes, [&](const SealBatch& b) {
    const BatchShape shape{S, b.count, b.n - (b.count - 1) * S};
    std::uint8_t* data = b.slot.data.get();
    WK_CUDA_CHECK(cudaMemcpyAsync(b.slot.sealed.get(), h_sealed + b.first * (S + kIdeaTagBytes), b.n + b.count * kIdeaTagBytes,
                                  cudaMemcpyHostToDevice, b.stream));
    interleave_kernel<false><<<dim3(std::max(1u, blocks_for(S / 16 / 4)), static_cast<unsigned>(b.count)), kThreads, 0, b.stream>>>(
        data, b.slot.sealed.get(), shape);
    zero_partial_block(data, b.n, b.stream);
    const std::size_t leaves = (b.n + detail::kLeafBytes - 1) / detail::kLeafBytes;
    if (leaves) leaf_digest_kernel<<<blocks_for(leaves), kThreads, 0, b.stream>>>(data, b.n, leaves, b.slot.digests.get());
    chunk_tag_kernel<<<blocks_for(b.count), kThreads, 0, b.stream>>>(key, b.slot.digests.get(), shape, b.part.first_index,
                                                                     b.part.last_final, false, b.slot.tags.get());
    WK_CUDA_CHECK_LAUNCH();
    idea_gpu(b.part.cipher, data, data, (b.n + kIdeaBlockBytes - 1) / kIdeaBlockBytes, kc, nullptr, b.stream);
    if (b.n) WK_CUDA_CHECK(cudaMemcpyAsync(h_plain + b.off, data, b.n, cudaMemcpyDeviceToHost, b.stream));
    WK_CUDA_CHECK(cudaMemcpyAsync(h_tags + b.first * kIdeaTagBytes, b.slot.tags.get(), b.count * kIdeaTagBytes,
                                  cudaMemcpyDeviceToHost, b.stream));
  });
}

void IdeaGpuEngine::seal(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed) {
  if (!h_plain || !h_sealed) throw Error(ErrorCategory::usage, "idea: null host buffer");
  try {
    impl_->seal(job, h_plain, bytes, h_sealed);
  } catch (...) {
    impl_->synchronize_all();  // queued copies may still touch the caller's memory
    throw;
  }
}

void IdeaGpuEngine::open(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
                         std::uint8_t* h_tags) {
  if (!h_plain || !h_sealed || !h_tags) throw Error(ErrorCategory::usage, "idea: null host buffer");
  try {
    impl_->open(job, h_sealed, bytes, h_plain, h_tags);
  } catch (...) {
    impl_->synchronize_all();
    throw;
  }
}

}  // namespace wk::cipher
