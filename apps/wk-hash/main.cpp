// wk-hash: crypt(3) password hashing at GPU speed -- hash, crypt, verify, audit.
// Argument parsing, printing and exit codes only; the work is in wk::hash (the line engine:
// wk/hash/line_engine.hpp).
//
// Passwords are never printed (errors name the line number; typed at a terminal they are read with
// its echo off: typed_input.cpp), the buffers holding them are wiped
// (OPENSSL_cleanse through wk::hash::SecretBuffer and wk::hash::wipe) and kept out of core dumps
// (MADV_DONTDUMP), hashes are compared in constant time (CRYPTO_memcmp through
// wk::hash::constant_time_equal).
#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>

#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/hash/job_files.hpp"
#include "wk/hash/line_engine.hpp"
#include "wk_hash.hpp"

using namespace wk;
using namespace wk::hash_app;

namespace wk::hash_app {

void add_common(CLI::App& sub, Common& c, bool with_input) {
  if (with_input) sub.add_option("-i,--input", c.input, "Input file (default: standard input)");
  sub.add_option("-o,--output", c.output, "Output file, replaced atomically (default: standard output)");
  sub.add_flag("--json", c.json, "JSON Lines output, one object per input line (see wk-hash --help)");
  CLI::Option* quiet = sub.add_flag("-q,--quiet", c.quiet, "No progress line, notices or summary on standard error");
  sub.add_flag("-v,--verbose", c.verbose,
               "Also the backend and its device, counts and the time of each stage, on standard error")
      ->excludes(quiet);
  app::add_device_option(sub, c.device);
  sub.add_option("--gpus", c.gpus,
                 "GPUs to hash on, e.g. 0,1 (default: all; each batch of lines goes to the least busy one)")
      ->default_val("all")
      ->check([](const std::string& text) {
        try {
          (void)parse_gpu_list(text);
          return std::string();
        } catch (const std::exception& e) {
          return std::string(e.what());
        }
      });
}

std::vector<int> chosen_gpus(const Common& c, int device_count) {
  std::vector<int> gpus;
  try {
    gpus = parse_gpu_list(c.gpus, device_count);
  } catch (const Error& e) {
    throw Error(e.category(), std::string("--gpus: ") + e.what());
  }
  const dist::World& w = dist::world();
  if (c.gpus == "all" && w.distributed() && !app::gpus_split_by_rank())
    gpus = dist::node_share(gpus, w.local_rank, w.local_size);
  return gpus;
}

namespace {
// The GPUs --gpus names, without starting CUDA (chosen_gpus checks them once it has started).
std::vector<int> planned_gpus(const Common& c) {
  if (c.device == "cpu") return {};
  return c.gpus == "all" ? chosen_gpus(c, app::visible_gpu_count()) : parse_gpu_list(c.gpus);
}
}  // namespace

std::size_t slices_in_engine(const Common& c) {
  return 4 + 2 * (std::max<std::size_t>(planned_gpus(c).size(), 1) - 1);
}

namespace {
// Before CUDA starts: --gpus naming some GPUs shows the runtime only those. Returns the ids given
// (empty when nothing was restricted: all GPUs, the CPU, or an id the engine's start rejects).
std::vector<int> restrict_to_named_gpus(const Common& c) {
  if (c.device == "cpu" || c.gpus == "all") return {};
  std::vector<int> ids = parse_gpu_list(c.gpus);
  return app::restrict_visible_gpus(ids) ? ids : std::vector<int>();
}
// The options the engine starts with: --gpus all once the runtime sees only the GPUs named.
Common engine_options(const Common& c, bool restricted) {
  Common e = c;
  if (restricted) e.gpus = "all";
  return e;
}
}  // namespace

EngineStart::EngineStart(const Common& given, std::optional<hash::Method> expected)
    : shown_(restrict_to_named_gpus(given)),
      chosen_(std::make_shared<Chosen>()),
      pending_(std::async(std::launch::async, [c = engine_options(given, !shown_.empty()), expected, chosen = chosen_] {
        const auto t0 = std::chrono::steady_clock::now();
        // The GPUs' contexts start at once, a thread each, beside the probe of the first.
        std::future<std::string> contexts;
        if (c.device != "cpu")
          contexts = std::async(std::launch::async, [gpus = planned_gpus(c)] { return start_contexts(gpus); });
        chosen->selection = app::choose_backend(kProg, c.device, c.quiet);
        std::vector<int> gpus;
        if (chosen->selection.backend == Backend::gpu) gpus = chosen_gpus(c, chosen->selection.gpu.device_count);
        auto engine = std::make_shared<hash::CryptEngine>(chosen->selection.backend, 0, expected, gpus);
        chosen->ready_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return engine;
      }).share()) {}

std::string EngineStart::describe() const {
  const hash::CryptEngine& engine = get();
  const BackendSelection& sel = chosen_->selection;
  const std::string cpu = fmt::format("{} CPU threads", engine.cpu_threads());
  if (engine.backend() != Backend::gpu)
    return fmt::format("backend: cpu (libxcrypt on {}); chosen in {:.0f} ms", cpu, chosen_->ready_ms);
  std::string ids;
  for (const hash::CryptEngine::GpuShare& g : engine.gpu_shares())
    ids += fmt::format("{}{}", ids.empty() ? "" : ",", shown_id(g.device));
  return fmt::format("backend: gpu ({}, compute capability {}.{}, {} SMs; GPU {}; methods other than {}: libxcrypt on {}); "
                     "chosen in {:.0f} ms, GPUs started in {:.0f} ms more",
                     sel.gpu.name, sel.gpu.cc_major, sel.gpu.cc_minor, sel.gpu.sm_count, ids, join(method_names(), " and "),
                     cpu, chosen_->ready_ms, engine.gpu_ready_ms());
}

std::string EngineStart::shares() const {
  const std::vector<hash::CryptEngine::GpuShare> all = get().gpu_shares();
  if (all.size() < 2) return {};
  std::string text = "GPU jobs:";
  for (const hash::CryptEngine::GpuShare& g : all) text += fmt::format(" GPU {} {}", shown_id(g.device), g.jobs);
  return text;
}

EngineStart::~EngineStart() {
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

void summary(const Common& c, const std::string& text) {
  if (!c.quiet && dist::world().rank == 0) app::print_notice(kProg, text);
}
void detail(const Common& c, const std::string& text) {
  if (c.verbose && dist::world().rank == 0) app::print_notice(kProg, text);
}
std::string here_output(const Common& c) { return dist::world().rank == 0 ? c.output : std::string("-"); }
void commit_here(app::OutputSink& sink) {
  if (dist::world().rank == 0) sink.commit();
}
std::string ranks_note() {
  return dist::world().distributed() ? fmt::format(", {} ranks", dist::world().size) : std::string();
}
void check_files(const Common& c, std::initializer_list<io::JobFile> reads) {
  const io::JobFile writes[] = {{"the output", c.output}};
  hash::check_job_files(std::span(reads.begin(), reads.size()), writes);
}

}  // namespace wk::hash_app

namespace {

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

// --json: an object per input line, errors included (on all cores, no JSON object per line).
//   hash, crypt:  {"line":N,"hash":"$6$..."} (+ "user" with --users) or {"line":N,"error":"..."}
//   verify:       {"line":N,"status":"OK"|"MISMATCH"|"ERROR"} (+ "error")
hash::LineFormat json_lines(bool verify) {
  return [verify](const hash::LineResult& r, std::string& t) {
    char number[24];
    t.append("{\"line\":").append(number, std::to_chars(number, number + sizeof number, r.line).ptr);
    if (verify) t.append(",\"status\":\"").append(!r.error.empty() ? "ERROR" : r.match ? "OK" : "MISMATCH").push_back('"');
    if (!r.user.empty()) append_json_string(t.append(",\"user\":"), r.user);
    if (!r.error.empty()) append_json_string(t.append(",\"error\":"), r.error);
    else if (!verify) append_json_string(t.append(",\"hash\":"), r.hash);
    t.append("}\n");
  };
}

// A positive count from the environment variable `name`, or `fallback`.
std::size_t env_count(const char* name, std::size_t fallback) {
  if (const char* e = std::getenv(name)) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 10);
    if (end != e && *end == '\0' && v > 0) return std::size_t(v);
  }
  return fallback;
}

