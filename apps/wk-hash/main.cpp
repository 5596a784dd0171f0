// wk-hash: crypt(3) password hashing at GPU speed — hash, crypt, verify, audit.
// Argument parsing, line handling, printing and exit codes only; the work is in wk::hash.
//
// Passwords are never printed (errors name the line number), the buffers holding them are wiped
// (OPENSSL_cleanse through wk::hash::SecretBuffer and wk::hash::wipe) and kept out of core dumps
// (MADV_DONTDUMP), hashes are compared in constant time (CRYPTO_memcmp through
// wk::hash::constant_time_equal).
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "app_common.hpp"
#include "output_sink.hpp"
#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/job_files.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk/hash/setting.hpp"

using namespace wk;

namespace {

constexpr const char* kProg = "wk-hash";

constexpr const char* kFooter = R"(What each subcommand reads and writes:
  hash     one password per line in, one crypt string per line out (fresh random salts)
  crypt    SETTING<TAB>PASSWORD per line in, the crypt string for that exact setting out
  verify   HASH<TAB>PASSWORD per line in, "line N: OK" or "line N: MISMATCH" out
  audit    --hashes FILE (user:hash[:...] lines) --wordlist FILE: accounts that need no password
           (an empty password field) and accounts whose password is in the word list

Examples:
  wk-hash hash --method sha512crypt -i passwords.txt -o hashes.txt
  wk-hash hash --method bcrypt --cost 10 --users -i users.txt | chpasswd -e
  wk-hash hash --method sha256crypt --rounds 10000 --json < passwords.txt
  printf '$6$saltsalt\tsecret\n' | wk-hash crypt
  wk-hash verify -i pairs.tsv && echo "all passwords match"
  wk-hash audit --hashes /etc/shadow --wordlist common-passwords.txt
  wk-hash verify --device cpu -i pairs.tsv      libxcrypt on all cores, no GPU

Formats:
  md5crypt ($1$), sha256crypt ($5$), sha512crypt ($6$, optional rounds=N) and bcrypt ($2b$,
  $2a$, $2y$, and $2x$ for verifying old hashes) run on the GPU; every other method libxcrypt
  knows (yescrypt $y$, scrypt $7$, descrypt, ...) runs on the CPU through libxcrypt, in the
  crypt, verify and audit subcommands. Output is byte-identical to libxcrypt's crypt_rn.
  Defaults are libxcrypt's: 5000 rounds for sha-crypt (rounds=N is written only when --rounds
  is given), cost 5 for bcrypt.

Input:
  Standard input unless -i FILE; standard output unless -o FILE. An -o file is written to a
  temporary file in its folder and renamed into place when complete (through a symbolic link:
  its target is replaced, the link stays); a FIFO or device (/dev/stdout, /dev/null) is written
  in place. No output may be a file the job reads (-i, --hashes, --wordlist, or standard input
  redirected from it; links followed): that is a usage error before any work.
  Lines end in LF or CRLF (one CR before the LF is removed); the final newline is optional; an
  empty line is an empty password. A password is 0..511 bytes of anything but NUL. crypt and
  verify split each line at its first TAB, so passwords may contain TABs; hash --users splits at
  the first ':'. A line may be at most 65536 bytes long: a longer one is an error of its own
  (from a pipe or device only its first 64 KiB are kept in memory), and an input with no end of
  line within 16 MiB (such as /dev/zero) is no list of lines: the job ends with exit status 1.

Errors:
  A malformed line (no TAB, a password over 511 bytes, a setting libxcrypt rejects, a line over
  65536 bytes, ...) is reported on standard error as "line N: reason" -- never with the line's
  bytes (a position at most) -- and skipped; the other lines are still processed. Output lines
  stay in input order. An input with no lines is said in a notice (hash, crypt) or is an error
  (verify, audit: no password was checked).

--json:
  JSON Lines on the output instead of text, one object per input line:
    hash, crypt:  {"line":N,"hash":"$6$..."} (+ "user" with --users) or {"line":N,"error":"..."}
    verify:       {"line":N,"status":"OK"|"MISMATCH"|"ERROR"} (+ "error")
    audit:        {"user":"...","line":N,"finding":"no password set"|"password in the word list"}
                  (+ "password" with --show-passwords)

Many machines (MPI):
  mpirun -np N wk-hash hash|crypt|verify|audit ... (or srun) splits the lines (audit: the word
  list) into chunks dealt on demand over N ranks; rank 0 writes the one output in input order.
  The input must be a file every rank can read (-i FILE). docs/scale-out.md.

Exit status: 0 every line succeeded (verify: and every password matched), 1 some line failed
(verify: or some password did not match; verify, audit: nothing was checked), 2 usage error, 130
interrupted (Ctrl-C, SIGTERM, SIGHUP: an -o file is left as it was, no temporary file remains).)";

struct Common {
  std::string input, output, device = "auto";
  bool json = false, quiet = false;
};

void add_common(CLI::App& sub, Common& c, bool with_input = true) {
  if (with_input) sub.add_option("-i,--input", c.input, "Input file (default: standard input)");
  sub.add_option("-o,--output", c.output, "Output file, replaced atomically (default: standard output)");
  sub.add_flag("--json", c.json, "JSON Lines output, one object per input line (see wk-hash --help)");
  sub.add_flag("-q,--quiet", c.quiet, "No progress line, notices or summary on standard error");
  app::add_device_option(sub, c.device);
}

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// One input line turned into a crypt job, or the reason it could not be.
// hash --users: a line without a user name.
constexpr const char* kNoUserError = "expected user:password (a user name, ':', the password)";

struct LineJob {
  std::size_t line = 0;       // 1-based
  std::string user;           // hash --users
  std::string setting;        // owned: hash generates it
  std::string_view password;  // into the wiped input buffer
  std::string error;          // malformed line
};

// Lines per parallel_for chunk when building a slice's jobs (split lines, salts) and when making
// its output text.
constexpr std::size_t kLineGrain = 8192;

// Lines per slice: 2^18 by default. WK_HASH_SLICE_LINES overrides it (tests use small slices to
// run the pipeline through many slices on a few hundred lines).
// A positive count from the environment variable `name`, or `fallback`.
std::size_t env_count(const char* name, std::size_t fallback) {
  if (const char* e = std::getenv(name)) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 10);
    if (end != e && *end == '\0' && v > 0) return std::size_t(v);
  }
  return fallback;
}
std::size_t slice_lines() { return env_count("WK_HASH_SLICE_LINES", std::size_t(1) << 18); }

