// The nvJPEG decode-only bound of a folder of JPEGs, for tools/bench-image-folder.sh: what
// wk-image's decode service could reach if nothing else ran. All files are read into memory,
// then decoded in batches with nvjpegDecodeBatched (hardware backend where the GPU has one,
// interleaved BGR as wk-image asks for) by one thread, as the service does; the first pass
// allocates and is not timed, the next passes are. Prints the handle start-up time, the steady
// decode rate and the call/synchronize split for each batch size asked for, then the best of
// them (the ceiling wk-image's steady state is compared with).
//   nvcc -O2 -std=c++17 tools/nvjpeg-decode-bound.cu -lnvjpeg -lcuda -o nvjpeg-decode-bound
//   ./nvjpeg-decode-bound DIR [BATCHES=64,128] [PASSES=3]
// WK_BOUND_LOAD=KIND:N runs N threads of other work on the same GPU while the decoder is timed,
// each on its own stream, each step followed by a stream synchronize (docs/benchmarks.md,
// "wk-image over a folder"): `api` (64 KB pinned uploads: CUDA calls, little data), `copy` (8 MB
// pinned up, 1 MB down) or `kernel` (a copy kernel over 8 MB in device memory, 264 blocks of 512).
// Knobs of the load: WK_BOUND_LOAD_BYTES (the buffer size), WK_BOUND_LOAD_BLOCKS
// (the copy kernel's grid), WK_BOUND_GREEN=N (the load's streams in a green context of N SMs,
// the decoder's stream in a green context of the remaining SMs, so that they share no SM).
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvjpeg.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    const int status_ = static_cast<int>(call);                                      \
    if (status_ != 0) {                                                              \
      std::fprintf(stderr, "%s failed with status %d (line %d)\n", #call, status_, __LINE__); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

using Clock = std::chrono::steady_clock;
static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// ---- WK_BOUND_LOAD: other work on the GPU beside the decoder.
enum class LoadKind { api, copy, kernel };
static std::atomic<bool> g_load_stop{false};
static std::atomic<long> g_load_steps{0};

__global__ void load_copy_kernel(const uint4* in, uint4* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

static CUgreenCtx g_load_green = nullptr;  // WK_BOUND_GREEN: the load's SMs
static int g_load_blocks = 264;
static std::size_t g_load_bytes = 0;       // the load's buffer size, set by start_load

// Splits device 0's SMs once into a group of `sms` (rounded by the driver to its granularity) and
// the rest, and makes a green context of each: they share no SM. *group_sms and *rest_sms get
// their SM counts.
static void make_green_contexts(int sms, CUgreenCtx* group_ctx, int* group_sms, CUgreenCtx* rest_ctx, int* rest_sms) {
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUdevResource all, group, remaining;
  CHECK(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
  unsigned groups = 1;
  CHECK(cuDevSmResourceSplitByCount(&group, &groups, &all, &remaining, 0, unsigned(sms)));
  CUdevResourceDesc group_desc, rest_desc;
  CHECK(cuDevResourceGenerateDesc(&group_desc, &group, 1));
  CHECK(cuDevResourceGenerateDesc(&rest_desc, &remaining, 1));
  CHECK(cuGreenCtxCreate(group_ctx, group_desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  CHECK(cuGreenCtxCreate(rest_ctx, rest_desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  *group_sms = int(group.sm.smCount);
  *rest_sms = int(remaining.sm.smCount);
}

static void load_thread(LoadKind kind) {
  cudaStream_t s;
  if (g_load_green) {
    CUstream gs;
    CHECK(cuGreenCtxStreamCreate(&gs, g_load_green, CU_STREAM_NON_BLOCKING, 0));
    s = gs;
  } else {
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  const std::size_t n = g_load_bytes;
  void *host = nullptr, *a = nullptr, *b = nullptr;
  CHECK(cudaMallocHost(&host, n));
  std::memset(host, 1, n);
  CHECK(cudaMalloc(&a, n));
  CHECK(cudaMalloc(&b, n));
  CHECK(cudaMemset(a, 0, n));
  while (!g_load_stop) {
    if (kind == LoadKind::kernel) {
      load_copy_kernel<<<g_load_blocks, 512, 0, s>>>(static_cast<const uint4*>(a), static_cast<uint4*>(b), n / 16);
    } else {
      CHECK(cudaMemcpyAsync(a, host, n, cudaMemcpyHostToDevice, s));
      if (kind == LoadKind::copy) CHECK(cudaMemcpyAsync(host, b, n / 8, cudaMemcpyDeviceToHost, s));
    }
    CHECK(cudaStreamSynchronize(s));
    ++g_load_steps;
  }
  cudaFree(a);
  cudaFree(b);
  cudaFreeHost(host);
  cudaStreamDestroy(s);
}

// Starts the threads WK_BOUND_LOAD asks for (none without it); exits on a malformed value.
static std::vector<std::thread> start_load(std::string& description) {
  std::vector<std::thread> threads;
  const char* env = std::getenv("WK_BOUND_LOAD");
  if (!env || !*env) return threads;
  const std::string spec(env);
  const auto colon = spec.find(':');
  const std::string kind_name = spec.substr(0, colon);
  const int count = colon == std::string::npos ? 0 : std::atoi(spec.c_str() + colon + 1);
  LoadKind kind = LoadKind::api;
  bool known = true;
  if (kind_name == "copy") kind = LoadKind::copy;
  else if (kind_name == "kernel") kind = LoadKind::kernel;
  else known = kind_name == "api";
  if (!known || count < 1 || count > 256) {
    std::fprintf(stderr, "WK_BOUND_LOAD must be api:N, copy:N or kernel:N with N in 1..256, not '%s'\n", env);
    std::exit(2);
  }
  g_load_bytes = kind == LoadKind::api ? (std::size_t(64) << 10) : (std::size_t(8) << 20);
  if (const char* e = std::getenv("WK_BOUND_LOAD_BYTES")) g_load_bytes = std::max<std::size_t>(16, std::strtoull(e, nullptr, 10) / 16 * 16);
  if (const char* e = std::getenv("WK_BOUND_LOAD_BLOCKS")) g_load_blocks = std::clamp(std::atoi(e), 1, 65535);
  for (int i = 0; i < count; ++i) threads.emplace_back(load_thread, kind);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // every thread running before the timing
  description = ", beside " + std::to_string(count) + " " + kind_name + " load threads of " + std::to_string(g_load_bytes) +
                " bytes" + (kind == LoadKind::kernel ? ", " + std::to_string(g_load_blocks) + " blocks" : std::string());
  return threads;
}

// One batch size: a state initialized for it, `batch` output buffers, an untimed first pass.
static double measure(nvjpegHandle_t handle, bool hardware, cudaStream_t stream,
                      const std::vector<std::vector<unsigned char>>& files, double bytes, int batch, int passes) {
  nvjpegJpegState_t state;
  CHECK(nvjpegJpegStateCreate(handle, &state));
  CHECK(nvjpegDecodeBatchedInitialize(handle, state, batch, 1, NVJPEG_OUTPUT_BGRI));
  std::vector<unsigned char*> buffers(batch);
  std::vector<std::size_t> pitches(batch);
  std::vector<const unsigned char*> data(batch);
  std::vector<std::size_t> lengths(batch);
  std::vector<nvjpegImage_t> outputs(batch);
  int width = 0, height = 0;
  {
    int components = 0, w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t css;
    CHECK(nvjpegGetImageInfo(handle, files[0].data(), files[0].size(), &components, &css, w, h));
    width = w[0];
    height = h[0];
  }
  for (int k = 0; k < batch; ++k) CHECK(cudaMallocPitch(reinterpret_cast<void**>(&buffers[k]), &pitches[k], width * 3, height));
  const int per_pass = int(files.size()) / batch * batch;
  double call_s = 0, sync_s = 0, timed_s = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const auto t_pass = Clock::now();
    for (int first = 0; first < per_pass; first += batch) {
      for (int k = 0; k < batch; ++k) {
        data[k] = files[first + k].data();
        lengths[k] = files[first + k].size();
        outputs[k] = nvjpegImage_t{};
        outputs[k].channel[0] = buffers[k];
        outputs[k].pitch[0] = pitches[k];
      }
      auto t = Clock::now();
      CHECK(nvjpegDecodeBatched(handle, state, data.data(), lengths.data(), outputs.data(), stream));
      if (pass > 0) call_s += seconds_since(t);
      t = Clock::now();
      CHECK(cudaStreamSynchronize(stream));
      if (pass > 0) sync_s += seconds_since(t);
    }
    if (pass > 0) timed_s += seconds_since(t_pass);
  }
  const double images = double(per_pass) * (passes - 1);
  const double rate = images / timed_s;
  std::printf("nvJPEG decode-only bound (%s backend, batches of %d, 1 thread): %.1f img/s over %d JPEGs of %dx%d "
              "(%.2f MB each), %d timed passes; in nvjpegDecodeBatched %.0f%%, waiting for the stream %.0f%%\n",
              hardware ? "hardware" : "default", batch, rate, per_pass, width, height, bytes / files.size() / 1e6,
              passes - 1, 100 * call_s / timed_s, 100 * sync_s / timed_s);
  for (auto* b : buffers) cudaFree(b);
  nvjpegJpegStateDestroy(state);
  return rate;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [BATCHES=64,128] [PASSES=3]   (env WK_BOUND_LOAD=api|copy|kernel:N, WK_BOUND_LOAD_BYTES, WK_BOUND_LOAD_BLOCKS, WK_BOUND_GREEN: see the source)\n", argv[0]);
    return 2;
  }
  std::vector<int> batches;
  {
    const char* list = argc > 2 ? argv[2] : "64,128";
    for (const char* p = list; *p;) {
      char* end = nullptr;
      const long b = std::strtol(p, &end, 10);
      if (end == p || b < 1) {
        std::fprintf(stderr, "bad batch list '%s'\n", list);
        return 2;
      }
      batches.push_back(int(b));
      p = *end == ',' ? end + 1 : end;
    }
  }
  const int passes = argc > 3 ? std::atoi(argv[3]) : 3;
  std::vector<std::vector<unsigned char>> files;
  double bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(argv[1])) {
    const auto ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".jpg" && ext != ".jpeg")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    files.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    bytes += double(files.back().size());
  }
  const int largest = *std::max_element(batches.begin(), batches.end());
  if (int(files.size()) < largest) {
    std::fprintf(stderr, "need at least %d JPEGs in %s\n", largest, argv[1]);
    return 1;
  }
  const auto t_context = Clock::now();
  CHECK(cudaFree(nullptr));  // the CUDA context, before the nvJPEG handle is timed
  const double context_s = seconds_since(t_context);
  const auto t_handle = Clock::now();
  nvjpegHandle_t handle = nullptr;
  bool hardware = true;
  if (nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, nullptr, nullptr, 0, &handle) != NVJPEG_STATUS_SUCCESS) {
    hardware = false;
    CHECK(nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, nullptr, nullptr, 0, &handle));
  }
  const double handle_s = seconds_since(t_handle);
  std::printf("nvJPEG start-up: CUDA context %.0f ms, %s decoder handle %.0f ms\n", context_s * 1e3,
              hardware ? "hardware" : "default", handle_s * 1e3);
  cudaStream_t stream;
  std::string load;
  if (const char* green = std::getenv("WK_BOUND_GREEN")) {
    int load_sms = 0, decoder_sms = 0;
    CUgreenCtx decoder;
    make_green_contexts(std::atoi(green), &g_load_green, &load_sms, &decoder, &decoder_sms);
    CUstream gs;
    CHECK(cuGreenCtxStreamCreate(&gs, decoder, CU_STREAM_NON_BLOCKING, 0));
    stream = gs;
    load = ", decoder on " + std::to_string(decoder_sms) + " SMs and load on " + std::to_string(load_sms) + " (green contexts)";
  } else {
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  const auto t_load = Clock::now();
  std::string load_threads_text;
  std::vector<std::thread> load_threads = start_load(load_threads_text);
  load = load_threads_text + load;
  double best = 0;
  int best_batch = 0;
  for (int b : batches) {
    const double rate = measure(handle, hardware, stream, files, bytes, b, passes);
    if (rate > best) best = rate, best_batch = b;
  }
  std::printf("nvJPEG decode ceiling: %.1f img/s (batches of %d, the best of those measured%s)\n", best, best_batch,
              load.c_str());
  if (!load_threads.empty()) {
    std::printf("load threads: %.0f steps/s together, from their start\n", g_load_steps / seconds_since(t_load));
    g_load_stop = true;
    for (auto& t : load_threads) t.join();
  }
  nvjpegDestroy(handle);
  cudaStreamDestroy(stream);
  return 0;
}
