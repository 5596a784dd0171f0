// histogram kernels: the APOD ladder from one global atomic per pixel to conflict-free per-lane
// sub-histograms fed by 128-bit loads, with uniform vectors counted once.
//
// Every rung merges its block's counts into an accumulator with global atomics. Without a
// HistogramWorkspace the accumulator is the output itself and the caller's stream zeroes it
// first. With one, a call is one launch:
//   direct merge (gray vector rungs: one 1024-thread block per SM, ~132 blocks): the first block
//     to arrive zeroes the output and raises a flag; every block adds its totals straight into
//     the output once it has seen the flag (which was raised long before);
//   copies (every other rung and colour: many blocks): the accumulator is the workspace's 8
//     copies of the totals, block b adding into copy b % 8, and the last block to finish adds the
//     copies up into the output and clears them ("last block" pattern: __threadfence, then a
//     counter). ~1000 blocks merging into one copy would queue on its 256 addresses.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/rung_table.hpp"
#include "core/tuning.hpp"
#include "image/rungs.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/image/histogram.hpp"

namespace wk::image {

// What a workspace holds. Gray images on the vector rungs (about one block per SM) merge straight
// into the output: the first block to arrive zeroes it and raises a flag (the call's number) that
// the others wait for before adding. Other calls (many blocks) merge into kCopies copies of the
// totals, block b into copy b % kCopies, so that a block's global atomics share their addresses
// with an eighth of the blocks, and the last block to finish adds the copies up into the output
// and clears them (docs/apod/histogram.md).
struct HistogramWorkspace::State {
  static constexpr int kCopies = 8;
  State();
  std::uint32_t* accumulator() const { return accum_.get(); }
  unsigned* blocks_done() const { return sync_.get(); }
  // Direct merge: the blocks' arrival ticket, and the number of the last call whose output is zeroed.
  unsigned* arrival() const { return sync_.get() + 1; }
  unsigned* zeroed_call() const { return sync_.get() + 2; }
  // A new number for each call (never 0, the value the flag starts at).
  unsigned next_call() { return ++calls_ ? calls_ : ++calls_; }

 private:
  DeviceBuffer<std::uint32_t> accum_;  // kCopies * 4 * 256 counts
  DeviceBuffer<unsigned> sync_;        // finished-block counter, arrival ticket, zeroed-call flag
  unsigned calls_ = 0;
};

namespace {

constexpr int kThreads = 256;      // every rung but the gray vector rungs; 8 warps
constexpr int kGrayThreads = 1024; // gray vector rungs: one block per SM (see launch_vector)
constexpr int kUnroll = 4;         // 128-bit loads in flight per thread (vector rungs)
constexpr int kMaxGridY = 65535;

struct HistArgs {
  const std::uint8_t* src;
  std::size_t pitch;
  int row_bytes;  // width * channels
  int height;
  std::uint32_t* accum;  // totals, added to atomically: `copies` copies of `bins` counts
  unsigned* done;        // finished-block counter; nullptr: accum is the output, no copy-out
  std::uint32_t* out;
  int copies;            // HistogramWorkspace::State::kCopies with a workspace, 1 without
  // Direct merge (vector rungs with a workspace): the first block to arrive zeroes `out` and
  // sets *zeroed = call; every block adds its totals straight into `out` once it sees that.
  unsigned* arrival;     // the blocks' arrival ticket; nullptr: no direct merge
  unsigned* zeroed;      // the number of the last call whose output is zeroed
  unsigned call;         // this call's number (HistogramWorkspace::State::next_call)
};

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The copy of the totals this block adds into. With one copy, all blocks' merges meet on the
// same 256 addresses: on a natural photo (every bin used by every block) ~800 blocks x 256
// atomics queued on 8 cache lines cost 7 us, a fifth of the call (docs/apod/histogram.md).
__device__ __forceinline__ std::uint32_t* block_accum(const HistArgs& a, int bins) {
  return a.accum + ((blockIdx.y * gridDim.x + blockIdx.x) % unsigned(a.copies)) * bins;
}

// Called by every thread of every block once its counts are in accum. The last block adds the
// copies up into the output and leaves them and the counter zeroed for the next call.
__device__ void finish_histogram(const HistArgs& a, int bins) {
  if (!a.done) return;
  __shared__ bool is_last;
  __threadfence();  // this thread's atomics on accum are visible device-wide before the count
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned blocks = gridDim.x * gridDim.y;
    is_last = atomicAdd(a.done, 1u) == blocks - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  constexpr int kCopies = HistogramWorkspace::State::kCopies;  // a.copies whenever there is a workspace
  for (int i = threadIdx.x; i < bins; i += blockDim.x) {
    std::uint32_t part[kCopies], sum = 0;
#pragma unroll
    for (int c = 0; c < kCopies; ++c) part[c] = __ldcg(&a.accum[c * bins + i]);  // all loads in flight at once
#pragma unroll
    for (int c = 0; c < kCopies; ++c) {
      sum += part[c];
      __stcg(&a.accum[c * bins + i], 0u);
    }
    a.out[i] = sum;
  }
  if (threadIdx.x == 0) *a.done = 0;
}

// ---- Rung 1: global atomics. One thread per byte, one atomicAdd in L2 per pixel: every pixel
// of a flat region hits the same address, so contention serializes them.
__global__ void __launch_bounds__(kThreads) histogram_global_atomics_kernel(HistArgs a, int cn) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.row_bytes) {
    std::uint32_t* accum = block_accum(a, kHistogramBins * cn) + (x % cn) * kHistogramBins;
    for (int y = blockIdx.y; y < a.height; y += gridDim.y) atomicAdd(&accum[a.src[std::size_t(y) * a.pitch + x]], 1u);
  }
  finish_histogram(a, kHistogramBins * cn);
}

