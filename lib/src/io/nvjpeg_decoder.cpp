#include "io/nvjpeg_decoder.hpp"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"

#if WK_HAVE_NVJPEG
#include "io/nvjpeg_internal.hpp"
#endif

namespace wk::io {

#if WK_HAVE_NVJPEG

bool nvjpeg_in_build() noexcept { return true; }

using nvjpeg_status::check;
using nvjpeg_status::describe;

NvjpegLibrary::NvjpegLibrary(bool allow_hardware) : impl_(std::make_unique<Impl>()) {
  nvtx::Range range("nvjpeg handle", nvtx::Color::codec);
  struct Attempt {
    nvjpegBackend_t backend;
    unsigned flags;
  };
  // NVJPEG_BACKEND_HARDWARE fails to create on GPUs without JPEG engines; a library that does not
  // know the upsampling flag rejects it. Either way the next attempt follows.
  const Attempt attempts[] = {
      {NVJPEG_BACKEND_HARDWARE, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION},
      {NVJPEG_BACKEND_HARDWARE, NVJPEG_FLAGS_DEFAULT},
      {NVJPEG_BACKEND_DEFAULT, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION},
      {NVJPEG_BACKEND_DEFAULT, NVJPEG_FLAGS_DEFAULT},
  };
  // WK_NVJPEG_BACKEND=cuda skips the hardware attempts: the CUDA backend everywhere (to compare
  // the two, and for compute-sanitizer's initcheck, which cannot see the JPEG engine's writes and
  // reports nvJPEG's own colour conversion reading them as uninitialized).
  const char* env = std::getenv("WK_NVJPEG_BACKEND");
  const bool cuda_only = !allow_hardware || (env != nullptr && std::string_view(env) == "cuda");
  nvjpegStatus_t last = NVJPEG_STATUS_NOT_INITIALIZED;
  for (const Attempt& a : attempts) {
    if (cuda_only && a.backend == NVJPEG_BACKEND_HARDWARE) continue;
    nvjpegHandle_t h = nullptr;
    last = nvjpegCreateEx(a.backend, nullptr, nullptr, a.flags, &h);
    if (last == NVJPEG_STATUS_SUCCESS) {
      impl_->handle = h;
      impl_->hardware = a.backend == NVJPEG_BACKEND_HARDWARE;
      impl_->name = impl_->hardware ? "nvjpeg-hw" : "nvjpeg";
      return;
    }
  }
  throw Error(ErrorCategory::unsupported, "nvJPEG could not start: " + describe("nvjpegCreateEx", last));
}

NvjpegLibrary::~NvjpegLibrary() {
  if (impl_->handle) nvjpegDestroy(impl_->handle);
}

bool NvjpegLibrary::hardware() const { return impl_->hardware; }
const std::string& NvjpegLibrary::name() const { return impl_->name; }

struct NvjpegParser::Impl {
  std::shared_ptr<NvjpegLibrary> library;
  nvjpegHandle_t handle = nullptr;
  nvjpegJpegStream_t parsed = nullptr;  // the header parse (per thread, as nvJPEG requires)

