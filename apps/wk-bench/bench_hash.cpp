// wk-bench hash: crypt(3) throughput per format and password class, every rung with --ladder,
// against libxcrypt on all cores (measured in the same run) and hashcat's published figures for
// the H100, plus file-to-file throughput of wk-hash itself.
//
// Classes (the number of hash blocks per round depends on password and salt length):
//   S     7-byte passwords, 8-character salts (hashcat's own benchmark setting)
//   R     12-byte passwords, 16-character salts (8 for md5crypt)
//   long  passphrases of 33..64 bytes (random lengths), salts as in R
// sha-crypt at the default 5000 rounds, md5crypt 1000, bcrypt cost 5 ($2b$).
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benches.hpp"
#include "wk/core/buffer.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

namespace wk::bench {

namespace {

namespace fs = std::filesystem;
using hash::Method;

struct ClassSpec {
  const char* name;
  int pw_min, pw_max;  // password bytes
  int salt_sha, salt_md5;
};
constexpr ClassSpec kClasses[] = {{"S", 7, 7, 8, 8}, {"R", 12, 12, 16, 8}, {"long", 33, 64, 16, 8}};

struct FormatSpec {
  Method method;
  std::size_t jobs;          // per timed batch: ~50-100 ms at the target rate on the H100
  double hashcat_s_khs;      // hashcat 6.2.6 on the H100, class S (optimized kernels)
  double hashcat_r_khs;      // hashcat 6.2.6, class R (pure kernels)
  double target_s_khs, target_r_khs;
  // Lines for the file-to-file runs: ~4-5 s of kernel time, ~1 s for md5crypt (64 M lines, 2.3 GB
  // of output), so that the process's fixed start-up (CUDA context ~0.2 s, self-check) stays a
  // small share of the whole run the issue's targets measure (95 % of the kernel needs a start-up
  // under 5 % of the run).
  std::size_t file_jobs;
};
constexpr FormatSpec kFormats[] = {
    {Method::sha512crypt, 65536, 864, 461, 900, 850, std::size_t(1) << 22},
    {Method::sha256crypt, 131072, 1510, 775, 2000, 1100, std::size_t(1) << 23},
    {Method::md5crypt, std::size_t(1) << 22, 58000, 5960, 70000, 65000, std::size_t(1) << 26},
    {Method::bcrypt, 65536, 345.6, 380.5, 420, 420, std::size_t(1) << 21},
};

std::string random_text(std::mt19937& rng, int n, bool salt_alphabet) {
  static const char* crypt64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string s(n, 'a');
  for (char& c : s) c = salt_alphabet ? crypt64[rng() % 64] : char(0x21 + rng() % 94);
  return s;
}

std::string setting_for(Method m, const ClassSpec& c, std::mt19937& rng) {
  switch (m) {
    case Method::md5crypt: return "$1$" + random_text(rng, c.salt_md5, true);
    case Method::sha256crypt: return "$5$" + random_text(rng, c.salt_sha, true);
    case Method::sha512crypt: return "$6$" + random_text(rng, c.salt_sha, true);
    case Method::bcrypt: return "$2b$05$" + random_text(rng, 22, true);  // same 64 characters as bcrypt's alphabet
    default: break;
  }
  return {};
}

struct Jobs {
  std::vector<std::string> settings, passwords;
};
Jobs make_jobs(Method m, const ClassSpec& c, std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  Jobs j;
  j.settings.reserve(n);
  j.passwords.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    j.settings.push_back(setting_for(m, c, rng));
    j.passwords.push_back(random_text(rng, c.pw_min + int(rng() % (c.pw_max - c.pw_min + 1)), false));
  }
  return j;
}

// libxcrypt's crypt_rn on every core for about `seconds`: hashes done and seconds taken.
std::pair<std::size_t, double> libxcrypt_run(const Jobs& jobs, double seconds) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const std::size_t i = next.fetch_add(1) % jobs.settings.size();
      (void)hash::crypt_libxcrypt(jobs.settings[i], jobs.passwords[i]);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : pool) t.join();
  return {next.load(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

struct HashRow {
  std::string format, cls, rung, note;
  std::size_t jobs = 0;
  double ms = 0, khs = 0, hashcat = 0, target = 0, cpu = 0;
};

void print_rows(const std::vector<HashRow>& rows) {
  fmt::print("{:<12} {:<5} {:<26} {:>9} {:>10} {:>12} {:>9} {:>9} {:>10}\n", "format", "class", "rung", "jobs", "ms",
             "kH/s", "x hashcat", "x target", "x libxcrypt");
  for (const HashRow& r : rows) {
    auto ratio = [](double a, double b) { return a > 0 && b > 0 ? fmt::format("{:.2f}", a / b) : std::string("-"); };
    const std::string rung = r.note.empty() ? r.rung : r.rung + " (" + r.note + ")";
    fmt::print("{:<12} {:<5} {:<26} {:>9} {:>10.2f} {:>12.1f} {:>9} {:>9} {:>10}\n", r.format, r.cls, rung, r.jobs, r.ms,
               r.khs, ratio(r.khs, r.hashcat), ratio(r.khs, r.target), ratio(r.khs, r.cpu));
  }
}

// Checks a sample of the batch's results against libxcrypt before its time counts.
void check_sample(const Jobs& jobs, const std::vector<std::string>& got, const std::string& what) {
  const std::size_t step = std::max<std::size_t>(1, jobs.settings.size() / 16);
  for (std::size_t i = 0; i < jobs.settings.size(); i += step) {
    const auto want = hash::crypt_libxcrypt(jobs.settings[i], jobs.passwords[i]);
    if (!want || got[i] != *want)
      throw Error(ErrorCategory::internal, what + ": the GPU result differs from libxcrypt; not timing a wrong kernel");
  }
}

// The first n jobs on the device by one rung: checked against libxcrypt on a sample, then the
// median time of `repeats` runs in ms.
double time_kernel(Method m, hash::gpu::Variant variant, const Jobs& jobs, std::size_t n, cudaStream_t stream, int repeats,
                   const std::string& what) {
  std::vector<hash::Setting> parsed;
  parsed.reserve(n);
  std::vector<const hash::Setting*> ptrs;
  std::vector<std::string_view> pws;
  for (std::size_t i = 0; i < n; ++i) parsed.push_back(*hash::parse_setting(jobs.settings[i]).setting);
  for (std::size_t i = 0; i < n; ++i) {
    ptrs.push_back(&parsed[i]);
    pws.push_back(jobs.passwords[i]);
  }
  hash::gpu::DeviceBatch batch(m, ptrs, pws, variant, stream);
  batch.run(stream);
  std::vector<std::string> out;
  batch.results(stream, out);
  check_sample({{jobs.settings.begin(), jobs.settings.begin() + std::ptrdiff_t(n)},
                {jobs.passwords.begin(), jobs.passwords.begin() + std::ptrdiff_t(n)}},
               out, what);
  return time_gpu_ms(stream, repeats, [&] { batch.run(stream); });
}

// ---- memory-hard methods ------------------------------------------------------------------------
// yescrypt at libxcrypt's default and lowest costs, scrypt at hashcat's benchmark setting (mode
// 8900: N 2^14, r 8, p 1). V is the memory each hash fills; "DRAM" estimates the bytes of V each
// hash moves (SMix1 writes N blocks and reads N - 2 of them; RW SMix2 reads and rewrites its
// ~N/3; classic SMix2 reads N; yescrypt's prehash adds 1/64) times the hash rate, beside the
// device's copy rate (read + write) measured in the same run.
struct MemoryHardSpec {
  const char* label;
  Method method;
  const char* head;        // the setting before its salt
  std::size_t gpu_jobs;    // per timed batch (the reference rung: a sixteenth)
  double block_rounds;     // V blocks moved per hash over N (reads + writes)
  std::uint32_t n_log2, r;
};
constexpr MemoryHardSpec kMemoryHard[] = {
    {"yescrypt j9T", Method::yescrypt, "$y$j9T$", 8192, (2.0 + 2.0 / 3.0) * (1 + 1.0 / 64), 12, 32},
    {"yescrypt j75", Method::yescrypt, "$y$j75$", 16384, 2.0 + 2.0 / 3.0, 10, 8},
    {"scrypt 14/8/1", Method::scrypt, "$7$C6..../....", 8192, 2.0, 14, 8},
};

void bench_memory_hard(const Options& o, bool gpu, std::optional<Stream>& stream, int repeats) {
  const double copy_gbs = gpu ? copy_bandwidth_gbps(std::size_t(1) << 30, *stream, 5) : 0;
  fmt::print("\nmemory-hard methods: hashes/s; x libxcrypt = over libxcrypt on all {} cores in this run; DRAM = the "
             "estimated bytes of V moved per hash x hashes/s{}\n",
             std::max(1u, std::thread::hardware_concurrency()),
             gpu ? fmt::format(", beside the device copy rate {:.0f} GB/s (read + write)", copy_gbs) : std::string());
  fmt::print("{:<14} {:>6} {:<22} {:>7} {:>10} {:>10} {:>11} {:>10} {:>7}\n", "method", "V MiB", "rung", "jobs", "ms", "H/s",
             "x libxcrypt", "DRAM GB/s", "% copy");
  for (const MemoryHardSpec& f : kMemoryHard) {
    const double v_bytes = 128.0 * f.r * double(std::uint64_t(1) << f.n_log2);
    std::mt19937 rng(17);
    Jobs jobs;
    for (std::size_t i = 0; i < f.gpu_jobs; ++i) {
      jobs.settings.push_back(f.head + random_text(rng, 20, true) + "..");
      jobs.passwords.push_back(random_text(rng, 8 + int(rng() % 8), false));
    }
    const Jobs cpu_jobs{{jobs.settings.begin(), jobs.settings.begin() + 256}, {jobs.passwords.begin(), jobs.passwords.begin() + 256}};
    const auto [done, secs] = libxcrypt_run(cpu_jobs, 2.0);
    const double cpu_hs = double(done) / secs;
    auto row = [&](const std::string& rung, std::size_t n, double ms) {
      const double hs = ms > 0 ? double(n) * 1e3 / ms : cpu_hs;
      const double dram = hs * v_bytes * f.block_rounds / 1e9;
      fmt::print("{:<14} {:>6.0f} {:<22} {:>7} {:>10.1f} {:>10.1f} {:>11.2f} {:>10.1f} {:>6.1f}%\n", f.label, v_bytes / (1 << 20),
                 rung, n, ms > 0 ? ms : secs * 1e3, hs, hs / cpu_hs, dram, copy_gbs > 0 ? 100 * dram / copy_gbs : 0.0);
      std::fflush(stdout);
    };
    row("libxcrypt, all cores", done, 0);
    if (!gpu) continue;
    for (const hash::gpu::VariantInfo& v : hash::gpu::variants(f.method)) {
      const bool is_default = v.variant == hash::gpu::default_variant(f.method);
      if (!o.variant.empty() ? o.variant != v.name : (!o.ladder && !is_default)) continue;
      const std::size_t n = v.variant == hash::gpu::Variant::reference && f.method == Method::yescrypt ? f.gpu_jobs / 16 : f.gpu_jobs;
      const double ms = time_kernel(f.method, v.variant, jobs, n, *stream, std::min(repeats, 3),
                                    std::string(f.label) + " " + v.name);
      row(std::string(v.name) + (is_default ? " (default)" : ""), n, ms);
    }
  }
}

// n class-S passwords (7 printable bytes), one per line.
std::string class_s_password_file(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string text;
  text.reserve(n * 8);
  for (std::size_t i = 0; i < n; ++i) text.append(random_text(rng, 7, false)).push_back('\n');
  return text;
}

// wk-hash's output for the first n lines of `passwords` (one per line): n lines, and a sample of
// them reproduced by libxcrypt from their own setting and the password of the same line. Read in
// blocks (md5crypt's output is 2.3 GB), never held whole.
bool check_hash_file(const fs::path& out, const std::string& passwords, std::size_t n) {
  std::FILE* fp = std::fopen(out.c_str(), "rb");
  if (!fp) return false;
  const std::size_t step = std::max<std::size_t>(1, n / 64);
  std::size_t lines = 0;
  bool ok = true;
  std::string pending;  // the unfinished line at the end of a block
  std::vector<char> buf(std::size_t(4) << 20);
  for (std::size_t got; ok && (got = std::fread(buf.data(), 1, buf.size(), fp)) > 0;) {
    std::size_t at = 0;
    for (const char* nl; ok && (nl = static_cast<const char*>(std::memchr(buf.data() + at, '\n', got - at)));) {
      const std::size_t end = std::size_t(nl - buf.data());
      if (lines % step == 0 && lines < n) {
        pending.append(buf.data() + at, end - at);
        const auto want = hash::crypt_libxcrypt(pending, passwords.substr(lines * 8, 7));
        if (!want || *want != pending) {
          fmt::print("file-to-file: line {} differs from libxcrypt\n", lines + 1);
          ok = false;
        }
      }
      pending.clear();
      ++lines;
      at = end + 1;
    }
    pending.append(buf.data() + at, got - at);
  }
  std::fclose(fp);
  if (ok && (lines != n || !pending.empty())) {
    fmt::print("file-to-file: {} output lines for {} passwords\n", lines, n);
    ok = false;
  }
  return ok;
}

// wk-hash next to this executable (both are built into, and installed to, the same folder).
fs::path wk_hash_exe() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path() / "wk-hash";
}

// The folder the file-to-file runs write to: $WK_BENCH_HASH_DIR, else the temporary folder
// ($TMPDIR). The disk rate is measured there too; a tmpfs there measures memory, not a disk.
fs::path file_bench_dir() {
  if (const char* d = std::getenv("WK_BENCH_HASH_DIR"); d && *d) return fs::path(d);
  return fs::temp_directory_path();
}

std::string filesystem_name(const fs::path& dir) {
  struct statfs st {};
  if (::statfs(dir.c_str(), &st) != 0) return "?";
  switch (static_cast<unsigned long>(st.f_type)) {
    case 0xEF53: return "ext4";
    case 0x58465342: return "xfs";
    case 0x01021994: return "tmpfs";
    case 0x794c7630: return "overlayfs";
    case 0x9123683E: return "btrfs";
    default: return fmt::format("fs 0x{:x}", static_cast<unsigned long>(st.f_type));
  }
}

// Writes `bytes` (non-zero, incompressible-looking data) to a new file in `dir` in 8 MiB writes
// and fsyncs it, as wk-hash's -o does before the rename: bytes per second from open to the end of
// the fsync. The file is removed.
double disk_write_rate(const fs::path& dir, std::size_t bytes) {
  const fs::path path = dir / fmt::format(".wk-bench-disk-{}", ::getpid());
  std::vector<char> block(std::size_t(8) << 20);
  std::mt19937_64 rng(5);
  for (std::size_t i = 0; i + 8 <= block.size(); i += 8) {
    const std::uint64_t v = rng();
    std::memcpy(block.data() + i, &v, 8);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw Error(ErrorCategory::io, path.string() + ": cannot create");
  bool ok = true;
  for (std::size_t at = 0; ok && at < bytes; at += block.size()) {
    const std::size_t n = std::min(block.size(), bytes - at);
    ok = ::write(fd, block.data(), n) == ssize_t(n);
  }
  ok = ok && ::fsync(fd) == 0;
  ::close(fd);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ec;
  fs::remove(path, ec);
  ::sync();  // the freeing of its blocks (a trim, on a filesystem mounted with `discard`) ends here
  if (!ok) throw Error(ErrorCategory::io, path.string() + ": write or fsync failed");
  return double(bytes) / secs;
}

// Median wall seconds of `runs` runs of a shell command; false if one failed. `before` runs
// before each run, untimed.
bool time_command(const std::string& cmd, int runs, double& seconds, const std::function<void()>& before = {}) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    if (before) before();
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = std::system(cmd.c_str());
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (rc != 0) return false;
  }
  std::sort(t.begin(), t.end());
  seconds = t[t.size() / 2];
  return true;
}

