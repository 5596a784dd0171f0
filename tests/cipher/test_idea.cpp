// IDEA on the CPU: the paper's known answer, the arithmetic behind idea_mul, the decryption
// schedule, libgcrypt agreement (ECB and CTR, when libgcrypt was found), the threaded CPU path
// and the file layer (round trips, nonce, padding, truncation, key files and their permissions,
// no partial outputs, outputs through links and FIFOs, FIFOs refused as keys and inputs).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <random>
#include <vector>

#if defined(WK_HAVE_GCRYPT)
#include <gcrypt.h>
#endif

#include "idea_test_util.hpp"
#include "test_support.hpp"
#include "wk/cipher/idea.hpp"
#include "wk/cipher/idea_file.hpp"
#include "wk/core/error.hpp"
#include "wk/io/files.hpp"

namespace fs = std::filesystem;
using namespace wk;
using namespace wk::cipher;
using wk::test::kPaperCipher;
using wk::test::kPaperKey;
using wk::test::kPaperPlain;
using wk::test::random_bytes;
using wk::test::random_key;

namespace {

// The definition, in 64-bit arithmetic: 0 stands for 2^16, the result 2^16 is written 0.
std::uint32_t mul_reference(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t x = a ? a : 65536, y = b ? b : 65536;
  return static_cast<std::uint32_t>((x * y) % 65537) & 0xFFFFu;
}

std::string as_string(const std::vector<std::uint8_t>& v) { return {v.begin(), v.end()}; }

// "" when equal, else where they first differ: keeps failure reports of large buffers short.
std::string mismatch(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size())
    return "sizes differ: " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  const auto m = std::mismatch(got.begin(), got.end(), want.begin());
  if (m.first == got.end()) return "";
  return "first difference at byte " + std::to_string(m.first - got.begin()) + " of " + std::to_string(got.size());
}

std::size_t count_entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

#if defined(WK_HAVE_GCRYPT)
// libgcrypt's IDEA: ECB, or CTR with `counter` as the initial 8-byte big-endian counter block.
std::vector<std::uint8_t> gcrypt_idea(const IdeaKey& key, int mode, bool encrypt, const std::vector<std::uint8_t>& in,
                                      std::uint64_t counter = 0) {
  static const bool init = [] {
    gcry_check_version(nullptr);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return true;
  }();
  (void)init;
  gcry_cipher_hd_t h = nullptr;
  REQUIRE(gcry_cipher_open(&h, GCRY_CIPHER_IDEA, mode, 0) == 0);
  REQUIRE(gcry_cipher_setkey(h, key.data(), key.size()) == 0);
  if (mode == GCRY_CIPHER_MODE_CTR) {
    std::uint8_t ctr[8];
    idea_store_be64(ctr, counter);
    REQUIRE(gcry_cipher_setctr(h, ctr, 8) == 0);
  }
  std::vector<std::uint8_t> out(in.size());
  if (!in.empty()) {
    const gcry_error_t e = encrypt ? gcry_cipher_encrypt(h, out.data(), out.size(), in.data(), in.size())
                                   : gcry_cipher_decrypt(h, out.data(), out.size(), in.data(), in.size());
    REQUIRE(e == 0);
  }
  gcry_cipher_close(h);
  return out;
}
#endif

std::vector<std::uint8_t> cpu_run(const IdeaJob& job, const std::vector<std::uint8_t>& in, int threads = 0) {
  std::vector<std::uint8_t> out(in.size());
  idea_cpu(job, in.data(), out.data(), in.size() / kIdeaBlockBytes, threads);
  return out;
}

IdeaExecutor& cpu_executor() {
  static IdeaExecutor e(IdeaExecution{});
  return e;
}

}  // namespace