  ~Impl() {
    if (parsed) nvjpegJpegStreamDestroy(parsed);
  }
};

NvjpegParser::NvjpegParser(std::shared_ptr<NvjpegLibrary> library) : impl_(std::make_unique<Impl>()) {
  impl_->library = std::move(library);
  impl_->handle = impl_->library->impl().handle;
  nvtx::Range range("nvjpeg parser", nvtx::Color::codec);
  check(nvjpegJpegStreamCreate(impl_->handle, &impl_->parsed), "nvjpegJpegStreamCreate", ErrorCategory::unsupported);
}

NvjpegParser::~NvjpegParser() = default;

std::string NvjpegParser::inspect(std::span<const std::uint8_t> jpeg, NvjpegImageInfo& info) {
  Impl& d = *impl_;
  int components = 0;
  nvjpegChromaSubsampling_t subsampling = NVJPEG_CSS_UNKNOWN;
  int widths[NVJPEG_MAX_COMPONENT] = {}, heights[NVJPEG_MAX_COMPONENT] = {};
  nvjpegStatus_t s = nvjpegGetImageInfo(d.handle, jpeg.data(), jpeg.size(), &components, &subsampling, widths, heights);
  if (s != NVJPEG_STATUS_SUCCESS) return describe("nvjpegGetImageInfo", s);
  if (components != 1 && components != 3) return std::to_string(components) + " components";
  if (subsampling == NVJPEG_CSS_UNKNOWN) return "chroma subsampling unknown to nvJPEG";
  if (widths[0] <= 0 || heights[0] <= 0) return "no image size in the frame header";
  if (d.library->hardware()) {
    // The hardware decoder takes baseline, single-scan JPEGs only (nvjpeg.h: "supports baseline
    // JPEG bitstream with single scan. 410 and 411 sub-samplings are not supported"); a batch
    // with any other image fails as a whole, so those are sorted out here.
    s = nvjpegJpegStreamParseHeader(d.handle, jpeg.data(), jpeg.size(), d.parsed);
    if (s != NVJPEG_STATUS_SUCCESS) return describe("nvjpegJpegStreamParseHeader", s);
    int not_supported = -1;  // 0 means supported
    s = nvjpegDecodeBatchedSupported(d.handle, d.parsed, &not_supported);
    if (s != NVJPEG_STATUS_SUCCESS) return describe("nvjpegDecodeBatchedSupported", s);
    if (not_supported != 0) return "not supported by the hardware JPEG decoder (progressive, multi-scan or 4:1:x)";
  }
  info.width = widths[0];
  info.height = heights[0];
  info.channels = components == 1 ? 1 : 3;
  return "";
}

struct NvjpegDecoder::Impl {
  std::shared_ptr<NvjpegLibrary> library;
  nvjpegHandle_t handle = nullptr;
  std::optional<NvjpegParser> parser;  // inspect's
  // One decode state per output format: nvjpegDecodeBatchedInitialize fixes the format and the
  // batch size, so gray and colour batches alternating would re-initialize one shared state. A
  // new batch size re-initializes the format's state; a state per size was tried and was
  // slower: each new state's first batch costs ~0.3 s on the H100 (its buffers are allocated
  // afresh), re-initializing an existing one does not (docs/benchmarks.md).
  struct BatchState {
    nvjpegJpegState_t state = nullptr;
    int batch_size = 0;  // as initialized; 0: must (re-)initialize (new, or after a failed batch)
  } bgr, gray;

