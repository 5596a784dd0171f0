// wk-crypt end to end on the CPU backend: keygen, round trips of edge sizes in both modes, the
// file formats, errors that name the file and leave no output, exit codes, --help's warnings.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <random>

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

TEST_CASE("wk-crypt round trips empty, 1-, 7-, 8-, 9-byte and larger files in CTR and ECB", "[cli][wk-crypt][idea]") {
  Fixture f;
  const std::size_t sizes[] = {0, 1, 7, 8, 9, 4096, (std::size_t(5) << 20) + 3};
  struct ModeCase {
    const char* opts;
    bool ctr, pad;
  };
  for (const ModeCase m : {ModeCase{"", true, true}, ModeCase{"--mode ecb", false, true}, ModeCase{"--mode ecb --no-pad", false, false}})
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
      CHECK(cipher.size() == (m.ctr ? n + 8 : m.pad ? (n / 8 + 1) * 8 : n));
      if (n >= 16 && m.ctr) CHECK(cipher.substr(8, 8) != data.substr(0, 8));
      r = f.crypt("decrypt", std::string(m.opts) + " --chunk-mib 1", f.dir / "cipher", f.dir / "back");
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      REQUIRE(wk::test::read_bytes(f.dir / "back") == data);
      CHECK(count_entries(f.dir.path()) == 4);  // key, plain, cipher, back: no temporaries
    }
}

TEST_CASE("wk-crypt ECB output is the library's ECB of the padded file; CTR starts with its nonce", "[cli][wk-crypt][idea]") {
  Fixture f;
  const std::string data = random_text(8 * 20 + 3, 99);
  wk::test::write_bytes(f.dir / "plain", data);
  REQUIRE(f.crypt("encrypt", "--mode ecb", f.dir / "plain", f.dir / "ecb").exit_code == 0);
  const wk::cipher::IdeaKey key = wk::cipher::idea_read_key_file(f.key);
  std::string padded = data + std::string(5, '\x05');
  std::string expected(padded.size(), '\0');
  wk::cipher::idea_cpu(wk::cipher::idea_ecb_job(key, wk::cipher::IdeaDirection::encrypt),
                       reinterpret_cast<const std::uint8_t*>(padded.data()), reinterpret_cast<std::uint8_t*>(expected.data()),
                       padded.size() / 8);
  CHECK(wk::test::read_bytes(f.dir / "ecb") == expected);

  REQUIRE(f.crypt("encrypt", "", f.dir / "plain", f.dir / "ctr").exit_code == 0);
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
  expect("decrypt", "", "12345", 1, "shorter than the 8-byte CTR nonce", in);
  expect("decrypt", "--mode ecb", std::string(13, 'x'), 1, "not a whole number of 8-byte blocks", in);
  expect("encrypt", "--mode ecb --no-pad", std::string(9, 'x'), 1, "--no-pad", in);
  // ECB of a block ending in 0, decrypted with padding: always bad padding.
  {
    const wk::cipher::IdeaKey key = wk::cipher::idea_read_key_file(f.key);
    std::string block(8, '\0'), c(8, '\0');
    wk::cipher::idea_cpu(wk::cipher::idea_ecb_job(key, wk::cipher::IdeaDirection::encrypt),
                         reinterpret_cast<const std::uint8_t*>(block.data()), reinterpret_cast<std::uint8_t*>(c.data()), 1);
    expect("decrypt", "--mode ecb", c, 1, "bad padding", in);
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
  CHECK(f.crypt("encrypt", "--variant fastest", f.dir / "in", f.dir / "out").exit_code == 2);
  CHECK(f.crypt("encrypt", "", f.dir / "in", f.dir / "in").exit_code == 2);
  CHECK(wk::test::run(wk_crypt("")).exit_code == 2);
  CHECK(!fs::exists(f.dir / "out"));
}

TEST_CASE("wk-crypt --help warns about ECB, tampering, wrong keys and IDEA's age, and defines CTR", "[cli][wk-crypt][idea]") {
  for (const char* args : {"--help", "encrypt --help"}) {
    const auto r = wk::test::run(wk_crypt(args));
    CAPTURE(args);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("ECB leaks patterns") != std::string::npos);
    CHECK(r.output.find("Neither mode detects tampering or a wrong key") != std::string::npos);
    CHECK(r.output.find("legacy cipher") != std::string::npos);
  }
  const auto r = wk::test::run(wk_crypt("--help"));
  CHECK(r.output.find("nonce + i mod 2^64") != std::string::npos);
  CHECK(r.output.find("PKCS#7") != std::string::npos);
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
