#include "pipeline/jpeg_decode_service.hpp"

#include <cuda_runtime_api.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>

#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/files.hpp"
#include "wk/io/jpeg_header.hpp"

namespace wk::pipeline {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr std::size_t kPendingBytes = std::size_t(1) << 30;  // JPEG bytes waiting for the decoder

std::size_t pixel_bytes(const FileWork& fw) {
  return std::size_t(fw.jpeg.width) * std::size_t(fw.jpeg.height) * std::size_t(fw.jpeg.channels);
}
}  // namespace

JpegDecodeService::JpegDecodeService(Options o)
    : device_(o.device), label_(o.label >= 0 ? o.label : o.device), notice_(std::move(o.notice)), warm_jpegs_(std::move(o.warm_jpegs)),
      batch_(std::max(1, o.batch)),
      producers_(o.producers), inspect_by_(inspect_by_from_environment()) {
  thread_ = std::thread([this] { run(); });
}

JpegDecodeService::~JpegDecodeService() {
  if (thread_.joinable()) thread_.join();
}

bool JpegDecodeService::wait_started() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return started_; });
  return batch_ > 0;
}

JpegDecodeService::Stats JpegDecodeService::stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats st = stats_;
  st.worker_inspect_s = double(worker_inspect_ns_.load()) * 1e-9;
  return st;
}

namespace {
// nvJPEG's verdict on a file: taken when it decodes the file to the size warpkit's header parse
// found; else the file is OpenCV's (channels 0).
bool apply_inspection(FileWork& fw, const std::string& why_not, const io::NvjpegImageInfo& info) {
  fw.inspected = true;
  const bool taken = why_not.empty() && info.width == fw.jpeg.width && info.height == fw.jpeg.height;
  if (taken) fw.jpeg = info;
  else fw.jpeg.channels = 0;
  return taken;
}

// warpkit's verdict (InspectBy::warpkit): what the caller's header check found stands (size and
// channels in fw.jpeg); the hardware decoder's limits are checked on the bytes.
bool apply_own_inspection(FileWork& fw, bool hardware) {
  fw.inspected = true;
  if (!hardware) return true;  // the CUDA backend decodes every JPEG nvjpeg_unsuitable_reason lets through
  if (io::hardware_decoder_unsuitable_reason(fw.bytes, fw.header).empty()) return true;
  fw.jpeg.channels = 0;
  return false;
}
}  // namespace

JpegDecodeService::InspectBy JpegDecodeService::inspect_by_from_environment() {
  const char* e = std::getenv("WK_NVJPEG_INSPECT");
  const std::string_view v = e ? e : "";
  return v == "decoder" ? InspectBy::decoder : v == "warpkit" ? InspectBy::warpkit : InspectBy::workers;
}

bool JpegDecodeService::inspect(FileWork& fw, Inspector& inspector) {
  if (inspect_by_ == InspectBy::decoder) return true;
  if (!inspector.set_up) {
    if (library_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return true;
    const std::shared_ptr<io::NvjpegLibrary> library = library_.get();
    if (!library) return true;  // the service refuses: submit says so
    inspector.set_up = true;
    inspector.hardware = library->hardware();
    if (inspect_by_ == InspectBy::workers) {
      try {
        WK_CUDA_CHECK(cudaSetDevice(device_));
        inspector.parser = std::make_unique<io::NvjpegParser>(library);
      } catch (const std::exception&) {
        // no parser: the decoding thread inspects this worker's files
      }
    }
  }
  const bool own = inspect_by_ == InspectBy::warpkit;
  if (!own && !inspector.parser) return true;
  const auto t0 = Clock::now();
  bool taken;
  if (own) {
    taken = apply_own_inspection(fw, inspector.hardware);
  } else {
    io::NvjpegImageInfo info;
    const std::string why_not = inspector.parser->inspect(fw.bytes, info);
    taken = apply_inspection(fw, why_not, info);
  }
  worker_inspect_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
  return taken;
}

bool JpegDecodeService::room() const {
  if (batch_ == 0 || ended_) return false;
  return pending_.empty() || (pending_.size() < 2 * std::size_t(batch_) && pending_bytes_ < kPendingBytes);
}

JpegDecodeService::Submit JpegDecodeService::submit(std::unique_ptr<FileWork>& fw) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (batch_ == 0 || ended_) return Submit::refused;
  if (!room()) return Submit::full;
  pending_bytes_ += fw->bytes.size();
  pending_.push_back(std::move(fw));
  changed_.notify_all();
  return Submit::taken;
}