// Slices in the engine at once (run_pipeline): 4 by default; WK_HASH_IN_ENGINE overrides it (1..64),
// for measuring how deep the pipeline must be to keep the GPU busy.
std::size_t slices_in_engine() { return std::min<std::size_t>(64, env_count("WK_HASH_IN_ENGINE", 4)); }

// The engine, chosen and started on a helper thread: the GPU probe creates the CUDA context
// (~0.2 s on the H100 machine) while the input is read and split and the first slices are built.
// `expected`: the one method of every job, when the subcommand knows it (hash --method): the
// engine's start-up self-check then covers it only.
class EngineStart {
 public:
  explicit EngineStart(const Common& c, std::optional<hash::Method> expected = std::nullopt)
      : pending_(std::async(std::launch::async, [&c, expected] {
                   const BackendSelection sel = app::choose_backend(kProg, c.device, c.quiet);
                   return std::make_shared<hash::CryptEngine>(sel.backend, 0, expected);
                 }).share()) {}
  // The process ends with _exit (main): the engine -- its pinned buffers, streams, the CUDA
  // context -- is left to the OS instead of being freed piece by piece (~0.1 s at the end of a
  // big run). Its buffers were wiped as their batches ended; the device's wipes still queued are
  // waited for. WK_CLEAN_EXIT=1 destroys it here (leak checks).
  ~EngineStart() {
    if (!pending_.valid()) return;
    nvtx::Range r("engine finish", nvtx::Color::compute);
    std::shared_ptr<hash::CryptEngine> engine;
    try {
      engine = pending_.get();
    } catch (...) {
      return;  // its start failed: nothing to finish
    }
    engine->finish();
    if (!app::clean_exit_wanted()) new std::shared_ptr<hash::CryptEngine>(std::move(engine));  // never freed
  }
  EngineStart(const EngineStart&) = delete;
  EngineStart& operator=(const EngineStart&) = delete;
  // Waits for it; rethrows what the choice threw (--device gpu without a GPU: a usage error).
  // Safe from several threads (each waits on its own copy of the shared future).
  hash::CryptEngine& get() const {
    const auto ready = pending_;
    return *ready.get();
  }

 private:
  std::shared_future<std::shared_ptr<hash::CryptEngine>> pending_;
};

// Where a run's slices of lines come from and where their output goes.
//   Alone: slices of slice_lines() lines in input order, their output straight to the sink.
//   One rank of an mpirun/srun job (wk::dist): the chunks rank 0 deals on demand; each slice's
//   output goes to rank 0, which writes every rank's in input order (ordered delivery, a window
//   of chunks bounding what waits in its memory) and shows the one progress line.
// Failed-line counts stay per rank; the subcommands sum them over the ranks in LineRun::finish.
class LineRun {
 public:
  // sink: where rank 0 (or a lone process) writes; unused on other ranks.
  LineRun(std::size_t line_count, app::OutputSink& sink, bool quiet)
      : lines_(line_count), sink_(sink), world_(dist::world()),
        progress_(line_count, "pw", !quiet && world_.rank == 0) {
    if (!world_.distributed()) return;
    // About 32 chunks per rank (a slow rank takes fewer), at most one slice each.
    const std::size_t per = std::clamp<std::size_t>((line_count + 32 * world_.size - 1) / (32 * world_.size), 1,
                                                    slice_lines());
    dist::ChunkDealer::Options o;
    for (std::size_t b = 0; b < line_count; b += per) o.bounds.push_back(b);
    o.bounds.push_back(line_count);
    if (line_count == 0) o.bounds = {0};
    o.ordered = true;
    o.window = std::size_t(world_.size) * (slices_in_engine() + 3) + 2;
    o.deliver = [this](const dist::Chunk& c, int, std::string&& text) {
      sink_.write(text);
      progress_.advance(c.end - c.begin);
    };
    dealer_ = std::make_unique<dist::ChunkDealer>(std::move(o));
  }

  // The next slice of lines [begin, end); nullopt when there is none left.
  std::optional<dist::Chunk> next() {
    if (dealer_) return dealer_->next();
    if (local_next_ >= lines_) return std::nullopt;
    const dist::Chunk c{local_id_++, local_next_, std::min(lines_, local_next_ + slice_lines())};
    local_next_ = c.end;
    return c;
  }
  // A slice's output text, piece by piece (the writer thread), then slice_written.
  void write(std::string_view text) {
    if (dealer_) buffer_.append(text);
    else sink_.write(text);
  }
  void slice_written(const dist::Chunk& c) {
    if (!dealer_) return;
    dealer_->done(c, std::move(buffer_));
    buffer_.clear();
  }
  // Alone: lines [0, upto) are written (progress). Distributed: rank 0's deliver shows progress.
  void show(std::size_t upto) {
    if (!dealer_) progress_.advance_to(upto);
  }
  // After the last slice: rank 0 waits for every chunk to be written; then every rank gets the sums
  // of `counts` over the ranks.
  void finish(std::vector<std::uint64_t>& counts) {
    if (dealer_) {
      if (!dealer_->finish().empty()) throw Error(ErrorCategory::io, "a rank's output never reached rank 0");
      dist::sum(counts);
    }
    progress_.finish();
  }
  bool quiet_here() const { return world_.rank != 0; }

 private:
  std::size_t lines_;
  app::OutputSink& sink_;
  const dist::World& world_;
  app::Progress progress_;
  std::unique_ptr<dist::ChunkDealer> dealer_;
  std::string buffer_;
  std::size_t local_next_ = 0, local_id_ = 0;
};

