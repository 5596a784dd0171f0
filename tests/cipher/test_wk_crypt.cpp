// wk-crypt end to end on the CPU backend: keygen, round trips of edge sizes in both modes, the
// file formats, errors that name the file and leave no output, exit codes, --help's warnings;
// what it never does to files (docs/file-safety.md): replace a symbolic link or FIFO, write over its key or
// input, let a wrong key replace existing plaintext, leave a temporary after SIGKILL, wait on a
// FIFO key, accept a key others can read without a word, quote key or file content.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "test_support.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_file.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

namespace {

std::string wk_crypt(const std::string& args) { return std::string(WK_CRYPT_EXE) + " " + args; }

std::string random_text(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::size_t count_entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// The names in `dir` that start with '.': temporary files (".NAME.wk-...") or anything else hidden.
std::vector<std::string> hidden_entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind('.', 0) == 0) names.push_back(e.path().filename().string());
  return names;
}

mode_t lstat_mode(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

// Runs `command` with `fifo` read by `cat` into `captured` alongside (the reader gives up after
// 20 s, so that a command that never opens the FIFO does not hang the test).
wk::test::CommandResult run_with_fifo_reader(const fs::path& fifo, const fs::path& captured, const std::string& command) {
  return wk::test::run("{ timeout 20 cat " + sh_quote(fifo.string()) + " > " + sh_quote(captured.string()) + " & } ; " +
                       command + "; rc=$?; wait; exit $rc");
}

// Bytes of a container (the default format) holding `data` bytes of ciphertext in 64 KiB chunks.
std::size_t container_size(std::size_t data) {
  const std::size_t chunks = data == 0 ? 1 : (data + 65535) / 65536;
  return 72 + data + 32 * chunks;
}

struct Fixture {
  wk::test::TempDir dir;
  fs::path key = dir / "k.key";
  Fixture() {
    const auto r = wk::test::run(wk_crypt("keygen " + sh_quote(key.string())));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  wk::test::CommandResult crypt(const std::string& verb, const std::string& opts, const fs::path& in, const fs::path& out) {
    return wk::test::run(wk_crypt(verb + " -q --device cpu --key " + sh_quote(key.string()) + " " + opts + " " +
                                  sh_quote(in.string()) + " " + sh_quote(out.string())));
  }
};

}  // namespace

TEST_CASE("wk-crypt keygen writes 16 random bytes with mode 0600 and keeps existing keys", "[cli][wk-crypt][idea]") {
  Fixture f;
  CHECK(fs::file_size(f.key) == 16);
  struct stat st {};
  REQUIRE(::stat(f.key.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const std::string first = wk::test::read_bytes(f.key);
  auto r = wk::test::run(wk_crypt("keygen " + sh_quote(f.key.string())));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(f.key.string()) != std::string::npos);
  CHECK(r.output.find("--force") != std::string::npos);
  CHECK(wk::test::read_bytes(f.key) == first);
  r = wk::test::run(wk_crypt("keygen --force " + sh_quote(f.key.string())));
  CHECK(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.key) != first);
  CHECK(fs::file_size(f.key) == 16);
}

TEST_CASE("wk-crypt round trips empty, 1-, 7-, 8-, 9-byte and larger files in CTR and ECB, container and raw", "[cli][wk-crypt][idea]") {
  Fixture f;
  const std::size_t sizes[] = {0, 1, 7, 8, 9, 4096, 65536, (std::size_t(5) << 20) + 3};
  struct ModeCase {
    const char* opts;
    bool ctr, pad, raw;
  };
  for (const ModeCase m : {ModeCase{"", true, true, false}, ModeCase{"--mode ecb", false, true, false},
                           ModeCase{"--raw", true, true, true}, ModeCase{"--raw --mode ecb", false, true, true},
                           ModeCase{"--raw --mode ecb --no-pad", false, false, true}})
    for (std::size_t n : sizes) {
      if (!m.pad && n % 8) continue;
      CAPTURE(m.opts, n);
      const std::string data = random_text(n, static_cast<unsigned>(n));
      wk::test::write_bytes(f.dir / "plain", data);
      // --chunk-mib 1 streams the larger file in several chunks.
      auto r = f.crypt("encrypt", std::string(m.opts) + " --chunk-mib 1", f.dir / "plain", f.dir / "cipher");
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      const std::string cipher = wk::test::read_bytes(f.dir / "cipher");
      const std::size_t ciphertext = m.ctr ? n : m.pad ? (n / 8 + 1) * 8 : n;
      CHECK(cipher.size() == (m.raw ? ciphertext + (m.ctr ? 8 : 0) : container_size(ciphertext)));
      if (n >= 16 && m.ctr && m.raw) CHECK(cipher.substr(8, 8) != data.substr(0, 8));
      if (n >= 16 && !m.raw) CHECK(cipher.substr(72, 8) != data.substr(0, 8));
      // --force: "back" holds the previous case's plaintext (decrypt never replaces it silently).
      r = f.crypt("decrypt", std::string(m.opts) + " --chunk-mib 1 --force", f.dir / "cipher", f.dir / "back");
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      REQUIRE(wk::test::read_bytes(f.dir / "back") == data);
      CHECK(count_entries(f.dir.path()) == 4);  // key, plain, cipher, back: no temporaries
    }
}

TEST_CASE("wk-crypt --raw ECB output is the library's ECB of the padded file, --raw CTR starts with its nonce", "[cli][wk-crypt][idea]") {
  Fixture f;
  const std::string data = random_text(8 * 20 + 3, 99);
  wk::test::write_bytes(f.dir / "plain", data);
  REQUIRE(f.crypt("encrypt", "--raw --mode ecb", f.dir / "plain", f.dir / "ecb").exit_code == 0);
  const wk::cipher::IdeaKey key = wk::cipher::idea_read_key_file(f.key);
  std::string padded = data + std::string(5, '\x05');
  std::string expected(padded.size(), '\0');
  wk::cipher::idea_cpu(wk::cipher::idea_ecb_job(key, wk::cipher::IdeaDirection::encrypt),
                       reinterpret_cast<const std::uint8_t*>(padded.data()), reinterpret_cast<std::uint8_t*>(expected.data()),
                       padded.size() / 8);
  CHECK(wk::test::read_bytes(f.dir / "ecb") == expected);

  REQUIRE(f.crypt("encrypt", "--raw", f.dir / "plain", f.dir / "ctr").exit_code == 0);
  const std::string c = wk::test::read_bytes(f.dir / "ctr");
  REQUIRE(c.size() == data.size() + 8);
  const std::uint64_t nonce = wk::cipher::idea_load_be64(reinterpret_cast<const std::uint8_t*>(c.data()));
  const auto sk = wk::cipher::idea_encryption_subkeys(key);
  const std::uint64_t ks = wk::cipher::idea_crypt_u64(nonce + 1, sk);  // block 1
  CHECK(static_cast<std::uint8_t>(c[8 + 8]) == (static_cast<std::uint8_t>(data[8]) ^ static_cast<std::uint8_t>(ks >> 56)));
}

TEST_CASE("wk-crypt errors name the file, exit 1 or 2, and leave no output", "[cli][wk-crypt][idea]") {
  Fixture f;
  auto expect = [&](const std::string& verb, const std::string& opts, const std::string& content, int code,
                    const std::string& what, const std::string& path_in_message) {
    CAPTURE(verb, opts, content.size(), what);
    wk::test::write_bytes(f.dir / "in", content);
    const auto r = f.crypt(verb, opts, f.dir / "in", f.dir / "out");
    INFO(r.output);
    CHECK(r.exit_code == code);
    CHECK(r.output.find(what) != std::string::npos);
    CHECK(r.output.find(path_in_message) != std::string::npos);
    CHECK(!fs::exists(f.dir / "out"));
    CHECK(count_entries(f.dir.path()) == 2);  // key and in
  };
  const std::string in = (f.dir / "in").string();
  expect("decrypt", "--raw", "12345", 1, "shorter than the 8-byte CTR nonce", in);
  expect("decrypt", "--raw --mode ecb", std::string(13, 'x'), 1, "not a whole number of 8-byte blocks", in);
  expect("encrypt", "--raw --mode ecb --no-pad", std::string(9, 'x'), 1, "which ECB without padding needs (--no-pad", in);
  expect("decrypt", "", "12345", 1, "shorter than the 72-byte container header", in);
  expect("decrypt", "", std::string(100, 'x'), 1, "not a wk-crypt container", in);
  expect("decrypt", "", std::string(100, 'x'), 1, "decrypted with --raw", in);
  // ECB of a block ending in 0, decrypted with padding: always bad padding.
  {
    const wk::cipher::IdeaKey key = wk::cipher::idea_read_key_file(f.key);
    std::string block(8, '\0'), c(8, '\0');
    wk::cipher::idea_cpu(wk::cipher::idea_ecb_job(key, wk::cipher::IdeaDirection::encrypt),
                         reinterpret_cast<const std::uint8_t*>(block.data()), reinterpret_cast<std::uint8_t*>(c.data()), 1);
    expect("decrypt", "--raw --mode ecb", c, 1, "bad padding", in);
    expect("decrypt", "--raw --mode ecb", c, 1, "(--no-pad decrypts data encrypted without padding", in);
  }
  // Bad key files: wrong size, missing.
  wk::test::write_bytes(f.dir / "short.key", std::string(15, 'k'));
  {
    wk::test::write_bytes(f.dir / "in", "hello");
    auto r = wk::test::run(wk_crypt("encrypt -q --device cpu --key " + sh_quote((f.dir / "short.key").string()) + " " +
                                    sh_quote(in) + " " + sh_quote((f.dir / "out").string())));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find((f.dir / "short.key").string()) != std::string::npos);
    CHECK(r.output.find("exactly 16 raw bytes") != std::string::npos);
    r = wk::test::run(wk_crypt("encrypt -q --device cpu --key " + sh_quote((f.dir / "none.key").string()) + " " +
                               sh_quote(in) + " " + sh_quote((f.dir / "out").string())));
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("none.key") != std::string::npos);
    CHECK(!fs::exists(f.dir / "out"));
  }
  // A missing input; usage errors.
  auto r = f.crypt("encrypt", "", f.dir / "missing", f.dir / "out");
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("missing") != std::string::npos);
  CHECK(f.crypt("encrypt", "--mode cbc", f.dir / "in", f.dir / "out").exit_code == 2);
  CHECK(f.crypt("encrypt", "--cpu-percent 150", f.dir / "in", f.dir / "out").exit_code == 2);
  r = f.crypt("encrypt", "--variant fastest", f.dir / "in", f.dir / "out");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--variant: unknown rung 'fastest' (known: parallelized, no_output_upload, "
                                       "overlapped, constant_key, coarsened, deployed)"));
  CHECK(f.crypt("encrypt", "", f.dir / "in", f.dir / "in").exit_code == 2);
  CHECK(wk::test::run(wk_crypt("")).exit_code == 2);
  CHECK(!fs::exists(f.dir / "out"));
  // The rung names, and their older '-' spelling, are accepted (the CPU runs no rung).
  for (const char* rung : {"no_output_upload", "no-output-upload"}) {
    CAPTURE(rung);
    r = f.crypt("encrypt", std::string("--variant ") + rung, f.dir / "in", f.dir / "out");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(fs::remove(f.dir / "out"));
  }
}