TEST_CASE("IDEA: the paper's known answer, through every CPU entry point", "[idea]") {
  const IdeaSubkeys enc = idea_encryption_subkeys(kPaperKey);
  // The schedule: the key's words, then the key rotated left by 25 bits.
  for (int i = 0; i < 8; ++i) CHECK(enc.k[i] == std::uint32_t(i + 1));
  const std::uint32_t second[8] = {0x0400, 0x0600, 0x0800, 0x0A00, 0x0C00, 0x0E00, 0x1000, 0x0200};
  for (int i = 0; i < 8; ++i) CHECK(enc.k[8 + i] == second[i]);

  CHECK(idea_crypt_u64(kPaperPlain, enc) == kPaperCipher);
  CHECK(idea_crypt_u64(kPaperCipher, idea_decryption_subkeys(kPaperKey)) == kPaperPlain);
  // Through a global-memory-style pointer, as the global_key kernel reads the schedule.
  const std::uint32_t* p = enc.k;
  CHECK(idea_crypt_u64(kPaperPlain, p) == kPaperCipher);

  std::vector<std::uint8_t> block(8);
  idea_store_be64(block.data(), kPaperPlain);
  const auto c = cpu_run(idea_ecb_job(kPaperKey, IdeaDirection::encrypt), block, 1);
  CHECK(idea_load_be64(c.data()) == kPaperCipher);
  const auto back = cpu_run(idea_ecb_job(kPaperKey, IdeaDirection::decrypt), c, 1);
  CHECK(back == block);
}

TEST_CASE("IDEA: idea_mul is multiplication modulo 2^16+1 with 0 standing for 2^16", "[idea]") {
  // Exhaustive in a for special and random b, with garbage above bit 15 of a (allowed).
  std::vector<std::uint32_t> bs = {0, 1, 2, 3, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF};
  std::mt19937 rng(7);
  for (int i = 0; i < 24; ++i) bs.push_back(rng() & 0xFFFFu);
  for (std::uint32_t b : bs)
    for (std::uint32_t a = 0; a <= 0xFFFFu; ++a) {
      const std::uint32_t garbage = (a * 2654435761u) & 0xFFFF0000u;
      const std::uint32_t got = idea_mul(a | garbage, b) & 0xFFFFu;
      if (got != mul_reference(a, b)) {
        CAPTURE(a, b, garbage);
        REQUIRE(got == mul_reference(a, b));
      }
    }
  for (int i = 0; i < 1000000; ++i) {
    const std::uint32_t a = rng() & 0xFFFFu, b = rng() & 0xFFFFu;
    if ((idea_mul(a, b) & 0xFFFFu) != mul_reference(a, b)) {
      CAPTURE(a, b);
      REQUIRE((idea_mul(a, b) & 0xFFFFu) == mul_reference(a, b));
    }
  }
  // Inverses, including 0 (2^16 = -1 is its own inverse).
  for (std::uint32_t x = 0; x <= 0xFFFFu; ++x)
    if ((idea_mul(x, idea_mul_inverse(x)) & 0xFFFFu) != 1u) {
      CAPTURE(x);
      REQUIRE((idea_mul(x, idea_mul_inverse(x)) & 0xFFFFu) == 1u);
    }
}

TEST_CASE("IDEA: decryption inverts encryption, also for keys with zero subkeys", "[idea]") {
  std::vector<IdeaKey> keys = {IdeaKey{}, kPaperKey};  // the all-zero key has 0 subkeys (= 2^16)
  IdeaKey ones{};
  ones.fill(0xFF);
  keys.push_back(ones);
  for (std::uint32_t s = 1; s <= 40; ++s) keys.push_back(random_key(s));
  std::mt19937_64 rng(3);
  for (const IdeaKey& key : keys) {
    const IdeaSubkeys e = idea_encryption_subkeys(key), d = idea_decryption_subkeys(key);
    for (int i = 0; i < kIdeaSubkeys; ++i) REQUIRE(e.k[i] <= 0xFFFFu);
    for (int i = 0; i < kIdeaSubkeys; ++i) REQUIRE(d.k[i] <= 0xFFFFu);
    for (int i = 0; i < 50; ++i) {
      const std::uint64_t x = rng();
      REQUIRE(idea_crypt_u64(idea_crypt_u64(x, e), d) == x);
    }
  }
}

