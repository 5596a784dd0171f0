#include "app_common.hpp"

#include <fcntl.h>
#include <signal.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>
#include <iostream>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/core.h>

#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/io/files.hpp"
#include "wk/io/metadata.hpp"
#include "wk/io/output_file.hpp"
#include "wk/pipeline/folder_job.hpp"
#include "wk/version.hpp"

namespace wk::app {

namespace {
std::atomic<bool>* g_stop_flag = nullptr;
std::atomic<int> g_signals{0};
char g_interrupt_message[512];                      // written by on_interrupt when it ends at once
volatile std::size_t g_interrupt_message_bytes = 0;
volatile bool g_close_on_stop = false;
volatile int g_message_fd = STDERR_FILENO;          // where the handler's message goes
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int) {
  // Async-signal-safe only: atomics, unlink(2) through the registry, _exit.
  if (g_signals.fetch_add(1) == 0 && g_stop_flag) {
    if (g_close_on_stop) io::close_temporaries();
    g_stop_flag->store(true);
    return;
  }
  io::remove_registered_temporaries();
  if (g_interrupt_message_bytes) (void)!::write(g_message_fd, g_interrupt_message, g_interrupt_message_bytes);
  ::_exit(kInterrupted);
}
}  // namespace

void close_outputs_on_stop() { g_close_on_stop = true; }

void ignore_interrupts() {
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  std::signal(SIGHUP, SIG_IGN);
}

void set_interrupt_message(std::string_view message) {
  const std::size_t n = std::min(message.size(), sizeof g_interrupt_message);
  std::memcpy(g_interrupt_message, message.data(), n);
  g_interrupt_message_bytes = n;
}

void install_interrupt_handlers(std::atomic<bool>* stop) {
  g_stop_flag = stop;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // a closed terminal or a dropped SSH session
}

namespace {
// Where messages go: standard error, or its copy once silence_library_messages moved fd 2.
std::FILE* g_messages = nullptr;
std::FILE* messages() { return g_messages ? g_messages : stderr; }
// On a terminal a progress line may be showing: clear it before printing a message line.
const char* line_reset() { return ::isatty(::fileno(messages())) ? "\r\x1b[K" : ""; }
}  // namespace

void silence_library_messages() {
  if (g_messages) return;
  std::fflush(stderr);
  const int copy = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (copy < 0 || null < 0) {
    if (copy >= 0) ::close(copy);
    if (null >= 0) ::close(null);
    return;
  }
  std::FILE* f = ::fdopen(copy, "w");
  if (!f) {
    ::close(copy);
    ::close(null);
    return;
  }
  std::setvbuf(f, nullptr, _IOLBF, 0);
  g_messages = f;
  g_message_fd = copy;
  ::dup2(null, STDERR_FILENO);
  ::close(null);
}

std::uint64_t parse_byte_size(const std::string& text, const char* option) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  std::string unit = text.substr(std::min(used, text.size()));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && (unit.substr(1) == "B" || unit.substr(1) == "IB")) unit.resize(1);
  const std::string units = "KMGT";
  double scale = 1;
  if (!unit.empty() && unit != "B") {
    const std::size_t k = unit.size() == 1 ? units.find(unit[0]) : std::string::npos;
    if (k == std::string::npos) value = -1;
    else scale = std::pow(1024.0, double(k + 1));
  }
  if (!(value > 0) || value * scale > 1.8e19)
    throw Error(ErrorCategory::usage, std::string(option) + " takes a size like 2G, 512M or 1000000 (bytes), not '" + text + "'");
  return static_cast<std::uint64_t>(value * scale);
}

// Messages name files, and a file name may hold any byte but '/' and NUL: control bytes are shown
// escaped (io::printable), so a name cannot forge a line or drive the terminal.
void print_error(const char* prog, const std::string& message) {
  fmt::print(messages(), "{}{}: error: {}\n", line_reset(), prog, io::printable(message));
}
void print_notice(const char* prog, const std::string& message) {
  fmt::print(messages(), "{}{}: {}\n", line_reset(), prog, io::printable(message));
}

void add_device_option(CLI::App& app, std::string& device) {
  app.add_option("--device", device, "Where to run: auto (the GPU when one is usable, else the CPU), gpu or cpu")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
}

BackendSelection choose_backend(const char* prog, const std::string& device, bool quiet) {
  BackendSelection sel;
  try {
    sel = select_backend(parse_device_choice(device));
  } catch (const Error& e) {
    throw Error(e.category(), "--device " + device + ": " + e.what());  // the library's message, with the flag
  }
  if (!sel.notice.empty() && !quiet) print_notice(prog, sel.notice);
  return sel;
}

bool clean_exit_wanted() {
  const char* clean = std::getenv("WK_CLEAN_EXIT");
  return clean && std::string_view(clean) == "1";
}

