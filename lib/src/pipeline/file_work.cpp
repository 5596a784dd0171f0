// The folder job's work on one file: read, decode (OpenCV here, nvJPEG through the decode
// service), operations, encode, write; and the worker's pipelines and streams.
#include "pipeline/file_work.hpp"

#include <opencv2/core.hpp>

#include <cstdlib>

#include "pipeline/jpeg_decode_service.hpp"
#include "wk/core/cuda_check.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/io/image_codec.hpp"
#include "wk/io/metadata.hpp"

namespace fs = std::filesystem;

namespace wk::pipeline {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

WorkerStreams::WorkerStreams() {
  if (const char* e = std::getenv("WK_GPU_STREAMS"); e && *e) {
    char* end = nullptr;
    const long n = std::strtol(e, &end, 10);
    if (*end == '\0' && n >= 0 && n <= 64) per_device_ = int(n);
  }
}

cudaStream_t WorkerStreams::take(int device) {
  if (per_device_ == 0) return nullptr;
  std::lock_guard<std::mutex> lock(m_);
  PerDevice& d = devices_[device];
  if (d.streams.empty()) d.streams.resize(std::size_t(per_device_));
  auto& s = d.streams[d.taken++ % d.streams.size()];
  if (!s) s.emplace();
  return s->get();
}

image::Pipeline& WorkerPipelines::pick() {
  if (device >= 0 && !gpu_failed) {
    WK_CUDA_CHECK(cudaSetDevice(device));
    if (!gpu) {
      image::PipelineOptions po = opt.pipeline_options;
      po.stream = streams.take(device);
      gpu.emplace(opt.pipeline_text, Backend::gpu, po);
    }
    return *gpu;
  }
  if (!cpu) cpu.emplace(opt.pipeline_text, Backend::cpu, opt.pipeline_options);
  return *cpu;
}

void Reporter::notice(const std::string& msg) {
  if (!cb.on_notice) return;
  std::lock_guard<std::mutex> lock(mutex);
  cb.on_notice(msg);
}

void Reporter::finished(std::size_t i, FileRecord&& r) {
  if (!r.earlier_run) r.finished_s = std::chrono::duration<double>(Clock::now() - start).count();  // else that run's
  std::lock_guard<std::mutex> lock(mutex);
  records[i] = std::move(r);
  if (cb.on_file) cb.on_file(*records[i]);
  if (!source) return;
  auto it = ranges.upper_bound(i);
  if (it == ranges.begin()) return;
  --it;
  if (i < it->second.first && --it->second.second == 0) {
    range_done(it->first, it->second.first);
    ranges.erase(it);
  }
}

void Reporter::range_done(std::size_t begin, std::size_t end) {
  std::vector<std::pair<std::size_t, FileRecord>> done;
  for (std::size_t k = begin; k < end; ++k)
    if (records[k]) done.emplace_back(k, *records[k]);
  source->range_done({begin, end}, std::move(done));
}

namespace {

void record_failure(FileRecord& r, const std::exception& e) {
  r.status = FileStatus::failed;
  std::string msg = e.what();
  if (msg.rfind(r.path, 0) == 0 && msg.size() > r.path.size() + 2) msg = msg.substr(r.path.size() + 2);
  r.error = msg;
}

// The DCT scale a JPEG may be decoded at for `pipeline` (thumbnail's shrink-on-load), from its
// header's size with the EXIF orientation applied; 1 for anything else.
int jpeg_shrink_for(const image::Pipeline& pipeline, std::span<const std::uint8_t> bytes) {
  if (!io::is_jpeg_data(bytes)) return 1;
  const auto h = io::parse_jpeg_header(bytes);
  if (!h || h->width <= 0 || h->height <= 0) return 1;
  const bool swapped = h->exif_orientation >= 5;  // 5..8 turn the image a quarter
  return pipeline.jpeg_shrink(swapped ? h->height : h->width, swapped ? h->width : h->height);
}

// Decodes for `pipeline`: a JPEG reduced when its first op allows (thumbnail), 16-bit, float and
// alpha images kept as they are when every op takes them (geometry, resize).
cv::Mat decode_with_opencv(const Shared& sh, FileWork& fw, const image::Pipeline& pipeline) {
  const auto t = Clock::now();
  const int jpeg_shrink = jpeg_shrink_for(pipeline, fw.bytes);
  cv::Mat img;
  {
    nvtx::Range s("decode", nvtx::Color::codec, static_cast<long>(fw.i));
    io::DecodeOptions options = sh.opt.decode;
    options.jpeg_shrink = jpeg_shrink;
    options.keep_deep = pipeline.takes_any_depth();
    const fs::path& source = sh.files[fw.i].path;
    // Standard input is decoded from memory only: no file to hand to the decoders that read files.
    img = source == "-" ? io::decode_image(fw.bytes, options) : io::decode_image(fw.bytes, source, options);
  }
  fw.r.ms.decode += ms_since(t);
  fw.r.decoder = jpeg_shrink > 1 ? "opencv/" + std::to_string(jpeg_shrink) : "opencv";
  if (jpeg_shrink == 1) {  // a reduced decode keeps the header's size in the record
    fw.r.width = img.cols;
    fw.r.height = img.rows;
  }
  if (double(img.total()) > double(sh.opt.max_pixels))
    throw Error(ErrorCategory::decode, "image has more pixels than the max_pixels limit of " + std::to_string(sh.opt.max_pixels));
  return img;
}

// The worker's GPU JPEG encoder for `out`, made on first use; null when this file is encoded on
// the CPU (not a JPEG output, the CPU path, nvJPEG encoding off or failed to start).
io::NvjpegEncoder* gpu_jpeg_encoder(WorkerPipelines& wp, const fs::path& out, const FolderJobOptions& opt, Reporter& rep) {
  if (!wp.on_gpu() || !wp.encode_library.valid() || !io::is_jpeg_path(out)) return nullptr;
  if (!wp.encoder && !wp.encoder_tried) {
    wp.encoder_tried = true;
    try {
      if (auto library = wp.encode_library.get())
        wp.encoder.emplace(std::move(library), opt.encode.jpeg_quality, wp.pick().stream());
    } catch (const std::exception& e) {
      rep.notice("GPU " + std::to_string(wp.opt.gpu_label(wp.device)) + ": " + e.what() + "; this worker encodes JPEGs with OpenCV");
    }
  }
  return wp.encoder ? &*wp.encoder : nullptr;
}

cv::Mat download(const DeviceImage& image, cudaStream_t stream) {
  cv::Mat m(image.height(), image.width(), CV_8UC(image.channels()));
  WK_CUDA_CHECK(cudaMemcpy2DAsync(m.data, m.step, image.view().data, image.pitch_bytes(),
                                  std::size_t(image.width()) * image.channels(), image.height(), cudaMemcpyDeviceToHost,
                                  stream));
  WK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return m;
}

// Runs the operations, encodes and writes. The input is `host` (decoded by OpenCV) or, when
// null, fw.image (decoded by nvJPEG on this worker's GPU). A JPEG output is encoded on the GPU
// when the worker has an nvJPEG encoder (only the compressed bytes are downloaded); an image
// nvJPEG refuses is downloaded and encoded by OpenCV. A GPU failure (out of memory, a lost
// device) must not lose the file or crash the job: this worker goes on with the CPU path,
// decoding the file again on the CPU when its pixels were on the GPU.
void finish_file(Shared& sh, FileWork& fw, WorkerPipelines& wp, const cv::Mat* host, Reporter& rep) {
  FileRecord& r = fw.r;
  const fs::path& out = sh.outputs[fw.i];
  // The name whose extension chooses the encoder: the output's, or for standard output ("-")
  // one in the job's format.
  const fs::path encode_as = out == "-" ? fs::path("-." + sh.opt.format) : out;
  const long idx = static_cast<long>(fw.i);
  try {
    auto t = Clock::now();
    std::vector<image::SideOutput> side;
    cv::Mat result, redecoded;
    std::vector<std::uint8_t> encoded;
    cv::Mat refused;  // a result nvJPEG would not encode, downloaded for OpenCV
    double gpu_encode_ms = 0;
    int sink_width = 0, sink_height = 0, sink_channels = 0;  // the image the GPU encoder took
    // A pipeline that only reads the image (hist) writes its side outputs only: on the GPU the
    // result is neither downloaded nor encoded.
    const bool analysis_only = wp.pick().analysis_only();
    try {
      r.device = wp.name();
      image::DeviceSink sink;
      if (analysis_only) {
        sink = [](const DeviceImage&, cudaStream_t) {};
      } else if (io::NvjpegEncoder* encoder = gpu_jpeg_encoder(wp, encode_as, sh.opt, rep)) {
        sink = [&](const DeviceImage& image, cudaStream_t stream) {
          const auto te = Clock::now();
          nvtx::Range s("encode", nvtx::Color::codec, idx);
          try {
            encoded = encoder->encode(image, stream);
            sink_width = image.width();
            sink_height = image.height();
            sink_channels = image.channels();
            r.encoder = "nvjpeg";
          } catch (const Error& e) {
            if (e.category() == ErrorCategory::cuda) throw;
            refused = download(image, stream);
          }
          gpu_encode_ms = ms_since(te);
        };
      }
      result = host ? wp.pick().run(*host, idx, &side, sink) : wp.pick().run_device(fw.image, idx, &side, sink);
      if (!refused.empty()) result = std::move(refused);
    } catch (const Error& e) {
      if (e.category() != ErrorCategory::cuda || wp.device < 0 || wp.gpu_failed) throw;
      wp.lose_gpu();
      rep.notice("GPU " + std::to_string(wp.opt.gpu_label(wp.device)) + " failed on " + r.path + " (" + e.what() +
                 "); this worker continues on the CPU");
      side.clear();
      encoded.clear();
      r.encoder.clear();
      gpu_encode_ms = 0;
      r.device = wp.name();
      if (!host) {
        const auto td = Clock::now();
        redecoded = decode_with_opencv(sh, fw, wp.pick());
        host = &redecoded;
        t += Clock::now() - td;  // the decode is counted in ms.decode, not in ms.process
      }
      result = wp.pick().run(*host, idx, &side);
    }
    r.ms.process = ms_since(t) - gpu_encode_ms;
    r.ms.encode = gpu_encode_ms;
    redecoded.release();
    fw.bytes = {};

    if (encoded.empty() && !analysis_only) {
      t = Clock::now();
      nvtx::Range s("encode", nvtx::Color::codec, idx);
      encoded = io::encode_image(result, encode_as, sh.opt.encode);
      r.encoder = "opencv";
      r.ms.encode += ms_since(t);
    }
    t = Clock::now();
    {
      nvtx::Range s("write", nvtx::Color::io, idx);
      if (!fw.metadata.empty() && !encoded.empty()) {  // part of the write (ms.write)
        nvtx::Range m("metadata", nvtx::Color::codec, idx);
        const bool host_result = !result.empty();  // else the GPU encoded it (nvJPEG)
        encoded = io::apply_metadata(std::move(encoded), fw.metadata, host_result ? result.cols : sink_width,
                                     host_result ? result.rows : sink_height,
                                     host_result ? result.channels() : sink_channels);
      }
      std::vector<fs::path> side_paths;
      if (!side.empty() && out == "-")  // the job refuses such pipelines; a file that still makes them fails alone
        throw Error(ErrorCategory::usage, "side files (" + side.front().suffix + ") cannot go to standard output");
      for (const auto& so : side) {
        side_paths.push_back(out.parent_path() / (out.stem().string() + so.suffix));
        if (auto id = io::identity_of(side_paths.back()); id && sh.input_ids.count(*id))
          throw Error(ErrorCategory::usage, "output " + side_paths.back().string() + " would overwrite an input");
        std::lock_guard<std::mutex> lock(sh.side_mutex);
        if (!sh.side_paths.insert(side_paths.back()).second)
          throw Error(ErrorCategory::usage, "output " + side_paths.back().string() + " was already written from another input");
      }
      if (!analysis_only) io::write_output(out, encoded);
      for (std::size_t k = 0; k < side.size(); ++k) io::write_output(side_paths[k], side[k].bytes);
      if (analysis_only) r.output = side_paths.empty() ? std::string() : side_paths.front().string();
    }
    r.ms.write = ms_since(t);
    r.status = FileStatus::ok;
  } catch (const std::exception& e) {
    record_failure(r, e);
  }
}


// Host memory one file takes while it is decoded, processed and encoded on the CPU side: its
// compressed bytes, the decoded image (3 bytes a pixel: colour after decoding) and room for two
// results of its size (an intermediate and the output, and the encoded output in their place).
// Unknown dimensions (a header probe_dimensions does not read): 8 times the compressed size.
std::uint64_t host_bytes_estimate(const FileWork& fw) {
  const std::uint64_t compressed = fw.bytes.size();
  if (fw.r.width > 0 && fw.r.height > 0) return compressed + std::uint64_t(fw.r.width) * std::uint64_t(fw.r.height) * 3 * 3;
  return compressed * 8;
}

// Holds a share of the job's memory budget for one file (none without a budget).
struct BudgetShare {
  ByteBudget* budget;
  std::uint64_t bytes = 0;
  bool take(std::uint64_t n, const std::atomic<bool>* stop) {
    if (!budget) return true;
    if (!budget->acquire(n, stop)) return false;
    bytes = n;
    return true;
  }
  ~BudgetShare() {
    if (budget && bytes) budget->release(bytes);
  }
};

}  // namespace

bool begin_file(Shared& sh, FileWork& fw) {
  const io::InputFile& in = sh.files[fw.i];
  const fs::path& out = sh.outputs[fw.i];
  const long idx = static_cast<long>(fw.i);
  FileRecord& r = fw.r;
  r.path = in.path.string();
  r.output = out.string();
  fw.finished = true;
  try {
    if (!sh.precheck[fw.i].empty()) throw Error(ErrorCategory::usage, sh.precheck[fw.i]);
    std::error_code ec;
    if (const auto done = sh.resume_ok.find(r.path); done != sh.resume_ok.end()) {
      r = done_in_earlier_run(sh.opt, in, done->second ? &*done->second : nullptr);
      return false;
    }
    if (sh.opt.skip_existing && fs::exists(out, ec)) {
      r.status = FileStatus::skipped;
      r.error = "output exists";
      return false;
    }
    const bool from_stdin = in.path == "-";
    if (const auto stamp = from_stdin ? std::nullopt : input_stamp(in.path)) {  // before the read: a change while it is read shows when resumed
      r.input_bytes = stamp->bytes;
      r.input_mtime_ns = stamp->mtime_ns;
    }
    const auto t = Clock::now();
    {
      nvtx::Range s("read", nvtx::Color::io, idx);
      fw.bytes = from_stdin ? io::read_standard_input() : io::read_file(in.path);
      if (!sh.opt.strip && io::metadata_supported()) {  // part of the read (ms.read)
        nvtx::Range m("metadata", nvtx::Color::io, idx);
        fw.metadata = io::read_metadata(fw.bytes);
      }
    }
    r.ms.read = ms_since(t);
    if (auto dims = probe_dimensions(fw.bytes)) {
      r.width = dims->first;
      r.height = dims->second;
      check_pixel_limit(sh.opt.max_pixels, dims->first, dims->second);
    }
  } catch (const std::exception& e) {
    record_failure(r, e);
    return false;
  }
  fw.finished = false;
  return true;
}

void decode_and_finish(Shared& sh, FileWork& fw, WorkerPipelines& wp, Reporter& rep) {
  BudgetShare share{sh.budget};
  // A stop while waiting: the file is decoded all the same (it was read, so it is finished, not
  // left unstarted); only the wait ends.
  if (!share.take(host_bytes_estimate(fw), sh.stop)) share.bytes = 0;
  cv::Mat img;
  try {
    img = decode_with_opencv(sh, fw, wp.pick());
  } catch (const std::exception& e) {
    record_failure(fw.r, e);
    return;
  }
  fw.bytes = {};
  finish_file(sh, fw, wp, &img, rep);
}

void run_on_small_image(image::Pipeline& pipeline, io::NvjpegEncoder* encoder) {
  DeviceImage image(64, 64, 3);
  WK_CUDA_CHECK(cudaMemset2DAsync(image.view().data, image.pitch_bytes(), 128, 64 * 3, 64, pipeline.stream()));
  image::DeviceSink sink;
  if (encoder) sink = [encoder](const DeviceImage& result, cudaStream_t stream) { encoder->encode(result, stream); };
  std::vector<image::SideOutput> side;
  pipeline.run_device(image, -1, &side, sink);
}

std::shared_ptr<io::NvjpegLibrary> make_encode_library(int device, int label, const std::function<void(const std::string&)>& notice,
                                                       JpegDecodeService* service) {
  // The decode service's handle where there is one (a hardware-backend handle encodes as well):
  // one handle per GPU. Two made at once took ~0.28 s and ~0.56 s, and the decoder's state then
  // ~0.37 s instead of ~0.11 s: start_on_cpu was ready at 0.68-0.74 s instead of 0.90-1.22 s
  // (H100, 300 4K JPEGs, docs/benchmarks.md).
  if (service)
    if (auto library = service->library().get()) return library;
  try {
    WK_CUDA_CHECK(cudaSetDevice(device));
    return std::make_shared<io::NvjpegLibrary>(false);
  } catch (const std::exception& e) {
    notice("GPU " + std::to_string(label) + ": " + e.what() + "; JPEGs are encoded with OpenCV");
    return nullptr;
  }
}

void warm_up(WorkerPipelines& wp, const FolderJobOptions& opt, Reporter& rep) {
  if (wp.warmed_up || !wp.on_gpu()) return;
  wp.warmed_up = true;
  nvtx::Range range("warm-up", nvtx::Color::app);
  try {
    image::Pipeline& pipeline = wp.pick();
    run_on_small_image(pipeline, gpu_jpeg_encoder(wp, "warm-up.jpg", opt, rep));
  } catch (const std::exception&) {
    // Whatever failed here fails again on a real file, which reports it.
  }
}

void finish_from_service(Shared& sh, std::unique_ptr<FileWork> fw, WorkerPipelines& wp, JpegDecodeService& service,
                         Reporter& rep) {
  {
    nvtx::Range file_range("file", nvtx::Color::app, static_cast<long>(fw->i));
    if (fw->decoded && wp.on_gpu()) finish_file(sh, *fw, wp, nullptr, rep);
    else decode_and_finish(sh, *fw, wp, rep);
  }
  if (fw->decoded) service.recycle(std::move(fw->image), fw->device_bytes);
  fw->bytes = {};
  rep.finished(fw->i, std::move(fw->r));
}

bool for_nvjpeg(const Shared& sh, FileWork& fw) {
  // A truncated JPEG goes to OpenCV's path too, which names it.
  if (!io::is_jpeg_data(fw.bytes) || !io::jpeg_complete(fw.bytes)) return false;
  const auto header = io::parse_jpeg_header(fw.bytes);
  if (!header || !io::nvjpeg_unsuitable_reason(*header).empty() || header->width <= 0 || header->height <= 0) return false;
  try {
    check_pixel_limit(sh.opt.max_pixels, header->width, header->height);
  } catch (const std::exception& e) {
    record_failure(fw.r, e);
    fw.finished = true;
    return false;
  }
  fw.header = *header;
  fw.jpeg = io::NvjpegImageInfo{header->width, header->height, header->components == 1 ? 1 : 3};
  return true;
}

}  // namespace wk::pipeline
