// warpkit's crypt code (the __host__ __device__ headers compiled for the host) against
// libxcrypt's crypt_rn on thousands of random vectors per format: every boundary length, 8-bit
// bytes, over-long salts, custom rounds, all bcrypt variants.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hash/methods/method_module.hpp"
#include "hash_test_util.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/setting.hpp"

using namespace wk::hash;
using namespace wk::hash::test;

namespace {

struct Vector {
  std::string setting, password;
};

std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) {
    o.push_back(d[c >> 4]);
    o.push_back(d[c & 15]);
  }
  return o;
}

// Runs the vectors on all cores; returns the number of mismatches (the first few are printed).
int count_mismatches(const std::vector<Vector>& vectors) {
  std::atomic<std::size_t> next{0};
  std::atomic<int> bad{0};
  std::mutex print;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < vectors.size();) {
      const Vector& v = vectors[i];
      const auto ref = crypt_libxcrypt(v.setting, v.password);
      const SettingParse p = parse_setting(v.setting);
      std::string ours = "<rejected>";
      if (p.setting && check_password(v.password).empty()) ours = crypt_warpkit_host(*p.setting, v.password);
      if (ours != ref.value_or("<rejected>")) {
        if (bad.fetch_add(1) < 5) {
          std::lock_guard<std::mutex> lock(print);
          UNSCOPED_INFO("setting " << v.setting << " password(hex, " << v.password.size() << " bytes) "
                                   << hex(v.password) << "\n  libxcrypt " << ref.value_or("<rejected>")
                                   << "\n  warpkit   " << ours);
        }
      }
    }
  };
  std::vector<std::thread> pool;
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return bad.load();
}

std::vector<Vector> sha_vectors(const std::string& tag, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Vector> v;
  // Every boundary length once with a full 16-character salt and the default rounds.
  for (int len : kBoundaryLengths) v.push_back({tag + random_salt(rng, 16), random_password(rng, len)});
  for (int i = 0; int(v.size()) < count; ++i) {
    const int salt_len = int(rng() % 22);  // 0..21: over-long salts are truncated to 16
    std::string setting = tag;
    const int r = int(rng() % 10);
    if (r < 7) setting += "rounds=" + std::to_string(1000 + rng() % 300) + "$";  // custom, cheap
    else if (r == 7) setting += "rounds=5000$";                                   // explicit default
    setting += random_salt(rng, salt_len);
    if (rng() % 4 == 0) setting += "$";
    if (rng() % 8 == 0) setting += "$someoldhashpart";
    v.push_back({setting, random_password(rng, random_length(rng))});
  }
  return v;
}

}  // namespace

// The GPU self-check refuses a device whose answers differ from the method modules' known
// answers: each must be libxcrypt's, and the pairs must cover the two kernels of every GPU method.
TEST_CASE("the GPU self-check's known answers are libxcrypt's and the host code's", "[hash][crypt]") {
  for (const MethodModule& mod : method_modules()) {
    CAPTURE(mod.name);
    int per_method = 0;
    for (const KnownAnswer& k : mod.self_test) {
      CAPTURE(k.setting);
      CHECK(crypt_libxcrypt(k.setting, k.password).value_or("<rejected>") == k.expected);
      const SettingParse p = parse_setting(k.setting);
      REQUIRE(p.setting);
      CHECK(p.setting->method == mod.id);
      CHECK(crypt_warpkit_host(*p.setting, k.password) == k.expected);
      ++per_method;
    }
    if (mod.gpu) CHECK(per_method == 2);
  }
}

TEST_CASE("md5crypt equals libxcrypt on random vectors", "[hash][crypt]") {
  std::mt19937 rng(101);
  std::vector<Vector> v;
  for (int len : kBoundaryLengths) v.push_back({"$1$" + random_salt(rng, 8), random_password(rng, len)});
  while (v.size() < 3000) {
    std::string setting = "$1$" + random_salt(rng, int(rng() % 13));  // 0..12: truncated to 8
    if (rng() % 3 == 0) setting += "$";
    v.push_back({setting, random_password(rng, random_length(rng))});
  }
  CHECK(count_mismatches(v) == 0);
}

TEST_CASE("sha256crypt equals libxcrypt on random vectors", "[hash][crypt]") {
  CHECK(count_mismatches(sha_vectors("$5$", 2000, 202)) == 0);
}

TEST_CASE("sha512crypt equals libxcrypt on random vectors", "[hash][crypt]") {
  CHECK(count_mismatches(sha_vectors("$6$", 2000, 303)) == 0);
}

