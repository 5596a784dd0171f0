// wk-crypt: IDEA file encryption on the GPU(s), the CPU or both (the crypt case study of
// Professional CUDA C Programming, chapter 10). Argument parsing, printing and exit codes only;
// the work is in the warpkit library (wk/cipher/idea.hpp, wk/cipher/idea_file.hpp).
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "app_common.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/rung.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

constexpr const char* kProg = "wk-crypt";

constexpr const char* kSecurity = R"(Security (read this):
  IDEA is a legacy cipher (1991): a 64-bit block, so keep any one key well below 32 GB of data
  (birthday bound), and prefer a modern authenticated cipher (AES-GCM, ChaCha20-Poly1305) for new
  work. wk-crypt exists to study and reproduce the book's case study.
  Neither mode detects tampering or a wrong key: decrypting with the wrong key or a damaged file
  gives garbage, not an error. (ECB notices most wrong keys only through the padding check.)
  ECB leaks patterns: equal 8-byte plaintext blocks give equal ciphertext blocks.)";

constexpr const char* kFooter = R"(
Examples:
  wk-crypt keygen secret.key
  wk-crypt encrypt --key secret.key big.tar big.tar.idea          CTR on every GPU
  wk-crypt decrypt --key secret.key big.tar.idea big.tar          big.tar must not exist yet
  wk-crypt decrypt --key secret.key --force big.tar.idea big.tar  or: replace it
  wk-crypt encrypt --key secret.key --mode ecb --device cpu a.bin a.ecb
  wk-crypt encrypt --key secret.key --gpus 0,1 --cpu-percent 5 in out