void keep_freed_buffers() {
  if (std::getenv("GLIBC_TUNABLES")) return;
  // 32 MiB is the largest mmap threshold glibc accepts on 64-bit (half its heap size); a 4K BGR
  // image is 24.9 MB. wk-image, measured on the 2-core CI machine (a VM), 16 4K JPEGs
  // gray,gauss:5,hist on 2 threads: OpenCV's peer 0.68 -> 0.51 s with the same settings, the
  // kernel's page faults being a quarter of its time; on the 16-core H100 machine within noise.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

void widen_gpu_work_queues() { ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", kGpuWorkQueues, /*overwrite=*/0); }

void exit_now(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (clean_exit_wanted()) std::exit(code);
  ::_exit(code);
}

namespace {
// Prints what `e` says; its exit status: 2 for a usage error, else 1.
int print_failure(const char* prog, const std::exception& e) {
  print_error(prog, e.what());
  const auto* error = dynamic_cast<const Error*>(&e);
  return error && error->category() == ErrorCategory::usage ? kUsage : kSomeFailed;
}
}  // namespace

std::string version_text(const char* prog) {
  auto cuda = [](int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, v % 1000 / 10) : std::string("none"); };
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  auto yes = [](bool b) { return b ? "yes" : "no"; };
  return fmt::format("{} {} (commit {})\nCUDA runtime {}, driver {}\nbuilt with: nvJPEG {}, MPI {}, libexiv2 metadata {}", prog,
                     wk::version_string, wk::git_commit, cuda(runtime), cuda(driver), yes(pipeline::nvjpeg_in_build()),
                     yes(dist::mpi_in_build()), yes(io::metadata_supported()));
}

int run_app(const char* prog, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.set_version_flag("--version", [prog] { return version_text(prog); },
                       "Print the version, the commit, the CUDA runtime and driver, and the optional parts built in");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(prog, std::string(e.what()) + " (see --help)");
    return kUsage;
  }
  int code = kSomeFailed;
  try {
    return body();
  } catch (const std::exception& e) {
    code = print_failure(prog, e);
  }
  if (dist::world().distributed()) {
    print_error(prog, fmt::format("rank {} of {} failed: ending every rank", dist::world().rank, dist::world().size));
    io::remove_registered_temporaries();
    dist::abort(code);
  }
  return code;
}

namespace {
bool g_gpus_split = false;
}  // namespace

bool gpus_split_by_rank() { return g_gpus_split; }

int start_world(const char* prog, int* argc, char*** argv) {
  try {
    dist::init(argc, argv);
  } catch (const std::exception& e) {
    return print_failure(prog, e);
  }
  const dist::World& w = dist::world();
  if (!w.distributed()) return kSuccess;
  if (w.local_size > 1 && !std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::vector<int> gpus;
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", ec), end; !ec && it != end; it.increment(ec))
      gpus.push_back(int(gpus.size()));
    if (!gpus.empty()) {
      std::string mine;
      for (int g : dist::node_share(gpus, w.local_rank, w.local_size)) mine += (mine.empty() ? "" : ",") + std::to_string(g);
      ::setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
      g_gpus_split = true;
    }
  }
  const unsigned node_cores = std::max(1u, std::thread::hardware_concurrency());
  if (w.rank == 0 && usable_cores() * unsigned(w.local_size) * 2 <= node_cores)
    print_notice(prog, fmt::format("each rank may use {} of this node's {} cores ({} ranks here): mpirun binds "
                                   "ranks to one core each by default for -np 2 or less; give them more with "
                                   "--map-by slot:PE=N or --bind-to none",
                                   usable_cores(), node_cores, w.local_size));
  return kSuccess;
}

void end_world(int code) {
  if (code != kInterrupted) {
    if (dist::world().distributed()) code = dist::broadcast(code);
    dist::finalize();  // also for mpirun -np 1 (nothing without a launcher)
  }
  exit_now(code);
}

Progress::Progress(std::size_t total, const char* unit, bool enabled)
    : total_(total), unit_(unit), enabled_(enabled && ::isatty(STDERR_FILENO)),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

Progress::~Progress() { finish(); }

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::step(const std::string& extra) {
  extra_ = extra;
  advance(1);
}

void Progress::advance(std::size_t items) {
  if (items == 0) return;
  done_ += items;
  draw(done_ == total_);
}

void Progress::advance_to(std::size_t done) {
  if (done > done_) advance(done - done_);
}

void Progress::draw(bool force) {
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  const double frac = total_ ? double(done_) / double(total_) : 1.0;
  const int filled = static_cast<int>(frac * kWidth);
  const double secs = elapsed_s();
  const double rate = secs > 0 ? done_ / secs : 0.0;
  const double eta = rate > 0 ? (total_ - done_) / rate : 0.0;
  fmt::print(stderr, "\r[{:=<{}}{: <{}}] {}/{} {}  {:.1f} {}/s  ETA {:.0f} s  {}\x1b[K", "", filled, "",
             kWidth - filled, done_, total_, unit_, rate, unit_, eta, extra_);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_ || finished_) return;
  draw(true);
  fmt::print(stderr, "\n");
  finished_ = true;
}

}  // namespace wk::app