// ---- Rung 2: shared-memory privatization. The block counts into its own histogram in shared
// memory (fast atomics, no L2 traffic) and merges it once.
__global__ void __launch_bounds__(kThreads) histogram_shared_kernel(HistArgs a, int cn) {
  __shared__ std::uint32_t hist[4 * kHistogramBins];
  const int bins = kHistogramBins * cn;
  for (int i = threadIdx.x; i < bins; i += blockDim.x) hist[i] = 0;
  __syncthreads();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.row_bytes) {
    const int channel_base = (x % cn) * kHistogramBins;
    for (int y = blockIdx.y; y < a.height; y += gridDim.y)
      atomicAdd(&hist[channel_base + a.src[std::size_t(y) * a.pitch + x]], 1u);
  }
  __syncthreads();
  std::uint32_t* accum = block_accum(a, bins);
  for (int i = threadIdx.x; i < bins; i += blockDim.x)
    if (hist[i]) atomicAdd(&accum[i], hist[i]);
  finish_histogram(a, bins);
}

// ---- Rungs 3 to 5: each warp takes chunks of 32 * kUnroll 16-byte vectors of one row, issues
// all kUnroll loads before counting (memory-level parallelism), and counts into sub-histograms:
//   per-warp (rung 3): copy = warp; lanes that see the same value serialize on one address.
//   per-lane (rungs 4, 5): kCopies copies interleaved so that bin b of copy c is word
//     b * kCopies + c; with 32 copies (gray) lane l always uses bank l, whatever the data, so a
//     warp's 32 atomics never conflict. Colour uses 8 copies to stay within 48 KB.
template <int CN, bool kPerLane, int kBlock>
struct SubHistogramLayout {
  static constexpr int kBins = kHistogramBins * CN;
  static constexpr int kCopies = kPerLane ? (CN == 1 ? 32 : 8) : kBlock / 32;
  static constexpr int kWords = kBins * kCopies;
  static constexpr int kBinStride = kPerLane ? kCopies : 1;
  __device__ static std::uint32_t* base(std::uint32_t* smem, int lane, int warp) {
    return kPerLane ? smem + (lane % kCopies) : smem + warp * kBins;
  }
  // Total of bin b over copies [j0, j0 + n); the per-lane sum starts at a rotated copy so the 32
  // lanes of a warp (consecutive bins) read 32 different banks.
  template <int n>
  __device__ static std::uint32_t total(const std::uint32_t* smem, int b, int j0) {
    std::uint32_t sum = 0;
    if constexpr (kPerLane) {
#pragma unroll 8
      for (int j = j0; j < j0 + n; ++j) sum += smem[b * kCopies + ((j + b) & (kCopies - 1))];
    } else {
#pragma unroll 8
      for (int w = j0; w < j0 + n; ++w) sum += smem[w * kBins + b];
    }
    return sum;
  }
};

__device__ __forceinline__ unsigned byte_of(unsigned word, int k) { return (word >> (8 * k)) & 0xFFu; }