std::unique_ptr<FileWork> JpegDecodeService::pop_ready() {
  if (ready_.empty()) return nullptr;
  auto fw = std::move(ready_.front());
  ready_.pop_front();
  return fw;
}

std::unique_ptr<FileWork> JpegDecodeService::take_ready() {
  std::lock_guard<std::mutex> lock(mutex_);
  return pop_ready();
}

std::unique_ptr<FileWork> JpegDecodeService::wait_ready_or_room() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || room() || batch_ == 0 || ended_; });
  return pop_ready();
}

std::unique_ptr<FileWork> JpegDecodeService::wait_ready_or_end() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || ended_; });
  return pop_ready();
}

void JpegDecodeService::recycle(DeviceImage&& buffer, std::size_t device_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  --outstanding_;
  outstanding_bytes_ -= device_bytes;
  if (free_.size() < 2 * std::size_t(std::max(batch_, 1))) free_.push_back(std::move(buffer));
  changed_.notify_all();
}

void JpegDecodeService::producer_done() {
  std::lock_guard<std::mutex> lock(mutex_);
  --producers_;
  changed_.notify_all();
}

void JpegDecodeService::run() {
  // Named for perf and debuggers: "wk-nvjpeg-D" for GPU D.
  ::pthread_setname_np(::pthread_self(), ("wk-nvjpeg-" + std::to_string(device_ % 100)).c_str());
  const auto t_start = Clock::now();
  std::optional<Stream> stream;
  std::optional<io::NvjpegDecoder> decoder;
  bool library_told = false;
  try {
    nvtx::Range range("nvjpeg start", nvtx::Color::codec);
    WK_CUDA_CHECK(cudaSetDevice(device_));
    std::size_t free_bytes = 0, total_bytes = 0;
    WK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Its colour conversion kernels go before the workers' encode kernels: every file waits on
    // this thread, none on any one encode.
    stream.emplace(Stream::high_priority());
    auto library = std::make_shared<io::NvjpegLibrary>();
    library_made_.set_value(library);
    library_told = true;
    decoder.emplace(std::move(library));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      device_budget_ = free_bytes / 4;
    }
    warm_up(*decoder, *stream);
  } catch (const std::exception& e) {
    if (!library_told) library_made_.set_value(nullptr);
    if (notice_) notice_("GPU " + std::to_string(label_) + ": nvJPEG decoding could not start (" + e.what() +
                         "); JPEGs are decoded with OpenCV");
    std::lock_guard<std::mutex> lock(mutex_);
    batch_ = 0;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    started_ = true;
    if (batch_ > 0) stats_.started_s = seconds_since(t_start);
    changed_.notify_all();
  }
  // Under mutex_: the decoded files not yet recycled leave room on the device for `k` more files
  // the size of `fw` (always when none is outstanding).
  auto fits = [&](const FileWork& fw, std::size_t k = 1) {
    return outstanding_ == 0 ||
           (outstanding_ + int(k) <= 2 * batch_ && outstanding_bytes_ + k * pixel_bytes(fw) <= device_budget_);
  };
  // Under mutex_: the next batch fits whole. Batches of one size: a new size re-initializes the
  // nvJPEG state, and variable partial batches (taken whenever one more file fitted) ran at
  // 1.5-2.0 ms per image against 1.33 for full ones (H100, 3000 files, --threads 4/8). Partial
  // only for the last files, or when nothing is outstanding (a batch the budget never holds).
  auto fits_batch = [&] {
    return fits(*pending_.front(), producers_ == 0 ? 1 : std::min(pending_.size(), std::size_t(batch_)));
  };
  for (;;) {
    std::vector<std::unique_ptr<FileWork>> batch;
    bool refusing = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // A full batch, the last files, or producers waiting for room (many large JPEGs).
      auto go = [&] { return pending_.size() >= std::size_t(batch_) || producers_ == 0 || !room(); };
      // Why it waits (for the stats): files enough but no device memory to decode into (the
      // workers are behind), or too few files (the producers are behind).
      const bool for_room = !pending_.empty() && batch_ > 0 && go() && !fits_batch();
      const auto t_wait = Clock::now();
      changed_.wait(lock, [&] {
        if (pending_.empty()) return producers_ == 0;
        if (batch_ == 0) return true;
        return go() && fits_batch();
      });
      if (stats_.batches > 0) (for_room ? stats_.waiting_room_s : stats_.starved_s) += seconds_since(t_wait);
      if (pending_.empty()) {
        ended_ = true;
        changed_.notify_all();
        return;
      }
      refusing = batch_ == 0;
      const std::size_t limit = std::size_t(batch_);
      while (!pending_.empty() && (refusing || (batch.size() < limit && fits(*pending_.front())))) {
        std::unique_ptr<FileWork>& fw = pending_.front();
        pending_bytes_ -= fw->bytes.size();
        if (!refusing) {
          fw->device_bytes = pixel_bytes(*fw);
          ++outstanding_;
          outstanding_bytes_ += fw->device_bytes;
          if (!free_.empty()) {
            fw->image = std::move(free_.back());
            free_.pop_back();
          }
        }
        batch.push_back(std::move(fw));
        pending_.pop_front();
      }
      changed_.notify_all();  // room for the producers
    }
    const auto t_busy = Clock::now();
    Stats times;
    if (!refusing) decode(batch, *decoder, *stream, times);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!refusing) {
      stats_.busy_s += seconds_since(t_busy);
      stats_.inspect_s += times.inspect_s;
      stats_.call_s += times.call_s;
      stats_.sync_s += times.sync_s;
      ++stats_.batches;
    }
    for (auto& fw : batch) {
      if (fw->decoded) ++stats_.decoded;
      if (!fw->decoded && fw->device_bytes) {  // its batch failed: no device buffer held
        --outstanding_;
        outstanding_bytes_ -= fw->device_bytes;
        fw->device_bytes = 0;
        if (free_.size() < 2 * std::size_t(std::max(batch_, 1))) free_.push_back(std::move(fw->image));
      }
      ready_.push_back(std::move(fw));
    }
    changed_.notify_all();
  }
}