  ~Impl() {
    for (BatchState* b : {&bgr, &gray})
      if (b->state) nvjpegJpegStateDestroy(b->state);
  }
};

NvjpegDecoder::NvjpegDecoder(std::shared_ptr<NvjpegLibrary> library) : impl_(std::make_unique<Impl>()) {
  impl_->library = std::move(library);
  impl_->handle = impl_->library->impl().handle;
  impl_->parser.emplace(impl_->library);
}

NvjpegDecoder::~NvjpegDecoder() = default;

const NvjpegLibrary& NvjpegDecoder::library() const { return *impl_->library; }

std::string NvjpegDecoder::inspect(std::span<const std::uint8_t> jpeg, NvjpegImageInfo& info) {
  return impl_->parser->inspect(jpeg, info);
}

void NvjpegDecoder::decode_batch(std::span<const std::span<const std::uint8_t>> jpegs, std::span<const NvjpegImageInfo> infos,
                                 std::span<DeviceImage* const> outputs, cudaStream_t stream, Times* times) {
  const std::size_t n = jpegs.size();
  if (n == 0) return;
  if (infos.size() != n || outputs.size() != n) throw Error(ErrorCategory::internal, "decode_batch: sizes differ");
  const int channels = infos[0].channels;
  for (const auto& info : infos)
    if (info.channels != channels) throw Error(ErrorCategory::internal, "decode_batch: mixed gray and colour images");
  Impl& d = *impl_;
  // Gray JPEGs stay 1-channel (io::decode_image keeps them so); colour ones become interleaved
  // BGR, the order of every CPU path.
  const nvjpegOutputFormat_t format = channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_BGRI;

  std::vector<const unsigned char*> data(n);
  std::vector<std::size_t> lengths(n);
  std::vector<nvjpegImage_t> destinations(n);
  for (std::size_t k = 0; k < n; ++k) {
    outputs[k]->reset(infos[k].width, infos[k].height, channels);
    data[k] = jpegs[k].data();
    lengths[k] = jpegs[k].size();
    destinations[k] = nvjpegImage_t{};
    // Interleaved output goes to channel[0] only; its pitch must be >= width * channels, which
    // the pitched allocation guarantees.
    destinations[k].channel[0] = outputs[k]->view().data;
    destinations[k].pitch[0] = outputs[k]->pitch_bytes();
  }
  Impl::BatchState& b = channels == 1 ? d.gray : d.bgr;
  if (!b.state) {
    // Hardware backend on the H100: 0.11 s in wk-image --device auto's start, 0.35-0.38 s in a
    // one-thread probe right after the handle and while a second handle was being made (the
    // largest step of the GPU's start after the handle itself; docs/benchmarks.md).
    nvtx::Range range("nvjpeg state", nvtx::Color::codec);
    check(nvjpegJpegStateCreate(d.handle, &b.state), "nvjpegJpegStateCreate", ErrorCategory::decode);
  }
  if (b.batch_size != int(n)) {
    b.batch_size = 0;
    // max_cpu_threads 1: one thread (the caller's) calls into this state.
    check(nvjpegDecodeBatchedInitialize(d.handle, b.state, int(n), 1, format), "nvjpegDecodeBatchedInitialize",
          ErrorCategory::decode);
    b.batch_size = int(n);
  }
  using Clock = std::chrono::steady_clock;
  const auto t_call = Clock::now();
  const nvjpegStatus_t s = nvjpegDecodeBatched(d.handle, b.state, data.data(), lengths.data(), destinations.data(), stream);
  const auto t_sync = Clock::now();
  if (s != NVJPEG_STATUS_SUCCESS) {
    b.batch_size = 0;  // "also use [Initialize] to reset failed batches"
    check(s, "nvjpegDecodeBatched", ErrorCategory::decode);
  }
  // The folder job times the decode per batch and must know it succeeded before it runs any
  // operation on these images; and the host buffers in `jpegs` may be freed after this call.
  WK_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (times) {
    times->call_s += std::chrono::duration<double>(t_sync - t_call).count();
    times->sync_s += std::chrono::duration<double>(Clock::now() - t_sync).count();
  }
}

#else  // no nvJPEG in this build

bool nvjpeg_in_build() noexcept { return false; }

struct NvjpegLibrary::Impl {};
struct NvjpegDecoder::Impl {
  std::shared_ptr<NvjpegLibrary> library;
};

NvjpegLibrary::NvjpegLibrary(bool) {
  throw Error(ErrorCategory::unsupported, "this build of warpkit has no nvJPEG (configure with a CUDA toolkit that has it)");
}
NvjpegLibrary::~NvjpegLibrary() = default;
bool NvjpegLibrary::hardware() const { return false; }
const std::string& NvjpegLibrary::name() const {
  static const std::string none = "none";
  return none;
}

struct NvjpegParser::Impl {};
NvjpegParser::NvjpegParser(std::shared_ptr<NvjpegLibrary>) {
  throw Error(ErrorCategory::unsupported, "this build of warpkit has no nvJPEG");
}
NvjpegParser::~NvjpegParser() = default;
std::string NvjpegParser::inspect(std::span<const std::uint8_t>, NvjpegImageInfo&) { return "no nvJPEG in this build"; }

NvjpegDecoder::NvjpegDecoder(std::shared_ptr<NvjpegLibrary>) {
  throw Error(ErrorCategory::unsupported, "this build of warpkit has no nvJPEG");
}
NvjpegDecoder::~NvjpegDecoder() = default;
const NvjpegLibrary& NvjpegDecoder::library() const { return *impl_->library; }
std::string NvjpegDecoder::inspect(std::span<const std::uint8_t>, NvjpegImageInfo&) { return "no nvJPEG in this build"; }
void NvjpegDecoder::decode_batch(std::span<const std::span<const std::uint8_t>>, std::span<const NvjpegImageInfo>,
                                 std::span<DeviceImage* const>, cudaStream_t, Times*) {
  throw Error(ErrorCategory::unsupported, "this build of warpkit has no nvJPEG");
}

#endif

}  // namespace wk::io