TEST_CASE("wk-crypt --help warns about ECB, raw files' tampering and wrong keys, IDEA's age, and defines the formats", "[cli][wk-crypt][idea]") {
  for (const char* args : {"--help", "encrypt --help"}) {
    const auto r = wk::test::run(wk_crypt(args));
    CAPTURE(args);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("ECB leaks patterns") != std::string::npos);
    CHECK(r.output.find("--raw files carry no tag") != std::string::npos);
    CHECK(r.output.find("authenticates every chunk") != std::string::npos);
    CHECK(r.output.find("legacy cipher") != std::string::npos);
  }
  const auto r = wk::test::run(wk_crypt("--help"));
  CHECK(r.output.find("nonce + i mod 2^64") != std::string::npos);
  CHECK(r.output.find("PKCS#7") != std::string::npos);
  CHECK(r.output.find("HMAC-SHA-256") != std::string::npos);
  CHECK(r.output.find("scrypt") != std::string::npos);
}

TEST_CASE("wk-crypt on hostile outputs: a full disk, an output that is a folder, names with dashes and newlines", "[cli][wk-crypt][idea][hostile]") {
  Fixture f;
  const fs::path work = f.dir / "work";
  fs::create_directories(work);
  wk::test::write_bytes(work / "big.bin", random_text(64 * 1024, 5));

  // A full disk (a 16 KiB file-size limit, SIGXFSZ ignored): exit 1 naming the output, which
  // does not appear, and no temporary file.
  const auto full = wk::test::run("trap '' XFSZ; ulimit -f 32; " +
                                  wk_crypt("encrypt -q --device cpu --key " + sh_quote(f.key.string()) + " " +
                                           sh_quote((work / "big.bin").string()) + " " + sh_quote((work / "big.idea").string())));
  INFO(full.output);
  CHECK(full.exit_code == 1);
  CHECK_THAT(full.output, Catch::Contains("big.idea"));
  CHECK_FALSE(fs::exists(work / "big.idea"));
  CHECK(count_entries(work) == 1);

  // The output is a folder: refused, the folder untouched.
  fs::create_directories(work / "out.idea");
  const auto folder = f.crypt("encrypt", "", work / "big.bin", work / "out.idea");
  INFO(folder.output);
  CHECK(folder.exit_code == 2);
  CHECK_THAT(folder.output, Catch::Contains("out.idea: is a folder"));
  CHECK(fs::is_directory(work / "out.idea"));

  // Names with a leading dash and a newline round trip.
  wk::test::write_bytes(work / "-in\nfile", "secret bytes");
  const auto enc = wk::test::run("cd " + sh_quote(work.string()) + " && " +
                                 wk_crypt("encrypt -q --device cpu --key " + sh_quote(f.key.string()) + " -- " + sh_quote("-in\nfile") + " " + sh_quote("-x.idea")));
  INFO(enc.output);
  REQUIRE(enc.exit_code == 0);
  const auto dec = wk::test::run("cd " + sh_quote(work.string()) + " && " +
                                 wk_crypt("decrypt -q --device cpu --key " + sh_quote(f.key.string()) + " -- " + sh_quote("-x.idea") + " " + sh_quote("-y")));
  INFO(dec.output);
  REQUIRE(dec.exit_code == 0);
  CHECK(wk::test::read_bytes(work / "-y") == "secret bytes");
}