// Gray: the byte offset of byte K's bin in this thread's sub-histogram is (value << kShift) |
// copy_offset (the two never overlap: kShift 7 per lane with copy_offset = lane * 4, kShift 2
// per warp with copy_offset = warp * 1024), so one shift and one LOP3 give the address.
template <int kShift, int K>
__device__ __forceinline__ unsigned bin_offset(unsigned word) {
  constexpr int s = 8 * K - kShift;
  return (s >= 0 ? (word >> s) : (word << -s)) & (0xFFu << kShift);
}

template <int kShift, bool kAggregate>
__device__ __forceinline__ void count_vector_gray(const uint4& v, char* smem_bytes, unsigned copy_offset) {
  auto add = [&](unsigned off, unsigned n) { atomicAdd(reinterpret_cast<unsigned*>(smem_bytes + (off | copy_offset)), n); };
  if constexpr (kAggregate) {
    // Run aggregation: 16 equal bytes (a flat area) are one atomic of 16.
    if (v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm(v.x, 0, 0)) {
      add(bin_offset<kShift, 0>(v.x), 16u);
      return;
    }
  }
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    add(bin_offset<kShift, 0>(w[i]), 1u);
    add(bin_offset<kShift, 1>(w[i]), 1u);
    add(bin_offset<kShift, 2>(w[i]), 1u);
    add(bin_offset<kShift, 3>(w[i]), 1u);
  }
}

// Counts one 16-byte vector whose first byte is byte 16 * col of its row.
template <int CN, bool kAggregate, class Add>
__device__ __forceinline__ void count_vector(const uint4& v, int col, Add add) {
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
  if constexpr (kAggregate && CN != 3) {
    // Run aggregation: a vector of one repeated 4-byte pattern (a flat area: one value in gray,
    // one colour in BGRA) is counted with one atomic per channel instead of 16 / CN.
    if (v.x == v.y && v.x == v.z && v.x == v.w && (CN == 4 || v.x == __byte_perm(v.x, 0, 0))) {
      if constexpr (CN == 1) {
        add(byte_of(v.x, 0), 16u);
      } else {
#pragma unroll
        for (int c = 0; c < 4; ++c) add(c * kHistogramBins + byte_of(v.x, c), 4u);
      }
      return;
    }
  }
  if constexpr (CN == 3) {
    // 16 = 1 (mod 3): byte i of vector col belongs to channel (col + i) % 3.
    const int phase = col % 3;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      int c = phase + i % 3;
      c = c >= 3 ? c - 3 : c;
      add(c * kHistogramBins + byte_of(w[i / 4], i % 4), 1u);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 16; ++i) add((CN == 4 ? (i % 4) * kHistogramBins : 0) + byte_of(w[i / 4], i % 4), 1u);
  }
}