// Runs the input lines through the engine in slices (progress shows, memory stays bounded: only
// the slices in flight hold their jobs) with a pipeline of three stages:
//   this thread   fills slice i -- fill(slice) makes the jobs of input lines slice.begin ..
//                 slice.end - 1 (0-based) on all cores: split the lines, draw salts -- and starts
//                 compute(slice) on a thread of its own;
//   the engine    up to in_engine slices at once, each on its own thread (the engine's host work
//                 for one -- parsing settings, packing the batch, formatting results -- overlaps
//                 the others' kernels); compute sets slice.done as jobs finish (progress);
//   a writer      waits for the slices in input order; write(slice) makes its output text on all
//                 cores, reports its failed lines, writes the text and returns how many failed.
// `Slice` has begin, end, done (atomic) and running (a future) and whatever its functions need; the
// ring of slices is reused, so a slice's vectors keep their memory for the next one.
// Returns the number of failed lines.
template <class Slice, class Fill, class Compute, class Write>
std::size_t run_pipeline(LineRun& run, Fill fill, Compute compute, Write write) {
  const std::size_t in_engine = slices_in_engine();  // slices in the engine at once
  const std::size_t ring_size = in_engine + 2;  // + one being built, one being written
  auto start = [&](Slice& sl, const dist::Chunk& chunk) {
    nvtx::Range r("prepare", nvtx::Color::compute, std::int64_t(chunk.begin));
    sl.chunk = chunk;
    sl.begin = chunk.begin;
    sl.end = chunk.end;
    fill(sl);
    sl.done = 0;
    sl.running = std::async(std::launch::async, [&compute, &sl] { compute(sl); });
  };

  std::size_t failed = 0;
  auto finish = [&](Slice& sl) {
    // Progress comes from the oldest slice's counter while it computes.
    while (sl.running.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
      run.show(sl.begin + std::min(sl.done.load(), sl.end - sl.begin));
    sl.running.get();
    nvtx::Range r("write", nvtx::Color::io, std::int64_t(sl.begin));
    failed += write(sl);
    run.slice_written(sl.chunk);
    run.show(sl.end);
  };

  const std::unique_ptr<Slice[]> ring(new Slice[ring_size]);  // slice i in ring[i % ring_size]
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t launched = 0, written = 0;
  bool all_launched = false;
  bool stop = false;  // set by either side on an exception
  std::exception_ptr writer_error;
  std::thread writer([&] {
    try {
      for (std::size_t w = 0;; ++w) {
        {
          std::unique_lock lock(mutex);
          changed.wait(lock, [&] { return stop || all_launched || launched > w; });
          if (launched <= w) return;
        }
        finish(ring[w % ring_size]);
        {
          std::lock_guard lock(mutex);
          written = w + 1;
        }
        changed.notify_all();
      }
    } catch (...) {
      writer_error = std::current_exception();
      std::lock_guard lock(mutex);
      stop = true;
      changed.notify_all();
    }
  });
  // Whatever happens here, the writer ends and is joined before the ring goes (each slice's
  // future then waits for its engine thread when destroyed).
  struct Join {
    std::thread& t;
    std::mutex& m;
    std::condition_variable& cv;
    bool& stop;
    ~Join() {
      {
        std::lock_guard lock(m);
        stop = true;
      }
      cv.notify_all();
      t.join();
    }
  };
  {
    Join join{writer, mutex, changed, stop};
    for (std::size_t i = 0;; ++i) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || i < written + in_engine + 1; });
        if (stop) break;
      }
      const std::optional<dist::Chunk> chunk = run.next();
      if (!chunk) break;
      start(ring[i % ring_size], *chunk);
      {
        std::lock_guard lock(mutex);
        launched = i + 1;
      }
      changed.notify_all();
    }
    // Let the writer finish every launched slice (the Join sets `stop` only afterwards).
    std::unique_lock lock(mutex);
    all_launched = true;
    changed.notify_all();
    changed.wait(lock, [&] { return stop || written == launched; });
  }
  if (writer_error) std::rethrow_exception(writer_error);
  return failed;
}

// run_pipeline over LineJobs and CryptEngine::crypt (crypt, verify; hash with WK_HASH_GENERIC=1):
//   build(first, lines) fills the LineJobs of input lines first .. first + lines.size() - 1
//   (0-based), on all cores for chunks of a slice; emit(job, outcome, text) appends a line's output
//   to its chunk's text, on all cores.
template <class Build, class Emit>
std::size_t run_jobs(const char* what, LineRun& run, const EngineStart& engine, Build build, Emit emit) {
  struct Slice {
    dist::Chunk chunk;
    std::size_t begin = 0, end = 0;  // input lines, 0-based
    std::vector<LineJob> lines;
    std::vector<hash::CryptJob> jobs;
    std::vector<std::size_t> index;  // line (within the slice) of each job
    std::vector<hash::CryptOutcome> outcomes;
    std::atomic<std::size_t> done{0};  // jobs the engine finished (progress)
    std::future<void> running;
  };
  auto fill = [&](Slice& sl) {
    // The slot's previous LineJobs are reset on all cores (resize only when the count changes).
    sl.lines.resize(sl.end - sl.begin);
    parallel_for(sl.lines.size(), kLineGrain, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        sl.lines[i] = LineJob{};
        sl.lines[i].line = sl.begin + i + 1;
      }
      build(sl.begin + b, std::span<LineJob>(sl.lines).subspan(b, e - b));
    });
    sl.jobs.clear();
    sl.index.clear();
    for (std::size_t i = 0; i < sl.lines.size(); ++i)
      if (sl.lines[i].error.empty()) {
        sl.jobs.push_back({sl.lines[i].setting, sl.lines[i].password});
        sl.index.push_back(i);
      }
    sl.outcomes.resize(sl.jobs.size());  // the engine resets every outcome itself, in parallel
  };
  auto compute = [&engine, what](Slice& sl) {
    nvtx::Range r(what, nvtx::Color::compute, std::int64_t(sl.begin));
    engine.get().crypt(sl.jobs, sl.outcomes, [&](std::size_t done) { sl.done = done; });
  };
  auto write = [&](Slice& sl) {
    const std::size_t n = sl.lines.size();
    std::vector<std::string> text((n + kLineGrain - 1) / kLineGrain);
    parallel_for(n, kLineGrain, [&](std::size_t b, std::size_t e) {
      // Job k of the slice is line sl.index[k] (ascending): this chunk's first job.
      std::size_t k = std::size_t(std::lower_bound(sl.index.begin(), sl.index.end(), b) - sl.index.begin());
      std::string& t = text[b / kLineGrain];
      for (std::size_t i = b; i < e; ++i) {
        LineJob& lj = sl.lines[i];
        const hash::CryptOutcome* out = nullptr;
        if (k < sl.index.size() && sl.index[k] == i) out = &sl.outcomes[k++];
        if (out && !out->ok()) lj.error = out->error;
        emit(lj, out, t);
      }
    });
    std::size_t failed = 0;
    for (const LineJob& lj : sl.lines)
      if (!lj.error.empty()) {
        ++failed;
        app::print_error(kProg, fmt::format("line {}: {}", lj.line, lj.error));
      }
    for (const std::string& t : text) run.write(t);
    // The slot keeps its jobs' memory for the slice that reuses it (no fresh pages to fault in):
    // the next fill resets them.
    return failed;
  };
  return run_pipeline<Slice>(run, fill, compute, write);
}