TEST_CASE("wk-crypt writes through a symbolic link to its target, into a FIFO and to standard output in place", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  const std::string data = random_text(100000, 31);
  wk::test::write_bytes(f.dir / "plain", data);

  // A link to an existing file: the target gets the ciphertext, the link stays a link.
  wk::test::write_bytes(f.dir / "target.idea", "previous contents");
  fs::create_symlink("target.idea", f.dir / "link.idea");
  auto r = f.crypt("encrypt", "", f.dir / "plain", f.dir / "link.idea");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(S_ISLNK(lstat_mode(f.dir / "link.idea")));
  CHECK(fs::read_symlink(f.dir / "link.idea") == "target.idea");
  CHECK(fs::file_size(f.dir / "target.idea") == container_size(data.size()));
  r = f.crypt("decrypt", "", f.dir / "link.idea", f.dir / "back");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "back") == data);

  // A dangling link: the file it names is created (mode 0600 for plaintext), the link stays.
  fs::create_symlink("made.out", f.dir / "dangling");
  r = f.crypt("decrypt", "", f.dir / "target.idea", f.dir / "dangling");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(S_ISLNK(lstat_mode(f.dir / "dangling")));
  CHECK(wk::test::read_bytes(f.dir / "made.out") == data);
  CHECK((lstat_mode(f.dir / "made.out") & 0777) == 0600);

  // A FIFO read by another process: written in place, still a FIFO afterwards.
  REQUIRE(::mkfifo((f.dir / "pipe").c_str(), 0600) == 0);
  r = run_with_fifo_reader(f.dir / "pipe", f.dir / "captured.idea",
                           wk_crypt("encrypt -q --device cpu --key " + sh_quote(f.key.string()) + " " +
                                    sh_quote((f.dir / "plain").string()) + " " + sh_quote((f.dir / "pipe").string())));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(S_ISFIFO(lstat_mode(f.dir / "pipe")));
  REQUIRE(fs::file_size(f.dir / "captured.idea") == container_size(data.size()));
  r = f.crypt("decrypt", "--force", f.dir / "captured.idea", f.dir / "back");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "back") == data);

  // "-": standard output; the summary goes to standard error, not into the data.
  r = wk::test::run("cd " + sh_quote(f.dir.path().string()) + " && { " +
                    wk_crypt("encrypt --device cpu --key " + sh_quote(f.key.string()) + " plain - > stdout.idea; }"));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("encrypted"));
  CHECK_FALSE(fs::exists(f.dir / "-"));
  REQUIRE(fs::file_size(f.dir / "stdout.idea") == container_size(data.size()));
  r = f.crypt("decrypt", "--force", f.dir / "stdout.idea", f.dir / "back");
  REQUIRE(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "back") == data);
  CHECK(hidden_entries(f.dir.path()).empty());
}

