// wk-crypt: IDEA file encryption on the GPU(s), the CPU or both (the crypt case study of
// Professional CUDA C Programming, chapter 10), in an authenticated container by default or the
// book's headerless format (--raw). Argument parsing, printing and exit codes only; the work is in
// the warpkit library (wk/cipher/idea.hpp, idea_file.hpp, idea_container.hpp).
#include <fmt/core.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app_common.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_container.hpp"
#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/rung.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

constexpr const char* kProg = "wk-crypt";

constexpr const char* kSecurity = R"(Security (read this):
  IDEA is a legacy cipher (1991): a 64-bit block, so keep any one key well below 32 GB of data
  (birthday bound), and prefer a modern authenticated cipher (AES-GCM, ChaCha20-Poly1305) for new
  work. wk-crypt exists to study and reproduce the book's case study.
  The container (the default) authenticates every chunk: a wrong key or passphrase, a wrong
  --mode, a flipped bit, a truncated file and reordered chunks are refused before any plaintext is
  written. --raw files carry no tag: decrypting one with the wrong key or a damaged file gives
  garbage, not an error (ECB notices most wrong keys only through the padding check).
  ECB leaks patterns: equal 8-byte plaintext blocks give equal ciphertext blocks.)";

constexpr const char* kFooter = R"(
Examples:
  wk-crypt keygen secret.key
  wk-crypt encrypt --key secret.key big.tar big.tar.wkc           CTR on every GPU, authenticated
  wk-crypt decrypt --key secret.key big.tar.wkc big.tar           big.tar must not exist yet
  wk-crypt encrypt notes.txt notes.wkc                             asks for a passphrase (twice)
  wk-crypt decrypt --passphrase-file pass.txt notes.wkc notes.txt
  tar c photos | wk-crypt encrypt --key secret.key - photos.tar.wkc   from standard input
  wk-crypt decrypt --key secret.key photos.tar.wkc - | tar x          to standard output
  wk-crypt info big.tar.wkc                                        what a container holds
  wk-crypt encrypt --raw --key secret.key --mode ecb --device cpu a.bin a.ecb   the book's format