// The input: a named file is read on a helper thread from construction on (overlapping the choice
// of backend, whose GPU probe creates the CUDA context); standard input only in get(), after the
// engine's backend choice, so that a usage error (--device gpu without a GPU) shows at once on a
// terminal rather than after Ctrl-D.
class InputReader {
 public:
  explicit InputReader(const std::string& path) : path_(path) {
    if (!path_.empty() && path_ != "-")
      pending_ = std::async(std::launch::async, [p = path_] { return hash::read_secret_input(p); });
  }
  hash::SecretBuffer get(const EngineStart& engine) {
    nvtx::Range r("read", nvtx::Color::io);
    if (pending_.valid()) return pending_.get();
    engine.get();
    return hash::read_secret_input(path_);
  }

 private:
  std::string path_;
  std::future<hash::SecretBuffer> pending_;
};

// The summary line: rank 0's only in a distributed run.
void summary(const Common& c, const std::string& text) {
  if (!c.quiet && dist::world().rank == 0) app::print_notice(kProg, text);
}

// Distributed runs (mpirun -np N wk-hash ...): every rank reads the input file itself (a shared
// file system), and rank 0 alone writes the output.
void check_distributed_input(const Common& c) {
  if (dist::world().distributed() && (c.input.empty() || c.input == "-"))
    throw Error(ErrorCategory::usage,
                "under mpirun/srun the input must be a file every rank can read (-i FILE), not standard input");
}
// The output this rank writes: the -o file or standard output on rank 0; other ranks write none
// (a sink that is never written or committed: "-" is standard output, which they leave alone).
std::string here_output(const Common& c) { return dist::world().rank == 0 ? c.output : std::string("-"); }
void commit_here(app::OutputSink& sink) {
  if (dist::world().rank == 0) sink.commit();
}
// A usage error before any work when the output is one of the files the job reads.
void check_files(const Common& c, std::initializer_list<io::JobFile> reads) {
  const io::JobFile writes[] = {{"the output", c.output}};
  hash::check_job_files(std::span(reads.begin(), reads.size()), writes);
}
std::string ranks_note() {
  return dist::world().distributed() ? fmt::format(", {} ranks", dist::world().size) : std::string();
}
// hash, crypt: an empty input is no failure, but said.
void summary_hashed(const Common& c, std::size_t lines, std::size_t failed, const EngineStart& engine) {
  if (lines == 0) summary(c, "the input has no lines: nothing hashed");
  else
    summary(c, fmt::format("{} hashed, {} failed ({} backend{})", lines - failed, failed,
                           to_string(engine.get().backend()), ranks_note()));
}

// ---- hash -------------------------------------------------------------------------------------
// hash through LineJobs and CryptEngine::crypt: a std::string per setting and per result, a
// Setting parsed per line (WK_HASH_GENERIC=1; the reference the fast path below is tested against).
std::size_t hash_lines_generic(const Common& c, const hash::HashOptions& opt, bool users,
                               const std::vector<std::string_view>& text_lines, const EngineStart& engine, LineRun& run) {
  // Per chunk of a slice: split user:password, check the password, draw fresh salts in bulk.
  auto build = [&](std::size_t first, std::span<LineJob> lines) {
    std::vector<std::string> settings = hash::generate_settings(opt, lines.size());
    for (std::size_t k = 0; k < lines.size(); ++k) {
      LineJob& lj = lines[k];
      std::string_view pw = text_lines[first + k];
      if (std::string why = hash::check_line(pw); !why.empty()) {
        lj.error = std::move(why);
        continue;
      }
      if (users) {
        const std::size_t colon = pw.find(':');
        if (colon == std::string_view::npos || colon == 0) {
          lj.error = kNoUserError;
          continue;
        }
        lj.user = std::string(pw.substr(0, colon));
        pw = pw.substr(colon + 1);
      }
      lj.password = pw;
      if (std::string why = hash::check_password(pw); !why.empty()) lj.error = std::move(why);
      else lj.setting = std::move(settings[k]);
    }
  };
  return run_jobs("hash", run, engine, build,
                  [&](const LineJob& lj, const hash::CryptOutcome* out, std::string& text) {
    if (c.json) {
      nlohmann::ordered_json j{{"line", lj.line}};
      if (users && !lj.user.empty()) j["user"] = lj.user;
      if (lj.error.empty()) j["hash"] = out->hash;
      else j["error"] = lj.error;
      text.append(dump(j)).push_back('\n');
    } else if (lj.error.empty()) {
      if (users) text.append(lj.user).push_back(':');
      text.append(out->hash).push_back('\n');
    }
  });
}

// s as a JSON string, as nlohmann's dump writes it (printable ASCII other than '"' and '\' as
// is; anything else through nlohmann itself).
void append_json_string(std::string& text, std::string_view s) {
  bool plain = true;
  for (unsigned char ch : s) plain &= ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\';
  if (plain) {
    text.push_back('"');
    text.append(s);
    text.push_back('"');
  } else {
    text.append(dump(nlohmann::ordered_json(std::string(s))));
  }
}

void append_number(std::string& text, std::size_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  text.append(buf, r.ptr);
}