TEST_CASE("wk-crypt refuses an output that is the key file or the input, also through links, before any work", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  wk::test::write_bytes(f.dir / "plain.bin", random_text(5000, 32));
  const std::string key_bytes = wk::test::read_bytes(f.key);
  const std::string plain_bytes = wk::test::read_bytes(f.dir / "plain.bin");
  fs::create_symlink("k.key", f.dir / "key-link");
  fs::create_hard_link(f.key, f.dir / "key-hard");
  fs::create_symlink("plain.bin", f.dir / "plain-link");
  fs::create_hard_link(f.dir / "plain.bin", f.dir / "plain-hard");
  const std::size_t entries = count_entries(f.dir.path());

  struct Case {
    const char* verb;
    const char* opts;
    const char* out;
    const char* role;
  };
  for (const Case c : {Case{"encrypt", "", "k.key", "the key file"}, Case{"encrypt", "", "key-link", "the key file"},
                       Case{"encrypt", "", "key-hard", "the key file"}, Case{"decrypt", "--force", "k.key", "the key file"},
                       Case{"encrypt", "--mode ecb", "plain-link", "the input"}, Case{"encrypt", "", "plain-hard", "the input"},
                       Case{"decrypt", "--force", "plain-hard", "the input"}}) {
    CAPTURE(c.verb, c.opts, c.out);
    const auto r = f.crypt(c.verb, c.opts, f.dir / "plain.bin", f.dir / c.out);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.out) && Catch::Contains("the output would overwrite") && Catch::Contains(c.role));
    CHECK(wk::test::read_bytes(f.key) == key_bytes);
    CHECK(wk::test::read_bytes(f.dir / "plain.bin") == plain_bytes);
    CHECK((lstat_mode(f.key) & 0777) == 0600);
    CHECK(S_ISLNK(lstat_mode(f.dir / "key-link")));
    CHECK(S_ISLNK(lstat_mode(f.dir / "plain-link")));
    CHECK(count_entries(f.dir.path()) == entries);  // no output, no temporary
  }
  // The key file as its own output, named through a link: refused before the key is read (no
  // warning about its mode, which is checked only when the key is read).
  ::chmod(f.key.c_str(), 0644);
  const auto r = f.crypt("encrypt", "", f.dir / "plain.bin", f.dir / "key-link");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, !Catch::Contains("warning"));
  CHECK(wk::test::read_bytes(f.key) == key_bytes);
}