Formats:
  KEYFILE    exactly 16 raw bytes (keygen: from OpenSSL's CSPRNG, created with mode 0600).
  container  (default) a 72-byte header (magic WKCRYPT, version, mode, key derivation, chunk size,
             salt, nonce, and an HMAC-SHA-256 tag of the header), then the data in chunks of 64 KiB
             (--tag-chunk-kib), each followed by a 32-byte tag: HMAC-SHA-256 over the SHA-256
             digests of its 1 KiB leaves, its index and a flag marking the last chunk. Keys: HKDF-
             SHA-256 from the key file, or from scrypt(passphrase) (N = 2^17, r = 8, p = 1 by
             default: --scrypt-log-n). docs/guide/wk-crypt.md has the byte layout.
  --raw CTR  an 8-byte random nonce, then the data XORed with the key stream: block i (bytes
             8i..8i+7) is XORed with IDEA_K(nonce + i mod 2^64), nonce and counter taken as
             big-endian 64-bit integers. Same as libgcrypt's GCRY_CIPHER_MODE_CTR with the nonce as
             the initial counter.
  --raw ECB  every 8-byte block encrypted alone (the book's mode), PKCS#7 padding (1..8 bytes)
             unless --no-pad, which needs a whole number of 8-byte blocks.
Files of any size are streamed in batches (--chunk-mib) through the GPU(s) and/or the CPU. IN and
OUT may be - (standard input and output). OUT is written to an unnamed temporary file in its
folder, synced, and renamed into place only on success: a failed tag, a truncated input, bad
padding, a read/write error or a kill (even SIGKILL) leaves no OUT and no temporary file behind
(an existing OUT is kept). Standard output, a FIFO or a device gets each batch once its tags
checked, then the error. A symbolic link OUT stays a link (its target gets the data). Decrypted
files get mode 0600.

Keys and passphrases: --key FILE, or --passphrase-file FILE (its first line), or else, at a
terminal, a passphrase typed without echo (asked twice to encrypt). Key files: a regular file of
exactly 16 bytes; one that others than its owner may read or write (mode 0644, ...) gives a
warning, as ssh does; with --strict-perms it is refused (exit 1). No message quotes the content of
a key, passphrase or data file.

Files never clobbered:
  - OUT may not be IN or the key file, also not through a symbolic or hard link (exit 2).
  - decrypt does not replace an existing OUT unless --force is given (exit 2).
  - keygen does not replace an existing key file unless --force is given (exit 2).

Execution (docs/apod/idea.md): --device auto uses every GPU of --gpus when one is usable, else
the CPU (with a notice). On a GPU the tags are computed on the GPU too. --cpu-percent P has the
CPU do P% of each batch while the GPUs do the rest. --variant runs one rung of the APOD ladder.

Output: the data goes to OUT (or standard output); the summary, notices and progress go to
standard error (-q: none, -v: more detail). `info` prints on standard output.

Exit status: 0 success, 1 failure (a tag that does not check, a wrong key or passphrase, a wrong
--mode, bad input, key file including --strict-perms, I/O, GPU), 2 usage error (also: OUT is IN or
the key file; decrypt onto an existing OUT without --force; no key and no terminal to ask for a
passphrase), 130 interrupted (Ctrl-C, SIGTERM, SIGHUP: the output is left as it was).
)";

struct CryptArgs {
  fs::path key, passphrase_file, in, out;
  std::string mode = "ctr", device = "auto", gpus = "all", variant;
  bool raw = false, no_pad = false, quiet = false, verbose = false, force = false, strict_perms = false;
  double cpu_percent = 0;
  int chunk_mib = 64, tag_chunk_kib = 64, scrypt_log_n = 17;
  CLI::Option* mode_option = nullptr;
};

void add_crypt_options(CLI::App& sub, CryptArgs& a, cipher::IdeaDirection direction) {
  const bool dec = direction == cipher::IdeaDirection::decrypt;
  auto* key = sub.add_option("--key", a.key, "Key file: exactly 16 raw bytes (see keygen)");
  sub.add_option("--passphrase-file", a.passphrase_file,
                 "A passphrase from the first line of FILE instead of a key file (container only)")
      ->excludes(key);
  sub.add_flag("--raw", a.raw, "The book's headerless format: no authentication, --key only");
  sub.add_flag("--strict-perms", a.strict_perms,
               "Refuse a key or passphrase file that others than its owner may read or write (default: a warning)");
  if (dec)
    sub.add_flag("--force", a.force, "Replace an existing OUT (without it, decrypt refuses to replace one)");
  a.mode_option = sub.add_option("--mode", a.mode,
                                 dec ? "ctr or ecb: decrypt only a container of this mode (--raw: the mode it was encrypted in, "
                                       "default ctr)"
                                     : "ctr (default; nonce + counter, any length) or ecb (PKCS#7 padded, leaks patterns)")
                      ->default_val("ctr")
                      ->check(CLI::IsMember({"ctr", "ecb"}));
  sub.add_flag("--no-pad", a.no_pad, "--raw ECB without padding: the input must be a whole number of 8-byte blocks");
  if (!dec) {
    sub.add_option("--tag-chunk-kib", a.tag_chunk_kib, "Container chunk size in KiB, a power of two (1..16384)")
        ->default_val(64)
        ->check(CLI::Range(1, 16384));
    sub.add_option("--scrypt-log-n", a.scrypt_log_n, "Passphrase cost: scrypt N = 2^this (10..20; memory 2^this KiB)")
        ->default_val(17)
        ->check(CLI::Range(10, 20));
  }
  wk::app::add_device_option(sub, a.device);
  sub.add_option("--gpus", a.gpus, "GPUs to use: all, or ids like 0,1")->default_val("all");
  sub.add_option("--cpu-percent", a.cpu_percent, "Share of the data the CPU encrypts alongside the GPUs (0-100)")
      ->default_val(0)
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--variant", a.variant,
                 "APOD ladder rung (" + wk::rung_names(cipher::idea_rungs()) +
                     "); default: the fastest measured on the GPU's architecture");
  sub.add_option("--chunk-mib", a.chunk_mib, "Batch size in MiB for reading, encrypting and writing")
      ->default_val(64)
      ->check(CLI::Range(1, 4096));
  sub.add_flag("-q,--quiet", a.quiet, "No progress bar, notices or summary");
  sub.add_flag("-v,--verbose", a.verbose, "More detail on standard error: the format, the key derivation, the chunks");
  sub.add_option("IN", a.in, "Input file, - for standard input")->required();
  sub.add_option("OUT", a.out,
                 dec ? "Output file (must not exist unless --force; replaced atomically; - is standard output)"
                     : "Output file (replaced atomically; - is standard output)")
      ->required();
  sub.footer(std::string("\n") + kSecurity);
}