// The vector rungs. Each warp takes chunks of 32 * kUnroll 16-byte vectors of one row (every
// (grid warps)-th chunk), issues all kUnroll loads before counting, and counts into
// its sub-histograms. kPipelined: the next chunk's loads are issued before the current one is
// counted, and the first chunk's before the block clears its counts, so the warp always has
// loads in flight.
template <int CN, bool kPerLane, bool kAggregate, bool kPipelined, int kBlock>
__global__ void __launch_bounds__(kBlock) histogram_vector_kernel(HistArgs a) {
  using L = SubHistogramLayout<CN, kPerLane, kBlock>;
  extern __shared__ uint4 smem_vec[];
  std::uint32_t* smem = reinterpret_cast<std::uint32_t*>(smem_vec);
  constexpr int kWarps = kBlock / 32;
  // kParts threads add up each bin's copies at the end (all of them when there are 4 x 256 threads).
  constexpr int kParts = kBlock >= 2 * L::kBins ? kBlock / L::kBins : 1;
  __shared__ std::uint32_t totals[kParts > 1 ? L::kBins : 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  const int vectors_per_row = a.row_bytes >> 4;
  constexpr int kChunk = 32 * kUnroll;
  const int chunks_per_row = (vectors_per_row + kChunk - 1) / kChunk;
  const int total_chunks = chunks_per_row * a.height;
  const int step = gridDim.x * kWarps;
  // Chunk `chunk`'s vectors for this lane: col0 + 32 u (u < kUnroll) of its row.
  auto load = [&](int chunk, uint4 (&v)[kUnroll], int& col0) {
    const int row = chunk / chunks_per_row;
    col0 = (chunk - row * chunks_per_row) * kChunk + lane;
    const uint4* p = reinterpret_cast<const uint4*>(a.src + std::size_t(row) * a.pitch);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (col0 + u * 32 < vectors_per_row) v[u] = __ldg(p + col0 + u * 32);
  };
  // Chunk c goes to warp c / gridDim.x of block c % gridDim.x (then every `step` chunks on): the
  // last, partial round of chunks is spread over every block, a few warps each, instead of
  // filling the first blocks and leaving whole SMs idle (8192^2: 7.76 rounds; ncu measured the
  // SMs' busy cycles at min 37.8 k / max 44.6 k in block-major order, 38.8 k / 41.6 k in this one).
  int chunk = warp * int(gridDim.x) + int(blockIdx.x);
  uint4 cur[kUnroll];
  int cur_col = 0;
  if (kPipelined && chunk < total_chunks) load(chunk, cur, cur_col);

  for (int i = threadIdx.x; i < L::kWords / 4; i += blockDim.x) smem_vec[i] = make_uint4(0, 0, 0, 0);
  if constexpr (kParts > 1)
    for (int i = threadIdx.x; i < L::kBins; i += blockDim.x) totals[i] = 0;
  __syncthreads();
  // Direct merge: the last warp takes the block's ticket; the first block to arrive zeroes the
  // output and raises the flag, the last one resets the ticket for the next call. Its other warps
  // start counting at once.
  const bool merger = a.arrival && warp == kWarps - 1;
  if (merger) {
    unsigned ticket = 0;
    if (lane == 0) ticket = atomicAdd(a.arrival, 1u);
    ticket = __shfl_sync(0xFFFFFFFFu, ticket, 0);
    if (ticket == gridDim.x - 1 && lane == 0) atomicExch(a.arrival, 0u);
    if (ticket == 0) {
      for (int b = lane; b < L::kBins; b += 32) a.out[b] = 0;
      __threadfence();
      __syncwarp();
      if (lane == 0) atomicExch(a.zeroed, a.call);
    }
  }

  std::uint32_t* mine = L::base(smem, lane, warp);
  auto add = [mine](int bin, unsigned n) { atomicAdd(mine + bin * L::kBinStride, n); };
  auto count = [&](const uint4 (&v)[kUnroll], int col0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (col0 + u * 32 >= vectors_per_row) continue;
      if constexpr (CN == 1) {
        constexpr int kShift = kPerLane ? 7 : 2;  // bin stride: 32 copies or 1 word
        count_vector_gray<kShift, kAggregate>(v[u], reinterpret_cast<char*>(smem),
                                              kPerLane ? unsigned(lane) << 2 : unsigned(warp) << 10);
      } else {
        count_vector<CN, kAggregate>(v[u], col0 + u * 32, add);
      }
    }
  };
  if constexpr (kPipelined) {
    while (chunk < total_chunks) {
      const int next = chunk + step;
      uint4 ahead[kUnroll] = {};
      int ahead_col = 0;
      if (next < total_chunks) load(next, ahead, ahead_col);
      count(cur, cur_col);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) cur[u] = ahead[u];
      cur_col = ahead_col;
      chunk = next;
    }
  } else {
    for (; chunk < total_chunks; chunk += step) {
      load(chunk, cur, cur_col);
      count(cur, cur_col);
    }
  }
  // The last row_bytes % 16 bytes of each row, one byte per thread.
  const int tail = a.row_bytes & 15;
  if (tail) {
    const int tail_bytes = tail * a.height;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < tail_bytes; i += gridDim.x * blockDim.x) {
      const int row = i / tail;
      const int x = vectors_per_row * 16 + (i - row * tail);
      add((x % CN) * kHistogramBins + a.src[std::size_t(row) * a.pitch + x], 1u);
    }
  }
  // Direct merge: the flag was raised at the start of the kernel; acquiring it orders this
  // block's additions after the zeroing.
  if (merger && lane == 0)
    while (load_acquire(a.zeroed) != a.call) __nanosleep(64);
  __syncthreads();
  std::uint32_t* accum = a.arrival ? a.out : block_accum(a, L::kBins);
  if constexpr (kParts > 1) {
    // Thread t adds copies [part * n, (part + 1) * n) of bin t % kBins; a warp's 32 bins are
    // consecutive, so its loads hit 32 banks.
    constexpr int n = L::kCopies / kParts;
    const int b = threadIdx.x % L::kBins, part = threadIdx.x / L::kBins;
    const std::uint32_t sum = L::template total<n>(smem, b, part * n);
    if (sum) atomicAdd(&totals[b], sum);
    __syncthreads();
    if (threadIdx.x < L::kBins && totals[threadIdx.x]) atomicAdd(&accum[threadIdx.x], totals[threadIdx.x]);
  } else {
    for (int b = threadIdx.x; b < L::kBins; b += blockDim.x) {
      const std::uint32_t sum = L::template total<L::kCopies>(smem, b, 0);
      if (sum) atomicAdd(&accum[b], sum);
    }
  }
  if (!a.arrival) finish_histogram(a, L::kBins);
}

