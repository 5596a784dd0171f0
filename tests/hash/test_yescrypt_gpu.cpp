// yescrypt and scrypt on the GPU: every rung against the host code (itself checked against
// libxcrypt by test_yescrypt.cpp) on settings that reach every path of the kernels -- yescrypt
// lanes' r = 1..32, t > 0, prehashing at the default cost; scrypt lanes' r = 1, 2, 4, 8 with
// p > 1; the reference kernel's classic, WORM and p > 1 settings, mixed parameters in one batch --
// and through CryptEngine and crypt_fresh.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "hash/methods/yescrypt/yescrypt_text.hpp"
#include "hash_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

using namespace wk;
using namespace wk::hash;
using wk::hash::test::random_length;
using wk::hash::test::random_password;

namespace {

const std::string kAlphabet = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

std::string salt22(std::mt19937& rng) {
  std::string s(20, '.');
  for (char& c : s) c = kAlphabet[rng() % 64];
  return s + "..";
}

// "$y$" + flavour + N + r [+ have [p] [t]] + "$" + salt; flavour 0 classic, 1 WORM, 47 RW ('j')
std::string y_setting(std::mt19937& rng, std::uint32_t n_log2, std::uint32_t r, std::uint32_t t = 0,
                      std::uint32_t p = 1, std::uint32_t flavor = 47) {
  using yescrypt_text::encode_uint;
  std::string s = "$y$" + encode_uint(flavor, 0) + encode_uint(n_log2, 1) + encode_uint(r, 1);
  const std::uint32_t have = (p != 1 ? 1 : 0) | (t ? 2 : 0);
  if (have) s += encode_uint(have, 1);
  if (p != 1) s += encode_uint(p, 2);
  if (t) s += encode_uint(t, 1);
  return s + "$" + salt22(rng);
}

struct Job {
  std::string setting, password;
};

// Every job through one DeviceBatch of `variant`, against the host code.
int mismatches_on_gpu(Method m, const std::vector<Job>& jobs, gpu::Variant variant) {
  std::vector<Setting> settings;
  std::vector<std::string_view> passwords;
  for (const Job& j : jobs) {
    const SettingParse p = parse_setting(j.setting);
    REQUIRE(p.setting);
    REQUIRE(p.setting->method == m);
    settings.push_back(*p.setting);
    passwords.push_back(j.password);
  }
  std::vector<const Setting*> ptrs;
  for (const Setting& s : settings) ptrs.push_back(&s);
  Stream stream;
  gpu::DeviceBatch batch(m, ptrs, passwords, variant, stream);
  batch.run(stream);
  std::vector<std::string> out;
  batch.results(stream, out);
  REQUIRE(out.size() == jobs.size());
  int bad = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string want = crypt_warpkit_host(settings[i], jobs[i].password);
    if (out[i] != want) {
      UNSCOPED_INFO("job " << i << ": " << jobs[i].setting << " gave " << out[i] << ", want " << want);
      ++bad;
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("GPU yescrypt equals the host code, every rung, small and default costs", "[gpu][hash][yescrypt]") {
  const bool sanitizer_run = wk::test::sanitizer_run();
  std::mt19937 rng(44);
  std::vector<Job> jobs;
  // r from 1 (one 128-byte block: a single pwxform block chain of 2) to 32, N small, t 0..3
  for (std::uint32_t r : {1u, 2u, 3u, 8u, 16u, 32u})
    for (std::uint32_t t : {0u, 1u, 3u})
      jobs.push_back({y_setting(rng, 4 + rng() % 4, r, t), random_password(rng, random_length(rng))});
  // libxcrypt's costs 1 and 5 (j75: N 1024, r 8; j9T: N 4096, r 32 with the prehash)
  for (int i = 0; i < (sanitizer_run ? 1 : 24); ++i) {
    jobs.push_back({y_setting(rng, 10, 8), random_password(rng, random_length(rng))});
    jobs.push_back({y_setting(rng, 12, 32), random_password(rng, random_length(rng))});
  }
  for (const gpu::VariantInfo& v : gpu::variants(Method::yescrypt)) {
    CAPTURE(v.name);
    if (sanitizer_run && v.variant != gpu::default_variant(Method::yescrypt)) continue;
    CHECK(mismatches_on_gpu(Method::yescrypt, jobs, v.variant) == 0);
  }
}

TEST_CASE("GPU yescrypt and scrypt: the reference rung's other modes and a mixed batch", "[gpu][hash][yescrypt]") {
  std::mt19937 rng(45);
  std::vector<Job> y;
  // classic and WORM through $y$, p > 1 in RW mode: the lanes rung hands these to the reference
  for (int i = 0; i < 3; ++i) {
    y.push_back({y_setting(rng, 8, 1, 0, 1, 0), random_password(rng, random_length(rng))});  // classic
    y.push_back({y_setting(rng, 8, 2, 1, 1, 1), random_password(rng, random_length(rng))});  // WORM, t 1
    y.push_back({y_setting(rng, 6, 3, 2, 2, 1), random_password(rng, random_length(rng))});  // WORM, p 2
    y.push_back({y_setting(rng, 8, 1, 0, 2), random_password(rng, random_length(rng))});     // RW, p 2
    y.push_back({y_setting(rng, 9, 2, 1, 3), random_password(rng, random_length(rng))});     // RW, p 3, t 1
  }
  y.push_back({y_setting(rng, 6, 4), "beside them, a lanes job"});
  for (const gpu::VariantInfo& v : gpu::variants(Method::yescrypt)) {
    CAPTURE(v.name);
    CHECK(mismatches_on_gpu(Method::yescrypt, y, v.variant) == 0);
  }
  // scrypt: r of the lanes kernel (1, 2, 4, 8) with p 1..3 in one batch, then a batch with other r
  // (which the lanes rung hands to the reference kernel whole)
  for (const bool lanes_r : {true, false}) {
    std::vector<Job> s;
    for (int i = 0; i < 12; ++i) {
      const std::uint32_t n_log2 = 4 + rng() % 6;  // N 2^4 .. 2^9
      const std::uint32_t r = lanes_r ? 1u << (rng() % 4) : 3u + std::uint32_t(rng() % 4);
      const std::uint32_t p = 1u + std::uint32_t(rng() % 3);
      s.push_back({yescrypt_text::scrypt_head(n_log2, r, p) + salt22(rng), random_password(rng, random_length(rng))});
    }
    if (lanes_r) s.push_back({"$7$C6..../....abcdefghijklmnopqrstuvwxyz", "hashcat's scrypt cost"});
    for (const gpu::VariantInfo& v : gpu::variants(Method::scrypt)) {
      CAPTURE(lanes_r, v.name);
      CHECK(mismatches_on_gpu(Method::scrypt, s, v.variant) == 0);
    }
  }
}

TEST_CASE("GPU CryptEngine: yescrypt crypt and crypt_fresh equal libxcrypt", "[gpu][hash][yescrypt]") {
  std::mt19937 rng(46);
  CryptEngine engine(Backend::gpu);
  HashOptions o;  // yescrypt, libxcrypt's default cost
  const std::size_t n = wk::test::sanitizer_run() ? 4 : 300;
  const std::size_t record = generated_setting_bytes(o), bytes = crypt_string_bytes(o);
  std::string settings(n * record, '\0');
  generate_settings_into(o, n, settings.data());
  std::vector<std::string> passwords(n);
  std::vector<std::string_view> views(n);
  for (std::size_t i = 0; i < n; ++i) {
    passwords[i] = random_password(rng, random_length(rng));
    views[i] = passwords[i];
  }
  std::string out(n * bytes, '#');
  engine.crypt_fresh(FreshJobs{o, settings, views}, out.data(), bytes);
  int bad = 0;
  for (std::size_t i = 0; i < n; i += (n > 50 ? 7 : 1))  // libxcrypt at ~50 hashes/s: a sample
    bad += out.substr(i * bytes, bytes) != crypt_libxcrypt(settings.substr(i * record, record), passwords[i]).value_or("");
  CHECK(bad == 0);
  // the generic path: the crypt strings just made, verified
  std::vector<CryptJob> jobs;
  for (std::size_t i = 0; i < n; ++i) jobs.push_back({std::string_view(out).substr(i * bytes, bytes), passwords[i]});
  std::vector<CryptOutcome> again(n);
  engine.crypt(jobs, again);
  int mismatch = 0;
  for (std::size_t i = 0; i < n; ++i) mismatch += !again[i].ok() || again[i].hash != jobs[i].setting;
  CHECK(mismatch == 0);
}
