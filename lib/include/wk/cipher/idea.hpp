#pragma once
// IDEA encryption of byte buffers: key schedules, ECB and CTR jobs, the CPU path, the GPU kernels
// (every rung of the APOD ladder of Professional CUDA C Programming, chapter 10, selectable by
// name), the host->host GPU engine and the deploy executor (several GPUs plus a CPU share).
// Files (nonce, padding, streaming) are in wk/cipher/idea_file.hpp.
//
// CTR as warpkit defines it (and libgcrypt's CTR mode with the nonce as initial counter): block i
// of a run is XORed with E_K(counter + i mod 2^64), the counter written as a big-endian 64-bit
// block.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/cipher/idea_round.hpp"
#include "wk/core/backend.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/rung.hpp"

namespace wk::cipher {

inline constexpr std::size_t kIdeaBlockBytes = 8;
inline constexpr std::size_t kIdeaKeyBytes = 16;
using IdeaKey = std::array<std::uint8_t, kIdeaKeyBytes>;

// The 52 encryption subkeys: the 128-bit key's eight big-endian words, then the key rotated left
// by 25 bits for each further eight.
IdeaSubkeys idea_encryption_subkeys(const IdeaKey& key);
// The decryption schedule: multiplicative and additive inverses in reverse round order.
IdeaSubkeys idea_invert_subkeys(const IdeaSubkeys& encryption);
inline IdeaSubkeys idea_decryption_subkeys(const IdeaKey& key) { return idea_invert_subkeys(idea_encryption_subkeys(key)); }

enum class IdeaMode { ecb, ctr };
enum class IdeaDirection { encrypt, decrypt };
const char* to_string(IdeaMode mode) noexcept;

// What to do to a run of whole 8-byte blocks. ECB: out_i = E(in_i) with `subkeys` (encryption or
// decryption schedule). CTR: out_i = in_i XOR E(counter + i), encryption schedule both ways.
struct IdeaJob {
  IdeaMode mode = IdeaMode::ctr;
  IdeaSubkeys subkeys{};
  std::uint64_t counter = 0;
  // The same job for the part of the run that starts `blocks` further on.
  IdeaJob advanced(std::uint64_t blocks) const {
    IdeaJob j = *this;
    j.counter += blocks;  // mod 2^64, as the mode defines
    return j;
  }
};
IdeaJob idea_ecb_job(const IdeaKey& key, IdeaDirection direction);
IdeaJob idea_ctr_job(const IdeaKey& key, std::uint64_t counter);

// ---- Authenticated runs: the chunks of a wk-crypt container (wk/cipher/idea_container.hpp).
// A run is whole chunks of `chunk_bytes` (a multiple of 1 KiB) except its last, which may be
// shorter (in ECB a whole number of 8-byte blocks). Each chunk's ciphertext is followed by its
// 32-byte tag: HMAC-SHA-256 over the SHA-256 digests of the chunk's 1 KiB leaves, then the
// chunk's index (big-endian 64-bit) and a byte that is 1 for the file's last chunk.
inline constexpr std::size_t kIdeaTagBytes = 32;
inline constexpr std::size_t kIdeaLeafBytes = 1024;

// An HMAC-SHA-256 key of 32 bytes, with the SHA-256 states after its ipad and opad blocks (what
// the GPU starts every tag from).
struct IdeaMacKey {
  std::array<std::uint8_t, 32> key{};
  std::array<std::uint32_t, 16> state{};  // inner[8], outer[8]
};
IdeaMacKey idea_mac_key(const std::array<std::uint8_t, 32>& key);

struct IdeaSealJob {
  IdeaJob cipher;                 // the job of the run's first block (CTR: its counter)
  IdeaMacKey mac;
  std::size_t chunk_bytes = 64 << 10;
  std::uint64_t first_index = 0;  // the container index of the run's first chunk
  bool last_final = false;        // the run's last chunk is the file's last one
  // The same job for the part of the run that starts `chunks` chunks further on (its last chunk
  // is final only if `final_part`).
  IdeaSealJob part(std::uint64_t chunks, bool final_part) const {
    IdeaSealJob j = *this;
    j.cipher = cipher.mode == IdeaMode::ctr ? cipher.advanced(chunks * (chunk_bytes / kIdeaBlockBytes)) : cipher;
    j.first_index += chunks;
    j.last_final = last_final && final_part;
    return j;
  }
};
// Chunks in a run of `bytes` bytes (0 bytes: one empty chunk, the whole of an empty file).
inline std::size_t idea_sealed_chunks(std::size_t bytes, std::size_t chunk_bytes) {
  return bytes == 0 ? 1 : (bytes + chunk_bytes - 1) / chunk_bytes;
}
// Bytes of a sealed run: the ciphertext plus one tag per chunk.
inline std::size_t idea_sealed_bytes(std::size_t bytes, std::size_t chunk_bytes) {
  return bytes + kIdeaTagBytes * idea_sealed_chunks(bytes, chunk_bytes);
}

// The CPU reference of an authenticated run (OpenSSL's SHA-256 and HMAC, the chunks spread over
// parallel_for's threads). seal: h_plain (bytes) -> h_sealed (idea_sealed_bytes). open:
// h_sealed -> h_plain (bytes) and h_tags, the tags computed from the ciphertext (one per chunk),
// for the caller to compare with the stored ones. Buffers hold 16 bytes more than they are
// given (a partial last CTR block is processed whole).
// The tag of one chunk: n bytes of ciphertext at p, chunk `index` of its file (OpenSSL).
void idea_chunk_tag(const IdeaMacKey& mac, const std::uint8_t* p, std::size_t n, std::uint64_t index, bool final,
                    std::uint8_t out[kIdeaTagBytes]);
void idea_seal_cpu(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed);
void idea_open_cpu(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
                   std::uint8_t* h_tags);

// ---- CPU: the reference and the fallback. `in` may equal `out`. Splits the run over `threads`
// std::threads (0: every core; small runs use fewer).
void idea_cpu(const IdeaJob& job, const std::uint8_t* in, std::uint8_t* out, std::size_t nblocks, int threads = 0);

// ---- GPU kernels (device-resident data).
enum class IdeaKernel {
  global_key,    // one block per thread, 8-byte loads, subkeys read from global memory (rungs 1-3)
  constant_key,  // one block per thread, 8-byte loads, subkeys in the constant bank (rung 4)
  coarsened,     // several blocks per thread, 16-byte loads, subkeys in the constant bank (rungs 5-6)
};

// Tuning as plain data.
struct IdeaKernelConfig {
  IdeaKernel kernel = IdeaKernel::coarsened;
  int threads_per_block = 256;  // 32..1024, a multiple of 32
  int blocks_per_thread = 4;    // coarsened: 1, 2, 4 or 8 (1 runs the constant_key kernel)
};

// d_in and d_out: device memory, 8-byte aligned (d_in may equal d_out); the coarsened kernel's
// 16-byte path needs 16-byte alignment of both and otherwise runs one block per thread.
// d_subkeys: a device copy of job.subkeys, read by the global_key kernel only (else may be null).
// Asynchronous on `stream`; throws wk::Error{usage} on bad arguments, {cuda} on launch errors.
void idea_gpu(const IdeaJob& job, const std::uint8_t* d_in, std::uint8_t* d_out, std::size_t nblocks,
              const IdeaKernelConfig& config, const IdeaSubkeys* d_subkeys, cudaStream_t stream);

// ---- The APOD ladder, slowest to fastest (docs/apod/idea.md): parallelized, no_output_upload,
// overlapped, constant_key, coarsened, deployed. Every rung is selectable by name; an empty name
// selects the default rung, the fastest measured on the current GPU's architecture.
std::span<const RungInfo> idea_rungs();
// The default rung's name for the current CUDA device.
const char* idea_default_rung();

// The kernel a rung runs ("" = the default). Throws wk::Error{usage} naming the rungs for an
// unknown name.
IdeaKernelConfig idea_kernel_config(std::string_view rung);

// How a host->host run is cut into chunks and spread over streams.
struct IdeaStreaming {
  int streams = 4;                       // the synchronous rungs (1-2) use one
  std::size_t chunk_bytes = 8u << 20;    // a multiple of 16
};
// A rung's streaming setting ("" = the default); throws as idea_kernel_config does.
IdeaStreaming idea_streaming(std::string_view rung);

// One GPU, host memory in and out: owns the streams, the device chunk buffers and the device
// copy of the subkeys. run() returns once h_out holds the result (this is a whole-buffer, host
// synchronous entry point; the device-resident idea_gpu() is the asynchronous one). h_in may
// equal h_out. Rungs from overlapped on overlap copies only when the host memory is pinned.
class IdeaGpuEngine {
 public:
  // `rung`: a name from idea_rungs(), empty for the default rung of `device`. Throws
  // wk::Error{usage} for an unknown name.
  explicit IdeaGpuEngine(int device, std::string_view rung = {});
  // The rung's copies with another kernel or streaming setting (the sweeps of wk-bench idea).
  IdeaGpuEngine(int device, std::string_view rung, const IdeaKernelConfig& kernel, const IdeaStreaming& streaming);
  ~IdeaGpuEngine();
  IdeaGpuEngine(IdeaGpuEngine&&) noexcept;
  IdeaGpuEngine& operator=(IdeaGpuEngine&&) noexcept;