int sm_count() {
  int device = 0, sms = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  WK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

template <int CN, bool kPerLane, bool kAggregate, bool kPipelined>
void launch_vector(const HistArgs& a, cudaStream_t stream) {
  constexpr int kBlock = CN == 1 ? kGrayThreads : kThreads;
  using L = SubHistogramLayout<CN, kPerLane, kBlock>;
  const std::size_t smem = L::kWords * sizeof(std::uint32_t);
  auto kernel = histogram_vector_kernel<CN, kPerLane, kAggregate, kPipelined, kBlock>;
  // A grid that fills the GPU exactly once: every block loops over chunks, so the per-block
  // merge is paid once per resident block, not once per chunk.
  static thread_local int cached_device = -1, cached_blocks = 0;
  int device = 0;
  WK_CUDA_CHECK(cudaGetDevice(&device));
  if (device != cached_device) {
    int per_sm = 0;
    WK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, smem));
    cached_blocks = std::max(1, per_sm) * sm_count();
    cached_device = device;
  }
  const int chunks = ((a.row_bytes / 16 + 32 * kUnroll - 1) / (32 * kUnroll)) * a.height;
  const int needed = std::max(1, std::max((chunks + kBlock / 32 - 1) / (kBlock / 32), (a.row_bytes % 16) * a.height / kBlock));
  kernel<<<std::min(cached_blocks, needed), kBlock, smem, stream>>>(a);
}

template <bool kPerLane, bool kAggregate, bool kPipelined = false>
void launch_vector_cn(const HistArgs& a, int cn, cudaStream_t stream) {
  switch (cn) {
    case 1: launch_vector<1, kPerLane, kAggregate, kPipelined>(a, stream); break;
    case 3: launch_vector<3, kPerLane, kAggregate, kPipelined>(a, stream); break;
    default: launch_vector<4, kPerLane, kAggregate, kPipelined>(a, stream); break;
  }
}

enum class HistKernel { global_atomics, shared_privatized, warp_vectorized, lane_privatized, run_aggregated, pipelined };

struct HistogramCall {
  ConstImageView src;
  std::uint32_t* hist;
  HistogramWorkspace* workspace;
  cudaStream_t stream;
  bool aligned;  // 16-byte aligned rows: the vector rungs need them
};

void launch_kernel(HistKernel kernel, const HistogramCall& c) {
  const int cn = c.src.channels;
  HistArgs a{c.src.data, c.src.pitch_bytes, c.src.width * cn, c.src.height, c.hist, nullptr, c.hist, 1, nullptr, nullptr, 0};
  // The gray vector rungs run ~one 1024-thread block per SM: few enough blocks to merge straight
  // into the output (docs/apod/histogram.md).
  const bool direct = cn == 1 && kernel != HistKernel::global_atomics && kernel != HistKernel::shared_privatized;
  if (c.workspace && direct) {
    HistogramWorkspace::State& ws = c.workspace->state();
    a.arrival = ws.arrival();
    a.zeroed = ws.zeroed_call();
    a.call = ws.next_call();
  } else if (c.workspace) {
    HistogramWorkspace::State& ws = c.workspace->state();
    a.accum = ws.accumulator();
    a.done = ws.blocks_done();
    a.copies = HistogramWorkspace::State::kCopies;
  } else {
    WK_CUDA_CHECK(cudaMemsetAsync(c.hist, 0, std::size_t(kHistogramBins) * cn * sizeof(std::uint32_t), c.stream));
  }
  switch (kernel) {
    case HistKernel::global_atomics:
    case HistKernel::shared_privatized: {
      // About 16 blocks per SM, each looping over rows: enough to fill the GPU, few enough that
      // the per-block merge (256 * cn global atomics) stays small next to the counting.
      const int blocks_x = (a.row_bytes + kThreads - 1) / kThreads;
      const int blocks_y = std::clamp(16 * sm_count() / blocks_x, 1, std::min(a.height, kMaxGridY));
      const dim3 grid(blocks_x, blocks_y);
      if (kernel == HistKernel::global_atomics)
        histogram_global_atomics_kernel<<<grid, kThreads, 0, c.stream>>>(a, cn);
      else
        histogram_shared_kernel<<<grid, kThreads, 0, c.stream>>>(a, cn);
      break;
    }
    case HistKernel::warp_vectorized: launch_vector_cn<false, false>(a, cn, c.stream); break;
    case HistKernel::lane_privatized: launch_vector_cn<true, false>(a, cn, c.stream); break;
    case HistKernel::run_aggregated: launch_vector_cn<true, true>(a, cn, c.stream); break;
    case HistKernel::pipelined: launch_vector_cn<true, true, true>(a, cn, c.stream); break;
  }
  WK_CUDA_CHECK_LAUNCH();
}