namespace {
// The candidate the warm-up decodes first: the longest, leaving out those longer than twice the
// median (a rare giant would have every place of a batch, and the warm-up's buffers, sized for it).
std::size_t longest_warm_candidate(const std::vector<std::filesystem::path>& candidates) {
  std::vector<std::uintmax_t> sizes(candidates.size(), 0);
  std::vector<std::uintmax_t> known;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(candidates[k], ec);
    if (!ec && size > 0) known.push_back(sizes[k] = size);
  }
  if (known.empty()) return 0;
  std::nth_element(known.begin(), known.begin() + std::ptrdiff_t(known.size() / 2), known.end());
  const std::uintmax_t limit = 2 * known[known.size() / 2];
  std::size_t longest = 0;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (sizes[k] <= limit && sizes[k] > sizes[longest]) longest = k;
  return longest;
}
}  // namespace

// One batch (batch_ copies) of the longest candidate JPEG (longest_warm_candidate; the
// first when nvJPEG does not take that one or its copies would not fit the device budget), into
// buffers that then wait in free_ for the first real batch. A file that cannot be read or decoded
// here only costs the warm-up: the job reports it when it gets to it.
void JpegDecodeService::warm_up(io::NvjpegDecoder& decoder, cudaStream_t stream) {
  if (warm_jpegs_.empty()) return;
  nvtx::Range range("nvjpeg warm-up", nvtx::Color::codec);
  std::size_t n = 0, budget = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    n = std::size_t(batch_);
    budget = device_budget_;
  }
  std::vector<std::uint8_t> bytes;
  io::NvjpegImageInfo info;
  std::optional<std::size_t> taken;
  for (const std::size_t k : {longest_warm_candidate(warm_jpegs_), std::size_t(0)}) {
    try {
      bytes = io::read_file(warm_jpegs_[k]);
    } catch (const std::exception&) {
      continue;
    }
    if (decoder.inspect(bytes, info).empty() &&
        n * std::size_t(info.width) * std::size_t(info.height) * std::size_t(info.channels) <= budget)
      taken = k;
    if (taken || k == 0) break;
  }
  if (!taken) return;
  std::vector<DeviceImage> images(n);
  std::vector<std::span<const std::uint8_t>> jpegs(n, std::span<const std::uint8_t>(bytes));
  std::vector<io::NvjpegImageInfo> infos(n, info);
  std::vector<DeviceImage*> outputs;
  for (auto& im : images) outputs.push_back(&im);
  try {
    decoder.decode_batch(jpegs, infos, outputs, stream);
  } catch (const Error& e) {
    if (e.category() == ErrorCategory::cuda) throw;
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& im : images) free_.push_back(std::move(im));
  stats_.warm_jpeg = warm_jpegs_[*taken].string();
}

