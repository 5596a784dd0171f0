// wk-bench idea: the IDEA APOD ladder of Professional CUDA C Programming, chapter 10 (crypt), in
// the book's units (KB/ms) and GB/s: host buffer -> host buffer through the GPU for every rung,
// the device-resident kernel rate, the pinned copy rates measured in the same run (the bound of
// the host->host rows), the block-size x blocks-per-thread sweep, the streams x chunk sweep, the
// CPU share sweep (Table 10-6's shape), file -> file, and the CPU path on all cores.
#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "benches.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_file.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"

namespace fs = std::filesystem;

namespace wk::bench {

namespace {

using namespace wk::cipher;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median wall-clock ms of `repeats` calls after one warm-up (host->host runs synchronize inside).
double time_host_ms(int repeats, const std::function<void()>& fn) { return time_cpu_ms(repeats, fn); }

// The book's unit: KB/ms with KB = 1000 bytes, i.e. MB/s.
double kb_per_ms(double bytes, double ms) { return bytes / 1e3 / ms; }
double gb_per_s(double bytes, double ms) { return bytes / 1e6 / ms; }

void require_equal(const std::uint8_t* got, const std::uint8_t* want, std::size_t bytes, const std::string& what) {
  if (std::memcmp(got, want, bytes) != 0) {
    std::size_t i = 0;
    while (i < bytes && got[i] == want[i]) ++i;
    throw Error(ErrorCategory::internal, "idea " + what + " differs from the CPU path at byte " + std::to_string(i) +
                                             ": not timing a wrong result");
  }
}

struct CopyRates {
  double h2d = 0, d2h = 0, both_each_way = 0;  // GB/s
};

// Pinned copies of `bytes`: upload alone, download alone, and both at once on two streams (the
// bound of a host->host pipeline, which moves every byte up and down).
CopyRates measure_copies(const std::uint8_t* h_src, std::uint8_t* h_dst, std::uint8_t* d_a, std::uint8_t* d_b,
                         std::size_t bytes, int repeats) {
  Stream s1, s2;
  Event start, mid, end1, end2;
  CopyRates r;
  r.h2d = gb_per_s(double(bytes), time_gpu_ms(s1, repeats, [&] {
                     WK_CUDA_CHECK(cudaMemcpyAsync(d_a, h_src, bytes, cudaMemcpyHostToDevice, s1));
                   }));
  r.d2h = gb_per_s(double(bytes), time_gpu_ms(s1, repeats, [&] {
                     WK_CUDA_CHECK(cudaMemcpyAsync(h_dst, d_b, bytes, cudaMemcpyDeviceToHost, s1));
                   }));
  r.both_each_way = gb_per_s(double(bytes), time_gpu_ms(s1, repeats, [&] {
                               mid.record(s1);
                               WK_CUDA_CHECK(cudaStreamWaitEvent(s2, mid.get(), 0));
                               WK_CUDA_CHECK(cudaMemcpyAsync(d_a, h_src, bytes, cudaMemcpyHostToDevice, s1));
                               WK_CUDA_CHECK(cudaMemcpyAsync(h_dst, d_b, bytes, cudaMemcpyDeviceToHost, s2));
                               end2.record(s2);
                               WK_CUDA_CHECK(cudaStreamWaitEvent(s1, end2.get(), 0));
                             }));
  return r;
}

struct LadderRow {
  std::string name, note;
  double h2h_ms = 0;     // host buffer -> host buffer through the GPU (0: not measured)
  double kernel_ms = 0;  // device-resident kernel (0: not measured)
};

void print_ladder(const std::vector<LadderRow>& rows, double bytes, double copy_gbps) {
  fmt::print("{:<30} {:>10} {:>10} {:>8} {:>8}   {:>10} {:>8}\n", "rung (host -> host via GPU)", "ms", "KB/ms", "GB/s",
             "% copy", "kernel ms", "GB/s");
  for (const auto& r : rows) {
    const std::string name = r.note.empty() ? r.name : r.name + " (" + r.note + ")";
    std::string h2h = fmt::format("{:>10} {:>10} {:>8} {:>8}", "-", "-", "-", "-");
    if (r.h2h_ms > 0)
      h2h = fmt::format("{:>10.2f} {:>10.0f} {:>8.2f} {:>8.1f}", r.h2h_ms, kb_per_ms(bytes, r.h2h_ms),
                        gb_per_s(bytes, r.h2h_ms), copy_gbps > 0 ? 100.0 * gb_per_s(bytes, r.h2h_ms) / copy_gbps : 0.0);
    std::string k = fmt::format("{:>10} {:>8}", "-", "-");
    if (r.kernel_ms > 0) k = fmt::format("{:>10.3f} {:>8.1f}", r.kernel_ms, gb_per_s(bytes, r.kernel_ms));
    fmt::print("{:<30} {}   {}\n", name, h2h, k);
  }
}

// A scratch folder for the file -> file rows, removed with its files.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "wk-bench-idea-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw Error(ErrorCategory::io, "cannot create a scratch folder in " + tmpl);
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Sequential pread/write of a whole file in 64 MiB pieces (the page cache's rate, one thread).
double file_read_gbps(const fs::path& p, std::uint8_t* buf, std::size_t buf_bytes, std::size_t bytes) {
  const int fd = ::open(p.c_str(), O_RDONLY);
  if (fd < 0) throw Error(ErrorCategory::io, p.string() + ": cannot open");
  const double t0 = now_ms();
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t r = ::pread(fd, buf, std::min(buf_bytes, bytes - done), static_cast<off_t>(done));
    if (r <= 0) break;
    done += static_cast<std::size_t>(r);
  }
  const double ms = now_ms() - t0;
  ::close(fd);
  return gb_per_s(double(done), ms);
}

double file_write_gbps(const fs::path& p, const std::uint8_t* buf, std::size_t buf_bytes, std::size_t bytes) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw Error(ErrorCategory::io, p.string() + ": cannot create");
  const double t0 = now_ms();
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t w = ::write(fd, buf, std::min(buf_bytes, bytes - done));
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
  ::close(fd);
  const double ms = now_ms() - t0;
  return gb_per_s(double(done), ms);
}

void write_whole(const fs::path& p, const std::uint8_t* data, std::size_t bytes) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw Error(ErrorCategory::io, p.string() + ": cannot create");
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t w = ::write(fd, data + done, bytes - done);
    if (w <= 0) {
      ::close(fd);
      throw Error(ErrorCategory::io, p.string() + ": write failed");
    }
    done += static_cast<std::size_t>(w);
  }
  ::close(fd);
}

}  // namespace