#if defined(WK_HAVE_GCRYPT)
TEST_CASE("IDEA: agrees with libgcrypt in ECB and CTR on random keys and data", "[idea][gcrypt]") {
  const std::size_t sizes[] = {0, 8, 16, 24, 136, 8000, 800008};
  std::uint32_t seed = 100;
  for (std::size_t n : sizes)
    for (int rep = 0; rep < 3; ++rep) {
      ++seed;
      const IdeaKey key = random_key(seed);
      const auto data = random_bytes(n, seed * 7);
      CAPTURE(n, seed);
      const auto ecb_enc = cpu_run(idea_ecb_job(key, IdeaDirection::encrypt), data);
      CHECK(mismatch(ecb_enc, gcrypt_idea(key, GCRY_CIPHER_MODE_ECB, true, data)) == "");
      CHECK(mismatch(cpu_run(idea_ecb_job(key, IdeaDirection::decrypt), data), gcrypt_idea(key, GCRY_CIPHER_MODE_ECB, false, data)) == "");
      CHECK(mismatch(cpu_run(idea_ecb_job(key, IdeaDirection::decrypt), ecb_enc), data) == "");
      // CTR, including counters that wrap around 2^64 inside the run.
      std::mt19937_64 rng(seed);
      for (std::uint64_t counter : {std::uint64_t(rng()), std::uint64_t(0), ~std::uint64_t(0) - 5}) {
        CAPTURE(counter);
        const auto ctr = cpu_run(idea_ctr_job(key, counter), data);
        CHECK(mismatch(ctr, gcrypt_idea(key, GCRY_CIPHER_MODE_CTR, true, data, counter)) == "");
        CHECK(mismatch(cpu_run(idea_ctr_job(key, counter), ctr), data) == "");
      }
    }
}
#endif

TEST_CASE("IDEA: the threaded CPU path equals one thread, in place too", "[idea]") {
  const IdeaKey key = random_key(11);
  for (std::size_t blocks : {std::size_t(1), std::size_t(8191), std::size_t(8192 * 3 + 5), std::size_t(100003)}) {
    const auto data = random_bytes(blocks * 8, static_cast<std::uint32_t>(blocks));
    for (const IdeaJob& job : {idea_ecb_job(key, IdeaDirection::encrypt), idea_ctr_job(key, 0xFFFFFFFFFFFFull)}) {
      const auto one = cpu_run(job, data, 1);
      for (int threads : {0, 2, 3, 7}) {
        CAPTURE(blocks, threads);
        CHECK(mismatch(cpu_run(job, data, threads), one) == "");
      }
      auto inplace = data;
      idea_cpu(job, inplace.data(), inplace.data(), blocks, 3);
      CHECK(mismatch(inplace, one) == "");
      // A run split in two with the job advanced equals the whole run.
      std::vector<std::uint8_t> split(data.size());
      const std::size_t half = blocks / 2;
      idea_cpu(job, data.data(), split.data(), half, 2);
      idea_cpu(job.advanced(half), data.data() + half * 8, split.data() + half * 8, blocks - half, 2);
      CHECK(mismatch(split, one) == "");
    }
  }
}