// hash with no object per line (the default): a slice is a few flat arrays -- the passwords' and
// users' views, the fresh settings as fixed-size records drawn on all cores, the crypt strings as
// fixed-size records the engine writes (CryptEngine::crypt_fresh) -- and the output text is made
// from them on all cores. Plain output (no --users, no --json) is the result records themselves,
// each record's last byte the newline: written as it is. Output byte-identical to the generic path.
std::size_t hash_lines(const Common& c, const hash::HashOptions& opt, bool users, const hash::LineIndex& text_lines,
                       const EngineStart& engine, LineRun& run) {
  const std::size_t setting_bytes = hash::generated_setting_bytes(opt);
  const std::size_t hash_bytes = hash::crypt_string_bytes(opt);
  const bool plain = !users && !c.json;
  const std::size_t stride = plain ? hash_bytes + 1 : hash_bytes;  // plain: + the newline
  struct Slice {
    dist::Chunk chunk;
    std::size_t begin = 0, end = 0;  // input lines, 0-based
    std::vector<std::string_view> passwords;  // per line, then per job (the failed lines taken out)
    std::vector<std::string_view> user;       // --users: per line
    std::string settings;                     // a record per line, then per job
    std::vector<std::uint32_t> bad;           // failed lines (within the slice), ascending
    std::vector<std::string> bad_why;         // and why
    std::size_t jobs = 0;
    std::string results;                      // a record of `stride` bytes per job
    std::vector<std::string> text;            // per chunk of lines (--users, --json)
    std::atomic<std::size_t> done{0};
    std::future<void> running;
  };
  auto fill = [&](Slice& sl) {
    const std::size_t n = sl.end - sl.begin;
    sl.passwords.resize(n);
    text_lines.get(sl.begin, sl.passwords);  // the lines, then split into user and password in place
    if (users) sl.user.resize(n);
    sl.settings.resize(n * setting_bytes);
    const std::size_t chunks = (n + kLineGrain - 1) / kLineGrain;
    std::vector<std::vector<std::pair<std::uint32_t, std::string>>> chunk_bad(chunks);
    parallel_for(n, kLineGrain, [&](std::size_t b, std::size_t e) {
      auto& bad = chunk_bad[b / kLineGrain];
      for (std::size_t i = b; i < e; ++i) {
        std::string_view pw = sl.passwords[i];
        if (pw.size() > hash::kMaxLineBytes) {
          if (users) sl.user[i] = {};
          bad.emplace_back(std::uint32_t(i), hash::check_line(pw));
          continue;
        }
        if (users) {
          const std::size_t colon = pw.find(':');
          if (colon == std::string_view::npos || colon == 0) {
            sl.user[i] = {};
            bad.emplace_back(std::uint32_t(i), kNoUserError);
            continue;
          }
          sl.user[i] = pw.substr(0, colon);
          pw = pw.substr(colon + 1);
        }
        sl.passwords[i] = pw;
        // check_password's test, without making its (empty) string for every good line.
        if (pw.size() > 511 || std::memchr(pw.data(), '\0', pw.size()))
          if (std::string why = hash::check_password(pw); !why.empty()) bad.emplace_back(std::uint32_t(i), std::move(why));
      }
      hash::generate_settings_into(opt, e - b, sl.settings.data() + b * setting_bytes);
    });
    sl.bad.clear();
    sl.bad_why.clear();
    for (auto& chunk : chunk_bad)
      for (auto& [line, why] : chunk) {
        sl.bad.push_back(line);
        sl.bad_why.push_back(std::move(why));
      }
    sl.jobs = n - sl.bad.size();
    if (!sl.bad.empty()) {
      // Rare: take the failed lines out of the jobs (the settings of the others move up).
      std::size_t k = 0, next_bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (next_bad < sl.bad.size() && sl.bad[next_bad] == i) {
          ++next_bad;
          continue;
        }
        if (k != i) {
          sl.passwords[k] = sl.passwords[i];
          std::memmove(sl.settings.data() + k * setting_bytes, sl.settings.data() + i * setting_bytes, setting_bytes);
        }
        ++k;
      }
    }
    sl.results.resize(sl.jobs * stride);
    if (plain)
      parallel_for(sl.jobs, kLineGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) sl.results[k * stride + hash_bytes] = '\n';
      });
  };
  auto compute = [&](Slice& sl) {
    nvtx::Range r("hash", nvtx::Color::compute, std::int64_t(sl.begin));
    const hash::FreshJobs jobs{opt, std::string_view(sl.settings).substr(0, sl.jobs * setting_bytes),
                               std::span<const std::string_view>(sl.passwords).first(sl.jobs)};
    engine.get().crypt_fresh(jobs, sl.results.data(), stride, [&](std::size_t done) {
      sl.done = std::min(sl.end - sl.begin, done + sl.bad.size());
    });
  };
  auto write = [&](Slice& sl) {
    const std::size_t n = sl.end - sl.begin;
    for (std::size_t k = 0; k < sl.bad.size(); ++k)
      app::print_error(kProg, fmt::format("line {}: {}", sl.begin + sl.bad[k] + 1, sl.bad_why[k]));
    if (plain) {
      run.write(sl.results);  // the failed lines have no output line
      return sl.bad.size();
    }
    sl.text.resize((n + kLineGrain - 1) / kLineGrain);
    parallel_for(n, kLineGrain, [&](std::size_t b, std::size_t e) {
      std::string& t = sl.text[b / kLineGrain];
      t.clear();
      // The failed lines before this chunk's first: its first job is line b minus those.
      std::size_t f = std::size_t(std::lower_bound(sl.bad.begin(), sl.bad.end(), std::uint32_t(b)) - sl.bad.begin());
      for (std::size_t i = b; i < e; ++i) {
        const bool failed = f < sl.bad.size() && sl.bad[f] == i;
        const std::size_t line = sl.begin + i + 1;
        if (failed) {
          if (c.json) {
            nlohmann::ordered_json j{{"line", line}};
            if (users && !sl.user[i].empty()) j["user"] = std::string(sl.user[i]);
            j["error"] = sl.bad_why[f];
            t.append(dump(j)).push_back('\n');
          }
          ++f;
          continue;
        }
        const std::string_view h(sl.results.data() + (i - f) * stride, hash_bytes);
        if (c.json) {
          t.append("{\"line\":");
          append_number(t, line);
          if (users) {
            t.append(",\"user\":");
            append_json_string(t, sl.user[i]);
          }
          t.append(",\"hash\":\"").append(h).append("\"}\n");  // crypt strings need no escaping
        } else {
          t.append(sl.user[i]).push_back(':');
          t.append(h).push_back('\n');
        }
      }
    });
    for (const std::string& t : sl.text) run.write(t);
    return sl.bad.size();
  };
  return run_pipeline<Slice>(run, fill, compute, write);
}