TEST_CASE("wk-crypt decrypt does not replace an existing output without --force: a wrong key cannot destroy good data", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  const std::string data = random_text(20000, 33);
  wk::test::write_bytes(f.dir / "big.tar", data);
  REQUIRE(f.crypt("encrypt", "", f.dir / "big.tar", f.dir / "big.tar.idea").exit_code == 0);
  // Encryption still replaces its output (the plaintext is kept by the user).
  REQUIRE(f.crypt("encrypt", "", f.dir / "big.tar", f.dir / "big.tar.idea").exit_code == 0);
  const fs::path other = f.dir / "other.key";
  REQUIRE(wk::test::run(wk_crypt("keygen " + sh_quote(other.string()))).exit_code == 0);
  fs::create_symlink("big.tar", f.dir / "tar-link");
  const std::size_t entries = count_entries(f.dir.path());

  // The README's pattern with the wrong key: refused, the good file untouched.
  for (const char* out : {"big.tar", "tar-link"}) {
    CAPTURE(out);
    const auto r = wk::test::run(wk_crypt("decrypt -q --device cpu --key " + sh_quote(other.string()) + " " +
                                          sh_quote((f.dir / "big.tar.idea").string()) + " " + sh_quote((f.dir / out).string())));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains((f.dir / out).string()) && Catch::Contains("already exists") &&
                             Catch::Contains("--force replaces it"));
    CHECK(wk::test::read_bytes(f.dir / "big.tar") == data);
    CHECK(S_ISLNK(lstat_mode(f.dir / "tar-link")));
    CHECK(count_entries(f.dir.path()) == entries);
  }
  // ECB too, and with the right key.
  CHECK(f.crypt("decrypt", "", f.dir / "big.tar.idea", f.dir / "big.tar").exit_code == 2);
  CHECK(wk::test::read_bytes(f.dir / "big.tar") == data);

  // With --force and a wrong key, the container is refused and the good file kept.
  auto r = wk::test::run(wk_crypt("decrypt -q --force --device cpu --key " + sh_quote(other.string()) + " " +
                                  sh_quote((f.dir / "big.tar.idea").string()) + " " + sh_quote((f.dir / "big.tar").string())));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("wrong key"));
  CHECK(wk::test::read_bytes(f.dir / "big.tar") == data);
  // A --raw file: --force replaces it (with garbage, for a wrong key: raw IDEA cannot tell).
  REQUIRE(f.crypt("encrypt", "--raw", f.dir / "big.tar", f.dir / "big.tar.raw").exit_code == 0);
  r = wk::test::run(wk_crypt("decrypt -q --raw --force --device cpu --key " + sh_quote(other.string()) + " " +
                             sh_quote((f.dir / "big.tar.raw").string()) + " " + sh_quote((f.dir / "big.tar").string())));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(fs::file_size(f.dir / "big.tar") == data.size());
  CHECK(wk::test::read_bytes(f.dir / "big.tar") != data);
  r = f.crypt("decrypt", "--force", f.dir / "big.tar.idea", f.dir / "tar-link");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "big.tar") == data);
  CHECK(S_ISLNK(lstat_mode(f.dir / "tar-link")));

  // A FIFO or standard output holds no data to lose: written without --force.
  REQUIRE(::mkfifo((f.dir / "pipe").c_str(), 0600) == 0);
  r = run_with_fifo_reader(f.dir / "pipe", f.dir / "from-pipe",
                           wk_crypt("decrypt -q --device cpu --key " + sh_quote(f.key.string()) + " " +
                                    sh_quote((f.dir / "big.tar.idea").string()) + " " + sh_quote((f.dir / "pipe").string())));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "from-pipe") == data);
  r = wk::test::run("{ " + wk_crypt("decrypt -q --device cpu --key " + sh_quote(f.key.string()) + " " +
                                    sh_quote((f.dir / "big.tar.idea").string()) + " - > " +
                                    sh_quote((f.dir / "from-stdout").string())) + "; }");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "from-stdout") == data);
  // --help says so.
  const auto help = wk::test::run(wk_crypt("decrypt --help"));
  CHECK_THAT(help.output, Catch::Contains("--force"));
  CHECK(hidden_entries(f.dir.path()).empty());
}