// Where the line engine's output goes: the output sink (rank 0), failed lines on standard error
// (each rank its own), the progress line (rank 0): over the input's lines when every rank read it
// whole, over its bytes when it is a file streamed, none from a pipe.
class AppSink final : public hash::LineSink {
 public:
  AppSink(app::OutputSink& out, const hash::LineInput& in, bool quiet)
      : out_(out), by_lines_(in.line_count().has_value()),
        progress_(by_lines_ ? *in.line_count() : std::size_t(in.size_bytes().value_or(0) >> 10),
                  by_lines_ ? "pw" : "KiB", !quiet && (by_lines_ || in.size_bytes()) && dist::world().rank == 0) {}
  void write(std::string_view text) override { out_.write(text); }
  void failed(std::size_t line, std::string_view why) override {
    app::print_error(kProg, fmt::format("line {}: {}", line, why));
  }
  void progress(std::size_t lines, std::uint64_t bytes) override {
    progress_.advance_to(by_lines_ ? lines : std::size_t(bytes >> 10));
  }
  void finish() { progress_.finish(); }

 private:
  app::OutputSink& out_;
  bool by_lines_;
  app::Progress progress_;
};

// hash, crypt, verify: the input's lines through the line engine, the output written.
hash::LineCounts run_line_command(const Common& c, const char* range, hash::LineJobOptions job,
                                  std::optional<hash::Method> expected = std::nullopt) {
  nvtx::Range app_range(range);
  const bool distributed = dist::world().distributed();
  const bool from_stdin = c.input.empty() || c.input == "-";
  // Distributed: every rank reads the input file itself (a shared file system).
  if (distributed && from_stdin)
    throw Error(ErrorCategory::usage,
                "under mpirun/srun the input must be a file every rank can read (-i FILE), not standard input");
  check_files(c, {{"the input", c.input}});
  app::OutputSink out(here_output(c));
  const EngineStart engine(c, expected);
  // A named file is read from now on, beside the engine's start; standard input only once the
  // backend is chosen, so that a usage error (--device gpu without a GPU) shows at once on a
  // terminal rather than after Ctrl-D.
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  if (from_stdin) engine.get();
  // A terminal: a person types one password (never echoed), not a list of lines.
  TypedLine typed;
  if (from_stdin && !distributed && ::isatty(STDIN_FILENO)) typed = read_typed_line(job.task, job.users);
  const auto t_typed = Clock::now();
  hash::LineInput input = distributed       ? hash::LineInput::dealt(c.input)
                          : typed.fd() >= 0 ? hash::LineInput::stream(typed.fd(), "the terminal")
                                            : hash::LineInput::stream(c.input);
  AppSink sink(out, input, c.quiet);
  if (c.json) job.format = json_lines(job.task == hash::LineTask::verify);
  hash::LineEngineOptions options;
  // Lines per slice (2^18) and slices in the engine at once (slices_in_engine): tests run many slices on a few
  // hundred lines; WK_HASH_IN_ENGINE measures how deep the pipeline must be to keep the GPU busy.
  options.slice_lines = env_count("WK_HASH_SLICE_LINES", options.slice_lines);
  options.in_engine = std::min<std::size_t>(64, env_count("WK_HASH_IN_ENGINE", slices_in_engine(c)));
  if (c.verbose) {
    const std::string from = distributed        ? fmt::format("{}, dealt over {} ranks in byte ranges", c.input, dist::world().size)
                             : typed.fd() >= 0  ? std::string("the terminal, one typed line")
                             : from_stdin       ? std::string("standard input")
                                                : c.input;
    detail(c, fmt::format("input: {}{}; slices of up to {} lines ({} MiB), {} in the engine at once", from,
                          input.size_bytes() ? fmt::format(" ({} bytes)", *input.size_bytes()) : std::string(),
                          options.slice_lines, options.slice_bytes >> 20, options.in_engine));
  }
  const hash::LineCounts counts = hash::run_lines(input, sink, [&engine]() -> hash::CryptEngine& { return engine.get(); },
                                                  job, options);
  sink.finish();
  const auto t_run = Clock::now();
  commit_here(out);
  if (c.verbose) {
    auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    detail(c, engine.describe());
    if (const std::string shares = engine.shares(); !shares.empty()) detail(c, shares);
    const double run_ms = ms(t_run - t_typed);
    detail(c, fmt::format("{} lines through the engine in {:.1f} ms ({:.0f} lines/s){}; output written in {:.1f} ms",
                          counts.lines, run_ms, run_ms > 0 ? double(counts.lines) * 1000.0 / run_ms : 0.0,
                          typed.fd() >= 0 ? fmt::format(", after {:.0f} ms at the prompts", ms(t_typed - t_start))
                                          : std::string(),
                          ms(Clock::now() - t_run)));
    const hash::LineStages& st = counts.stages;
    detail(c, fmt::format("stages{}: read {:.1f} ms, builder prepared {:.1f} ms, waited {:.1f} ms for lines or room in the engine; "
                          "writer waited {:.1f} ms for the engine, wrote {:.1f} ms",
                          distributed ? " (this rank)" : "", st.read_s * 1e3, st.prepare_s * 1e3, st.builder_wait_s * 1e3,
                          st.writer_wait_s * 1e3, st.write_s * 1e3));
    if (distributed)
      detail(c, fmt::format("the {} ranks read {} bytes of the {}-byte input in all, each its own byte ranges",
                            dist::world().size, input.bytes_read(), input.size_bytes().value_or(0)));
  }
  if (job.task != hash::LineTask::verify) {  // hash, crypt: an empty input is no failure, but said
    if (counts.lines == 0) summary(c, "the input has no lines: nothing hashed");
    else
      summary(c, fmt::format("{} hashed, {} failed ({} backend{})", counts.lines - counts.failed, counts.failed,
                             to_string(engine.get().backend()), ranks_note()));
  } else if (counts.lines) {
    summary(c, fmt::format("{} OK, {} MISMATCH, {} failed ({} backend{})", counts.matched, counts.mismatched,
                           counts.failed, to_string(engine.get().backend()), ranks_note()));
  }
  return counts;
}