int cmd_hash(const Common& c, const std::string& method_name, std::optional<std::uint32_t> rounds,
             std::optional<unsigned> cost, const std::string& variant, bool users) {
  hash::HashOptions opt;
  const auto m = hash::parse_method_name(method_name);
  if (!m) throw Error(ErrorCategory::usage, "--method must be md5crypt, sha256crypt, sha512crypt or bcrypt");
  opt.method = *m;
  opt.rounds = rounds;
  if (cost && opt.method != hash::Method::bcrypt) throw Error(ErrorCategory::usage, "--cost applies to bcrypt only");
  if (cost) opt.cost = *cost;
  if (!variant.empty()) {
    if (opt.method != hash::Method::bcrypt) throw Error(ErrorCategory::usage, "--bcrypt-variant applies to bcrypt only");
    opt.bcrypt_variant = variant.size() == 2 && variant[0] == '2' ? variant[1] : '?';
  }
  hash::check_hash_options(opt);  // usage errors before any input is read

  nvtx::Range app_range("wk-hash hash");
  check_distributed_input(c);
  check_files(c, {{"the input", c.input}});
  app::OutputSink sink(here_output(c));
  InputReader reader(c.input);
  const EngineStart engine(c, opt.method);
  hash::SecretBuffer input = reader.get(engine);
  // WK_HASH_GENERIC=1: the LineJob path crypt and verify take (tests compare the two).
  const char* generic_env = std::getenv("WK_HASH_GENERIC");
  std::size_t lines = 0;
  std::vector<std::uint64_t> counts(1);  // failed lines (summed over the ranks)
  if (generic_env && std::string_view(generic_env) == "1") {
    const auto text_lines = hash::split_lines(input.view());
    lines = text_lines.size();
    LineRun run(lines, sink, c.quiet);
    counts[0] = hash_lines_generic(c, opt, users, text_lines, engine, run);
    run.finish(counts);
  } else {
    // Lines located a slice at a time: no view per line of the whole input made up front.
    const hash::LineIndex index(input.view());
    lines = index.size();
    LineRun run(lines, sink, c.quiet);
    counts[0] = hash_lines(c, opt, users, index, engine, run);
    run.finish(counts);
  }
  sink.start_writeback();  // an output file's tail goes to disk during the wipe
  {
    nvtx::Range r("wipe input", nvtx::Color::io);
    input.clear();  // the passwords, wiped as soon as every slice has been hashed
  }
  const std::size_t failed = counts[0];
  commit_here(sink);
  summary_hashed(c, lines, failed, engine);
  return failed ? app::kSomeFailed : app::kSuccess;
}

// Lines "A<TAB>PASSWORD": the setting or hash, then the password. A run_jobs build function.
auto tab_lines(const std::vector<std::string_view>& text_lines, const char* first_field) {
  return [&text_lines, first_field](std::size_t first, std::span<LineJob> lines) {
    for (std::size_t k = 0; k < lines.size(); ++k) {
      LineJob& lj = lines[k];
      const std::string_view l = text_lines[first + k];
      if (std::string why = hash::check_line(l); !why.empty()) {
        lj.error = std::move(why);
        continue;
      }
      const std::size_t tab = l.find('\t');
      if (tab == std::string_view::npos) {
        lj.error = fmt::format("expected {}<TAB>PASSWORD (no TAB on the line)", first_field);
        continue;
      }
      lj.setting = std::string(l.substr(0, tab));
      lj.password = l.substr(tab + 1);
      if (lj.setting.empty()) lj.error = fmt::format("the {} before the TAB is empty", first_field);
    }
  };
}

// ---- crypt ------------------------------------------------------------------------------------
int cmd_crypt(const Common& c) {
  nvtx::Range app_range("wk-hash crypt");
  check_distributed_input(c);
  check_files(c, {{"the input", c.input}});
  app::OutputSink sink(here_output(c));
  InputReader reader(c.input);
  const EngineStart engine(c);
  const hash::SecretBuffer input = reader.get(engine);
  const auto text_lines = hash::split_lines(input.view());
  LineRun run(text_lines.size(), sink, c.quiet);
  std::vector<std::uint64_t> counts{run_jobs("crypt", run, engine, tab_lines(text_lines, "SETTING"),
                                             [&](const LineJob& lj, const hash::CryptOutcome* out, std::string& text) {
    if (c.json) {
      nlohmann::ordered_json j{{"line", lj.line}};
      if (lj.error.empty()) j["hash"] = out->hash;
      else j["error"] = lj.error;
      text.append(dump(j)).push_back('\n');
    } else if (lj.error.empty()) {
      text.append(out->hash).push_back('\n');
    }
  })};
  run.finish(counts);
  const std::size_t failed = counts[0];
  commit_here(sink);
  summary_hashed(c, text_lines.size(), failed, engine);
  return failed ? app::kSomeFailed : app::kSuccess;
}

// ---- verify -----------------------------------------------------------------------------------
int cmd_verify(const Common& c) {
  nvtx::Range app_range("wk-hash verify");
  check_distributed_input(c);
  check_files(c, {{"the input", c.input}});
  app::OutputSink sink(here_output(c));
  InputReader reader(c.input);
  const EngineStart engine(c);
  const hash::SecretBuffer input = reader.get(engine);
  const auto text_lines = hash::split_lines(input.view());
  LineRun run(text_lines.size(), sink, c.quiet);
  std::atomic<std::size_t> ok{0}, mismatch{0};
  const std::size_t failed_here = run_jobs("verify", run, engine, tab_lines(text_lines, "HASH"),
                                           [&](const LineJob& lj, const hash::CryptOutcome* out, std::string& text) {
    const char* status = "ERROR";
    if (lj.error.empty()) {
      // The stored hash is the setting; a correct password reproduces it exactly.
      const bool match = hash::constant_time_equal(out->hash, lj.setting);
      status = match ? "OK" : "MISMATCH";
      ++(match ? ok : mismatch);
    }
    if (c.json) {
      nlohmann::ordered_json j{{"line", lj.line}, {"status", status}};
      if (!lj.error.empty()) j["error"] = lj.error;
      text.append(dump(j)).push_back('\n');
    } else if (lj.error.empty()) {
      text.append(fmt::format("line {}: {}\n", lj.line, status));
    }
  });
  std::vector<std::uint64_t> counts{failed_here, ok.load(), mismatch.load()};
  run.finish(counts);
  commit_here(sink);
  if (text_lines.empty()) {  // success would claim that passwords matched: none was checked
    if (dist::world().rank == 0) app::print_error(kProg, "the input has no lines: no password was verified");
    return app::kSomeFailed;
  }
  summary(c, fmt::format("{} OK, {} MISMATCH, {} failed ({} backend{})", counts[1], counts[2], counts[0],
                         to_string(engine.get().backend()), ranks_note()));
  return counts[0] || counts[2] ? app::kSomeFailed : app::kSuccess;
}