TEST_CASE("wk-crypt killed with SIGKILL or hung up (SIGHUP) mid-run leaves no temporary file and the previous output as it was", "[cli][wk-crypt][idea][files]") {
  // SIGKILL: nothing can run, so the temporary file must have no name; SIGHUP (a closed terminal):
  // handled as SIGTERM, exit status 130.
  const int sig = GENERATE(SIGKILL, SIGHUP);
  CAPTURE(sig);
  Fixture f;
  // 256 MiB of zeros, sparse: read fast, encrypted in 1 MiB chunks for a second or more.
  const fs::path big = f.dir / "big.bin";
  {
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(256) << 20) == 0);
    ::close(fd);
  }
  const fs::path out = f.dir / "big.idea";
  wk::test::write_bytes(out, "previous output");

  const std::string exe = WK_CRYPT_EXE, key = f.key.string(), in = big.string(), out_s = out.string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::execl(exe.c_str(), exe.c_str(), "encrypt", "-q", "--device", "cpu", "--chunk-mib", "1", "--key", key.c_str(),
            in.c_str(), out_s.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until it has written some of the output (its write count in /proc), then kill it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::uint64_t written = 0;
  int status = 0;
  bool exited = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::ifstream io("/proc/" + std::to_string(pid) + "/io");
    std::string name;
    std::uint64_t value = 0;
    while (io >> name >> value)
      if (name == "wchar:") written = value;
    if (written >= (std::uint64_t(4) << 20)) break;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (!exited) {
    ::kill(pid, sig);
    REQUIRE(::waitpid(pid, &status, 0) == pid);
  }
  INFO("bytes written before the signal: " << written);
  REQUIRE_FALSE(exited);  // signalled mid-run, not finished before
  if (sig == SIGKILL) {
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
  } else {
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
  }
  CHECK(hidden_entries(f.dir.path()).empty());
  CHECK(wk::test::read_bytes(out) == "previous output");
  CHECK(count_entries(f.dir.path()) == 3);  // key, big.bin, big.idea
}

TEST_CASE("wk-crypt refuses a FIFO, a device or an oversized file as key or input at once, without reading it", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  wk::test::write_bytes(f.dir / "plain", "some data");
  REQUIRE(::mkfifo((f.dir / "key.fifo").c_str(), 0600) == 0);
  REQUIRE(::mkfifo((f.dir / "in.fifo").c_str(), 0600) == 0);
  {
    const int fd = ::open((f.dir / "huge.key").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(1) << 30) == 0);  // 1 GiB, sparse
    ::close(fd);
  }
  struct Case {
    fs::path key, in;
    const char* what;
  };
  for (const Case& c : {Case{f.dir / "key.fifo", f.dir / "plain", "not a regular file (a FIFO)"},
                        Case{"/dev/zero", f.dir / "plain", "not a regular file (a character device)"},
                        Case{f.dir / "huge.key", f.dir / "plain", "exactly 16 raw bytes"},
                        Case{f.key, f.dir / "in.fifo", "not a regular file (a FIFO)"}}) {
    CAPTURE(c.key, c.in);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = wk::test::run("timeout -s KILL 10 " + wk_crypt("encrypt -q --device cpu --key " + sh_quote(c.key.string()) + " " +
                                                                 sh_quote(c.in.string()) + " " + sh_quote((f.dir / "out").string())));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(seconds < 5);  // a blocking open would have waited for the 10 s timeout
    CHECK_THAT(r.output, Catch::Contains(c.what));
    CHECK_THAT(r.output, Catch::Contains(c.key == f.key ? c.in.string() : c.key.string()));
    CHECK_FALSE(fs::exists(f.dir / "out"));
  }
  CHECK(S_ISFIFO(lstat_mode(f.dir / "key.fifo")));
}