int bench_idea(const Options& o) {
  // --variant: a rung name (the older '-' spelling accepted); unknown names are a usage error.
  std::string only = o.variant;
  std::replace(only.begin(), only.end(), '-', '_');
  if (!only.empty()) check_rung_name("--variant", idea_rungs(), only);
  // --size WxH: W*H 8-byte IDEA blocks (the default 8192x8192 is 512 MiB).
  const std::size_t nblocks = std::size_t(o.width) * std::size_t(o.height);
  const std::size_t bytes = nblocks * kIdeaBlockBytes;
  const double dbytes = double(bytes);
  BackendSelection sel;
  try {
    sel = select_backend(parse_device_choice(o.device));
  } catch (const Error& e) {
    throw Error(e.category(), "--device " + o.device + ": " + e.what());
  }
  const bool gpu = sel.backend == Backend::gpu;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // Host data: pinned when a GPU is there (the overlapped rungs need it), plain otherwise.
  const auto memory = gpu ? HostBuffer<std::uint8_t>::Memory::pinned : HostBuffer<std::uint8_t>::Memory::pageable;
  HostBuffer<std::uint8_t> h_in(bytes, memory), h_out(bytes, memory);
  std::vector<std::uint8_t> ref_ecb(bytes), ref_ctr(bytes);
  {
    std::mt19937_64 rng(2026);
    for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
      const std::uint64_t v = rng();
      std::memcpy(h_in.data() + i, &v, 8);
    }
  }
  IdeaKey key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(0x5A ^ (i * 37));
  const IdeaJob ecb = idea_ecb_job(key, IdeaDirection::encrypt);
  const IdeaJob ctr = idea_ctr_job(key, 0xFEDCBA9876543210ull);
  // The container's chunk layer (wk-crypt's default format): CTR, 64 KiB chunks, each with its tag.
  IdeaSealJob seal;
  seal.cipher = ctr;
  seal.mac = idea_mac_key({0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x01,
                           0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78, 0x89, 0x9A, 0xAB, 0xBC, 0xCD, 0xDE, 0xEF, 0xF0, 0x02});
  seal.chunk_bytes = 64 << 10;
  seal.last_final = true;
  const std::size_t sealed_bytes = idea_sealed_bytes(bytes, seal.chunk_bytes);
  const std::size_t sealed_chunks = idea_sealed_chunks(bytes, seal.chunk_bytes);
  std::vector<std::uint8_t> ref_sealed(sealed_bytes + 16);

  fmt::print("wk-bench idea: {} MiB ({} blocks of 8 bytes), ECB encryption as in the book unless marked ctr; {}, {}, median of {}\n",
             bytes >> 20, nblocks, describe_device(sel.gpu), today(), o.repeats);
  fmt::print("KB/ms = 1000 bytes per ms (= MB/s); GB/s = plaintext bytes per second (10^9).\n\n");

  // ---- The CPU path: the reference of every GPU row and the fallback.
  const int cpu_repeats = std::max(1, std::min(o.repeats, 3));
  const double cpu_ecb_ms = time_cpu_ms(cpu_repeats, [&] { idea_cpu(ecb, h_in.data(), ref_ecb.data(), nblocks, 0); });
  const double cpu_ctr_ms = time_cpu_ms(cpu_repeats, [&] { idea_cpu(ctr, h_in.data(), ref_ctr.data(), nblocks, 0); });
  const double cpu_one_ms = time_cpu_ms(1, [&] {
    const std::size_t n = std::min<std::size_t>(nblocks, std::size_t(1) << 21);
    idea_cpu(ecb, h_in.data(), h_out.data(), n, 1);
  });
  const double one_bytes = double(std::min<std::size_t>(nblocks, std::size_t(1) << 21) * kIdeaBlockBytes);
  fmt::print("{:<30} {:>10} {:>10} {:>8}\n", "CPU path", "ms", "KB/ms", "GB/s");
  fmt::print("{:<30} {:>10.2f} {:>10.0f} {:>8.3f}\n", fmt::format("cpu ecb, {} threads", cores), cpu_ecb_ms,
             kb_per_ms(dbytes, cpu_ecb_ms), gb_per_s(dbytes, cpu_ecb_ms));
  fmt::print("{:<30} {:>10.2f} {:>10.0f} {:>8.3f}\n", fmt::format("cpu ctr, {} threads", cores), cpu_ctr_ms,
             kb_per_ms(dbytes, cpu_ctr_ms), gb_per_s(dbytes, cpu_ctr_ms));
  fmt::print("{:<30} {:>10.2f} {:>10.0f} {:>8.3f}   (on {} MiB)\n", "cpu ecb, 1 thread", cpu_one_ms,
             kb_per_ms(one_bytes, cpu_one_ms), gb_per_s(one_bytes, cpu_one_ms), std::size_t(one_bytes) >> 20);
  const double cpu_seal_ms = time_cpu_ms(1, [&] { idea_seal_cpu(seal, h_in.data(), bytes, ref_sealed.data()); });
  fmt::print("{:<30} {:>10.2f} {:>10.0f} {:>8.3f}   (IDEA + SHA-256 leaves + HMAC, OpenSSL)\n",
             fmt::format("cpu seal ctr, {} threads", cores), cpu_seal_ms, kb_per_ms(dbytes, cpu_seal_ms),
             gb_per_s(dbytes, cpu_seal_ms));
  if (!gpu) {
    if (!sel.notice.empty()) fmt::print(stderr, "wk-bench: {}\n", sel.notice);
    fmt::print("\n(no usable GPU: CPU rows only)\n");
    return 0;
  }

  int device_count = 0;
  WK_CUDA_CHECK(cudaGetDeviceCount(&device_count));
  WK_CUDA_CHECK(cudaSetDevice(0));
  const int h2h_repeats = std::max(3, std::min(o.repeats, 10));

  // ---- The bound: pinned copies, alone and both directions at once, in this run.
  DeviceBuffer<std::uint8_t> d_in(bytes), d_out(bytes);
  WK_CUDA_CHECK(cudaMemcpy(d_in.get(), h_in.data(), bytes, cudaMemcpyHostToDevice));
  const CopyRates copies = measure_copies(h_in.data(), h_out.data(), d_in.get(), d_out.get(), bytes, h2h_repeats);
  fmt::print("\npinned copies on GPU 0 ({} MiB): upload {:.1f} GB/s, download {:.1f} GB/s alone; {:.1f} GB/s each way at once"
             " (the host->host bound)\n\n",
             bytes >> 20, copies.h2d, copies.d2h, copies.both_each_way);

  // Pageable buffers for the synchronous rungs, as the book's first port allocates them.
  std::vector<std::uint8_t> pageable_in, pageable_out;
  const std::string default_rung = idea_default_rung();
  auto want = [&](const std::string& rung) {
    if (!only.empty()) return only == rung;
    return o.ladder || rung == default_rung;
  };

  DeviceBuffer<IdeaSubkeys> d_subkeys(1);
  WK_CUDA_CHECK(cudaMemcpy(d_subkeys.get(), &ecb.subkeys, sizeof(IdeaSubkeys), cudaMemcpyHostToDevice));
  Stream stream;
  auto kernel_ms = [&](const IdeaJob& job, const IdeaKernelConfig& cfg, const std::vector<std::uint8_t>& ref,
                       const std::string& what) {
    WK_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0, bytes, stream));
    const double ms = time_gpu_ms(stream, o.repeats, [&] {
      idea_gpu(job, d_in.get(), d_out.get(), nblocks, cfg, d_subkeys.get(), stream);
    });
    WK_CUDA_CHECK(cudaMemcpyAsync(h_out.data(), d_out.get(), bytes, cudaMemcpyDeviceToHost, stream));
    stream.synchronize();
    require_equal(h_out.data(), ref.data(), bytes, what + " (device-resident kernel)");
    return ms;
  };

  // Each rung through the executor, as wk-crypt runs it: one GPU for the rungs below deployed,
  // every GPU for deployed. The row is named after the rung that ran.
  std::vector<LadderRow> rows;
  for (const RungInfo& r : idea_rungs()) {
    if (!want(r.name)) continue;
    IdeaExecution ex;
    ex.backend = Backend::gpu;
    ex.rung = r.name;
    IdeaExecutor exec(ex);
    LadderRow row{exec.rung(), exec.rung() == default_rung ? "default" : ""};
    if (exec.gpu_count() > 1)
      row.note = fmt::format("{}{} GPUs", row.note.empty() ? "" : row.note + ", ", exec.gpu_count());
    const std::uint8_t* src = h_in.data();
    std::uint8_t* dst = h_out.data();
    if (exec.host_memory() == IdeaExecutor::HostMemory::pageable) {
      if (pageable_in.empty()) {
        pageable_in.assign(h_in.data(), h_in.data() + bytes);
        pageable_out.assign(bytes, 0);
      }
      src = pageable_in.data();
      dst = pageable_out.data();
    }
    row.h2h_ms = time_host_ms(h2h_repeats, [&] { exec.run(ecb, src, dst, nblocks); });
    require_equal(dst, ref_ecb.data(), bytes, row.name + " host->host");
    row.kernel_ms = kernel_ms(ecb, idea_kernel_config(exec.rung()), ref_ecb, row.name);
    rows.push_back(row);
  }
  // CTR (wk-crypt's default mode) on the default rung.
  if (only.empty() || only == default_rung) {
    IdeaExecution ex;
    ex.backend = Backend::gpu;
    IdeaExecutor exec(ex);
    LadderRow row{std::string(exec.rung()) + " ctr", ""};
    row.h2h_ms = time_host_ms(h2h_repeats, [&] { exec.run(ctr, h_in.data(), h_out.data(), nblocks); });
    require_equal(h_out.data(), ref_ctr.data(), bytes, "ctr host->host");
    row.kernel_ms = kernel_ms(ctr, idea_kernel_config(exec.rung()), ref_ctr, "ctr");
    rows.push_back(row);
  }
  // The authenticated container's chunk layer on the default rung: seal (IDEA CTR, leaf digests,
  // tags, interleaving) and open (split, digests, tags, IDEA), both checked against the CPU path.
  if (only.empty() || only == default_rung) {
    IdeaExecution ex;
    ex.backend = Backend::gpu;
    IdeaExecutor exec(ex);
    HostBuffer<std::uint8_t> h_sealed(sealed_bytes + 16), h_tags(32 * sealed_chunks);
    LadderRow s_row{std::string(exec.rung()) + " seal ctr", "container"};
    s_row.h2h_ms = time_host_ms(h2h_repeats, [&] { exec.seal(seal, h_in.data(), bytes, h_sealed.data()); });
    require_equal(h_sealed.data(), ref_sealed.data(), sealed_bytes, "container seal host->host");
    rows.push_back(s_row);
    LadderRow o_row{std::string(exec.rung()) + " open ctr", "container"};
    o_row.h2h_ms = time_host_ms(h2h_repeats, [&] { exec.open(seal, h_sealed.data(), bytes, h_out.data(), h_tags.data()); });
    require_equal(h_out.data(), h_in.data(), bytes, "container open host->host");
    for (std::size_t c = 0; c < sealed_chunks; ++c)
      require_equal(h_tags.data() + 32 * c, h_sealed.data() + c * (seal.chunk_bytes + 32) + seal.chunk_bytes, 32,
                    "container open tags");
    rows.push_back(o_row);
  }
  print_ladder(rows, dbytes, copies.both_each_way);
  fmt::print("% copy: host->host GB/s over the concurrent pinned copy rate each way ({:.1f} GB/s).\n",
             copies.both_each_way);

  if (!o.ladder) return 0;

  // ---- Rung 5's sweep: threads per block x blocks per thread, device-resident (Table 10-5's
  // axis; the host->host rate is bound by the copies and would not move).
  const int tpbs[] = {32, 64, 128, 256, 512, 1024};
  const int bpts[] = {1, 2, 4, 8};
  fmt::print("\ncoarsened kernel, device-resident GB/s: threads per block (rows) x blocks per thread (columns)\n");
  fmt::print("{:>8}", "threads");
  for (int b : bpts) fmt::print(" {:>9}", b);
  fmt::print("\n");
  double best = 0;
  int best_t = 0, best_b = 0;
  for (int t : tpbs) {
    fmt::print("{:>8}", t);
    for (int b : bpts) {
      const double ms = kernel_ms(ecb, {IdeaKernel::coarsened, t, b}, ref_ecb, fmt::format("coarsened {}x{}", t, b));
      const double g = gb_per_s(dbytes, ms);
      if (g > best) best = g, best_t = t, best_b = b;
      fmt::print(" {:>9.1f}", g);
    }
    fmt::print("\n");
  }
  const IdeaKernelConfig def = idea_kernel_config("coarsened");
  fmt::print("best: {} threads x {} blocks/thread, {:.1f} GB/s (the library's setting: {} x {})\n", best_t, best_b, best,
             def.threads_per_block, def.blocks_per_thread);

  // ---- Streams x chunk size for the overlapped pipeline (coarsened kernel), host->host.
  const int stream_counts[] = {1, 2, 3, 4, 8};
  const std::size_t chunk_mib[] = {1, 4, 8, 32};
  fmt::print("\ncoarsened host->host GB/s: streams (rows) x chunk MiB (columns)\n{:>8}", "streams");
  for (auto c : chunk_mib) fmt::print(" {:>9}", c);
  fmt::print("\n");
  for (int s : stream_counts) {
    fmt::print("{:>8}", s);
    for (auto c : chunk_mib) {
      IdeaGpuEngine engine(0, "coarsened", def, {s, c << 20});
      const double ms = time_host_ms(h2h_repeats, [&] { engine.run(ecb, h_in.data(), h_out.data(), nblocks); });
      require_equal(h_out.data(), ref_ecb.data(), bytes, fmt::format("coarsened {} streams x {} MiB", s, c));
      fmt::print(" {:>9.2f}", gb_per_s(dbytes, ms));
    }
    fmt::print("\n");
  }
  const IdeaStreaming st = idea_streaming("coarsened");
  fmt::print("(the library's setting: {} streams x {} MiB)\n", st.streams, st.chunk_bytes >> 20);

  // ---- Deploy: the CPU share (Table 10-6's shape) on every GPU.
  fmt::print("\ndeployed, {} GPU{} + CPU share, host->host ({} CPU cores)\n{:>12} {:>10} {:>10} {:>8}\n", device_count,
             device_count > 1 ? "s" : "", cores, "cpu-percent", "ms", "KB/ms", "GB/s");
  for (double pct : {0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0}) {
    IdeaExecution ex;
    ex.backend = Backend::gpu;
    ex.rung = "deployed";
    ex.cpu_percent = pct;
    IdeaExecutor exec(ex);
    const double ms = time_host_ms(h2h_repeats, [&] { exec.run(ecb, h_in.data(), h_out.data(), nblocks); });
    require_equal(h_out.data(), ref_ecb.data(), bytes, fmt::format("deployed with {}% on the CPU", pct));
    fmt::print("{:>12g} {:>10.2f} {:>10.0f} {:>8.2f}\n", pct, ms, kb_per_ms(dbytes, ms), gb_per_s(dbytes, ms));
  }
  double gpu_gbps = 0;
  for (const auto& r : rows)
    if (r.name == "deployed") gpu_gbps = gb_per_s(dbytes, r.h2h_ms);
  const double cpu_gbps = gb_per_s(dbytes, cpu_ecb_ms);
  if (gpu_gbps > 0)
    fmt::print("balanced split would be cpu-percent = cpu / (cpu + gpu) = {:.1f}% (cpu {:.2f} GB/s, gpu {:.2f} GB/s)\n",
               100.0 * cpu_gbps / (cpu_gbps + gpu_gbps), cpu_gbps, gpu_gbps);

  // ---- File -> file through the default execution, with the page cache's own rates beside it.
  {
    ScratchDir scratch;
    const fs::path in = scratch.path / "plain", out = scratch.path / "cipher";
    write_whole(in, h_in.data(), bytes);
    IdeaExecution ex;
    ex.backend = Backend::gpu;
    IdeaExecutor exec(ex);
    IdeaFileOptions opt;
    opt.mode = IdeaMode::ctr;
    std::vector<double> ms;
    for (int i = 0; i < 3; ++i) {
      const auto r = idea_crypt_file(IdeaDirection::encrypt, in, out, key, opt, exec);
      ms.push_back(r.seconds * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    const std::size_t piece = std::size_t(64) << 20;
    const double read_gbps = file_read_gbps(in, h_out.data(), std::min(piece, bytes), bytes);
    const double write_gbps = file_write_gbps(scratch.path / "w", h_out.data(), std::min(piece, bytes), bytes);
    fmt::print("\nfile -> file (ctr, {} MiB, {}; in {}): {:.2f} ms, {:.0f} KB/ms, {:.2f} GB/s\n", bytes >> 20,
               exec.describe(), scratch.path.parent_path().string(), ms[1], kb_per_ms(dbytes, ms[1]), gb_per_s(dbytes, ms[1]));
    fmt::print("same folder, one thread, 64 MiB pieces: read {:.2f} GB/s, write {:.2f} GB/s (the file bound)\n", read_gbps,
               write_gbps);
  }
  return 0;
}

}  // namespace wk::bench