TEST_CASE("IDEA: ladder names, GPU lists and executor checks", "[idea]") {
  // The rungs by name, each its own row (no CUDA: a name that is given needs no device).
  const auto rungs = idea_rungs();
  REQUIRE(rungs.size() == 6);
  const char* names[] = {"parallelized", "no_output_upload", "overlapped", "constant_key", "coarsened", "deployed"};
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    CAPTURE(i);
    CHECK(std::string(rungs[i].name) == names[i]);
    CHECK(std::string(rungs[i].summary).size() > 10);
    CHECK_NOTHROW(check_rung_name("idea", rungs, rungs[i].name));
  }
  CHECK(idea_kernel_config("parallelized").kernel == IdeaKernel::global_key);
  CHECK(idea_kernel_config("overlapped").kernel == IdeaKernel::global_key);
  CHECK(idea_kernel_config("constant_key").kernel == IdeaKernel::constant_key);
  CHECK(idea_kernel_config("coarsened").kernel == IdeaKernel::coarsened);
  CHECK(idea_kernel_config("deployed").kernel == IdeaKernel::coarsened);
  CHECK(idea_streaming("parallelized").streams == 1);
  CHECK(idea_streaming("no_output_upload").streams == 1);
  CHECK(idea_streaming("overlapped").streams > 1);
  // Unknown names, the older '-' spelling included, are usage errors that name the rungs.
  for (const char* bad : {"fastest", "no-output-upload", "Coarsened"}) {
    CAPTURE(bad);
    try {
      idea_kernel_config(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::usage);
      CHECK_THAT(e.what(), Catch::Contains(std::string("unknown rung '") + bad + "'") &&
                               Catch::Contains("parallelized, no_output_upload, overlapped, constant_key, coarsened, deployed"));
    }
  }
  CHECK(parse_gpu_list("all", 3) == std::vector<int>{0, 1, 2});
  CHECK(parse_gpu_list("2,0", 3) == std::vector<int>{2, 0});
  for (const char* bad : {"", "0,", "a", "3", "-1", "0,0", "1 "}) {
    CAPTURE(bad);
    try {
      parse_gpu_list(bad, 3);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::usage);
    }
  }
  IdeaExecution bad;
  bad.cpu_percent = 101;
  try {
    IdeaExecutor refused(bad);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK_THAT(e.what(), Catch::Equals("idea: the CPU share must be in 0..100 percent, not 101"));
  }
  // A rung name is checked on the CPU too (where no rung runs).
  IdeaExecution unknown;
  unknown.rung = "fastest";
  CHECK_THROWS_AS(IdeaExecutor(unknown), Error);
  IdeaExecution named;
  named.rung = "coarsened";
  CHECK(std::string(IdeaExecutor(named).rung()).empty());
  // The CPU executor equals idea_cpu and touches no CUDA.
  const auto data = random_bytes(8 * 5000, 5);
  const IdeaJob job = idea_ctr_job(random_key(5), 42);
  std::vector<std::uint8_t> out(data.size());
  cpu_executor().run(job, data.data(), out.data(), 5000);
  CHECK(mismatch(out, cpu_run(job, data)) == "");
  CHECK(cpu_executor().describe().rfind("CPU (", 0) == 0);
}

// ---- Files.

namespace {

struct FileCase {
  IdeaMode mode;
  bool pad;
};

IdeaFileResult crypt(IdeaDirection d, const fs::path& in, const fs::path& out, const IdeaKey& key, IdeaFileOptions o) {
  return idea_crypt_file(d, in, out, key, o, cpu_executor());
}

}  // namespace

TEST_CASE("IDEA files: round trips of every small size and across chunk boundaries", "[idea][file]") {
  test::TempDir dir;
  const IdeaKey key = random_key(21);
  const std::size_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000, 4096, 4103, 100000};
  for (FileCase fc : {FileCase{IdeaMode::ctr, true}, FileCase{IdeaMode::ecb, true}, FileCase{IdeaMode::ecb, false}})
    for (std::size_t chunk : {std::size_t(16), std::size_t(32), std::size_t(4096), std::size_t(64) << 20})
      for (std::size_t n : sizes) {
        if (fc.mode == IdeaMode::ecb && !fc.pad && n % 8) continue;
        CAPTURE(to_string(fc.mode), fc.pad, chunk, n);
        if (chunk == 16 && n > 4200) continue;  // many tiny chunks: enough coverage below that
        const auto data = random_bytes(n, static_cast<std::uint32_t>(n + chunk));
        test::write_bytes(dir / "plain", as_string(data));
        IdeaFileOptions o;
        o.mode = fc.mode;
        o.pad = fc.pad;
        o.chunk_bytes = chunk;
        const auto r = crypt(IdeaDirection::encrypt, dir / "plain", dir / "cipher", key, o);
        const std::string cipher = test::read_bytes(dir / "cipher");
        std::size_t expected = n;
        if (fc.mode == IdeaMode::ctr) expected = n + 8;
        else if (fc.pad) expected = (n / 8 + 1) * 8;
        REQUIRE(cipher.size() == expected);
        CHECK(r.bytes_in == n);
        CHECK(r.bytes_out == expected);
        crypt(IdeaDirection::decrypt, dir / "cipher", dir / "back", key, o);
        REQUIRE(test::read_bytes(dir / "back") == as_string(data));
        CHECK(count_entries(dir.path()) == 3);  // no temporary files left
      }
}