// The flag of wk-hash hash that sets a HashOptions field.
const char* flag_of(hash::HashOption option) {
  switch (option) {
    case hash::HashOption::method: return "--method";
    case hash::HashOption::rounds: return "--rounds";
    case hash::HashOption::cost: return "--cost";
    case hash::HashOption::bcrypt_variant: return "--bcrypt-variant";
  }
  return "--method";
}

bool takes_cost(const hash::MethodInfo& m) { return m.takes_cost; }
bool takes_variant(const hash::MethodInfo& m) { return m.takes_variant; }
bool takes_rounds(const hash::MethodInfo& m) { return m.takes_rounds; }

int cmd_hash(const Common& c, const std::string& method_name, std::optional<std::uint32_t> rounds,
             std::optional<unsigned> cost, const std::string& variant, bool users) {
  hash::LineJobOptions job;
  hash::HashOptions& opt = job.hash;
  const auto m = hash::parse_method_name(method_name);
  if (!m) throw Error(ErrorCategory::usage, "--method must be " + join(method_names(), " or "));
  opt.method = *m;
  const hash::MethodInfo& info =
      *std::find_if(hash::computed_methods().begin(), hash::computed_methods().end(), [&](const auto& i) { return i.id == *m; });
  opt.rounds = rounds;
  // cost and the variant have defaults in HashOptions: the library cannot tell them given.
  if (cost && !info.takes_cost)
    throw Error(ErrorCategory::usage, "--cost applies to " + join(method_names(takes_cost), " and ") + " only");
  if (cost) opt.cost = *cost;
  if (!variant.empty()) {
    if (!info.takes_variant)
      throw Error(ErrorCategory::usage, "--bcrypt-variant applies to " + join(method_names(takes_variant), " and ") + " only");
    opt.bcrypt_variant = variant.size() == 2 && variant[0] == '2' ? variant[1] : '?';
  }
  // Usage errors before any input is read, the library's words after the flag they are about.
  if (const auto problem = hash::hash_options_problem(opt))
    throw Error(ErrorCategory::usage, std::string(flag_of(problem->option)) + ": " + problem->message);
  job.users = users;
  // WK_HASH_GENERIC=1: one CryptJob per line, the path crypt and verify take (tests compare the two).
  const char* generic = std::getenv("WK_HASH_GENERIC");
  job.per_line_jobs = generic && std::string_view(generic) == "1";
  return run_line_command(c, "wk-hash hash", std::move(job), opt.method).failed ? app::kSomeFailed : app::kSuccess;
}

