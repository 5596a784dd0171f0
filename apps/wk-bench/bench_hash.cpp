// wk-bench hash: crypt(3) throughput per format and password class, every rung with --ladder,
// against libxcrypt on all cores (measured in the same run) and hashcat's published figures for
// the H100 (issue 5), plus file-to-file throughput of wk-hash itself.
//
// Classes (the number of hash blocks per round depends on password and salt length):
//   S     7-byte passwords, 8-character salts (hashcat's own benchmark setting)
//   R     12-byte passwords, 16-character salts (8 for md5crypt)
//   long  passphrases of 33..64 bytes (random lengths), salts as in R
// sha-crypt at the default 5000 rounds, md5crypt 1000, bcrypt cost 5 ($2b$).
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
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
  double hashcat_s_khs;      // hashcat 6.2.6 on the H100, class S (optimized kernels) [issue 5]
  double hashcat_r_khs;      // hashcat 6.2.6, class R (pure kernels)
  double target_s_khs, target_r_khs;
  std::size_t file_jobs;     // lines for the file-to-file run (2-3 s of kernel time; md5crypt: 16 M lines)
};
constexpr FormatSpec kFormats[] = {
    {Method::sha512crypt, 65536, 864, 461, 900, 850, std::size_t(1) << 21},
    {Method::sha256crypt, 131072, 1510, 775, 2000, 1100, std::size_t(1) << 22},
    {Method::md5crypt, std::size_t(1) << 22, 58000, 5960, 70000, 65000, std::size_t(1) << 24},
    {Method::bcrypt, 65536, 345.6, 380.5, 420, 420, std::size_t(1) << 20},
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

// n class-S passwords (7 printable bytes), one per line.
std::string class_s_password_file(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string text;
  text.reserve(n * 8);
  for (std::size_t i = 0; i < n; ++i) text.append(random_text(rng, 7, false)).push_back('\n');
  return text;
}

// wk-hash's output for the first n lines of `passwords` (one per line): n lines, and a sample of
// them reproduced by libxcrypt from their own setting and the password of the same line.
bool check_hash_file(const fs::path& out, const std::string& passwords, std::size_t n) {
  std::vector<std::string> lines;
  {
    std::FILE* fp = std::fopen(out.c_str(), "rb");
    if (!fp) return false;
    std::string text;
    char buf[1 << 16];
    for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, fp)) > 0;) text.append(buf, got);
    std::fclose(fp);
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t nl = text.find('\n', at);
      if (nl == std::string::npos) return false;
      lines.push_back(text.substr(at, nl - at));
      at = nl + 1;
    }
  }
  if (lines.size() != n) {
    fmt::print("file-to-file: {} output lines for {} passwords\n", lines.size(), n);
    return false;
  }
  for (std::size_t i = 0; i < n; i += std::max<std::size_t>(1, n / 64)) {
    const std::string pw = passwords.substr(i * 8, 7);
    const auto want = hash::crypt_libxcrypt(lines[i], pw);
    if (!want || *want != lines[i]) {
      fmt::print("file-to-file: line {} differs from libxcrypt\n", i + 1);
      return false;
    }
  }
  return true;
}