TEST_CASE("wk-crypt warns about key files others may read or write, --strict-perms refuses them", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  wk::test::write_bytes(f.dir / "plain", "some data");
  struct Case {
    mode_t mode;
    const char* says;  // "" for no warning
  };
  for (const Case c : {Case{0644, "is readable by others (mode 0644); chmod 600 it"},
                       Case{0666, "is readable and writable by others (mode 0666); chmod 600 it"},
                       Case{0640, "is readable by others (mode 0640)"}, Case{0620, "is writable by others (mode 0620)"},
                       Case{0600, ""}, Case{0400, ""}}) {
    CAPTURE(c.mode);
    REQUIRE(::chmod(f.key.c_str(), c.mode) == 0);
    std::error_code ec;
    fs::remove(f.dir / "out", ec);
    // A warning even with -q (it is not a notice), on standard error, naming the file.
    auto r = wk::test::run("{ " + wk_crypt("encrypt -q --device cpu --key " + sh_quote(f.key.string()) + " " +
                                           sh_quote((f.dir / "plain").string()) + " " + sh_quote((f.dir / "out").string())) +
                           " 2>&1 >/dev/null; }");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(fs::exists(f.dir / "out"));
    if (*c.says) CHECK_THAT(r.output, Catch::Contains("wk-crypt: warning: " + f.key.string() + " " + c.says));
    else CHECK(r.output.empty());

    fs::remove(f.dir / "out", ec);
    r = f.crypt("encrypt", "--strict-perms", f.dir / "plain", f.dir / "out");
    INFO(r.output);
    if (*c.says) {
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.output, Catch::Contains(f.key.string()) && Catch::Contains("--strict-perms") && Catch::Contains("chmod 600"));
      CHECK_FALSE(fs::exists(f.dir / "out"));
      CHECK(count_entries(f.dir.path()) == 2);
    } else {
      CHECK(r.exit_code == 0);
      CHECK(fs::exists(f.dir / "out"));
    }
  }
  // decrypt too.
  REQUIRE(::chmod(f.key.c_str(), 0644) == 0);
  REQUIRE(f.crypt("encrypt", "", f.dir / "plain", f.dir / "c").exit_code == 0);
  auto r = f.crypt("decrypt", "--strict-perms", f.dir / "c", f.dir / "back");
  CHECK(r.exit_code == 1);
  CHECK_FALSE(fs::exists(f.dir / "back"));
  r = f.crypt("decrypt", "", f.dir / "c", f.dir / "back");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("warning") && Catch::Contains("(mode 0644)"));
  const auto help = wk::test::run(wk_crypt("encrypt --help"));
  CHECK_THAT(help.output, Catch::Contains("--strict-perms"));
}

TEST_CASE("wk-crypt error messages quote no key or file content, and escape control bytes in names", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  const std::string key_text = "KEYBYTES-SECRET!";  // 16 bytes
  wk::test::write_bytes(f.dir / "text.key", key_text);
  ::chmod((f.dir / "text.key").c_str(), 0600);
  wk::test::write_bytes(f.dir / "long.key", key_text + "X");
  wk::test::write_bytes(f.dir / "plain", "PLAINTEXT-SECRET-01234");        // 22 bytes: not whole blocks
  wk::test::write_bytes(f.dir / "cipher", "CIPHERTEXT-SECRET-BYTES!");     // 24 bytes: bad padding
  wk::test::write_bytes(f.dir / "short", "NONCE7!");                       // shorter than a CTR nonce
  const std::string key = sh_quote((f.dir / "text.key").string());
  auto verb = [&](const std::string& v, const std::string& key_arg, const std::string& args) {
    return wk::test::run("cd " + sh_quote(f.dir.path().string()) + " && " +
                         wk_crypt(v + " -q --device cpu --key " + key_arg + " " + args));
  };
  const wk::test::CommandResult results[] = {
      verb("encrypt", sh_quote((f.dir / "long.key").string()), "plain out"),
      verb("encrypt", key, "--mode ecb --no-pad plain out"),
      verb("decrypt", key, "--mode ecb cipher out"),
      verb("decrypt", key, "short out"),
      verb("encrypt", key, "plain text.key"),
      verb("decrypt", key, "cipher plain"),
  };
  for (const auto& r : results) {
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.output, !Catch::Contains("KEYBYTES") && !Catch::Contains("SECRET") && !Catch::Contains("NONCE7"));
  }
  ::chmod((f.dir / "text.key").c_str(), 0644);
  const auto strict = verb("encrypt", key, "--strict-perms plain out");
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.output, !Catch::Contains("KEYBYTES"));

  // A name with an escape sequence and a newline is shown escaped, not raw.
  const std::string evil = "bad\033]0;title\007\nname";
  const auto r = verb("encrypt", key, sh_quote(evil) + " out");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find('\033') == std::string::npos);
  CHECK_THAT(r.output, Catch::Contains("bad\\033]0;title\\007\\nname"));
  CHECK_FALSE(fs::exists(f.dir / "out"));
}