// ---- audit ------------------------------------------------------------------------------------
// audit over the ranks of an mpirun/srun job: rank 0 deals chunks of the word list (every account
// against each chunk's words) and merges the chunks' results into the single-process result: per
// account the first matching word, the rejected accounts once each. Every rank returns it (only
// rank 0 prints).
hash::AuditResult audit_distributed(hash::CryptEngine& engine, const std::vector<hash::AuditAccount>& accounts,
                                    const std::vector<std::string_view>& words, app::Progress& progress) {
  const dist::World& w = dist::world();
  std::vector<std::size_t> first_word(accounts.size(), SIZE_MAX);
  std::map<std::size_t, std::string> rejected;
  dist::ChunkDealer::Options o;
  const std::size_t per = std::max<std::size_t>(1, (words.size() + 16 * w.size - 1) / (16 * w.size));
  for (std::size_t b = 0; b < words.size(); b += per) o.bounds.push_back(b);
  o.bounds.push_back(words.size());
  if (words.empty()) o.bounds = {0, 0};  // one empty chunk: its rank still reports rejected hashes
  o.deliver = [&](const dist::Chunk& chunk, int, std::string&& payload) {
    const auto j = nlohmann::json::parse(payload);
    for (const auto& m : j.at("m")) {
      std::size_t& best = first_word[m.at(0).get<std::size_t>()];
      best = std::min(best, m.at(1).get<std::size_t>());
    }
    for (const auto& r : j.at("r")) rejected.emplace(r.at(0).get<std::size_t>(), r.at(1).get<std::string>());
    progress.advance(accounts.size() * (chunk.end - chunk.begin));
  };
  dist::ChunkDealer dealer(std::move(o));
  while (const auto chunk = dealer.next()) {
    const auto part = hash::audit(engine, accounts, std::span(words).subspan(chunk->begin, chunk->end - chunk->begin));
    nlohmann::json j{{"m", nlohmann::json::array()}, {"r", nlohmann::json::array()}};
    for (const hash::AuditMatch& m : part.matches) j["m"].push_back({m.account, chunk->begin + m.word});
    for (const auto& [account, why] : part.rejected) j["r"].push_back({account, why});
    dealer.done(*chunk, j.dump());
  }
  if (!dealer.finish().empty()) throw Error(ErrorCategory::io, "a rank's audit results never reached rank 0");
  hash::AuditResult result;
  for (std::size_t a = 0; a < accounts.size(); ++a)
    if (first_word[a] != SIZE_MAX) result.matches.push_back({a, first_word[a]});
  for (auto& [account, why] : rejected) result.rejected.emplace_back(account, std::move(why));
  return result;
}