// One nvjpegDecodeBatched call per output format (nvJPEG fixes it per batch). The files of a
// failed call stay undecoded and go through OpenCV one by one, so a bad file fails alone, with
// OpenCV's verdict.
void JpegDecodeService::decode(std::vector<std::unique_ptr<FileWork>>& batch, io::NvjpegDecoder& decoder,
                               cudaStream_t stream, Stats& st) {
  // nvJPEG's own look at each file the workers did not inspect (size, components, what the
  // hardware decoder takes); a file it turns down goes through OpenCV.
  const auto t_inspect = Clock::now();
  for (auto& fw : batch) {
    if (fw->inspected) continue;
    if (inspect_by_ == InspectBy::warpkit) {
      apply_own_inspection(*fw, decoder.library().hardware());
      continue;
    }
    io::NvjpegImageInfo info;
    const std::string why_not = decoder.inspect(fw->bytes, info);
    apply_inspection(*fw, why_not, info);
  }
  io::NvjpegDecoder::Times times;
  st.inspect_s += seconds_since(t_inspect);
  for (const int channels : {3, 1}) {
    std::vector<FileWork*> files;
    std::vector<std::span<const std::uint8_t>> jpegs;
    std::vector<io::NvjpegImageInfo> infos;
    std::vector<DeviceImage*> outputs;
    for (auto& fw : batch) {
      if (fw->jpeg.channels != channels) continue;
      files.push_back(fw.get());
      jpegs.push_back(fw->bytes);
      infos.push_back(fw->jpeg);
      outputs.push_back(&fw->image);
    }
    if (files.empty()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      nvtx::Range range("nvjpeg decode", nvtx::Color::codec, static_cast<long>(files.front()->i));
      decoder.decode_batch(jpegs, infos, outputs, stream, &times);
      // One call decodes the batch: each file is charged an equal share of it.
      const double each_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / double(files.size());
      for (FileWork* fw : files) {
        fw->decoded = true;
        fw->r.ms.decode = each_ms;
        fw->r.decoder = decoder.library().name();
        fw->r.width = fw->jpeg.width;
        fw->r.height = fw->jpeg.height;
      }
    } catch (const std::exception& e) {
      std::string msg = "GPU " + std::to_string(label_) + ": nvJPEG failed on a batch of " + std::to_string(files.size()) +
                        " JPEGs from " + files.front()->r.path + " (" + e.what() + "); they are decoded with OpenCV";
      const auto* err = dynamic_cast<const Error*>(&e);
      if (err && err->category() == ErrorCategory::cuda) {
        // Out of device memory, or a failing GPU: smaller batches from now on; below one file
        // the service refuses, and the workers decode with OpenCV.
        std::lock_guard<std::mutex> lock(mutex_);
        batch_ /= 2;
        msg += batch_ ? "; batches of at most " + std::to_string(batch_) + " from now on" : "; nvJPEG is not used from now on";
      }
      if (notice_) notice_(msg);
    }
  }
  st.call_s += times.call_s;
  st.sync_s += times.sync_s;
}

}  // namespace wk::pipeline