TEST_CASE("wk-crypt streams standard input to standard output, talks on standard error only, and info reads the header", "[cli][wk-crypt][idea][files]") {
  Fixture f;
  const std::string data = random_text(200000, 71);
  wk::test::write_bytes(f.dir / "plain", data);
  const std::string key = sh_quote(f.key.string());
  const std::string dir = sh_quote(f.dir.path().string());
  // A pipe in and out, both ways; the summaries go to a file of their own.
  // (In braces: run() adds its own redirections after the command line.)
  auto r = wk::test::run("{ cd " + dir + " && cat plain | " + wk_crypt("encrypt --device cpu --key " + key + " - -") +
                         " 2> enc.err | " + wk_crypt("decrypt --device cpu --key " + key + " - -") + " > back 2> dec.err; }");
  INFO(r.output);
  INFO(wk::test::read_bytes(f.dir / "enc.err"));
  INFO(wk::test::read_bytes(f.dir / "dec.err"));
  REQUIRE(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "back") == data);
  CHECK_THAT(wk::test::read_bytes(f.dir / "enc.err"), Catch::Contains("encrypted standard input -> standard output"));
  CHECK_THAT(wk::test::read_bytes(f.dir / "dec.err"), Catch::Contains("decrypted standard input -> standard output"));
  // --raw streams too, both modes; a truncated raw ECB stream is refused at its end, nothing kept.
  for (const char* mode : {"--mode ctr", "--mode ecb"}) {
    CAPTURE(mode);
    const std::string opts = std::string("-q --raw --device cpu ") + mode + " --key " + key;
    r = wk::test::run("{ cd " + dir + " && cat plain | " + wk_crypt("encrypt " + opts + " - -") + " | " +
                      wk_crypt("decrypt " + opts + " --force - back") + "; }");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(wk::test::read_bytes(f.dir / "back") == data);
  }
  r = wk::test::run("{ cd " + dir + " && head -c 13 plain | " +
                    wk_crypt("decrypt -q --raw --device cpu --mode ecb --key " + key + " - cut-back") + "; }");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("standard input: truncated or not ECB ciphertext: 13 bytes"));
  CHECK(!fs::exists(f.dir / "cut-back"));
  // A file output: nothing on standard output, the summary on standard error; -q: nothing at all.
  r = wk::test::run("{ cd " + dir + " && " + wk_crypt("encrypt --device cpu --key " + key + " plain sealed") + " > out.txt 2> err.txt; }");
  REQUIRE(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "out.txt").empty());
  CHECK_THAT(wk::test::read_bytes(f.dir / "err.txt"), Catch::Contains("wk-crypt: encrypted plain -> sealed"));
  r = wk::test::run("{ cd " + dir + " && " + wk_crypt("encrypt -q --device cpu --key " + key + " plain sealed") + " > out.txt 2> err.txt; }");
  REQUIRE(r.exit_code == 0);
  CHECK(wk::test::read_bytes(f.dir / "out.txt").empty());
  CHECK(wk::test::read_bytes(f.dir / "err.txt").empty());
  // -v adds the container's header, one line each.
  r = wk::test::run("{ cd " + dir + " && " + wk_crypt("encrypt -v --device cpu --key " + key + " plain sealed") + " > out.txt 2> err.txt; }");
  REQUIRE(r.exit_code == 0);
  const std::string verbose = wk::test::read_bytes(f.dir / "err.txt");
  CHECK_THAT(verbose, Catch::Contains("wk-crypt: cipher:      IDEA-CTR") && Catch::Contains("wk-crypt: chunks:      4 of up to 64 KiB"));
  CHECK(verbose.find("\\n") == std::string::npos);
  // info: the header on standard output, exit 0; a raw file or a cut header: exit 1.
  r = wk::test::run("{ cd " + dir + " && " + wk_crypt("info sealed") + " 2> err.txt; }");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("wk-crypt container, version 1") && Catch::Contains("plaintext:   200000 bytes") &&
                           Catch::Contains("a key file (HKDF-SHA-256)"));
  REQUIRE(f.crypt("encrypt", "--raw", f.dir / "plain", f.dir / "raw").exit_code == 0);
  r = wk::test::run(wk_crypt("info " + sh_quote((f.dir / "raw").string())));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("not a wk-crypt container"));
  const std::string sealed = wk::test::read_bytes(f.dir / "sealed");
  wk::test::write_bytes(f.dir / "cut", sealed.substr(0, 72 + (65536 + 32) + 10));  // 10 bytes into chunk 1
  r = wk::test::run(wk_crypt("info " + sh_quote((f.dir / "cut").string())));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("too short for its 32-byte tag"));
}