  void run(const IdeaJob& job, const std::uint8_t* h_in, std::uint8_t* h_out, std::size_t nblocks);
  // Authenticated runs on this GPU, as idea_seal_cpu / idea_open_cpu (same buffers, same bytes):
  // IDEA, the leaf digests and the tags all on the device, the chunks in batches over the streams.
  void seal(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed);
  void open(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
            std::uint8_t* h_tags);
  int device() const;
  // The rung it runs: the one named, or the default's name when none was.
  const char* rung() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Where and how a run executes: the CPU, one GPU (rungs 1-5) or, for the deployed rung, every
// listed GPU plus a CPU share.
struct IdeaExecution {
  Backend backend = Backend::cpu;
  std::vector<int> gpus;   // device ids; empty with Backend::gpu: every visible device (the first
                           // one for the rungs that run on one GPU)
  double cpu_percent = 0;  // deployed rung: share of the blocks the CPU does while the GPUs do the rest
  int cpu_threads = 0;     // 0: every core (minus one per GPU when the CPU shares the work)
  std::string rung;        // a name from idea_rungs(); empty: the default rung of the first GPU
  // The id device d has in describe(): gpu_labels[d], d itself when there is none (wk-crypt sets
  // them when --gpus shows the runtime only the GPUs named).
  std::vector<int> gpu_labels;
};

class IdeaExecutor {
 public:
  // Validates the execution (the rung's name, GPU ids, cpu_percent in [0, 100], several GPUs or
  // a CPU share only with the deployed rung) and creates one engine per GPU. Throws wk::Error.
  explicit IdeaExecutor(const IdeaExecution& execution);
  ~IdeaExecutor();
  IdeaExecutor(const IdeaExecutor&) = delete;
  IdeaExecutor& operator=(const IdeaExecutor&) = delete;