// What the user types to change a setting that decided a library error.
std::string flag_hint(cipher::IdeaSetting setting, cipher::IdeaDirection direction) {
  switch (setting) {
    case cipher::IdeaSetting::replace: return " (--force replaces it)";
    case cipher::IdeaSetting::strict_perms: return " (--strict-perms)";
    case cipher::IdeaSetting::mode: return " (--mode)";
    case cipher::IdeaSetting::pad:
      return direction == cipher::IdeaDirection::encrypt ? " (--no-pad; without it, PKCS#7 pads)"
                                                         : " (--no-pad decrypts data encrypted without padding, keeping every byte)";
  }
  return "";
}

// Runs `body`, adding to a library error the flag that changes it: the library says what is
// wrong in its own terms (a setting, the CPU backend), the user needs wk-crypt's name for it.
int with_flags(cipher::IdeaDirection direction, const std::function<int()>& body) {
  try {
    return body();
  } catch (const cipher::IdeaSettingError& e) {
    throw Error(e.category(), e.what() + flag_hint(e.setting(), direction));
  } catch (const Error& e) {
    if (e.category() != ErrorCategory::cuda) throw;
    throw Error(e.category(), std::string(e.what()) + "; --device cpu runs on the CPU instead");
  }
}

// The value of `flag` through `parse`, its usage errors prefixed with the flag.
template <class Parse>
auto parse_flag(const std::string& flag, Parse&& parse) {
  try {
    return parse();
  } catch (const Error& e) {
    throw Error(e.category(), flag + ": " + e.what());
  }
}

// The first line of a passphrase file, without its end of line. Refuses what is not a regular
// file or FIFO, an empty passphrase and (with --strict-perms) a file others may read.
void read_passphrase_file(const fs::path& path, bool strict_perms, std::string& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(ErrorCategory::io, io::printable(path.string()) + ": cannot open the passphrase file: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCategory::io, io::printable(path.string()) + ": is a folder, not a passphrase file");
  if (S_ISREG(st.st_mode)) {
    if (st.st_size > 4096)
      throw Error(ErrorCategory::decode, io::printable(path.string()) + ": " + std::to_string(st.st_size) +
                                             " bytes is no passphrase file (its first line is the passphrase)");
    const std::string exposed = cipher::idea_key_file_exposure(path, static_cast<unsigned>(st.st_mode));
    if (!exposed.empty()) {
      if (strict_perms) throw Error(ErrorCategory::io, exposed + ": refused by the strict permission check");
      wk::app::print_notice(kProg, "warning: " + exposed);
    }
  }
  // read(2) straight into the string's reserved storage: no stream buffer keeps a copy.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    throw Error(ErrorCategory::io, io::printable(path.string()) + ": cannot read the passphrase file: " + std::strerror(errno));
  constexpr std::size_t kMax = 4096;
  out.assign(kMax + 1, '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::read(fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
    if (std::memchr(out.data() + got - static_cast<std::size_t>(r), '\n', static_cast<std::size_t>(r))) break;
  }
  ::close(fd);
  const std::size_t end = std::min(got, std::string_view(out.data(), got).find('\n'));
  OPENSSL_cleanse(out.data() + end, out.size() - end);
  out.resize(end);
  if (end > kMax) {
    OPENSSL_cleanse(out.data(), out.size());
    throw Error(ErrorCategory::decode, io::printable(path.string()) + ": the first line is longer than " + std::to_string(kMax) +
                                           " bytes: no passphrase file");
  }
  if (!out.empty() && out.back() == '\r') out.pop_back();
  if (out.empty()) throw Error(ErrorCategory::decode, io::printable(path.string()) + ": the passphrase (its first line) is empty");
}

// A passphrase typed at the terminal (/dev/tty, so that standard input and output stay free for
// data) without echo, twice to encrypt.
void prompt_passphrase(bool twice, std::string& out) {
  const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty < 0)
    throw Error(ErrorCategory::usage,
                "no key: give --key FILE or --passphrase-file FILE (there is no terminal to type a passphrase at)");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{tty};
  auto ask = [&](const char* prompt) {
    auto line = hash::read_typed_line(tty, tty, prompt, hash::Echo::off);
    if (!line) throw Error(ErrorCategory::usage, "no passphrase typed (end of input); nothing was done");
    return std::move(*line);
  };
  const hash::SecretBuffer first = ask("Passphrase: ");
  if (first.size() == 0) throw Error(ErrorCategory::usage, "the passphrase is empty; nothing was done");
  if (twice && ask("Retype passphrase: ").view() != first.view())
    throw Error(ErrorCategory::usage, "the passphrases differ; nothing was done");
  out.reserve(first.size());
  out.assign(first.view());
}

