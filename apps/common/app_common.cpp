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
#include "wk/image/op.hpp"
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

// ---- --help-all and --completion: the help and the completion scripts, made from the CLI::App ----

namespace {

// `text` with every non-empty line indented by `width` spaces.
std::string indent_lines(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (end > at) out.append(width, ' ').append(text.substr(at, end - at));
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

std::string trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\n") - first + 1));
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (!sub->get_group().empty() && !sub->get_name().empty()) out.push_back(sub);
  return out;
}

}  // namespace

std::string full_help(const CLI::App& app) {
  std::string text = app.help();
  const std::string app_footer = trimmed(app.get_footer());
  for (const CLI::App* sub : visible_subcommands(app)) {
    std::string sub_help = sub->help(app.get_name());
    // The subcommand's footer when the app's footer holds it already (wk-crypt's security notes).
    const std::string footer = trimmed(sub->get_footer());
    if (!footer.empty() && app_footer.find(footer) != std::string::npos)
      if (const std::size_t at = sub_help.rfind(footer); at != std::string::npos) sub_help.erase(at, footer.size());
    // A blank line between the description and the usage line: a paragraph of its own (in a man page too).
    const std::string description = sub->get_description();
    if (!description.empty() && sub_help.rfind(description + "\n", 0) == 0) sub_help.insert(description.size(), "\n");
    text += "\n" + app.get_name() + " " + sub->get_name() + ":\n" + indent_lines(trimmed(sub_help), 2) + "\n";
  }
  return text;
}

std::vector<std::string> pipeline_words() {
  std::vector<std::string> words;
  for (const image::OpInfo* op : image::operations()) {
    const image::OpArg* first = op->args.empty() ? nullptr : &op->args.front();
    const bool needs_argument = first && first->fallback == nullptr;
    const bool choice = first && first->kind == image::ArgKind::choice && first->choices;
    for (const char* name : {op->name, op->alias}) {
      if (!name) continue;
      // "rotate:" alone is no help where its choices follow.
      if (!(needs_argument && choice)) words.push_back(needs_argument ? std::string(name) + ":" : std::string(name));
      if (choice) {
        std::string_view choices = first->choices;
        while (!choices.empty()) {
          const std::size_t bar = std::min(choices.find('|'), choices.size());
          words.push_back(std::string(name) + ":" + std::string(choices.substr(0, bar)));
          choices.remove_prefix(std::min(bar + 1, choices.size()));
        }
      }
    }
  }
  return words;
}

namespace {

// What a value is completed with.
enum class Values { nothing, files, words, pipeline };

struct CompletionOption {
  std::vector<std::string> names;  // "-i", "--input"
  std::string help;
  bool takes_value = false;
  Values values = Values::nothing;
  std::vector<std::string> words;  // Values::words
};

struct CompletionPositional {
  std::string name, help;
  Values values = Values::files;
  std::vector<std::string> words;
  bool many = false;  // takes every word from here on
};

// One command line scope: the app itself (name "") or one of its subcommands.
struct CompletionScope {
  std::string name, help;
  std::vector<CompletionOption> options;
  std::vector<CompletionPositional> positionals;
};

// Words a script may hold unquoted inside single quotes and that compgen -W takes as they are.
bool plain_word(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
    return std::isalnum(c) || std::strchr("._:%+-/,=@", c);
  });
}