template <HistKernel K>
bool try_kernel(const HistogramCall& c) {
  if (K != HistKernel::global_atomics && K != HistKernel::shared_privatized && !c.aligned) return false;
  launch_kernel(K, c);
  return true;
}

constexpr wk::detail::Rung<HistogramCall> kRungs[] = {
    {{"global_atomics", "1 px/thread, atomicAdd in global memory"}, &try_kernel<HistKernel::global_atomics>},
    {{"shared_privatized", "block histogram in shared memory"}, &try_kernel<HistKernel::shared_privatized>},
    {{"warp_vectorized", "per-warp sub-histograms, 4x128-bit loads/thread"}, &try_kernel<HistKernel::warp_vectorized>},
    {{"lane_privatized", "per-lane sub-histograms, conflict-free banks"}, &try_kernel<HistKernel::lane_privatized>},
    {{"run_aggregated", "lane_privatized + uniform vectors counted once"}, &try_kernel<HistKernel::run_aggregated>},
    {{"pipelined", "run_aggregated + next chunk's loads in flight while counting"}, &try_kernel<HistKernel::pipelined>},
};

// ---- Tuning. Measured on sm_90 (H100, 8192 x 8192, docs/apod/histogram.md): pipelined
// 2417-2486 Gpx/s (natural / constant image), 91 / 94 % of a read-only pass, ahead of every other
// rung. Unaligned rows take shared_privatized. Older architectures: the sm_90 order.
constexpr const char* kSm90[] = {"pipelined", "shared_privatized"};
constexpr wk::detail::ArchOrder kTuning[] = {{0, kSm90}};
const wk::detail::Ladder<HistogramCall> kLadder{"histogram", kRungs, kTuning};

}  // namespace

HistogramWorkspace::HistogramWorkspace() : state_(std::make_unique<State>()) {}
HistogramWorkspace::~HistogramWorkspace() = default;
HistogramWorkspace::HistogramWorkspace(HistogramWorkspace&&) noexcept = default;
HistogramWorkspace& HistogramWorkspace::operator=(HistogramWorkspace&&) noexcept = default;

HistogramWorkspace::State::State() : accum_(kCopies * 4 * kHistogramBins), sync_(3) {
  // cudaMemset runs on the legacy default stream, asynchronously to the host, and non-blocking
  // streams do not wait for it: finish it here, before any stream can use the workspace.
  WK_CUDA_CHECK(cudaMemset(accum_.get(), 0, accum_.bytes()));
  WK_CUDA_CHECK(cudaMemset(sync_.get(), 0, sync_.bytes()));
  WK_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

std::span<const RungInfo> detail::histogram_rungs() { return kLadder.infos(); }

void check_histogram_view(ConstImageView src);

const char* histogram(ConstImageView d_src, std::uint32_t* d_hist, cudaStream_t stream, HistogramWorkspace* workspace,
                      std::string_view rung) {
  check_histogram_view(d_src);
  const int cn = d_src.channels;
  const std::size_t bins = std::size_t(kHistogramBins) * cn;
  if (d_src.empty()) {
    WK_CUDA_CHECK(cudaMemsetAsync(d_hist, 0, bins * sizeof(std::uint32_t), stream));
    return kLadder.none(rung);
  }
  if (std::size_t(d_src.width) * cn > std::size_t(INT_MAX) / 2 || d_src.height > INT_MAX / 2 ||
      double(d_src.width) * d_src.height >= 4294967295.0)
    throw Error(ErrorCategory::unsupported, "histogram: image too large for 32-bit counts");
  const bool aligned = reinterpret_cast<std::uintptr_t>(d_src.data) % 16 == 0 && d_src.pitch_bytes % 16 == 0;
  const HistogramCall call{d_src, d_hist, workspace, stream, aligned};
  return kLadder.run(rung, call);
}

}  // namespace wk::image
