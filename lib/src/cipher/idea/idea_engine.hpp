#pragma once
// The state of one GPU's host->host IDEA engine (IdeaGpuEngine::Impl), shared by the plain runs
// (idea.cu) and the authenticated runs (idea_seal.cu).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cipher/idea/idea_rungs.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/cuda_check.hpp"

namespace wk::cipher {

struct IdeaGpuEngine::Impl {
  int device = 0;
  const detail::IdeaRung* rung = nullptr;
  IdeaKernelConfig kernel;
  IdeaStreaming streaming;
  std::vector<Stream> streams;
  std::vector<DeviceBuffer<std::uint8_t>> d_in, d_out;
  DeviceBuffer<IdeaSubkeys> d_subkeys;

  // Per stream, for authenticated runs (allocated on first use, for one chunk size): a batch of
  // whole chunks as contiguous data, the same chunks with their tags, their leaf digests and tags.
  struct SealSlot {
    DeviceBuffer<std::uint8_t> data, sealed, tags;
    DeviceBuffer<std::uint32_t> digests;
  };
  std::vector<SealSlot> seal_slots;
  std::size_t seal_chunk_bytes = 0, seal_batch_chunks = 0;
  // One batch of an authenticated run, as for_each_batch hands it out.
  struct SealBatch {
    Stream& stream;
    SealSlot& slot;
    std::size_t first, count;  // its chunks
    std::size_t off, n;        // where its data starts in the run, and its bytes
    IdeaSealJob part;          // the job of its first chunk
  };
  // Cuts a run of `bytes` into batches of seal_batch_chunks chunks, round-robin over the streams
  // and slots, calls fn(batch) for each (which queues the batch's work on its stream), then waits.
  template <class Fn>
  void for_each_batch(const IdeaSealJob& job, std::size_t bytes, Fn&& fn);

  // The row of `name` for `device` (the default's is the device's architecture's).
  Impl(int dev, std::string_view name) : device(dev) {
    WK_CUDA_CHECK(cudaSetDevice(device));
    rung = &detail::idea_rung(name);
  }
  bool synchronous() const { return rung->copies != detail::IdeaCopies::overlapped; }
  void allocate(const IdeaKernelConfig& k, const IdeaStreaming& s);
  void run(const IdeaJob& job, const std::uint8_t* h_in, std::uint8_t* h_out, std::size_t nblocks);
  void prepare_seal(std::size_t chunk_bytes);
  void seal(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed);
  void open(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
            std::uint8_t* h_tags);
  void synchronize_all() noexcept {
    for (auto& s : streams) cudaStreamSynchronize(s);
  }
};

}  // namespace wk::cipher