int cmd_audit(const Common& c, const std::string& hashes_path, const std::string& wordlist_path, bool show_passwords) {
  nvtx::Range app_range("wk-hash audit");
  if (dist::world().distributed())
    for (const std::string& p : {hashes_path, wordlist_path})
      if (p.empty() || p == "-")
        throw Error(ErrorCategory::usage, "under mpirun/srun --hashes and --wordlist must be files every rank can read, "
                                          "not standard input");
  check_files(c, {{"the hash file", hashes_path}, {"the word list", wordlist_path}});
  app::OutputSink sink(here_output(c));
  // Distributed: every rank reads and checks both files; rank 0 alone reports and writes.
  const bool speaks = dist::world().rank == 0;
  auto error = [&](const std::string& msg) {
    if (speaks) app::print_error(kProg, msg);
  };
  const EngineStart start(c);
  hash::CryptEngine& engine = start.get();
  hash::SecretBuffer hash_text, word_text;
  {
    nvtx::Range r("read", nvtx::Color::io);
    hash_text = hash::read_secret_input(hashes_path);
    word_text = hash::read_secret_input(wordlist_path);
  }
  std::size_t failed = 0, skipped = 0;
  const auto hash_lines = hash::split_lines(hash_text.view());
  hash::ShadowList shadow = hash::parse_shadow(hash_lines);
  for (const auto& [line, why] : shadow.errors) error(fmt::format("{}: line {}: {}", hashes_path, line, why));
  failed += shadow.errors.size();
  skipped += shadow.skipped;
  const std::vector<hash::AuditAccount>& accounts = shadow.accounts;
  const std::vector<std::size_t>& account_line = shadow.account_line;
  std::vector<std::string_view> words;
  const auto word_lines = hash::split_lines(word_text.view());
  for (std::size_t i = 0; i < word_lines.size(); ++i) {
    std::string why = hash::check_line(word_lines[i]);
    if (why.empty()) why = hash::check_password(word_lines[i]);
    if (!why.empty()) {
      error(fmt::format("{}: line {}: {}", wordlist_path, i + 1, why));
      ++failed;
      continue;
    }
    words.push_back(word_lines[i]);
  }
  std::vector<std::size_t> word_line;
  for (std::size_t i = 0, k = 0; i < word_lines.size() && k < words.size(); ++i)
    if (word_lines[i].data() == words[k].data()) {
      word_line.push_back(i + 1);
      ++k;
    }

  app::Progress progress(accounts.size() * words.size(), "tries", !c.quiet && dist::world().rank == 0);
  const hash::AuditResult result =
      dist::world().distributed()
          ? audit_distributed(engine, accounts, words, progress)
          : hash::audit(engine, accounts, words, [&](std::size_t done, std::size_t) { progress.advance_to(done); });
  progress.finish();
  for (const auto& [account, why] : result.rejected) {
    error(fmt::format("{}: line {}: {}", hashes_path, account_line[account], why));
    ++failed;
  }
  // The findings: first the accounts that need no password at all, then those whose password is in
  // the word list.
  auto finding = [&](const std::string& user, std::size_t line, const char* what, std::string_view password) {
    if (c.json) {
      nlohmann::ordered_json j{{"user", user}, {"line", line}, {"finding", what}};
      if (show_passwords) j["password"] = std::string(password);
      sink.line(dump(j));
    } else {
      sink.line(show_passwords ? user + ":" + std::string(password) : user);
    }
  };
  for (std::size_t i = 0; i < shadow.no_password.size(); ++i)
    finding(shadow.no_password[i], shadow.no_password_line[i], "no password set", "");
  for (const hash::AuditMatch& m : result.matches)
    finding(accounts[m.account].user, account_line[m.account], "password in the word list", words[m.word]);
  commit_here(sink);
  // Success claims that no account has a weak password: it needs accounts, and words to try on them.
  bool nothing_audited = false;
  if (accounts.empty() && shadow.no_password.empty()) {
    error(fmt::format("{}: no account with a password hash or an empty password field ({} locked or disabled "
                      "skipped): nothing was audited", hashes_path, skipped));
    nothing_audited = true;
  } else if (!accounts.empty() && words.empty()) {
    error(fmt::format("{}: no word to try: no password hash was audited", wordlist_path));
    nothing_audited = true;
  }
  summary(c, fmt::format("{} accounts, {} words: {} with no password set, {} with a password from the word list; {} "
                         "locked or disabled skipped, {} lines failed ({} backend{})",
                         accounts.size() + shadow.no_password.size(), words.size(), shadow.no_password.size(),
                         result.matches.size(), skipped, failed, to_string(engine.backend()), ranks_note()));
  return failed || nothing_audited ? app::kSomeFailed : app::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  // mpirun / srun: this process is one rank of several
  if (const int code = app::start_world(kProg, &argc, &argv); code != app::kSuccess) return code;
  app::keep_freed_buffers();  // slices allocate and free vectors of tens of MB each
  CLI::App app{"wk-hash: crypt(3) password hashing (md5crypt, sha256crypt, sha512crypt, bcrypt) on the GPU, "
               "byte-identical to libxcrypt"};
  app.require_subcommand(1);
  app.footer(kFooter);

  Common hc, cc, vc, ac;
  std::string method, variant;
  std::optional<std::uint32_t> rounds;
  std::optional<unsigned> cost;
  bool users = false;
  CLI::App* hash_cmd = app.add_subcommand("hash", "Hash one password per line with fresh random salts");
  hash_cmd->add_option("--method", method, "md5crypt, sha256crypt, sha512crypt or bcrypt")
      ->required()
      ->check(CLI::IsMember({"md5crypt", "sha256crypt", "sha512crypt", "bcrypt"}));
  hash_cmd->add_option("--rounds", rounds, "sha256crypt / sha512crypt rounds, 1000..999999999 (default 5000)");
  hash_cmd->add_option("--cost", cost, "bcrypt cost, 4..31 (default 5, libxcrypt's)");
  hash_cmd->add_option("--bcrypt-variant", variant, "bcrypt prefix: 2b (default), 2a or 2y");
  hash_cmd->add_flag("--users", users, "Input user:password, output user:hash (for chpasswd -e)");
  add_common(*hash_cmd, hc);
  hash_cmd->footer("Example: wk-hash hash --method sha512crypt -i passwords.txt -o hashes.txt");

  CLI::App* crypt_cmd = app.add_subcommand("crypt", "Hash SETTING<TAB>PASSWORD lines with the given settings");
  add_common(*crypt_cmd, cc);
  crypt_cmd->footer("Example: printf '$6$rounds=10000$saltsalt\\tsecret\\n' | wk-hash crypt");

  CLI::App* verify_cmd = app.add_subcommand("verify", "Check HASH<TAB>PASSWORD lines: line N: OK or MISMATCH");
  add_common(*verify_cmd, vc);
  verify_cmd->footer("Exit status 0 only when every line was well formed and every password matched.");

  std::string hashes_path, wordlist_path;
  bool show_passwords = false;
  CLI::App* audit_cmd = app.add_subcommand("audit", "Find accounts whose password is in a word list");
  audit_cmd->add_option("--hashes", hashes_path, "Shadow-style file: user:hash[:...] per line")->required();
  audit_cmd->add_option("--wordlist", wordlist_path, "Candidate passwords, one per line")->required();
  audit_cmd->add_flag("--show-passwords", show_passwords, "Also print the matching word (default: user names only)");
  add_common(*audit_cmd, ac, false);
  audit_cmd->footer(
      "Every word is tried against every hash with that hash's own salt and cost. An empty password\n"
      "field means no password is needed (shadow(5)): such accounts are listed first, as \"no\n"
      "password set\". Accounts with '*' or '!...' (disabled or locked) are skipped. Exit status 1\n"
      "also when nothing was audited (no account, or no word for the hashes). Example:\n"
      "  wk-hash audit --hashes /etc/shadow --wordlist rockyou-top10k.txt");

  const int code = app::run_app(kProg, app, argc, argv, [&]() -> int {
    if (dist::world().rank == 0) app::install_interrupt_handlers(nullptr);  // Ctrl-C: end now, no half-written -o file left
    else app::ignore_interrupts();  // mpirun ends ranks > 0 once rank 0 has exited
    if (dist::world().rank != 0)  // one voice: rank 0 prints notices, progress and the summary
      for (Common* c : {&hc, &cc, &vc, &ac}) c->quiet = true;
    else if (dist::world().distributed())
      // mpirun SIGTERMs every rank when one dies (its own message names it); the output is one
      // file written at the end, so nothing of it is kept.
      app::set_interrupt_message(std::string(kProg) +
                                 ": interrupted (SIGINT/SIGTERM; mpirun sends SIGTERM to every rank when one "
                                 "dies): no output written, an -o file is left as it was; run the job again\n");
    if (hash_cmd->parsed()) return cmd_hash(hc, method, rounds, cost, variant, users);
    if (crypt_cmd->parsed()) return cmd_crypt(cc);
    if (verify_cmd->parsed()) return cmd_verify(vc);
    if (audit_cmd->parsed()) return cmd_audit(ac, hashes_path, wordlist_path, show_passwords);
    return app::kUsage;
  });
  if (dist::world().distributed()) app::end_world(code);
  dist::finalize();  // mpirun -np 1 (nothing without a launcher)
  // _exit after flushing: no static destructors, no CUDA teardown (WK_CLEAN_EXIT=1: std::exit).
  app::exit_now(code);
}