  // Host -> host; returns when h_out holds the result. h_in may equal h_out.
  void run(const IdeaJob& job, const std::uint8_t* h_in, std::uint8_t* h_out, std::size_t nblocks);
  // Authenticated runs (see idea_seal_cpu), split by chunks over the GPUs and the CPU share as
  // run() splits blocks.
  void seal(const IdeaSealJob& job, const std::uint8_t* h_plain, std::size_t bytes, std::uint8_t* h_sealed);
  void open(const IdeaSealJob& job, const std::uint8_t* h_sealed, std::size_t bytes, std::uint8_t* h_plain,
            std::uint8_t* h_tags);
  // Host memory suited to run(): pinned when the rung overlaps copies on a GPU; pageable on the
  // CPU and for the synchronous rungs (the book's first port).
  using HostMemory = HostBuffer<std::uint8_t>::Memory;
  HostMemory host_memory() const { return pinned_host_ ? HostMemory::pinned : HostMemory::pageable; }
  HostBuffer<std::uint8_t> host_buffer(std::size_t bytes) const { return HostBuffer<std::uint8_t>(bytes, host_memory()); }
  bool uses_gpu() const { return !engines_.empty(); }
  int gpu_count() const { return static_cast<int>(engines_.size()); }
  // The rung the GPUs run (the default's name when none was named); "" on the CPU.
  const char* rung() const { return rung_; }
  // "GPU 0 (deployed) + 10% on the CPU (14 threads)", "CPU (16 threads)".
  std::string describe() const;

 private:
  IdeaExecution execution_;
  int cpu_threads_ = 1;
  const char* rung_ = "";
  bool pinned_host_ = false;
  std::vector<IdeaGpuEngine> engines_;
};

}  // namespace wk::cipher