TEST_CASE("bcrypt ($2a$ $2b$ $2x$ $2y$) equals libxcrypt on random vectors", "[hash][crypt]") {
  std::mt19937 rng(404);
  std::vector<Vector> v;
  const char variants[] = {'a', 'b', 'x', 'y'};
  for (int len : kBoundaryLengths)
    for (char var : variants)
      v.push_back({std::string("$2") + var + "$04$" + random_bcrypt_salt(rng), random_password(rng, len)});
  while (v.size() < 2000) {
    const char var = variants[rng() % 4];
    const int cost = rng() % 50 == 0 ? 5 + int(rng() % 2) : 4;
    char head[8];
    std::snprintf(head, sizeof head, "$2%c$%02d$", var, cost);
    // Lengths around the 72-byte truncation are over-represented; 8-bit bytes half the time (the
    // $2a$ / $2x$ differences live there).
    int len = random_length(rng);
    if (rng() % 4 == 0) len = 68 + int(rng() % 8);
    v.push_back({head + random_bcrypt_salt(rng), random_password(rng, len, rng() % 2 == 0)});
  }
  CHECK(count_mismatches(v) == 0);
}

TEST_CASE("bcrypt: $2a$ differs from $2b$ exactly where libxcrypt says", "[hash][crypt]") {
  // From crypt_rn: "\xff\xff\xa3" triggers the $2a$ safety bit, "\xa3" does not.
  const std::string salt = "$05$abcdefghijklmnopqrstuu";
  for (const std::string& pw : {std::string("\xff\xff\xa3"), std::string("\xa3"), std::string("ab\xffxyz")}) {
    for (const char* var : {"$2a", "$2b", "$2x", "$2y"}) {
      const std::string setting = var + salt;
      CHECK(crypt_warpkit_host(*parse_setting(setting).setting, pw) == crypt_libxcrypt(setting, pw).value());
    }
  }
  CHECK(crypt_libxcrypt("$2a" + salt, "\xff\xff\xa3") != crypt_libxcrypt("$2b" + salt, "\xff\xff\xa3"));
}

TEST_CASE("published sha-crypt vectors (Drepper's specification)", "[hash][crypt]") {
  const struct {
    const char* setting;
    const char* password;
    const char* expected;
  } vectors[] = {
      {"$5$saltstring", "Hello world!", "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"},
      {"$6$saltstring", "Hello world!",
       "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1"},
      {"$5$rounds=10000$saltstringsaltstring", "Hello world!",
       "$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA"},
      {"$6$rounds=10000$saltstringsaltstring", "Hello world!",
       "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/"
       "y3RnOaw5v."},
  };
  for (const auto& v : vectors) {
    CAPTURE(v.setting);
    CHECK(crypt_libxcrypt(v.setting, v.password).value() == v.expected);
    CHECK(crypt_warpkit_host(*parse_setting(v.setting).setting, v.password) == v.expected);
  }
}

TEST_CASE("CPU CryptEngine::crypt_fresh writes libxcrypt's strings into the records, a bad password throws", "[hash][crypt]") {
  std::mt19937 rng(31);
  CryptEngine engine(wk::Backend::cpu);
  HashOptions md5, sha256, sha512, bcrypt;
  md5.method = Method::md5crypt;
  sha256.method = Method::sha256crypt;
  sha256.rounds = 1000;
  sha512.method = Method::sha512crypt;
  sha512.rounds = 1000;
  bcrypt.method = Method::bcrypt;
  bcrypt.cost = 4;
  for (const HashOptions& o : {md5, sha256, sha512, bcrypt}) {
    CAPTURE(method_name(o.method));
    const std::size_t n = o.method == Method::bcrypt ? 16 : 120, record = generated_setting_bytes(o);
    const std::size_t bytes = crypt_string_bytes(o), stride = bytes + 3;
    std::string settings(n * record, '\0');
    generate_settings_into(o, n, settings.data());
    std::vector<std::string> passwords;
    for (std::size_t i = 0; i < n; ++i) passwords.push_back(random_password(rng, random_length(rng)));
    std::vector<std::string_view> views(passwords.begin(), passwords.end());
    std::string out(n * stride, '#');
    std::size_t last = 0;
    engine.crypt_fresh(FreshJobs{o, settings, views}, out.data(), stride, [&](std::size_t done) {
      CHECK(done >= last);
      last = done;
    });
    CHECK(last == n);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(out.substr(i * stride, bytes) == crypt_libxcrypt(settings.substr(i * record, record), passwords[i]).value());
      CHECK(out.substr(i * stride + bytes, stride - bytes) == "###");
    }
    // A password crypt(3) cannot take breaks the caller's promise: an error, no overrun.
    for (const std::string& bad : {std::string(512, 'p'), std::string("a\0b", 3)}) {
      views.back() = bad;
      CHECK_THROWS_AS(engine.crypt_fresh(FreshJobs{o, settings, views}, out.data(), stride), wk::Error);
    }
  }
}