// The file-to-file table: one row per format (see bench_hash).
void bench_file_to_file(cudaStream_t stream, int repeats) {
  const fs::path exe = wk_hash_exe();
  if (exe.empty() || !fs::exists(exe)) {
    fmt::print("(wk-hash not found next to wk-bench: no file-to-file rows)\n");
    return;
  }
  const fs::path dir = file_bench_dir() / fmt::format("wk-bench-hash-{}", ::getpid());
  fs::create_directories(dir);
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  const int runs = repeats >= 3 ? 3 : 1;
  fmt::print("\nfile to file: wk-hash hash --device gpu, N lines of 7-byte passwords, whole process (median of {}); "
             "output to /dev/null and to a file in {} ({}).\n"
             "kernel: the default rung on the file's jobs (wk-hash's salts). disk: the fsync'd write rate of that folder, "
             "measured just before the format's runs with as many bytes as its N-line output, in hashes/s of its "
             "output lines. marginal: N/2 more lines per extra second (steady state). file: a new output file each run "
             "(the previous one removed first, untimed); replacing: one N-line run over the previous output, whose rename "
             "also frees the old file (not in 'met').\n"
             "wk-bench's own CUDA context stays open meanwhile (the driver stays up, as with persistence mode): lone runs "
             "on a machine without persistence mode may take longer.\n"
             "targets: md5crypt /dev/null >= 60 % of kernel, file >= 80 % of min(kernel, disk); "
             "other formats >= 95 % of kernel (file: of min(kernel, disk)).\n",
             runs, dir.string(), filesystem_name(dir));
  fmt::print("{:<12} {:>9} {:>6} {:>10} {:>10} | {:>10} {:>7} {:>10} | {:>10} {:>7} {:>8} {:>10} | {:>10} {:>8} | {}\n",
             "format", "lines N", "B/line", "kernel", "disk", "/dev/null", "%kern", "marginal", "file", "%kern", "%min",
             "marginal", "replacing", "%min", "met");
  fmt::print("{:<12} {:>9} {:>6} {:>10} {:>10} | {:>10} {:>7} {:>10} | {:>10} {:>7} {:>8} {:>10} | {:>10} {:>8} |\n", "", "", "",
             "kH/s", "kH/s", "kH/s", "", "kH/s", "kH/s", "", "", "kH/s", "kH/s", "");
  std::fflush(stdout);
  for (const FormatSpec& f : kFormats) {
    const char* fname = hash::method_name(f.method);
    // The N-line file; the N/2-line one and the kernel's jobs are its first lines.
    const std::string text = class_s_password_file(f.file_jobs, 13);
    Jobs file_jobs;
    hash::HashOptions opt;
    opt.method = f.method;
    file_jobs.settings = hash::generate_settings(opt, f.jobs);
    for (std::size_t i = 0; i < f.jobs; ++i) file_jobs.passwords.push_back(text.substr(i * 8, 7));
    const double kernel_ms = time_kernel(f.method, hash::gpu::default_variant(f.method), file_jobs, f.jobs, stream, repeats,
                                         std::string(fname) + " file jobs");
    const double kernel_khs = double(f.jobs) / kernel_ms;
    const std::size_t line_bytes = hash::crypt_string_bytes(opt) + 1;
    // The disk's fsync'd write rate in the folder the output goes to, for as many bytes as the
    // N-line output (md5crypt's 2^26 lines: 2.3 GB), written the way the bench's probe writes.
    const double disk_bps = disk_write_rate(dir, f.file_jobs * line_bytes);
    const double disk_khs = disk_bps / double(line_bytes) / 1e3;
    // seconds[sink][half]: sink 0 /dev/null, 1 file; half 1 N/2 lines, 0 N lines.
    double seconds[2][2] = {{0, 0}, {0, 0}};
    double replace_seconds = 0;
    bool ok = true;
    const fs::path in_half = dir / "in-half.txt", in_full = dir / "in.txt", out = dir / "out.txt";
    for (int half = 1; half >= 0; --half) {
      const std::size_t n = half ? f.file_jobs / 2 : f.file_jobs;
      const fs::path in = half ? in_half : in_full;
      const std::size_t bytes = n * 8;  // 7 bytes and a newline per line
      FILE* fp = std::fopen(in.c_str(), "wb");
      if (!fp || std::fwrite(text.data(), 1, bytes, fp) != bytes || std::fclose(fp) != 0)
        throw Error(ErrorCategory::io, in.string() + ": cannot write");
      const std::string base = fmt::format("'{}' hash -q --device gpu --method {} -i '{}'", exe.string(), fname, in.string());
      ok = ok && time_command(base + " > /dev/null", runs, seconds[0][half]);
      // Each run writes a new file, as the disk probe does: the previous run's output is removed
      // first, untimed (replacing it is timed once below).
      const std::string to_file = base + fmt::format(" -o '{}'", out.string());
      ok = ok && time_command(to_file, runs, seconds[1][half], [&] {
        std::error_code ec;
        fs::remove(out, ec);
        ::sync();
      });
      ok = ok && check_hash_file(out, text, n);
      // One more N-line run over the existing output: the rename into place also frees the old
      // file (on a filesystem mounted with `discard`, it is trimmed then: ~0.6 s for 2.3 GB).
      if (!half) ok = ok && time_command(to_file, 1, replace_seconds);
      std::error_code ec;
      fs::remove(out, ec);
    }
    fs::remove(in_half);
    fs::remove(in_full);
    auto khs = [&](int sink) { return ok ? double(f.file_jobs) / seconds[sink][0] / 1e3 : 0.0; };
    auto marginal = [&](int sink) {
      const double dt = seconds[sink][0] - seconds[sink][1];
      return ok && dt > 0 ? double(f.file_jobs - f.file_jobs / 2) / dt / 1e3 : 0.0;
    };
    const double null_pct = 100 * khs(0) / kernel_khs, file_pct = 100 * khs(1) / kernel_khs;
    const double file_min_pct = 100 * khs(1) / std::min(kernel_khs, disk_khs);
    const bool md5 = f.method == Method::md5crypt;
    const bool null_met = null_pct >= (md5 ? 60 : 95), file_met = file_min_pct >= (md5 ? 80 : 95);
    const char* met = !ok ? "FAIL" : null_met && file_met ? "yes" : null_met ? "null only" : file_met ? "file only" : "no";
    const double replace_khs = ok ? double(f.file_jobs) / replace_seconds / 1e3 : 0.0;
    fmt::print("{:<12} {:>9} {:>6} {:>10.1f} {:>10.1f} | {:>10.1f} {:>6.0f}% {:>10.1f} | {:>10.1f} {:>6.0f}% {:>7.0f}% {:>10.1f} | {:>10.1f} {:>7.0f}% | {}\n",
               fname, f.file_jobs, line_bytes, kernel_khs, disk_khs, khs(0), null_pct, marginal(0), khs(1), file_pct,
               file_min_pct, marginal(1), replace_khs, 100 * replace_khs / std::min(kernel_khs, disk_khs), met);
    std::fflush(stdout);
  }
}

}  // namespace