// The choices of a CLI::IsMember check: its description, "{auto,gpu,cpu}", in the option's type name.
std::vector<std::string> member_choices(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  std::vector<std::string> words;
  const std::size_t open = type.find(":{");
  if (open == std::string::npos) return words;
  const std::size_t close = type.find('}', open);
  if (close == std::string::npos) return words;
  std::string_view list = std::string_view(type).substr(open + 2, close - open - 2);
  while (!list.empty()) {
    const std::size_t comma = std::min(list.find(','), list.size());
    const std::string word = trimmed(list.substr(0, comma));
    if (!plain_word(word)) return {};  // not a list the scripts can hold as words
    words.push_back(word);
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return words;
}

Values values_of(const CLI::Option& opt, std::vector<std::string>& words) {
  words = member_choices(opt);
  if (!words.empty()) return Values::words;
  if (opt.get_positional() && opt.get_name(true) == "pipeline") {
    words = pipeline_words();
    return Values::pipeline;
  }
  const std::string type = opt.get_type_name();
  const std::string base = type.substr(0, type.find(':'));
  for (const char* number : {"INT", "UINT", "FLOAT", "NUMBER"})
    if (base == number) return Values::nothing;
  return Values::files;
}

CompletionScope scope_of(const CLI::App& app, std::string name) {
  CompletionScope scope;
  scope.name = std::move(name);
  scope.help = app.get_description();
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    if (opt->get_positional() && !opt->nonpositional()) {
      CompletionPositional p;
      p.name = opt->get_name(true);
      p.help = opt->get_description();
      p.values = values_of(*opt, p.words);
      p.many = opt->get_items_expected_max() > 1;
      scope.positionals.push_back(std::move(p));
      continue;
    }
    CompletionOption o;
    for (const std::string& s : opt->get_snames()) o.names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) o.names.push_back("--" + l);
    if (o.names.empty()) continue;
    o.help = opt->get_description();
    o.takes_value = opt->get_items_expected_max() > 0;  // a flag expects none
    if (o.takes_value) o.values = values_of(*opt, o.words);
    scope.options.push_back(std::move(o));
  }
  return scope;
}

std::vector<CompletionScope> scopes_of(const CLI::App& app) {
  std::vector<CompletionScope> scopes{scope_of(app, "")};
  for (const CLI::App* sub : visible_subcommands(app)) scopes.push_back(scope_of(*sub, sub->get_name()));
  return scopes;
}

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// `text` in single quotes for bash and zsh.
std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `prog` as part of a shell function name: wk-hash -> wk_hash.
std::string function_name(std::string_view prog) {
  std::string out;
  for (unsigned char c : prog) out += std::isalnum(c) ? char(c) : '_';
  return out;
}

std::vector<std::string> plain_words(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const std::string& w : words)
    if (plain_word(w)) out.push_back(w);
  return out;
}