TEST_CASE("IDEA files: the CTR layout is nonce || data XOR E(nonce + i), ECB pads with PKCS#7", "[idea][file]") {
  test::TempDir dir;
  const IdeaKey key = random_key(22);
  const auto data = random_bytes(8 * 37 + 5, 22);
  test::write_bytes(dir / "plain", as_string(data));

  IdeaFileOptions o;
  o.nonce = 0xFFFFFFFFFFFFFFF0ull;  // wraps inside the file
  o.chunk_bytes = 64;
  crypt(IdeaDirection::encrypt, dir / "plain", dir / "ctr", key, o);
  const std::string c = test::read_bytes(dir / "ctr");
  REQUIRE(c.size() == data.size() + 8);
  CHECK(idea_load_be64(reinterpret_cast<const std::uint8_t*>(c.data())) == *o.nonce);
  const IdeaSubkeys e = idea_encryption_subkeys(key);
  for (std::size_t i = 0; i < data.size(); ++i) {
    const std::uint64_t ks = idea_crypt_u64(*o.nonce + i / 8, e);
    const auto ks_byte = static_cast<std::uint8_t>(ks >> (56 - 8 * (i % 8)));
    REQUIRE(static_cast<std::uint8_t>(c[8 + i]) == (data[i] ^ ks_byte));
  }
#if defined(WK_HAVE_GCRYPT)
  CHECK(c.substr(8) == as_string(gcrypt_idea(key, GCRY_CIPHER_MODE_CTR, true, data, *o.nonce)));
#endif
  // Two encryptions of one file get different random nonces.
  o.nonce.reset();
  crypt(IdeaDirection::encrypt, dir / "plain", dir / "ctr1", key, o);
  crypt(IdeaDirection::encrypt, dir / "plain", dir / "ctr2", key, o);
  CHECK(test::read_bytes(dir / "ctr1").substr(0, 8) != test::read_bytes(dir / "ctr2").substr(0, 8));

  o.mode = IdeaMode::ecb;
  crypt(IdeaDirection::encrypt, dir / "plain", dir / "ecb", key, o);
  auto padded = data;
  padded.insert(padded.end(), 3, std::uint8_t(3));
  CHECK(test::read_bytes(dir / "ecb") == as_string(cpu_run(idea_ecb_job(key, IdeaDirection::encrypt), padded)));
#if defined(WK_HAVE_GCRYPT)
  CHECK(test::read_bytes(dir / "ecb") == as_string(gcrypt_idea(key, GCRY_CIPHER_MODE_ECB, true, padded)));
#endif
}