int bench_hash(const Options& o) {
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  const bool gpu = sel.backend == Backend::gpu;
  const int repeats = std::max(1, std::min(o.repeats, 5));
  fmt::print("wk-bench hash: crypt(3) throughput, {}, {}, CPU threads {}, median of {}\n", describe_device(sel.gpu), today(),
             std::max(1u, std::thread::hardware_concurrency()), repeats);
  fmt::print("classes: S = 7-byte passwords, 8-char salts; R = 12-byte passwords, 16-char salts (8 for md5crypt);\n"
             "long = 33..64-byte passphrases; sha-crypt 5000 rounds, md5crypt 1000, bcrypt $2b$ cost 5.\n"
             "x hashcat: hashcat 6.2.6 on the H100 (S: optimized kernels, R and long: pure kernels);\nx target: the targets of docs/apod/hash.md.\n\n");
  if (!gpu && !sel.notice.empty()) fmt::print(stderr, "wk-bench: {}\n", sel.notice);

  std::vector<HashRow> rows;
  std::optional<Stream> stream_holder;
  if (gpu) stream_holder.emplace();
  for (const FormatSpec& f : kFormats) {
    const char* fname = hash::method_name(f.method);
    for (const ClassSpec& c : kClasses) {
      const bool is_s = std::string(c.name) == "S";
      const double hashcat = is_s ? f.hashcat_s_khs : f.hashcat_r_khs;
      const double target = is_s ? f.target_s_khs : f.target_r_khs;
      // libxcrypt on all cores, in this run.
      const Jobs cpu_jobs = make_jobs(f.method, c, 4096, 7);
      HashRow cpu;
      cpu.format = fname;
      cpu.cls = c.name;
      cpu.rung = "libxcrypt, all cores";
      const auto [done, secs] = libxcrypt_run(cpu_jobs, 1.0);
      cpu.jobs = done;
      cpu.ms = secs * 1e3;
      cpu.khs = double(done) / secs / 1e3;
      cpu.note = "cpu";
      cpu.hashcat = hashcat;
      cpu.target = target;
      cpu.cpu = cpu.khs;
      rows.push_back(cpu);
      if (!gpu) continue;

      const Jobs jobs = make_jobs(f.method, c, f.jobs, 11);
      for (const hash::gpu::VariantInfo& v : hash::gpu::variants(f.method)) {
        const bool is_default = v.variant == hash::gpu::default_variant(f.method);
        if (!o.variant.empty() ? o.variant != v.name : (!o.ladder && !is_default)) continue;
        // The reference rungs are an order of magnitude slower: a smaller batch still fills the GPU.
        const std::size_t n = v.variant == hash::gpu::Variant::reference ? std::max<std::size_t>(f.jobs / 16, 8192) : f.jobs;
        const double ms = time_kernel(f.method, v.variant, jobs, n, *stream_holder, repeats,
                                      std::string(fname) + " " + v.name);
        HashRow r;
        r.format = fname;
        r.cls = c.name;
        r.rung = v.name;
        r.note = is_default ? "default" : "";
        r.jobs = n;
        r.ms = ms;
        r.khs = double(n) / ms;  // jobs per ms = kH/s
        r.hashcat = hashcat;
        r.target = target;
        r.cpu = cpu.khs;
        rows.push_back(r);
      }
    }
  }

  print_rows(rows);
  bench_memory_hard(o, gpu, stream_holder, repeats);
  // File to file: wk-hash hash on files of N and N/2 class-S passwords (7 bytes), wall time of the
  // whole process (start-up, CUDA context and self-check included), with its output to /dev/null
  // and to a file (written to a temporary file, fsync'd and renamed into place, as wk-hash does),
  // against the default rung's kernel rate on jobs like the file's (its passwords, wk-hash's salts)
  // and, for the file, against min(kernel, the disk): the fsync'd write rate measured in the same
  // folder, in hashes/s of this format's output lines. "marginal": N/2 more lines per extra second
  // (the pipeline's steady state, start-up excluded). A sample of each file is checked against
  // libxcrypt.
  if (gpu && o.variant.empty()) bench_file_to_file(*stream_holder, repeats);
  return 0;
}

int bench_yescrypt(const Options& o) {
  const BackendSelection sel = select_backend(parse_device_choice(o.device));
  const bool gpu = sel.backend == Backend::gpu;
  fmt::print("wk-bench yescrypt: {}, {}\n", describe_device(sel.gpu), today());
  if (!gpu && !sel.notice.empty()) fmt::print(stderr, "wk-bench: {}\n", sel.notice);
  std::optional<Stream> stream;
  if (gpu) stream.emplace();
  bench_memory_hard(o, gpu, stream, std::max(1, std::min(o.repeats, 5)));
  return 0;
}

}  // namespace wk::bench
