#pragma once
// Plain interface between the host side of the GPU engine and the kernels: the output slots every
// method's kernels write, and the round engine that md5crypt, sha256crypt and sha512crypt share
// (round_batch.cpp on the host, shacrypt_kernels.cuh instantiated by each method's .cu). No CUDA
// kernel code here.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace wk::hash::gpu::detail {

inline constexpr int kOutStride = 96;  // the most bytes per job for the encoded hash characters (86 at most)
// Bytes per job of a batch's output: its method's hash characters rounded up to 8. md5crypt's 22
// characters take 24 bytes, not kOutStride's 96: a quarter of the device-to-host copy and of the
// pinned buffer, and the host reads them back contiguously (wk-hash hash copies 64 M of them).
constexpr int out_stride_for(int hash_chars) { return (hash_chars + 7) / 8 * 8; }
inline constexpr int kRoundThreads = 128;  // threads per block of the round kernels

// ---- md5crypt / sha256crypt / sha512crypt: one packed batch in device memory -----------------
struct ShaBatch {
  int n = 0;
  const std::uint8_t* pw = nullptr;      // packed password bytes
  const std::uint32_t* pw_off = nullptr; // offset of job g's password in pw (and in pseq)
  const std::uint16_t* pl = nullptr;     // password lengths
  const std::uint8_t* salt = nullptr;    // 16 bytes per job
  const std::uint8_t* sl = nullptr;      // salt lengths
  const std::uint32_t* rounds = nullptr; // round counts
  std::uint32_t* state = nullptr;        // the digest C as stream words, word-major: state[k * n + g]
  std::uint8_t* pseq = nullptr;          // sha-crypt: the P sequence (same offsets as pw); md5crypt: unused
  std::uint8_t* sseq = nullptr;          // sha-crypt: the S sequence, 16 bytes per job; md5crypt: unused
  char* out = nullptr;                   // out_stride bytes per job
  int out_stride = kOutStride;           // out_stride_for(the method's hash characters)
};

// A contiguous range of jobs computed by one kernel configuration. A launch covers the jobs
// [first, last) of it (relative to begin): DeviceBatch splits each range into parts whose launch
// sequences run on separate streams, so one part's next launch fills the SMs another part's last
// warps leave idle (docs/apod/hash.md, "Where the kernels stand").
struct ShaRange {
  int begin = 0, count = 0;
  int first = 0, last = 0;
  int nblk = 0;                     // blocks per round the block kernel handles; 0: reference rounds
  int nw = 0;                       // template words per layout (0: no templates)
  bool shared = false;              // templates staged in shared memory
  std::uint32_t* tmpl = nullptr;    // 8 * nw * count words, word-major over the range's jobs
};

// A fast configuration: the block kernel for up to nblk blocks per round with nw template words.
struct ShaConfig {
  int nblk = 0, nw = 0;
  bool shared_ok = false;  // small enough to stage in shared memory
};

struct ShaKernels {
  int digest_bytes;
  int hash_chars;
  // The configurations compiled, smallest first; a job takes the first that fits it.
  const ShaConfig* configs;
  int config_count;
  // Whether `config` fits a job with these lengths (every round of it).
  bool (*fits)(const ShaConfig& config, int pl, int sl);
  void (*setup)(const ShaBatch& b, const ShaRange& r, cudaStream_t stream);
  void (*rounds)(const ShaBatch& b, const ShaRange& r, std::uint32_t r0, std::uint32_t r1, cudaStream_t stream);
  void (*final)(const ShaBatch& b, int g0, int g1, cudaStream_t stream);  // encodes jobs [g0, g1)
};

}  // namespace wk::hash::gpu::detail