// wk-hash next to this executable (both are built into, and installed to, the same folder).
fs::path wk_hash_exe() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path() / "wk-hash";
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
             "x hashcat: hashcat 6.2.6 on the H100 (S: optimized kernels, R and long: pure kernels); x target: issue 5.\n\n");
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

  // File to file: wk-hash hash on files of N and N/2 class-S passwords (7 bytes), wall time of the
  // whole process (start-up, CUDA context and self-check included). Three rows per format (class
  // "file"): the default rung's kernel rate on jobs like the file's (its passwords, wk-hash's
  // salts), the whole process on N lines, and the marginal rate (N/2 more lines per extra second:
  // the pipeline's steady state, start-up excluded), both against that kernel rate. A sample of
  // each output is checked against libxcrypt.
  if (gpu) {
    const fs::path exe = wk_hash_exe();
    if (exe.empty() || !fs::exists(exe)) {
      fmt::print("(wk-hash not found next to wk-bench: no file-to-file rows)\n");
    } else {
      const fs::path dir = fs::temp_directory_path() / fmt::format("wk-bench-hash-{}", ::getpid());
      fs::create_directories(dir);
      for (const FormatSpec& f : kFormats) {
        if (!o.variant.empty()) break;
        const char* fname = hash::method_name(f.method);
        double cpu_khs = 0;
        for (const HashRow& k : rows)
          if (k.format == fname && k.cls == "S" && k.note == "cpu") cpu_khs = k.khs;
        // The N-line file; the N/2-line one and the kernel's jobs are its first lines.
        const std::string text = class_s_password_file(f.file_jobs, 13);
        // The kernel rate to compare with: the default rung on jobs like the file's -- its 7-byte
        // passwords with the salts wk-hash draws (16 characters for sha-crypt, not class S's 8:
        // sha256crypt then needs two blocks in 4 rounds of 7).
        Jobs file_jobs;
        hash::HashOptions opt;
        opt.method = f.method;
        file_jobs.settings = hash::generate_settings(opt, f.jobs);
        for (std::size_t i = 0; i < f.jobs; ++i) file_jobs.passwords.push_back(text.substr(i * 8, 7));
        HashRow kernel;
        kernel.format = fname;
        kernel.cls = "file";
        kernel.rung = "kernel, wk-hash salts";
        kernel.note = hash::gpu::variant_name(hash::gpu::default_variant(f.method));
        kernel.jobs = f.jobs;
        kernel.ms = time_kernel(f.method, hash::gpu::default_variant(f.method), file_jobs, f.jobs, *stream_holder, repeats,
                                std::string(fname) + " file jobs");
        kernel.khs = double(f.jobs) / kernel.ms;
        kernel.hashcat = f.hashcat_s_khs;
        kernel.target = f.target_s_khs;
        kernel.cpu = cpu_khs;
        rows.push_back(kernel);
        double seconds[2] = {0, 0};
        bool ok = true;
        for (int half = 1; half >= 0; --half) {
          const std::size_t n = half ? f.file_jobs / 2 : f.file_jobs;
          const fs::path in = dir / "in.txt", out = dir / "out.txt";
          const std::size_t bytes = n * 8;  // 7 bytes and a newline per line
          {
            FILE* fp = std::fopen(in.c_str(), "wb");
            if (!fp || std::fwrite(text.data(), 1, bytes, fp) != bytes || std::fclose(fp) != 0)
              throw Error(ErrorCategory::io, in.string() + ": cannot write");
          }
          const std::string cmd = fmt::format("'{}' hash -q --device gpu --method {} -i '{}' -o '{}'", exe.string(), fname,
                                              in.string(), out.string());
          const auto t0 = std::chrono::steady_clock::now();
          const int rc = std::system(cmd.c_str());
          seconds[half] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          ok = ok && rc == 0 && check_hash_file(out, text, n);
        }
        HashRow whole;
        whole.format = fname;
        whole.cls = "file";
        whole.rung = "file-to-file, whole run";
        whole.jobs = f.file_jobs;
        whole.ms = seconds[0] * 1e3;
        whole.khs = ok ? double(f.file_jobs) / seconds[0] / 1e3 : 0;
        whole.hashcat = f.hashcat_s_khs;
        whole.target = f.target_s_khs;
        whole.cpu = cpu_khs;
        HashRow marginal = whole;
        marginal.rung = "file-to-file, marginal";
        marginal.jobs = f.file_jobs - f.file_jobs / 2;
        marginal.ms = (seconds[0] - seconds[1]) * 1e3;
        marginal.khs = ok && marginal.ms > 0 ? double(marginal.jobs) / marginal.ms : 0;
        for (HashRow* r : {&whole, &marginal})
          r->note = !ok                ? "FAILED"
                    : kernel.khs > 0 ? fmt::format("{:.0f}% of kernel", 100.0 * r->khs / kernel.khs)
                                     : "";
        rows.push_back(whole);
        rows.push_back(marginal);
      }
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  }
  print_rows(rows);
  return 0;
}

}  // namespace wk::bench