cipher::IdeaKey read_key(const CryptArgs& a) {
  nvtx::Range r("read-key", nvtx::Color::io);
  cipher::IdeaKeyFileCheck check;
  check.strict_perms = a.strict_perms;
  check.warn = [](const std::string& message) { wk::app::print_notice(kProg, "warning: " + message); };
  return cipher::idea_read_key_file(a.key, check);
}

// Usage errors of the option combination, before any file is opened.
void check_combination(cipher::IdeaDirection direction, const CryptArgs& a) {
  if (a.raw) {
    if (a.key.empty())
      throw Error(ErrorCategory::usage, "--raw needs --key FILE: the headerless format has no passphrase derivation");
    return;
  }
  if (a.no_pad) throw Error(ErrorCategory::usage, "--no-pad applies to --raw ECB only (the container always pads ECB)");
  if (direction == cipher::IdeaDirection::encrypt && (a.tag_chunk_kib & (a.tag_chunk_kib - 1)) != 0)
    throw Error(ErrorCategory::usage, "--tag-chunk-kib must be a power of two, not " + std::to_string(a.tag_chunk_kib));
}

int run_crypt(cipher::IdeaDirection direction, const CryptArgs& a) {
  const bool enc = direction == cipher::IdeaDirection::encrypt;
  nvtx::Range range(enc ? "encrypt" : "decrypt");
  check_combination(direction, a);
  {
    // Before any work: nothing the command reads is what it writes.
    std::vector<io::JobFile> reads{{"the input", a.in}};
    if (!a.key.empty()) reads.push_back({"the key file", a.key});
    if (!a.passphrase_file.empty()) reads.push_back({"the passphrase file", a.passphrase_file});
    const io::JobFile writes[] = {{"the output", a.out}};
    io::check_writes_apart(reads, writes);
  }
  // A container tells how it was sealed: no prompt for a passphrase when it needs a key file.
  if (!enc && !a.raw && a.key.empty() && a.passphrase_file.empty() && a.in != "-") {
    const cipher::ContainerInfo info = cipher::idea_container_info(a.in);
    if (info.header.kdf == cipher::ContainerKdf::key_file)
      throw Error(ErrorCategory::usage, io::printable(a.in.string()) + ": sealed with a key file: give it with --key FILE");
  }
  cipher::IdeaSecret secret;
  if (!a.key.empty()) secret.key = read_key(a);
  else if (!a.passphrase_file.empty()) read_passphrase_file(a.passphrase_file, a.strict_perms, secret.passphrase);
  else prompt_passphrase(enc, secret.passphrase);

  cipher::IdeaExecution exec;
  // The rung names join words with '_'; the older '-' spelling is accepted too.
  exec.rung = a.variant;
  std::replace(exec.rung.begin(), exec.rung.end(), '-', '_');
  if (!exec.rung.empty()) wk::check_rung_name("--variant", cipher::idea_rungs(), exec.rung);
  // --gpus naming GPUs: before CUDA starts, the runtime is shown only those, so its start
  // initializes only them (about 0.25 s for each GPU it sees); they become devices 0 .. k-1 and
  // describe() keeps the ids given. An id that does not exist is left to the check below.
  std::vector<int> named;
  if (a.gpus != "all" && wk::parse_device_choice(a.device) != wk::DeviceChoice::cpu) {
    named = parse_flag("--gpus", [&] { return wk::parse_gpu_list(a.gpus); });
    if (wk::app::restrict_visible_gpus(named)) exec.gpu_labels = named;
  }
  const BackendSelection sel = wk::app::choose_backend(kProg, a.device, a.quiet);
  exec.backend = sel.backend;
  if (sel.backend == Backend::gpu) {
    // "all" stays empty: every GPU for the deployed rung, the first one for the rungs below it
    // (an explicit list of several is an error for those, which says so).
    if (!exec.gpu_labels.empty())
      for (std::size_t i = 0; i < named.size(); ++i) exec.gpus.push_back(int(i));
    else if (a.gpus != "all")
      exec.gpus = parse_flag("--gpus", [&] { return wk::parse_gpu_list(a.gpus, sel.gpu.device_count); });
    exec.cpu_percent = a.cpu_percent;
  }
  std::unique_ptr<cipher::IdeaExecutor> executor;
  {
    nvtx::Range r("setup", nvtx::Color::app);
    executor = std::make_unique<cipher::IdeaExecutor>(exec);
  }
  const cipher::IdeaMode mode = a.mode == "ecb" ? cipher::IdeaMode::ecb : cipher::IdeaMode::ctr;

  constexpr std::uint64_t kMiB = 1 << 20;
  std::error_code ec;
  const auto in_size = a.in == "-" ? 0 : fs::file_size(a.in, ec);
  const bool sized = a.in != "-" && !ec;
  const std::size_t total_mib = sized ? std::max<std::size_t>(1, (in_size + kMiB - 1) / kMiB) : 1;
  wk::app::Progress progress(total_mib, "MiB", !a.quiet && sized && in_size >= 64 * kMiB);
  std::size_t shown = 0;
  auto on_progress = [&](std::uint64_t done, std::uint64_t total) {
    const std::size_t target = done >= total ? total_mib : std::min<std::size_t>(total_mib, done / kMiB);
    for (; shown < target; ++shown) progress.step();
  };
  cipher::IdeaFileResult r;
  std::string format;
  if (a.raw) {
    cipher::IdeaFileOptions options;
    options.mode = mode;
    options.pad = !a.no_pad;
    options.chunk_bytes = std::size_t(a.chunk_mib) << 20;
    // Raw IDEA cannot tell a wrong key: decrypt never replaces existing data unless told to.
    options.replace = enc || a.force;
    r = cipher::idea_crypt_file(direction, a.in, a.out, *secret.key, options, *executor, on_progress);
    format = std::string("raw ") + a.mode + (mode == cipher::IdeaMode::ecb && !options.pad ? ", no padding" : "");
  } else {
    cipher::ContainerOptions options;
    options.mode = mode;
    options.batch_bytes = std::size_t(a.chunk_mib) << 20;
    options.replace = enc || a.force;
    if (enc) {
      options.chunk_log2 = std::countr_zero(static_cast<unsigned>(a.tag_chunk_kib)) + 10;
      options.scrypt.log2_n = a.scrypt_log_n;
      r = cipher::idea_seal_file(a.in, a.out, secret, options, *executor, on_progress);
    } else {
      if (a.mode_option && a.mode_option->count() > 0) options.expect_mode = mode;
      r = cipher::idea_open_file(a.in, a.out, secret, options, *executor, on_progress);
    }
    format = secret.key ? "container, key file" : "container, passphrase";
  }
  progress.finish();
  if (!a.quiet) {
    const double gbps = r.seconds > 0 ? double(r.bytes_in) / r.seconds / 1e9 : 0.0;
    const std::string in_name = a.in == "-" ? "standard input" : io::printable(a.in.string());
    const std::string out_name = a.out == "-" ? "standard output" : io::printable(a.out.string());
    wk::app::print_notice(kProg, fmt::format("{} {} -> {} ({} bytes -> {} bytes, {}) in {:.3f} s, {:.2f} GB/s, on {}",
                                             enc ? "encrypted" : "decrypted", in_name, out_name, r.bytes_in, r.bytes_out,
                                             format, r.seconds, gbps, executor->describe()));
    const fs::path& container = enc ? a.out : a.in;
    if (a.verbose && !a.raw && container != "-") {
      std::error_code st;
      if (fs::is_regular_file(container, st)) {
        const std::string text = cipher::describe_container(cipher::idea_container_info(container));
        for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
          end = text.find('\n', at);
          if (end == std::string::npos) end = text.size();
          wk::app::print_notice(kProg, text.substr(at, end - at));
        }
      }
    }
  }
  return wk::app::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wk-crypt: IDEA file encryption (CTR or ECB, authenticated) on the GPUs, the CPU or both"};
  app.require_subcommand(1);
  app.footer(std::string(kFooter) + "\n" + kSecurity);

  fs::path keyfile;
  bool force = false;
  CLI::App* keygen = app.add_subcommand("keygen", "Write a new random 16-byte key file (mode 0600)");
  keygen->add_option("KEYFILE", keyfile, "Key file to create (mode 0600; a symbolic link is followed)")->required();
  keygen->add_flag("--force", force, "Replace an existing key file (the old key is lost, and with it the data)");

  fs::path info_file;
  CLI::App* info = app.add_subcommand("info", "Print a container's header and what its size says (no key needed)");
  info->add_option("FILE", info_file, "A container, - for standard input")->required();

  CryptArgs enc_args, dec_args;
  CLI::App* enc = app.add_subcommand("encrypt", "Encrypt IN into OUT");
  add_crypt_options(*enc, enc_args, cipher::IdeaDirection::encrypt);
  CLI::App* dec = app.add_subcommand("decrypt", "Decrypt IN into OUT");
  add_crypt_options(*dec, dec_args, cipher::IdeaDirection::decrypt);

  return wk::app::run_app(kProg, app, argc, argv, [&]() -> int {
    wk::app::install_interrupt_handlers(nullptr);  // Ctrl-C: end now, no half-written output left
    nvtx::Range app_range("wk-crypt");
    if (keygen->parsed()) {
      nvtx::Range r("keygen", nvtx::Color::io);
      return with_flags(cipher::IdeaDirection::encrypt, [&] {
        cipher::idea_write_key_file(keyfile, force);
        return wk::app::kSuccess;
      });
    }
    if (info->parsed()) {
      nvtx::Range r("info", nvtx::Color::io);
      const cipher::ContainerInfo ci = cipher::idea_container_info(info_file);
      fmt::print("{}", cipher::describe_container(ci));
      std::fflush(stdout);
      if (!ci.problem.empty()) {
        wk::app::print_notice(kProg, io::printable(info_file.string()) + ": " + ci.problem);
        return wk::app::kSomeFailed;
      }
      return wk::app::kSuccess;
    }
    if (enc->parsed())
      return with_flags(cipher::IdeaDirection::encrypt, [&] { return run_crypt(cipher::IdeaDirection::encrypt, enc_args); });
    if (dec->parsed())
      return with_flags(cipher::IdeaDirection::decrypt, [&] { return run_crypt(cipher::IdeaDirection::decrypt, dec_args); });
    return wk::app::kUsage;
  });
}