Formats:
  KEYFILE  exactly 16 raw bytes (keygen: from OpenSSL's CSPRNG, created with mode 0600).
  CTR      (default) an 8-byte random nonce, then the data XORed with the key stream: block i
           (bytes 8i..8i+7) is XORed with IDEA_K(nonce + i mod 2^64), nonce and counter taken as
           big-endian 64-bit integers; the last block may be partial. Output = input + 8 bytes.
           Same as libgcrypt's GCRY_CIPHER_MODE_CTR with the nonce as the initial counter.
  ECB      every 8-byte block encrypted alone (the book's mode), PKCS#7 padding (1..8 bytes)
           unless --no-pad, which needs a whole number of 8-byte blocks.
Files of any size are streamed in chunks (--chunk-mib) through the GPU(s) and/or the CPU. OUT
is written to an unnamed temporary file in its folder, synced, and renamed into place only on
success: a truncated input (ECB: not a whole number of blocks; CTR: shorter than its nonce), bad
padding, a read/write error or a kill (even SIGKILL) leaves no OUT and no temporary file behind
(an existing OUT is kept). A symbolic link OUT stays a link (its target gets the data); a FIFO,
a character device or "-" (standard output) is written in place. Decrypted files get mode 0600.

Files never clobbered:
  - OUT may not be IN or the key file, also not through a symbolic or hard link (exit 2, before
    any work).
  - decrypt does not replace an existing OUT unless --force is given (exit 2): a wrong key is not
    detected and would replace good data with garbage. A FIFO or device OUT is always written.
  - keygen does not replace an existing key file unless --force is given (exit 2).

Key files: exactly 16 bytes, a regular file (a FIFO or device is refused without waiting). A key
file that others than its owner may read or write (mode 0644, 0666, ...) gives a warning, as ssh
does; with --strict-perms it is refused (exit 1, nothing written). Keys are created with mode
0600. No message quotes the content of a key or data file.

Execution (docs/apod/idea.md): --device auto uses every GPU of --gpus when one is usable, else
the CPU (with a notice). --cpu-percent P has the CPU encrypt P% of each chunk while the GPUs do
the rest (the book's hybrid; on a fast GPU small shares or none are best). --variant runs one
rung of the APOD ladder instead of the default, for experiments.

Exit status: 0 success, 1 failure (bad input, key file including --strict-perms, I/O, GPU),
2 usage error (also: OUT is IN or the key file; decrypt onto an existing OUT without --force),
130 interrupted (Ctrl-C, SIGTERM, SIGHUP: the output is left as it was, no temporary file
remains).
)";

struct CryptArgs {
  fs::path key, in, out;
  std::string mode = "ctr", device = "auto", gpus = "all", variant;
  bool no_pad = false, quiet = false, force = false, strict_perms = false;
  double cpu_percent = 0;
  int chunk_mib = 64;
};

void add_crypt_options(CLI::App& sub, CryptArgs& a, cipher::IdeaDirection direction) {
  sub.add_option("--key", a.key, "Key file: exactly 16 raw bytes (see keygen)")->required();
  sub.add_flag("--strict-perms", a.strict_perms,
               "Refuse a key file that others than its owner may read or write (default: a warning)");
  if (direction == cipher::IdeaDirection::decrypt)
    sub.add_flag("--force", a.force,
                 "Replace an existing OUT (without it, decrypt refuses: a wrong key is not detected and would "
                 "replace good data with garbage)");
  sub.add_option("--mode", a.mode, "ctr (default; nonce + counter, any length) or ecb (PKCS#7 padded, leaks patterns)")
      ->default_val("ctr")
      ->check(CLI::IsMember({"ctr", "ecb"}));
  sub.add_flag("--no-pad", a.no_pad, "ECB without padding: the input must be a whole number of 8-byte blocks");
  wk::app::add_device_option(sub, a.device);
  sub.add_option("--gpus", a.gpus, "GPUs to use: all, or ids like 0,1")->default_val("all");
  sub.add_option("--cpu-percent", a.cpu_percent, "Share of the data the CPU encrypts alongside the GPUs (0-100)")
      ->default_val(0)
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--variant", a.variant,
                 "APOD ladder rung (" + wk::rung_names(cipher::idea_rungs()) +
                     "); default: the fastest measured on the GPU's architecture");
  sub.add_option("--chunk-mib", a.chunk_mib, "Chunk size in MiB for reading, encrypting and writing")
      ->default_val(64)
      ->check(CLI::Range(1, 4096));
  sub.add_flag("-q,--quiet", a.quiet, "No progress bar, notices or summary");
  sub.add_option("IN", a.in, "Input file")->required();
  sub.add_option("OUT", a.out,
                 direction == cipher::IdeaDirection::decrypt
                     ? "Output file (must not exist unless --force; replaced atomically; - is standard output)"
                     : "Output file (replaced atomically; - is standard output)")
      ->required();
  sub.footer(std::string("\n") + kSecurity);
}

// True when `out` is where standard output goes ("-", /dev/stdout, the file or pipe it names).
bool writes_to_stdout(const fs::path& out) {
  if (out == "-") return true;
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0) return false;
  const auto id = io::identity_of(out);
  return id && *id == io::FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// What the user types to change a setting that decided a library error.
std::string flag_hint(cipher::IdeaSetting setting, cipher::IdeaDirection direction) {
  switch (setting) {
    case cipher::IdeaSetting::replace: return " (--force replaces it)";
    case cipher::IdeaSetting::strict_perms: return " (--strict-perms)";
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

int run_crypt(cipher::IdeaDirection direction, const CryptArgs& a) {
  nvtx::Range range(direction == cipher::IdeaDirection::encrypt ? "encrypt" : "decrypt");
  {
    // Before any work: nothing the command reads is what it writes.
    const io::JobFile reads[] = {{"the input", a.in}, {"the key file", a.key}};
    const io::JobFile writes[] = {{"the output", a.out}};
    io::check_writes_apart(reads, writes);
  }
  cipher::IdeaKey key;
  {
    nvtx::Range r("read-key", nvtx::Color::io);
    cipher::IdeaKeyFileCheck check;
    check.strict_perms = a.strict_perms;
    check.warn = [](const std::string& message) { wk::app::print_notice(kProg, "warning: " + message); };
    key = cipher::idea_read_key_file(a.key, check);
  }
  cipher::IdeaExecution exec;
  // The rung names join words with '_'; the older '-' spelling is accepted too.
  exec.rung = a.variant;
  std::replace(exec.rung.begin(), exec.rung.end(), '-', '_');
  if (!exec.rung.empty()) wk::check_rung_name("--variant", cipher::idea_rungs(), exec.rung);
  const BackendSelection sel = wk::app::choose_backend(kProg, a.device, a.quiet);
  exec.backend = sel.backend;
  if (sel.backend == Backend::gpu) {
    // "all" stays empty: every GPU for the deployed rung, the first one for the rungs below it
    // (an explicit list of several is an error for those, which says so).
    if (a.gpus != "all") exec.gpus = parse_flag("--gpus", [&] { return wk::parse_gpu_list(a.gpus, sel.gpu.device_count); });
    exec.cpu_percent = a.cpu_percent;
  }
  std::unique_ptr<cipher::IdeaExecutor> executor;
  {
    nvtx::Range r("setup", nvtx::Color::app);
    executor = std::make_unique<cipher::IdeaExecutor>(exec);
  }

  cipher::IdeaFileOptions options;
  options.mode = a.mode == "ecb" ? cipher::IdeaMode::ecb : cipher::IdeaMode::ctr;
  options.pad = !a.no_pad;
  options.chunk_bytes = std::size_t(a.chunk_mib) << 20;
  // Raw IDEA cannot tell a wrong key: decrypt never replaces existing data unless told to.
  options.replace = direction == cipher::IdeaDirection::encrypt || a.force;
  const bool summary_to_stderr = writes_to_stdout(a.out);

  constexpr std::uint64_t kMiB = 1 << 20;
  std::error_code ec;
  const auto in_size = fs::file_size(a.in, ec);
  const std::size_t total_mib = ec ? 1 : std::max<std::size_t>(1, (in_size + kMiB - 1) / kMiB);
  wk::app::Progress progress(total_mib, "MiB", !a.quiet && !ec && in_size >= 64 * kMiB);
  std::size_t shown = 0;
  auto on_progress = [&](std::uint64_t done, std::uint64_t total) {
    const std::size_t target = done >= total ? total_mib : std::min<std::size_t>(total_mib, done / kMiB);
    for (; shown < target; ++shown) progress.step();
  };
  const cipher::IdeaFileResult r = cipher::idea_crypt_file(direction, a.in, a.out, key, options, *executor, on_progress);
  progress.finish();
  if (!a.quiet) {
    const double gbps = r.seconds > 0 ? double(r.bytes_in) / r.seconds / 1e9 : 0.0;
    // Not into the data when the output is standard output.
    fmt::print(summary_to_stderr ? stderr : stdout, "{}: {} {} -> {} ({} bytes -> {} bytes, {}{}) in {:.3f} s, {:.2f} GB/s, on {}\n", kProg,
               direction == cipher::IdeaDirection::encrypt ? "encrypted" : "decrypted", io::printable(a.in.string()),
               io::printable(a.out.string()),
               r.bytes_in, r.bytes_out, a.mode, options.mode == cipher::IdeaMode::ecb && !options.pad ? ", no padding" : "",
               r.seconds, gbps, executor->describe());
  }
  return wk::app::kSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"wk-crypt: IDEA file encryption (CTR or ECB) on the GPUs, the CPU or both"};
  app.require_subcommand(1);
  app.footer(std::string(kFooter) + "\n" + kSecurity);

  fs::path keyfile;
  bool force = false;
  CLI::App* keygen = app.add_subcommand("keygen", "Write a new random 16-byte key file (mode 0600)");
  keygen->add_option("KEYFILE", keyfile, "Key file to create (mode 0600; a symbolic link is followed)")->required();
  keygen->add_flag("--force", force, "Replace an existing key file (the old key is lost, and with it the data)");

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
    if (enc->parsed())
      return with_flags(cipher::IdeaDirection::encrypt, [&] { return run_crypt(cipher::IdeaDirection::encrypt, enc_args); });
    if (dec->parsed())
      return with_flags(cipher::IdeaDirection::decrypt, [&] { return run_crypt(cipher::IdeaDirection::decrypt, dec_args); });
    return wk::app::kUsage;
  });
}