TEST_CASE("IDEA files: truncated input, bad padding and bad keys fail, naming the file, leaving no output", "[idea][file]") {
  test::TempDir dir;
  const IdeaKey key = random_key(23);
  test::write_bytes(dir / "out", "previous contents");
  // pad_decides: the error is one that the padding setting decides (IdeaSettingError, pad).
  auto expect_failure = [&](IdeaDirection d, const std::string& input, IdeaFileOptions o, const std::string& what,
                            const IdeaKey& k, bool pad_decides = false) {
    CAPTURE(what, input.size());
    test::write_bytes(dir / "in", input);
    try {
      crypt(d, dir / "in", dir / "out", k, o);
      FAIL("no error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CAPTURE(msg);
      CHECK(msg.find((dir / "in").string()) != std::string::npos);
      CHECK(msg.find(what) != std::string::npos);
      CHECK(msg.find(" --") == std::string::npos);  // the library's terms, no command-line flag
      CHECK(e.category() == ErrorCategory::decode);
      const auto* setting = dynamic_cast<const IdeaSettingError*>(&e);
      CHECK((setting && setting->setting() == IdeaSetting::pad) == pad_decides);
    }
    CHECK(test::read_bytes(dir / "out") == "previous contents");
    CHECK(count_entries(dir.path()) == 2);
  };
  IdeaFileOptions ctr, ecb, ecb_nopad;
  ecb.mode = ecb_nopad.mode = IdeaMode::ecb;
  ecb_nopad.pad = false;
  expect_failure(IdeaDirection::decrypt, "", ctr, "shorter than the 8-byte CTR nonce", key);
  expect_failure(IdeaDirection::decrypt, "1234567", ctr, "shorter than the 8-byte CTR nonce", key);
  expect_failure(IdeaDirection::decrypt, std::string(13, 'x'), ecb, "not a whole number of 8-byte blocks", key);
  expect_failure(IdeaDirection::decrypt, std::string(17, 'x'), ecb_nopad, "not a whole number of 8-byte blocks", key);
  expect_failure(IdeaDirection::decrypt, "", ecb, "empty", key, true);
  expect_failure(IdeaDirection::encrypt, std::string(9, 'x'), ecb_nopad, "which ECB without padding needs", key, true);

  // Bad padding, made certain: a block whose plaintext ends in 0 is never valid padding.
  std::vector<std::uint8_t> block(16, 0);
  block[7] = 9;  // also invalid in the first block, but only the last block is checked
  const auto c = cpu_run(idea_ecb_job(key, IdeaDirection::encrypt), block);
  IdeaFileOptions ecb_small = ecb;
  ecb_small.chunk_bytes = 16;
  expect_failure(IdeaDirection::decrypt, as_string(c), ecb_small, "bad padding", key, true);
  // A padding byte of 9 or a mismatching run of padding bytes is bad too.
  block[15] = 9;
  expect_failure(IdeaDirection::decrypt, as_string(cpu_run(idea_ecb_job(key, IdeaDirection::encrypt), block)), ecb,
                 "bad padding", key, true);
  block[15] = 2;
  block[14] = 1;
  expect_failure(IdeaDirection::decrypt, as_string(cpu_run(idea_ecb_job(key, IdeaDirection::encrypt), block)), ecb,
                 "bad padding", key, true);
  block[14] = 2;  // valid: decrypts to 14 bytes
  test::write_bytes(dir / "in", as_string(cpu_run(idea_ecb_job(key, IdeaDirection::encrypt), block)));
  crypt(IdeaDirection::decrypt, dir / "in", dir / "out", key, ecb);
  CHECK(test::read_bytes(dir / "out") == std::string(reinterpret_cast<const char*>(block.data()), 14));

  // The input is never its own output.
  try {
    crypt(IdeaDirection::encrypt, dir / "in", dir / "in", key, ctr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
  }
  // A missing input names the file.
  try {
    crypt(IdeaDirection::encrypt, dir / "missing", dir / "x", key, ctr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("missing") != std::string::npos);
    CHECK(e.category() == ErrorCategory::io);
  }
  CHECK(!fs::exists(dir / "x"));
}

TEST_CASE("IDEA key files: 16 bytes, mode 0600, never overwritten by accident", "[idea][file]") {
  test::TempDir dir;
  const fs::path k = dir / "sub" / "key";
  fs::create_directories(dir / "sub");
  const IdeaKey made = idea_write_key_file(k, false);
  CHECK(fs::file_size(k) == 16);
  struct stat st {};
  REQUIRE(::stat(k.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(idea_read_key_file(k) == made);
  try {
    idea_write_key_file(k, false);
    FAIL("overwrote a key");
  } catch (const IdeaSettingError& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK(e.setting() == IdeaSetting::replace);
    CHECK_THAT(e.what(), Catch::Equals(k.string() + ": already exists; refusing to overwrite an existing key"));
  }
  CHECK(idea_read_key_file(k) == made);
  const IdeaKey replaced = idea_write_key_file(k, true);
  CHECK(replaced != made);  // 2^-128
  CHECK(idea_read_key_file(k) == replaced);
  CHECK(count_entries(dir / "sub") == 1);

  for (std::size_t n : {std::size_t(0), std::size_t(15), std::size_t(17), std::size_t(32)}) {
    CAPTURE(n);
    test::write_bytes(dir / "bad", std::string(n, 'k'));
    try {
      idea_read_key_file(dir / "bad");
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find((dir / "bad").string()) != std::string::npos);
      CHECK(std::string(e.what()).find("exactly 16") != std::string::npos);
      CHECK(e.category() == ErrorCategory::decode);
    }
  }
  CHECK_THROWS_AS(idea_read_key_file(dir / "none"), Error);
  CHECK_THROWS_AS(idea_read_key_file(dir.path()), Error);
}

TEST_CASE("IDEA key files: a FIFO, a device or a large file is refused at once without being read", "[idea][file]") {
  test::TempDir dir;
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  {
    const int fd = ::open((dir / "large").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(1) << 30) == 0);
    ::close(fd);
  }
  // Run in a thread so that a blocking open fails the test instead of hanging it.
  struct Case {
    fs::path path;
    const char* what;
    ErrorCategory category;
  };
  for (const Case& c : {Case{dir / "fifo", "not a regular file (a FIFO)", ErrorCategory::io},
                        Case{"/dev/zero", "not a regular file (a character device)", ErrorCategory::io},
                        Case{dir.path(), "not a regular file (a folder)", ErrorCategory::io},
                        Case{dir / "large", "exactly 16 raw bytes", ErrorCategory::decode}}) {
    CAPTURE(c.path);
    auto result = std::async(std::launch::async, [&] {
      try {
        idea_read_key_file(c.path);
        return std::string("accepted");
      } catch (const Error& e) {
        return std::string(e.category() == c.category ? "" : "wrong category: ") + e.what();
      }
    });
    if (result.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
      // Unblock the open (a writer for the FIFO) so that the thread can end, then fail.
      const int w = ::open((dir / "fifo").c_str(), O_WRONLY | O_NONBLOCK);
      if (w >= 0) ::close(w);
      FAIL("idea_read_key_file blocked");
    }
    const std::string msg = result.get();
    CAPTURE(msg);
    CHECK(msg.rfind("wrong category", 0) != 0);
    CHECK(msg.find(c.what) != std::string::npos);
    CHECK(msg.find(c.path.string()) != std::string::npos);
  }
  CHECK(fs::symlink_status(dir / "fifo").type() == fs::file_type::fifo);
}

TEST_CASE("IDEA key files: modes that let others read or write warn, or are refused with strict_perms", "[idea][file]") {
  test::TempDir dir;
  const fs::path k = dir / "k.key";
  const IdeaKey made = idea_write_key_file(k, false);
  CHECK(idea_key_file_exposure(k, 0600).empty());
  CHECK(idea_key_file_exposure(k, 0400).empty());
  CHECK(idea_key_file_exposure(k, S_IFREG | 0700).empty());
  CHECK(idea_key_file_exposure(k, 0644) == k.string() + " is readable by others (mode 0644); chmod 600 it");
  CHECK(idea_key_file_exposure(k, S_IFREG | 0666) == k.string() + " is readable and writable by others (mode 0666); chmod 600 it");
  CHECK(idea_key_file_exposure(k, 0602) == k.string() + " is writable by others (mode 0602); chmod 600 it");
  CHECK(idea_key_file_exposure(k, 0611) == k.string() + " is accessible to others (mode 0611); chmod 600 it");

  std::vector<std::string> warnings;
  IdeaKeyFileCheck warn;
  warn.warn = [&](const std::string& m) { warnings.push_back(m); };
  IdeaKeyFileCheck strict = warn;
  strict.strict_perms = true;
  CHECK(idea_read_key_file(k, warn) == made);
  CHECK(idea_read_key_file(k, strict) == made);
  CHECK(warnings.empty());
  REQUIRE(::chmod(k.c_str(), 0644) == 0);
  CHECK(idea_read_key_file(k) == made);  // no check asked for: no warning, no error
  CHECK(idea_read_key_file(k, warn) == made);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == k.string() + " is readable by others (mode 0644); chmod 600 it");
  try {
    idea_read_key_file(k, strict);
    FAIL("accepted");
  } catch (const IdeaSettingError& e) {
    CHECK(e.category() == ErrorCategory::io);
    CHECK(e.setting() == IdeaSetting::strict_perms);
    CHECK(std::string(e.what()).find(k.string() + " is readable by others (mode 0644)") != std::string::npos);
    CHECK_THAT(e.what(), Catch::Contains("chmod 600 it") && Catch::Contains("strict permission check"));
  }
  CHECK(warnings.size() == 1);
}

TEST_CASE("IDEA key files: keygen follows a symbolic link and keeps it, never replaces a key behind one", "[idea][file]") {
  test::TempDir dir;
  fs::create_symlink("real.key", dir / "link.key");
  const IdeaKey made = idea_write_key_file(dir / "link.key", false);
  CHECK(fs::is_symlink(dir / "link.key"));
  CHECK(idea_read_key_file(dir / "real.key") == made);
  struct stat st {};
  REQUIRE(::stat((dir / "real.key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK_THROWS_AS(idea_write_key_file(dir / "link.key", false), Error);
  CHECK(idea_read_key_file(dir / "real.key") == made);
  const IdeaKey replaced = idea_write_key_file(dir / "link.key", true);
  CHECK(fs::is_symlink(dir / "link.key"));
  CHECK(idea_read_key_file(dir / "real.key") == replaced);
  CHECK(count_entries(dir.path()) == 2);
}

TEST_CASE("IDEA files: outputs through links and FIFOs, replace=false, and no output over the input through a link", "[idea][file]") {
  test::TempDir dir;
  const IdeaKey key = random_key(24);
  const auto data = random_bytes(10000, 24);
  test::write_bytes(dir / "plain", as_string(data));
  IdeaFileOptions o;
  o.chunk_bytes = 4096;

  // A symbolic link: the target is replaced, the link stays.
  test::write_bytes(dir / "target", "previous");
  fs::create_symlink("target", dir / "link");
  crypt(IdeaDirection::encrypt, dir / "plain", dir / "link", key, o);
  CHECK(fs::is_symlink(dir / "link"));
  CHECK(fs::file_size(dir / "target") == data.size() + 8);

  // replace=false: an existing file (also behind a link) is refused before anything is written.
  test::write_bytes(dir / "out", "good data");
  IdeaFileOptions keep = o;
  keep.replace = false;
  fs::create_symlink("out", dir / "out-link");
  for (const char* name : {"out", "out-link"}) {
    CAPTURE(name);
    try {
      crypt(IdeaDirection::decrypt, dir / "target", dir / name, key, keep);
      FAIL("replaced");
    } catch (const IdeaSettingError& e) {
      CHECK(e.category() == ErrorCategory::usage);
      CHECK(e.setting() == IdeaSetting::replace);
      CHECK(std::string(e.what()).find((dir / name).string() + ": already exists") != std::string::npos);
    }
    CHECK(test::read_bytes(dir / "out") == "good data");
    CHECK(fs::is_symlink(dir / "out-link"));
  }
  crypt(IdeaDirection::decrypt, dir / "target", dir / "new", key, keep);  // a new file is fine
  CHECK(test::read_bytes(dir / "new") == as_string(data));
  struct stat st {};
  REQUIRE(::stat((dir / "new").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // plaintext

  // A FIFO is written in place, also with replace=false.
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  auto reader = std::async(std::launch::async, [&] { return test::read_bytes(dir / "fifo"); });
  crypt(IdeaDirection::decrypt, dir / "target", dir / "fifo", key, keep);
  REQUIRE(reader.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(reader.get() == as_string(data));
  CHECK(fs::symlink_status(dir / "fifo").type() == fs::file_type::fifo);

  // The output may not be the input under another name.
  fs::create_hard_link(dir / "plain", dir / "hard");
  fs::create_symlink("plain", dir / "soft");
  for (const char* name : {"hard", "soft"}) {
    CAPTURE(name);
    try {
      crypt(IdeaDirection::encrypt, dir / "plain", dir / name, key, o);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.category() == ErrorCategory::usage);
    }
    CHECK(test::read_bytes(dir / "plain") == as_string(data));
  }
  // A FIFO as input is refused at once (not waited on).
  REQUIRE(::mkfifo((dir / "in.fifo").c_str(), 0600) == 0);
  auto refused = std::async(std::launch::async, [&] {
    try {
      crypt(IdeaDirection::encrypt, dir / "in.fifo", dir / "x", key, o);
      return std::string("accepted");
    } catch (const Error& e) {
      return std::string(e.what());
    }
  });
  if (refused.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    const int w = ::open((dir / "in.fifo").c_str(), O_WRONLY | O_NONBLOCK);
    if (w >= 0) ::close(w);
    FAIL("blocked on a FIFO input");
  }
  CHECK(refused.get().find("not a regular file (a FIFO)") != std::string::npos);
  CHECK(!fs::exists(dir / "x"));
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename().string()[0] != '.');
}
