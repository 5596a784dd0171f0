#pragma once
// What every warpkit app shares: exit codes, error printing, --device, the progress line.
#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/backend.hpp"
#include "wk/core/dist.hpp"

namespace wk::app {

enum ExitCode : int { kSuccess = 0, kSomeFailed = 1, kUsage = 2, kInterrupted = 130 };

// SIGINT / SIGTERM / SIGHUP. With `stop`: the first signal sets *stop (the app finishes what is in flight
// and exits kInterrupted itself); a second one ends at once. Without: the first one ends at once.
// Ending at once removes the registered temporary files (wk::io::TemporaryRegistration: nothing
// half-written stays behind) and exits kInterrupted.
void install_interrupt_handlers(std::atomic<bool>* stop);
// A line the handler writes to stderr when it ends the process at once (at most 512 bytes; set
// before the signal can come: it is read from the handler).
void set_interrupt_message(std::string_view message);
// With a stop flag: the first signal also removes the temporary files being written and lets no
// new output be written (io::close_temporaries), for a process that must stay alive a while.
void close_outputs_on_stop();
// SIGINT, SIGTERM and SIGHUP ignored: an MPI rank > 0 that writes no file leaves the ending of the job to
// rank 0 (a quick non-zero exit of its own would make mpirun SIGKILL rank 0 mid-cleanup).
void ignore_interrupts();

// For apps that allocate and free many buffers of several MB (wk-image's images, wk-hash's
// slices): glibc keeps freed blocks of up to 32 MiB in the heaps for reuse instead of returning
// them to the kernel (mmap threshold 32 MiB, trimming only above 1 GiB), so the next buffers are
// not faulted in again page by page. Does nothing when GLIBC_TUNABLES is set (the user's choice).
void keep_freed_buffers();

// For apps whose threads run kernels on several CUDA streams of one GPU at once (wk-image: the
// workers' streams beside nvJPEG's decoder): sets CUDA_DEVICE_MAX_CONNECTIONS=12, the number of
// work queues (connections) the driver gives a context; its default is 8. Streams beyond the
// queues share them, and one stream's work then waits behind another's. H100, 2026-11-26
// (docs/benchmarks.md, "wk-image over a folder"): nvJPEG's hardware decode beside 4 threads of
// kernels ran at 1155 img/s with 8 queues, 1354 with 12 (alone: 1360); wk-image's steady rate
// over 3000 photos went from 1106-1143 to 1192-1263 img/s. More queues cost start-up, each about
// 12-14 ms more to make the context and tear it down (a bare context: 0.33 s with 8, 0.49 s with
// 16, 0.84-0.89 s with 32, process exec to exit), which with 32 made whole jobs slower. Does
// nothing when the variable is set (the user's choice; under MPS each client's queues come out
// of one pool). First thing in main: before any CUDA call (the driver reads it when it makes a
// context) and before other threads exist (setenv).
void widen_gpu_work_queues();
// The value widen_gpu_work_queues sets.
inline constexpr const char* kGpuWorkQueues = "12";

// Ends the process at once with `code` after flushing standard output and error: no static
// destructors, no atexit handlers (the CUDA runtime's teardown). Only once every output is
// complete. WK_CLEAN_EXIT=1 exits normally instead (for leak checkers).
[[noreturn]] void exit_now(int code);
bool clean_exit_wanted();  // WK_CLEAN_EXIT=1

// Scale-out (wk::dist): first thing in main, before any CUDA call. Starts MPI when the process was
// started by mpirun or srun (a world of one otherwise). Ranks sharing a node split its GPUs: when
// CUDA_VISIBLE_DEVICES is unset, node-local rank r of L sees the GPUs g with g % L == r % L (or
// GPU r % G when there are fewer GPUs G than ranks), counted in /proc/driver/nvidia/gpus without
// starting CUDA. Rank 0 says so when the launcher bound each rank to far fewer cores than the node
// has (mpirun's default binding). Returns kSuccess, or the exit status after printing why MPI
// could not start (as run_app maps errors).
int start_world(const char* prog, int* argc, char*** argv);
// True when start_world set CUDA_VISIBLE_DEVICES for this rank (its GPUs are split already).
bool gpus_split_by_rank();
// The GPUs the CUDA runtime will show this process, counted without starting it: the entries of
// CUDA_VISIBLE_DEVICES when it is set (up to the first that is no device index), else the
// devices in /proc/driver/nvidia/gpus (0 without the driver).
int visible_gpu_count();
// Before CUDA starts: shows the CUDA runtime only GPUs `ids` (indices into what it would show
// now) by setting CUDA_VISIBLE_DEVICES, so that its start initializes only those (0.29 s for
// one H200 of four against 1.0 s for all four); they are then devices 0 .. ids.size() - 1. False,
// changing nothing, when an id is not below visible_gpu_count() (the caller's check reports it).
bool restrict_visible_gpus(const std::vector<int>& ids);
// The end of a process begun with start_world: the ranks of a distributed run that ended normally
// all take rank 0's exit code (mpirun then returns it) and finalize MPI; an interrupted one
// (kInterrupted) ends at once (its peers may be gone). Then exit_now.
[[noreturn]] void end_world(int code);

// Prints "PROG: error: MESSAGE" to stderr, control bytes escaped (io::printable).
void print_error(const char* prog, const std::string& message);
// Prints "PROG: MESSAGE" to stderr, control bytes escaped.
void print_notice(const char* prog, const std::string& message);

// "2G", "512M", "64k", "1000000" (bytes; K/M/G/T are powers of 1024, an optional "B" or "iB"
// after them) as bytes. Throws wk::Error{usage} naming `option`.
std::uint64_t parse_byte_size(const std::string& text, const char* option);

// For -q: what libraries print on standard error themselves (libpng's and libjpeg's warnings
// about damaged files) goes to /dev/null from now on; print_error and print_notice still reach
// the real standard error.
void silence_library_messages();

// Adds --device auto|gpu|cpu (default auto) to `app`.
void add_device_option(CLI::App& app, std::string& device);

// Resolves --device, printing the CPU-fallback notice once. Throws wk::Error, its message led by
// "--device VALUE: ".
BackendSelection choose_backend(const char* prog, const std::string& device, bool quiet);

// What --version prints: "PROG VERSION (commit C)", the CUDA runtime and driver versions (the
// driver's: "none" without one) and which optional parts this build has (nvJPEG, MPI, libexiv2).
std::string version_text(const char* prog);

// What --help-all prints: the help of `app` as --help shows it, then each subcommand's help (as
// `PROG SUB --help` shows it) under a line "PROG SUB:", indented by two spaces; a subcommand's
// footer that the app's own footer already holds is not repeated. The man pages are made from it
// (share/app_docs.cmake runs help2man on it).
std::string full_help(const CLI::App& app);

// What --completion bash|zsh prints: a completion script for `prog` made from `app` itself, so that
// it never disagrees with the parser: the subcommands, the options of each (flags; options with a
// value: CLI::IsMember choices as words, numbers nothing, anything else file names) and the
// positionals (file names; one named "pipeline", wk-image's, completes the image operations of
// wk/image/op.hpp through pipeline_words, after the last ','). Hidden options (empty group) are
// left out. One level of subcommands. Throws wk::Error{usage} for a shell other than bash or zsh.
std::string completion_script(const char* prog, const CLI::App& app, std::string_view shell);
// The words a pipeline's operations complete to: every operation's name and alias ("NAME:" for one
// that needs an argument), and "NAME:CHOICE" for each choice of a first argument that is a choice
// (flip:h, rotate:90, sobel:dx; a required choice stands for "NAME:" itself).
std::vector<std::string> pipeline_words();

// Adds --version (version_text), --help-all (full_help; shown in --help only for an app with
// subcommands) and the hidden --completion bash|zsh (completion_script) to `app`, each unless the
// app defined it itself; they answer before any required argument is checked, on standard output,
// exit 0. Then parses argv and calls body(); maps CLI11 errors to
// exit 2 (help/version to 0), wk::Error of
// category usage to 2, any other exception to 1, with a one-line message. In a distributed run an
// exception from body() ends every rank (MPI_Abort): the others would wait for this one forever.
int run_app(const char* prog, CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// A one-line progress bar on stderr, drawn only when stderr is a terminal and not quiet.
class Progress {
 public:
  Progress(std::size_t total, const char* unit, bool enabled);
  ~Progress();
  // Advances by one item; `extra` is appended (e.g. "123.4 Mpx/s").
  void step(const std::string& extra = {});
  // Advances by `items` at once (wk-hash: a slice of 2^18 lines; a step() per line cost the writer
  // thread ~1 ns per line of its serial time).
  void advance(std::size_t items);
  // Advances to `done` items in all, when that is more than shown so far (callbacks that report
  // a running total).
  void advance_to(std::size_t done);
  void finish();
  double elapsed_s() const;

 private:
  void draw(bool force);
  std::size_t total_, done_ = 0;
  std::string unit_, extra_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace wk::app
