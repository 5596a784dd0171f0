#pragma once
// What wk-hash's source files share: the options every subcommand has, the crypt engine started
// beside the input, where messages and output go in a distributed run.
#include <nlohmann/json.hpp>

#include <array>
#include <future>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app_common.hpp"
#include "output_sink.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/line_engine.hpp"
#include "wk/io/output_file.hpp"

namespace wk::hash_app {

inline constexpr const char* kProg = "wk-hash";

std::string footer();                   // wk-hash --help (help.cpp)
extern const char* const kAuditFooter;  // wk-hash audit --help

// The names of the methods wk-hash hashes with (the library's computed_methods), those `pick`
// selects when given; joined: "a, b, c" with `last` before the final one ("a, b or c").
std::vector<std::string> method_names(bool (*pick)(const hash::MethodInfo&) = nullptr);
std::string join(const std::vector<std::string>& items, const char* last);

struct Common {
  std::string input, output, device = "auto", gpus = "all";
  bool json = false, quiet = false, verbose = false;
};
void add_common(CLI::App& sub, Common& c, bool with_input = true);
// The GPUs --gpus names for this process, checked against the machine's device_count: every one
// for "all" (under mpirun/srun, with CUDA_VISIBLE_DEVICES set by hand, this rank's share of the
// node's). Throws wk::Error{usage} naming --gpus.
std::vector<int> chosen_gpus(const Common& c, int device_count);
// Slices a line command keeps in the engine at once: 4 on one GPU (one computing, the next ones
// packed behind it) or the CPU, two more for each further GPU --gpus gives this process.
std::size_t slices_in_engine(const Common& c);

inline std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The engine, chosen and started on a helper thread: the GPU probe creates the CUDA context
// (~0.2 s on the H100 machine) while the input is read and split and the first slices are built.
// `expected`: the one method of every job, when the subcommand knows it (hash --method): the
// engine's start-up self-check then covers it only.
class EngineStart {
 public:
  explicit EngineStart(const Common& c, std::optional<hash::Method> expected = std::nullopt);
  // The process ends with _exit (main): the engine -- its pinned buffers, streams, the CUDA
  // context -- is left to the OS instead of being freed piece by piece (~0.1 s at the end of a
  // big run). Its buffers were wiped as their batches ended; the device's wipes still queued are
  // waited for. WK_CLEAN_EXIT=1 destroys it here (leak checks).
  ~EngineStart();
  EngineStart(const EngineStart&) = delete;
  EngineStart& operator=(const EngineStart&) = delete;
  // Waits for it; rethrows what the choice threw (--device gpu without a GPU: a usage error).
  // Safe from several threads (each waits on its own copy of the shared future).
  hash::CryptEngine& get() const {
    const auto ready = pending_;
    return *ready.get();
  }
  // For -v: the backend and its devices ("gpu (NAME, compute capability X.Y, N SMs)" or
  // "cpu (N threads)") and how long choosing it and starting the GPUs took. Waits like get().
  std::string describe() const;
  // For -v after a run: the GPU jobs each GPU took ("" with one GPU or the CPU).
  std::string shares() const;
  // The id --gpus gave for the runtime's device `device`.
  int shown_id(int device) const { return gpu_label(shown_, device); }

 private:
  struct Chosen {
    BackendSelection selection;
    double ready_ms = 0;
  };
  // --gpus naming some of the GPUs: the runtime is shown only those (app::restrict_visible_gpus);
  // the ids given, by the device numbers the runtime then uses (empty: nothing restricted).
  std::vector<int> shown_;
  std::shared_ptr<Chosen> chosen_;  // written by the helper thread before pending_ is ready
  std::shared_future<std::shared_ptr<hash::CryptEngine>> pending_;
};

// When standard input is a terminal: the one line a subcommand reads, asked for field by field
// on standard error (typed_input.cpp). Its read end, for the line engine; closed with it.
class TypedLine {
 public:
  TypedLine() = default;
  explicit TypedLine(int fd) : fd_(fd) {}
  ~TypedLine();
  TypedLine(TypedLine&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  TypedLine& operator=(TypedLine&& o) noexcept;
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
};
// hash: [User:] Password: Retype password:   crypt: Setting: Password: Retype password:
// verify: Hash: Password:   -- passwords without echo. Throws wk::Error (exit status 1) when
// nothing was typed (Ctrl-D) or the two passwords differ.
TypedLine read_typed_line(hash::LineTask task, bool users);

// Distributed runs (mpirun -np N wk-hash ...): rank 0 alone speaks and writes.
// The summary line: rank 0's only, not with -q.
void summary(const Common& c, const std::string& text);
// -v's details (backend, counts, the time of each stage): rank 0's only.
void detail(const Common& c, const std::string& text);
// The output this rank writes: the -o file or standard output on rank 0; other ranks write none
// (a sink that is never written or committed: "-" is standard output, which they leave alone).
std::string here_output(const Common& c);
void commit_here(app::OutputSink& sink);
// ", N ranks" in a distributed run.
std::string ranks_note();
// A usage error before any work when the output is one of the files the job reads.
void check_files(const Common& c, std::initializer_list<io::JobFile> reads);

// wk-hash audit's own options (audit.cpp). The paths are as given; a session file stores them
// absolute.
struct AuditArgs {
  std::string hashes, wordlist, rules, mask, pot, session, restore;
  std::array<std::string, 4> charsets;  // -1 .. -4
  bool increment = false, mask_first = false, show = false, show_passwords = false;
};
// `sub`: the audit subcommand as parsed (which common options were given beside --restore).
int cmd_audit(Common c, AuditArgs a, const CLI::App& sub);

}  // namespace wk::hash_app