std::string bash_script(const std::string& prog, const std::vector<CompletionScope>& scopes) {
  const std::string fn = "_" + function_name(prog);
  std::vector<std::string> subcommands;
  for (std::size_t i = 1; i < scopes.size(); ++i) subcommands.push_back(scopes[i].name);
  auto action = [&fn](Values values, const std::vector<std::string>& words) -> std::string {
    switch (values) {
      case Values::words: return fn + "_reply compgen -W " + single_quoted(joined(words)) + " -- \"$3\"";
      case Values::files: return "compopt -o filenames 2>/dev/null; " + fn + "_reply compgen -f -- \"$3\"";
      case Values::pipeline: return fn + "_pipeline \"$3\"";
      case Values::nothing: break;
    }
    return ":";
  };
  bool pipeline = false;
  std::string scope_cases, value_cases, positional_cases;
  for (const CompletionScope& s : scopes) {
    std::vector<std::string> all, with_value;
    for (const CompletionOption& o : s.options) {
      std::vector<std::string> patterns;
      for (const std::string& n : o.names) {
        all.push_back(n);
        if (o.takes_value) with_value.push_back(n);
        patterns.push_back(single_quoted(s.name + " " + n));
      }
      if (o.takes_value) value_cases += fmt::format("    {}) {} ;;\n", joined(patterns, "|"), action(o.values, o.words));
    }
    scope_cases += fmt::format("    {}) opts={} vopts={} subs={} ;;\n", single_quoted(s.name), single_quoted(joined(all)),
                               single_quoted(joined(with_value)), single_quoted(s.name.empty() ? joined(subcommands) : ""));
    for (std::size_t i = 0; i < s.positionals.size(); ++i) {
      const CompletionPositional& p = s.positionals[i];
      // One that takes every word from here on matches every number from its own.
      std::string pattern = single_quoted(fmt::format("{} {}", s.name, i));
      if (p.many) pattern += "|" + single_quoted(s.name + " ") + "*";
      positional_cases += fmt::format("    {}) {} ;;\n", pattern, action(p.values, p.words));
      pipeline |= p.values == Values::pipeline;
      if (p.many) break;
    }
  }
  std::string script = fmt::format(R"(# bash completion for {prog}: its subcommands, options, option values and arguments.
# Made by `{prog} --completion bash` ({prog} {version}); installed as
# share/bash-completion/completions/{prog}.

# COMPREPLY: the lines the command prints.
{fn}_reply() {{
  mapfile -t COMPREPLY < <("$@")
}}

# opts: the options of scope $1 (a subcommand, or '' for {prog} itself); vopts: those that take a
# value; subs: the subcommands.
{fn}_scope() {{
  case $1 in
{scope_cases}  esac
}}

# COMPREPLY: the values of option $2 of scope $1 that begin with $3.
{fn}_values() {{
  case "$1 $2" in
{value_cases}  esac
}}

# COMPREPLY: the candidates for argument number $2 (from 0) of scope $1 that begin with $3; the
# options when the scope takes no such argument.
{fn}_positional() {{
  case "$1 $2" in
{positional_cases}    *) {fn}_reply compgen -W "$opts" -- "$3" ;;
  esac
}}
)",
                                   fmt::arg("prog", prog), fmt::arg("version", wk::version_string), fmt::arg("fn", fn),
                                   fmt::arg("scope_cases", scope_cases), fmt::arg("value_cases", value_cases),
                                   fmt::arg("positional_cases", positional_cases));
  if (pipeline)
    script += fmt::format(R"(
# COMPREPLY: the pipelines that begin with $1, the operation after its last ',' completed.
{fn}_pipeline() {{
  compopt -o nospace 2>/dev/null
  {fn}_reply compgen -P "${{1%"${{1##*,}}"}}" -W {words} -- "${{1##*,}}"
}}
)",
                          fmt::arg("fn", fn), fmt::arg("words", single_quoted(joined(plain_words(pipeline_words())))));
  script += fmt::format(R"(
{fn}() {{
  local line=${{COMP_LINE:0:COMP_POINT}} cur word scope= opts vopts subs value_of= ended= n=0 i
  local -a words
  # The words up to the cursor, split at blanks (a backslash-escaped blank stays in its word).
  IFS=$' \t\n' read -a words <<< "$line"
  [[ $line == *[[:space:]] || ${{#words[@]}} -lt 2 ]] && words+=('')
  cur=${{words[${{#words[@]}}-1]}}
  {fn}_scope ''
  for ((i = 1; i < ${{#words[@]}} - 1; i++)); do
    word=${{words[i]}}
    if [[ -n $value_of ]]; then
      value_of=
    elif [[ -z $ended && $word == -* ]]; then
      [[ $word == -- ]] && ended=1
      [[ $word != *=* && " $vopts " == *" $word "* ]] && value_of=$word
    elif [[ -z $scope && -n $subs && " $subs " == *" $word "* ]]; then
      scope=$word
      {fn}_scope "$scope"
    else
      ((n++))
    fi
  done

  local prefix=
  COMPREPLY=()
  if [[ -n $value_of ]]; then
    {fn}_values "$scope" "$value_of" "$cur"
  elif [[ -z $ended && $cur == -*=* ]]; then
    prefix=${{cur%%=*}}=
    {fn}_values "$scope" "${{cur%%=*}}" "${{cur#*=}}"
  elif [[ -z $ended && $cur == -* ]]; then
    {fn}_reply compgen -W "$opts" -- "$cur"
  elif [[ -z $scope && -n $subs ]]; then
    {fn}_reply compgen -W "$subs" -- "$cur"
  else
    {fn}_positional "$scope" "$n" "$cur"
  fi
  # Bash replaces only the part of the word after its last ':' or '=' (COMP_WORDBREAKS): the
  # candidates lose what comes before it.
  local tail=${{COMP_WORDS[COMP_CWORD]}} head=
  [[ $tail == [:=] ]] && tail=
  [[ $cur == *"$tail" ]] && head=${{cur%"$tail"}}
  for i in "${{!COMPREPLY[@]}}"; do
    COMPREPLY[i]=$prefix${{COMPREPLY[i]}}
    COMPREPLY[i]=${{COMPREPLY[i]#"$head"}}
  done
}}
complete -F {fn} {prog}
)",
                        fmt::arg("fn", fn), fmt::arg("prog", prog));
  return script;
}

// An option's or subcommand's help as a zsh description: its first line, at most 100 characters,
// without the brackets and backslashes _arguments would read.
std::string zsh_help(std::string_view help) {
  std::string out;
  for (char c : help.substr(0, help.find('\n'))) {
    if (c == '[') out += '(';
    else if (c == ']') out += ')';
    else if (c != '\\') out += c;
  }
  if (out.size() > 100) {
    out.resize(out.rfind(' ', 97) == std::string::npos ? 97 : out.rfind(' ', 97));
    out += "...";
  }
  return out;
}

// The _arguments specs of a scope, one a line, each followed by " \" (ends with a newline).
std::string zsh_specs(const std::string& prog, const CompletionScope& s, const char* indent) {
  auto action = [&prog](Values values, const std::vector<std::string>& words) -> std::string {
    switch (values) {
      case Values::words: return "(" + joined(words) + ")";
      case Values::files: return "_files";
      case Values::pipeline: return "_" + prog + "_pipeline";
      case Values::nothing: break;
    }
    return " ";
  };
  std::string specs;
  for (const CompletionOption& o : s.options) {
    const std::string excluded = "(" + joined(o.names) + ")";
    for (const std::string& n : o.names) {
      std::string spec = excluded + n;
      if (o.takes_value) spec += n.rfind("--", 0) == 0 ? "=" : "+";
      spec += "[" + zsh_help(o.help) + "]";
      if (o.takes_value) spec += ":" + o.names.back().substr(o.names.back().find_first_not_of('-')) + ":" + action(o.values, o.words);
      specs += indent + single_quoted(spec) + " \\\n";
    }
  }
  for (std::size_t i = 0; i < s.positionals.size(); ++i) {
    const CompletionPositional& p = s.positionals[i];
    std::string label;
    for (char c : p.name) label += c == ':' ? '_' : c;
    specs += indent + single_quoted((p.many ? std::string("*") : std::to_string(i + 1)) + ":" + label + ":" + action(p.values, p.words)) + " \\\n";
    if (p.many) break;
  }
  return specs;
}

std::string zsh_script(const std::string& prog, const std::vector<CompletionScope>& scopes) {
  const std::string fn = "_" + prog;
  std::string script = fmt::format(R"(#compdef {prog}
# zsh completion for {prog}: its subcommands, options, option values and arguments.
# Made by `{prog} --completion zsh` ({prog} {version}); installed as
# share/zsh/site-functions/_{prog}.
)",
                                   fmt::arg("prog", prog), fmt::arg("version", wk::version_string));
  bool pipeline = false;
  for (const CompletionScope& s : scopes)
    for (const CompletionPositional& p : s.positionals) pipeline |= p.values == Values::pipeline;
  if (pipeline) {
    std::vector<std::string> complete, open;  // "gray", "rotate:90" / "gauss:" (its argument next)
    for (const std::string& w : plain_words(pipeline_words())) (w.back() == ':' ? open : complete).push_back(single_quoted(w));
    script += fmt::format(R"(
# A pipeline: the operation after its last ',' is completed; a complete one gets a ',' that a
# blank removes.
{fn}_pipeline() {{
  local -a complete open expl
  complete=({complete})
  open=({open})
  compset -P '*,'
  _description operations expl operation
  compadd "$expl[@]" -qS , -a complete
  compadd "$expl[@]" -S '' -a open
}}
)",
                          fmt::arg("fn", fn), fmt::arg("complete", joined(complete)), fmt::arg("open", joined(open)));
  }
  script += fmt::format("\n{}() {{\n  local curcontext=$curcontext state state_descr line ret=1\n  typeset -A opt_args\n", fn);
  if (scopes.size() == 1) {
    script += "  _arguments -s -S \\\n" + zsh_specs(prog, scopes[0], "    ") + "    && ret=0\n  return ret\n}\n";
  } else {
    script += "  _arguments -C -s -S \\\n" + zsh_specs(prog, scopes[0], "    ") +
              "    '1:subcommand:->subcommand' \\\n    '*::argument:->argument' \\\n    && ret=0\n";
    script += "  case $state in\n    subcommand)\n      local -a subcommands\n      subcommands=(\n";
    for (std::size_t i = 1; i < scopes.size(); ++i)
      script += "        " + single_quoted(scopes[i].name + ":" + zsh_help(scopes[i].help)) + "\n";
    script += fmt::format("      )\n      _describe -t subcommands '{} subcommand' subcommands && ret=0\n      ;;\n", prog);
    script += fmt::format("    argument)\n      curcontext=${{curcontext%:*:*}}:{}-$words[1]:\n      case $words[1] in\n", prog);
    for (std::size_t i = 1; i < scopes.size(); ++i)
      script += "        " + single_quoted(scopes[i].name) + ")\n          _arguments -s -S \\\n" +
                zsh_specs(prog, scopes[i], "            ") + "            && ret=0\n          ;;\n";
    script += "      esac\n      ;;\n  esac\n  return ret\n}\n";
  }
  script += fmt::format("\n{} \"$@\"\n", fn);
  return script;
}

}  // namespace

std::string completion_script(const char* prog, const CLI::App& app, std::string_view shell) {
  if (shell == "bash") return bash_script(prog, scopes_of(app));
  if (shell == "zsh") return zsh_script(prog, scopes_of(app));
  throw Error(ErrorCategory::usage, "--completion takes bash or zsh, not '" + std::string(shell) + "'");
}

namespace {
// A text to print on standard output instead of running the app (--help-all, --completion),
// thrown from an option's callback out of CLI::App::parse: as --version, it answers before the
// required arguments are checked.
struct PrintInstead {
  std::string text;
};
}  // namespace

int run_app(const char* prog, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.set_version_flag("--version", [prog] { return version_text(prog); },
                       "Print the version, the commit, the CUDA runtime and driver, and the optional parts built in");
  if (!app.get_option_no_throw("--help-all")) {
    CLI::Option* help_all = app.add_flag_callback(
        "--help-all", [&app] { throw PrintInstead{full_help(app)}; },
        "Print this help, then the help of every subcommand");
    if (visible_subcommands(app).empty()) help_all->group("");  // the same as --help: not shown
  }
  if (!app.get_option_no_throw("--completion"))
    app.add_option_function<std::string>(
           "--completion",
           [&app, prog](const std::string& shell) {
             if (shell != "bash" && shell != "zsh") throw CLI::ValidationError("--completion", "takes bash or zsh, not " + shell);
             throw PrintInstead{completion_script(prog, app, shell)};
           },
           "Print a completion script for bash or zsh")
        ->group("");  // for packagers: the build installs the scripts
  try {
    app.parse(argc, argv);
  } catch (const PrintInstead& answer) {
    std::fwrite(answer.text.data(), 1, answer.text.size(), stdout);
    std::fflush(stdout);
    return kSuccess;
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

namespace {
int driver_gpu_count() {
  int n = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", ec), end; !ec && it != end; it.increment(ec))
    ++n;
  return n;
}

// The entries of CUDA_VISIBLE_DEVICES the runtime takes (it stops at the first that names no
// device: "-1", "", a bad UUID), or the driver's device indices when it is unset.
std::vector<std::string> visible_gpus() {
  std::vector<std::string> out;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) {
    for (int d = 0, n = driver_gpu_count(); d < n; ++d) out.push_back(std::to_string(d));
    return out;
  }
  for (std::string_view rest = visible; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (item.empty() || item.front() == '-') break;
    out.emplace_back(item);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}
}  // namespace

int visible_gpu_count() { return int(visible_gpus().size()); }

bool restrict_visible_gpus(const std::vector<int>& ids) {
  const std::vector<std::string> all = visible_gpus();
  std::string list;
  for (int id : ids) {
    if (id < 0 || std::size_t(id) >= all.size()) return false;
    list += (list.empty() ? "" : ",") + all[std::size_t(id)];
  }
  if (list.empty()) return false;
  return ::setenv("CUDA_VISIBLE_DEVICES", list.c_str(), 1) == 0;
}

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
    for (int g = 0, n = driver_gpu_count(); g < n; ++g) gpus.push_back(g);
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