int cmd_crypt(const Common& c) {
  hash::LineJobOptions job;
  job.task = hash::LineTask::crypt;
  return run_line_command(c, "wk-hash crypt", std::move(job)).failed ? app::kSomeFailed : app::kSuccess;
}

int cmd_verify(const Common& c) {
  hash::LineJobOptions job;
  job.task = hash::LineTask::verify;
  const hash::LineCounts counts = run_line_command(c, "wk-hash verify", std::move(job));
  if (counts.lines == 0) {  // success would claim that passwords matched: none was checked
    if (dist::world().rank == 0) app::print_error(kProg, "the input has no lines: no password was verified");
    return app::kSomeFailed;
  }
  return counts.failed || counts.mismatched ? app::kSomeFailed : app::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  // mpirun / srun: this process is one rank of several
  if (const int code = app::start_world(kProg, &argc, &argv); code != app::kSuccess) return code;
  app::keep_freed_buffers();  // slices allocate and free vectors of tens of MB each
  CLI::App app{"wk-hash: crypt(3) password hashing (" + join(method_names(), ", ") +
               ") on the GPU, byte-identical to libxcrypt"};
  app.require_subcommand(1);
  app.footer(footer());

  Common hc, cc, vc, ac;
  std::string method = "yescrypt", variant;  // yescrypt: libxcrypt's and mkpasswd's default
  std::optional<std::uint32_t> rounds;
  std::optional<unsigned> cost;
  bool users = false;
  CLI::App* hash_cmd = app.add_subcommand("hash", "Hash one password per line with fresh random salts");
  hash_cmd->add_option("--method", method, join(method_names(), " or ") + " (default yescrypt, as mkpasswd)")
      ->check(CLI::IsMember(method_names()));
  hash_cmd->add_option("--rounds", rounds, join(method_names(takes_rounds), " / ") + " rounds, 1000..999999999 (default 5000)");
  hash_cmd->add_option("--cost", cost,
                       "Cost as crypt_gensalt takes it: bcrypt 4..31 (default 5), yescrypt 1..11 (default 5, "
                       "$y$j9T$: 16 MiB), scrypt 6..11 (default 7, N 2^14, r 32: 64 MiB)");
  hash_cmd->add_option("--bcrypt-variant", variant, "bcrypt prefix: 2b (default), 2a or 2y");
  hash_cmd->add_flag("--users", users, "Input user:password, output user:hash (for chpasswd -e)");
  add_common(*hash_cmd, hc);
  hash_cmd->footer("Examples:\n  wk-hash hash -i passwords.txt -o hashes.txt              (yescrypt $y$j9T$, as mkpasswd)\n"
                   "  wk-hash hash --method sha512crypt -i passwords.txt -o hashes.txt");

  CLI::App* crypt_cmd = app.add_subcommand("crypt", "Hash SETTING<TAB>PASSWORD lines with the given settings");
  add_common(*crypt_cmd, cc);
  crypt_cmd->footer("Example: printf '$6$rounds=10000$saltsalt\\tsecret\\n' | wk-hash crypt");

  CLI::App* verify_cmd = app.add_subcommand("verify", "Check HASH<TAB>PASSWORD lines: line N: OK or MISMATCH");
  add_common(*verify_cmd, vc);
  verify_cmd->footer("Exit status 0 only when every line was well formed and every password matched.");

  AuditArgs audit_args;
  CLI::App* audit_cmd = app.add_subcommand("audit", "Find accounts whose password is in a word list, rules or a mask");
  {
    AuditArgs& a = audit_args;
    std::vector<CLI::Option*> own = {
        audit_cmd->add_option("--hashes", a.hashes, "Hash list: user:hash[:...] (shadow), user:hash or a hash alone per line"),
        audit_cmd->add_option("--wordlist", a.wordlist, "Candidate passwords, one per line"),
        audit_cmd->add_option("--rules", a.rules, "Rule file: every rule applied to every word (share/rules/warpkit64.rule)"),
        audit_cmd->add_option("--mask", a.mask, "Mask (?l ?u ?d ?s ?a ?h ?H ?b ?1-?4); with --wordlist: word + mask"),
        audit_cmd->add_option("-1,--custom-charset1", a.charsets[0], "Charset ?1 of --mask (may use ?l ?d ...)"),
        audit_cmd->add_option("-2,--custom-charset2", a.charsets[1], "Charset ?2 of --mask"),
        audit_cmd->add_option("-3,--custom-charset3", a.charsets[2], "Charset ?3 of --mask"),
        audit_cmd->add_option("-4,--custom-charset4", a.charsets[3], "Charset ?4 of --mask"),
        audit_cmd->add_flag("--increment", a.increment, "Every length of --mask from 1 position up, shortest first"),
        audit_cmd->add_flag("--mask-first", a.mask_first, "With --wordlist and --mask: mask + word instead of word + mask"),
        audit_cmd->add_option("--pot", a.pot, "Pot file (hash:password lines, mode 0600): found passwords appended, "
                                              "hashes in it not tried again"),
        audit_cmd->add_flag("--show", a.show, "Print user:password of the hash list's accounts from the --pot file; "
                                              "hash nothing"),
        audit_cmd->add_option("--session", a.session, "Session file (JSON, mode 0600): checkpoints to resume from"),
        audit_cmd->add_flag("--show-passwords", a.show_passwords,
                            "Also print the password found (default: user names only)"),
    };
    audit_cmd->add_option("--restore", a.restore,
                          "Resume the audit a --session FILE saved, with its options (-o, --json, -q, -v and "
                          "--device may be given again)");
    // --restore takes the audit's own options from the session file: none may be given beside it.
    audit_cmd->parse_complete_callback([audit_cmd, own] {
      if (audit_cmd->count("--restore"))
        for (const CLI::Option* o : own)
          if (o->count()) throw CLI::ValidationError(o->get_name(), "the session file holds the options of --restore");
    });
  }
  add_common(*audit_cmd, ac, false);
  audit_cmd->footer(kAuditFooter);

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
    if (audit_cmd->parsed()) return cmd_audit(ac, audit_args, *audit_cmd);
    return app::kUsage;
  });
  if (dist::world().distributed()) app::end_world(code);
  dist::finalize();  // mpirun -np 1 (nothing without a launcher)
  // _exit after flushing: no static destructors, no CUDA teardown (WK_CLEAN_EXIT=1: std::exit).
  app::exit_now(code);
}
