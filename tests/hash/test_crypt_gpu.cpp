// The GPU crypt engine against libxcrypt: every rung of every format on random vectors (every
// boundary length up to 511 bytes, over-long salts, custom and default rounds, round loops split
// across many launches, bcrypt variants and costs 4..8 with state carried between launches), the
// engine as a whole (mixed methods, bad lines) and wk-hash --device gpu.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hash_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/buffer.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/crypt_gpu.hpp"
#include "wk/hash/setting.hpp"

using namespace wk;
using namespace wk::hash;
using namespace wk::hash::test;

namespace {

struct Vec {
  std::string setting, password;
};

// libxcrypt's answers on all cores.
std::vector<std::string> reference(const std::vector<Vec>& v) {
  std::vector<std::string> out(v.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < v.size();) out[i] = crypt_libxcrypt(v[i].setting, v[i].password).value_or("<rejected>");
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return out;
}

// One DeviceBatch of all vectors (they must share a method) with the given rung; small launch
// limits split the round loops at many (odd) places.
std::vector<std::string> on_gpu(Method m, const std::vector<Vec>& v, gpu::Variant variant, bool small_launches = false) {
  std::vector<Setting> settings;
  for (const Vec& x : v) settings.push_back(*parse_setting(x.setting).setting);
  std::vector<const Setting*> ptrs;
  std::vector<std::string_view> pws;
  for (std::size_t i = 0; i < v.size(); ++i) {
    ptrs.push_back(&settings[i]);
    pws.push_back(v[i].password);
  }
  Stream stream;
  gpu::DeviceBatch batch(m, ptrs, pws, variant, stream);
  if (small_launches) batch.set_launch_limits(137, 3);
  double last = -1;
  bool monotonic = true;
  batch.run(stream, [&](double f) {
    monotonic &= f >= last && f <= 1.0;
    last = f;
  });
  CHECK(monotonic);
  CHECK(last == 1.0);  // the last step reported: all work done
  std::vector<std::string> out;
  batch.results(stream, out);
  return out;
}

int mismatches(const std::vector<Vec>& v, const std::vector<std::string>& got, const std::vector<std::string>& want) {
  int bad = 0;
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (got[i] != want[i] && ++bad <= 5)
      UNSCOPED_INFO("setting " << v[i].setting << " password length " << v[i].password.size() << "\n  libxcrypt " << want[i]
                               << "\n  gpu       " << got[i]);
  return bad;
}

std::vector<Vec> sha_vectors(const std::string& tag, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Vec> v;
  const int max_salt = tag == "$1$" ? 12 : 21;  // over-long salts are truncated (8 / 16)
  for (int len : kBoundaryLengths)
    for (int sl : {0, 1, 8, 16})
      v.push_back({tag + (tag == "$1$" ? "" : "rounds=1000$") + random_salt(rng, sl), random_password(rng, len)});
  while (int(v.size()) < count) {
    std::string setting = tag;
    if (tag != "$1$") {
      const int r = int(rng() % 20);
      if (r < 15) setting += "rounds=" + std::to_string(1000 + rng() % 100) + "$";
      else if (r < 18) setting += "rounds=" + std::to_string(2000 + rng() % 600) + "$";  // crosses launches
      else if (r == 18) setting += "rounds=5000$";
      // r == 19: the default 5000 rounds, no rounds= in the setting
    }
    setting += random_salt(rng, int(rng() % (max_salt + 1)));
    v.push_back({setting, random_password(rng, random_length(rng))});
  }
  return v;
}

void check_sha(Method m, const std::string& tag, unsigned seed) {
  // Under compute-sanitizer: every boundary vector and a few random ones (launch-crossing rounds
  // included) instead of 1500 -- the same code paths, an eighth of the instrumented work.
  const std::vector<Vec> v = sha_vectors(tag, wk::test::sanitizer_run() ? 180 : 1500, seed);
  const std::vector<std::string> want = reference(v);
  for (const gpu::VariantInfo& info : gpu::variants(m)) {
    CAPTURE(info.name);
    CHECK(mismatches(v, on_gpu(m, v, info.variant), want) == 0);
  }
  // The default rung again with launches of 137 rounds: C carried across many launch boundaries.
  CHECK(mismatches(v, on_gpu(m, v, gpu::default_variant(m), true), want) == 0);
}

}  // namespace

TEST_CASE("GPU known-answer self-check passes", "[gpu][hash]") {
  CHECK(gpu::self_check() == "");
}

// The self-check runs while the first batch is packed: a failed one must still stop that batch
// before any result of it leaves the engine (WK_SELF_CHECK_FAULT=1 makes every pair fail).
TEST_CASE("GPU self-check failure: no result leaves the engine or wk-hash", "[gpu][hash][cli]") {
  namespace wt = wk::test;
  wt::ScopedEnv fault("WK_SELF_CHECK_FAULT", "1");
  std::mt19937 rng(29);
  {
    HashOptions o;
    o.method = Method::sha512crypt;
    o.rounds = 1000;
    CryptEngine engine(Backend::gpu, 0, o.method);  // queued at start-up, run while the first batch is packed
    const std::size_t n = 300, record = generated_setting_bytes(o), stride = crypt_string_bytes(o) + 1;
    std::string settings(n * record, '\0');
    generate_settings_into(o, n, settings.data());
    std::vector<std::string> passwords(n);
    std::vector<std::string_view> views(n);
    for (std::size_t i = 0; i < n; ++i) views[i] = passwords[i] = random_password(rng, 1 + i % 40);
    std::string out(n * stride, '#');
    CHECK_THROWS_WITH(engine.crypt_fresh(FreshJobs{o, settings, views}, out.data(), stride, {}),
                      Catch::Contains("self-check failed"));
    CHECK(out == std::string(n * stride, '#'));
  }
  {
    CryptEngine engine(Backend::gpu);  // every method queued at start-up
    std::vector<CryptJob> jobs{{"$1$abcdefgh", "one"}, {"$5$rounds=1000$abcdefgh", "two"}};
    std::vector<CryptOutcome> out(jobs.size());
    CHECK_THROWS_WITH(engine.crypt(jobs, out), Catch::Contains("self-check failed"));
    for (const CryptOutcome& o : out) CHECK(o.hash.empty());
  }
  // wk-hash: refuses, writes no -o file and leaves no temporary file.
  wt::TempDir dir;
  wt::write_bytes(dir / "pw.txt", "alpha\nbeta\ngamma\n");
  const auto r = wt::run("sh -c " + wt::sh_quote("WK_SELF_CHECK_FAULT=1 " + wt::sh_quote(WK_HASH_EXE) +
                                                  " hash -q --device gpu --method sha256crypt -i " +
                                                  wt::sh_quote((dir / "pw.txt").string()) + " -o " +
                                                  wt::sh_quote((dir / "out.txt").string())));
  CAPTURE(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("self-check failed") != std::string::npos);
  CHECK(wt::files_below(dir.path()) == std::vector<std::string>{"pw.txt"});
}

TEST_CASE("GPU md5crypt equals libxcrypt, every rung", "[gpu][hash][md5crypt]") { check_sha(Method::md5crypt, "$1$", 11); }
TEST_CASE("GPU sha256crypt equals libxcrypt, every rung", "[gpu][hash][sha256crypt]") { check_sha(Method::sha256crypt, "$5$", 12); }
TEST_CASE("GPU sha512crypt equals libxcrypt, every rung", "[gpu][hash][sha512crypt]") { check_sha(Method::sha512crypt, "$6$", 13); }

TEST_CASE("GPU sha512crypt: ranges split into launch parts on separate streams", "[gpu][hash][sha512crypt]") {
  // DeviceBatch splits each range (jobs of one block configuration) into parts of whole thread
  // blocks, each part's launches on its own stream. One large range (same lengths: 8 blocks of the
  // round kernels, parts of 2, 3 and 3 blocks, the last one partial) and a one-job range of another
  // configuration with more rounds (a 100-byte passphrase takes the reference rounds; parts 0 and 1
  // are empty there), with launches of 137 rounds and without.
  std::mt19937 rng(15);
  std::vector<Vec> v;
  const int n = wk::test::sanitizer_run() ? 300 : 1000;
  for (int i = 0; i < n; ++i) v.push_back({"$6$rounds=1000$" + random_salt(rng, 16), random_password(rng, 12)});
  v.push_back({"$6$rounds=1200$" + random_salt(rng, 16), random_password(rng, 100)});
  const std::vector<std::string> want = reference(v);
  CHECK(mismatches(v, on_gpu(Method::sha512crypt, v, gpu::default_variant(Method::sha512crypt)), want) == 0);
  CHECK(mismatches(v, on_gpu(Method::sha512crypt, v, gpu::default_variant(Method::sha512crypt), true), want) == 0);
}

TEST_CASE("GPU bcrypt equals libxcrypt, every rung, costs 4..8 in one batch", "[gpu][hash][bcrypt]") {
  // Under compute-sanitizer (run_sanitizer.sh sets WK_SANITIZER_RUN) every S-box lookup is
  // instrumented (~1 M shared-memory accesses per cost-4 hash): there the batch keeps every code
  // path -- all four variants, the key-length edges (0, 1, 72, 73 bytes), two costs in one batch
  // and state carried between launches -- on 17 passwords, and only the small-launch run (it
  // covers everything the one-launch run does). The plain run checks the full set.
  const bool sanitizer_run = wk::test::sanitizer_run();
  std::mt19937 rng(14);
  std::vector<Vec> v;
  const char variants[] = {'a', 'b', 'x', 'y'};
  const std::vector<int> lengths = sanitizer_run ? std::vector<int>{0, 1, 72, 73} : kBoundaryLengths;
  for (int len : lengths)
    for (char var : variants)
      v.push_back({std::string("$2") + var + "$04$" + random_bcrypt_salt(rng), random_password(rng, len, rng() % 2 == 0)});
  for (int i = 0; i < (sanitizer_run ? 1 : 6); ++i)
    v.push_back({std::string("$2") + variants[i % 4] + (sanitizer_run ? "$05$" : "$08$") + random_bcrypt_salt(rng),
                 random_password(rng, 8 + i * 13)});
  while (!sanitizer_run && v.size() < 1100) {
    const int cost = rng() % 20 == 0 ? 5 + int(rng() % 2) : 4;
    char head[8];
    std::snprintf(head, sizeof head, "$2%c$%02d$", variants[rng() % 4], cost);
    int len = random_length(rng);
    if (rng() % 4 == 0) len = 68 + int(rng() % 8);
    v.push_back({head + random_bcrypt_salt(rng), random_password(rng, len, rng() % 2 == 0)});
  }
  const std::vector<std::string> want = reference(v);
  for (const gpu::VariantInfo& info : gpu::variants(Method::bcrypt)) {
    CAPTURE(info.name);
    if (!sanitizer_run) CHECK(mismatches(v, on_gpu(Method::bcrypt, v, info.variant), want) == 0);
    // Launches of 3 iterations: P, the expanded key and the S-boxes carried in global memory
    // between launches, jobs of different costs finishing in different launches.
    CHECK(mismatches(v, on_gpu(Method::bcrypt, v, info.variant, true), want) == 0);
  }
}

TEST_CASE("GPU CryptEngine equals the CPU engine on mixed methods and bad jobs", "[gpu][hash]") {
  std::mt19937 rng(15);
  std::vector<Vec> v = {
      {"$y$j9T$abcdefgh", "yescrypt on the CPU"}, {"ab", "descrypt"}, {"$6$rounds=999$x", "rejected setting"},
      {"$2b$03$abcdefghijklmnopqrstuu", "rejected cost"}, {"$6$x", std::string(512, 'a')}, {"$1$x", std::string("a\0b", 3)},
  };
  const char* tags[] = {"$1$", "$5$rounds=1000$", "$6$rounds=1000$", "$2b$04$"};
  // Under compute-sanitizer 40 jobs (10 bcrypt hashes, each ~1 M instrumented S-box lookups).
  for (int i = 0, n = wk::test::sanitizer_run() ? 40 : 400; i < n; ++i) {
    const std::string tag = tags[i % 4];
    const std::string salt = tag == "$2b$04$" ? random_bcrypt_salt(rng) : random_salt(rng, int(rng() % 17));
    v.push_back({tag + salt, random_password(rng, random_length(rng))});
  }
  std::vector<CryptJob> jobs;
  for (const Vec& x : v) jobs.push_back({x.setting, x.password});
  std::vector<CryptOutcome> gpu_out(jobs.size()), cpu_out(jobs.size());
  CryptEngine gpu_engine(Backend::gpu), cpu_engine(Backend::cpu);
  std::size_t last = 0;
  bool monotonic = true;
  gpu_engine.crypt(jobs, gpu_out, [&](std::size_t done) {
    monotonic &= done >= last && done <= jobs.size();
    last = done;
  });
  CHECK(monotonic);
  CHECK(last == jobs.size());
  cpu_engine.crypt(jobs, cpu_out);
  int bad = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    bad += gpu_out[i].hash != cpu_out[i].hash || gpu_out[i].ok() != cpu_out[i].ok();
    if (cpu_out[i].ok()) bad += cpu_out[i].hash != crypt_libxcrypt(v[i].setting, v[i].password).value_or("");
  }
  CHECK(bad == 0);
  for (int i = 2; i < 6; ++i) CHECK_FALSE(gpu_out[i].ok());
  CHECK(gpu_out[0].ok());
  CHECK(gpu_out[1].ok());
}

TEST_CASE("GPU CryptEngine::crypt_fresh (fixed-size records) equals libxcrypt, every method", "[gpu][hash]") {
  std::mt19937 rng(23);
  CryptEngine engine(Backend::gpu);
  for (int variant = 0; variant < 2; ++variant)
    for (Method m : {Method::md5crypt, Method::sha256crypt, Method::sha512crypt, Method::bcrypt}) {
      HashOptions o;
      o.method = m;
      if (variant && (m == Method::sha256crypt || m == Method::sha512crypt)) o.rounds = 1000 + int(rng() % 100);
      if (m == Method::bcrypt) {
        o.cost = 4;
        o.bcrypt_variant = variant ? 'a' : 'b';
      }
      // Under compute-sanitizer a few dozen jobs; else thousands (every boundary length several times).
      const std::size_t n = wk::test::sanitizer_run() ? 24 : m == Method::bcrypt ? 600 : 4000;
      CAPTURE(method_name(m), variant, n);
      const std::size_t record = generated_setting_bytes(o), bytes = crypt_string_bytes(o), stride = bytes + 5;
      std::string settings(n * record, '\0');
      generate_settings_into(o, n, settings.data());
      std::vector<std::string> passwords(n);
      std::vector<std::string_view> views(n);
      for (std::size_t i = 0; i < n; ++i) {
        passwords[i] = random_password(rng, random_length(rng));
        views[i] = passwords[i];
      }
      std::string out(n * stride, '#');
      std::size_t last = 0;
      bool monotonic = true;
      engine.crypt_fresh(FreshJobs{o, settings, views}, out.data(), stride, [&](std::size_t done) {
        monotonic &= done >= last && done <= n;
        last = done;
      });
      CHECK(monotonic);
      CHECK(last == n);
      std::vector<Vec> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = {settings.substr(i * record, record), passwords[i]};
      const std::vector<std::string> want = reference(v);
      int bad = 0, overwritten = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bad += out.substr(i * stride, bytes) != want[i];
        overwritten += out.substr(i * stride + bytes, stride - bytes) != std::string(stride - bytes, '#');
      }
      CHECK(bad == 0);
      CHECK(overwritten == 0);
    }
}

TEST_CASE("wk-hash hash --device gpu: the fixed-record path equals the generic path and libxcrypt", "[gpu][hash][cli]") {
  namespace wt = wk::test;
  wt::TempDir dir;
  std::mt19937 rng(24);
  const std::size_t n = wt::sanitizer_run() ? 200 : 30000;
  std::string input;
  std::vector<std::string> pw(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::string p = random_password(rng, i % 101 == 7 ? 600 : random_length(rng) % 80, true);
    for (char& ch : p)
      if (ch == ':') ch = '_';
    pw[i] = p;
    input += (i % 89 == 3 ? std::string() : "u" + std::to_string(i)) + ":" + p + "\n";  // some lines without a user
  }
  wt::write_bytes(dir / "pw.txt", input);
  const std::string exe = wt::sh_quote(WK_HASH_EXE);
  const std::string args = " hash -q --device gpu --method md5crypt --users --json -i " + wt::sh_quote((dir / "pw.txt").string());
  // Slices of 9000 lines end inside chunks of 8192; WK_HASH_GENERIC=1 is the LineJob path.
  const auto fast = wt::run("sh -c " + wt::sh_quote("WK_HASH_SLICE_LINES=9000 " + exe + args + " 2>/dev/null"));
  const auto generic = wt::run("sh -c " + wt::sh_quote("WK_HASH_GENERIC=1 " + exe + args + " 2>/dev/null"));
  CHECK(fast.exit_code == 1);
  CHECK(generic.exit_code == 1);
  // Each line's crypt string checked by libxcrypt, then masked: the rest must be equal.
  auto masked = [&](const std::string& out, int& wrong) {
    std::string m;
    std::size_t rows = 0;
    for (std::size_t at = 0; at < out.size(); ++rows) {
      const std::size_t nl = out.find('\n', at);
      std::string row = out.substr(at, nl - at);
      at = nl == std::string::npos ? out.size() : nl + 1;
      const std::size_t h = row.find("\"hash\":\"");
      if (h != std::string::npos) {
        const std::size_t b = h + 8, e = row.find('"', b);
        const std::string hash = row.substr(b, e - b);
        wrong += crypt_libxcrypt(hash, pw[rows]).value_or("") != hash;
        row.replace(b, e - b, "<H>");
      }
      m += row + "\n";
    }
    wrong += rows != n;
    return m;
  };
  int wrong = 0;
  const std::string f = masked(fast.output, wrong);
  CHECK(wrong == 0);
  CHECK(f == masked(generic.output, wrong));
  CHECK(wrong == 0);
  // Plain output: one line per good password, byte for byte a crypt string libxcrypt reproduces.
  const auto plain = wt::run("sh -c " + wt::sh_quote(exe + " hash -q --device gpu --method sha256crypt --rounds 1000 -i " +
                                                     wt::sh_quote((dir / "pw.txt").string()) + " 2>/dev/null"));
  std::size_t bad = 0, at = 0;
  for (std::size_t i = 0; i < n && at < plain.output.size(); ++i) {
    if (pw[i].size() > 511) continue;  // rejected, no output line
    // Without --users the whole line is the password.
    const std::string whole = (i % 89 == 3 ? std::string() : "u" + std::to_string(i)) + ":" + pw[i];
    const std::size_t nl = plain.output.find('\n', at);
    const std::string h = plain.output.substr(at, nl - at);
    at = nl + 1;
    bad += crypt_libxcrypt(h, whole).value_or("") != h;
  }
  CHECK(bad == 0);
  CHECK(at == plain.output.size());
}

TEST_CASE("wk-hash --device gpu equals --device cpu (crypt, verify, hash)", "[gpu][hash][cli]") {
  namespace wt = wk::test;
  using wt::run;
  using wt::sh_quote;
  wt::TempDir dir;
  std::mt19937 rng(16);
  std::string input;
  const char* tags[] = {"$1$", "$5$", "$6$rounds=1200$", "$2y$05$", "$y$j9T$"};
  for (int i = 0; i < 200; ++i) {
    const std::string tag = tags[i % 5];
    const std::string salt = tag == "$2y$05$" ? random_bcrypt_salt(rng) : random_salt(rng, 8 + int(rng() % 9));
    input += tag + salt + "\t" + random_password(rng, int(rng() % 70), true) + "\n";
  }
  input += "bad line without tab\n";
  wt::write_bytes(dir / "in.tsv", input);
  const std::string exe = sh_quote(WK_HASH_EXE);
  const auto in = sh_quote((dir / "in.tsv").string());
  const auto g = run(exe + " crypt -q --device gpu -i " + in + " -o " + sh_quote((dir / "gpu.txt").string()));
  const auto c = run(exe + " crypt -q --device cpu -i " + in + " -o " + sh_quote((dir / "cpu.txt").string()));
  CHECK(g.exit_code == 1);
  CHECK(c.exit_code == 1);
  CHECK(wt::read_bytes(dir / "gpu.txt") == wt::read_bytes(dir / "cpu.txt"));
  CHECK(wt::read_bytes(dir / "gpu.txt").size() > 200 * 20);

  wt::write_bytes(dir / "pw.txt", "alpha\nbeta\r\n\ngamma delta");
  const auto h = run(exe + " hash -q --device gpu --method sha512crypt -i " + sh_quote((dir / "pw.txt").string()) + " -o " +
                     sh_quote((dir / "h.txt").string()));
  CHECK(h.exit_code == 0);
  const std::string hashes = wt::read_bytes(dir / "h.txt");
  const std::vector<std::string> pws = {"alpha", "beta", "", "gamma delta"};
  std::string pairs;
  std::size_t pos = 0;
  for (const std::string& pw : pws) {
    const std::size_t nl = hashes.find('\n', pos);
    REQUIRE(nl != std::string::npos);
    const std::string line = hashes.substr(pos, nl - pos);
    CHECK(crypt_libxcrypt(line, pw).value_or("") == line);
    pairs += line + "\t" + pw + "\n";
    pos = nl + 1;
  }
  wt::write_bytes(dir / "pairs.tsv", pairs);
  const auto ver = run(exe + " verify -q --device gpu -i " + sh_quote((dir / "pairs.tsv").string()));
  CHECK(ver.exit_code == 0);
  CHECK(ver.output == "line 1: OK\nline 2: OK\nline 3: OK\nline 4: OK\n");
}

namespace {

// Accounts of one round-engine method (random salts of every length, custom and default rounds),
// each made with a password that is one of the candidates (one of them twice in the list) or,
// a third of them and all when `plant` is false, none of them; the pairs that must match are
// those whose candidate equals the account's password.
struct CrossCase {
  std::vector<std::string> hashes, candidates, passwords;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want;  // sorted
};

// The (account, candidate) pairs whose candidate is the account's password, sorted.
std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_to_match(const std::vector<std::string>& passwords,
                                                                     const std::vector<std::string>& candidates) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::size_t a = 0; a < passwords.size(); ++a)
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (candidates[k] == passwords[a]) out.emplace_back(std::uint32_t(a), std::uint32_t(k));
  return out;
}

CrossCase cross_case(const std::string& tag, int accounts, int candidates, unsigned seed, bool plant = true) {
  std::mt19937 rng(seed);
  CrossCase c;
  for (int i = 0; i < candidates; ++i) c.candidates.push_back(random_password(rng, random_length(rng)));
  if (candidates > 3) c.candidates.push_back(c.candidates[3]);  // a duplicate: its account matches twice
  std::vector<Vec> v, base = sha_vectors(tag, accounts, seed + 1);
  base.resize(std::size_t(accounts));  // the first ones: short passwords, salts of 0, 1, 8 and 16 characters
  for (const Vec& x : base) {
    const bool hit = plant && !c.candidates.empty() && rng() % 3 != 0;
    v.push_back({x.setting, hit ? c.candidates[rng() % c.candidates.size()] : x.password});
  }
  c.hashes = reference(v);
  for (const Vec& x : v) c.passwords.push_back(x.password);
  c.want = pairs_to_match(c.passwords, c.candidates);
  return c;
}

std::vector<std::string_view> views_of(const std::vector<std::string>& s) { return {s.begin(), s.end()}; }

}  // namespace

TEST_CASE("GPU crossed batches (accounts x candidates made on the device) match exactly the right pairs, every rung",
          "[gpu][hash][audit]") {
  for (const auto& [m, tag] : {std::pair{Method::md5crypt, "$1$"}, {Method::sha256crypt, "$5$"}, {Method::sha512crypt, "$6$"}}) {
    const bool sanitizer = wk::test::sanitizer_run();  // a tenth of the pairs, the default rung and the reference
    const CrossCase c = cross_case(tag, sanitizer ? 24 : 170, sanitizer ? 12 : 60, 31);
    std::vector<Setting> settings;
    std::vector<std::string_view> expected;
    for (const std::string& h : c.hashes) settings.push_back(*parse_setting(h).setting);
    for (std::size_t a = 0; a < c.hashes.size(); ++a)
      expected.push_back(std::string_view(c.hashes[a]).substr(settings[a].prefix.size()));
    std::vector<const Setting*> ptrs;
    for (const Setting& s : settings) ptrs.push_back(&s);
    const std::vector<std::string_view> cands = views_of(c.candidates);
    REQUIRE(c.want.size() > 10);
    {
      // No accounts, or no candidates: an empty batch, no match.
      Stream stream;
      for (const bool no_accounts : {true, false}) {
        gpu::DeviceBatch empty(gpu::DeviceBatch::Crossed{}, m, no_accounts ? std::span<const Setting* const>() : ptrs,
                               no_accounts ? std::span<const std::string_view>(cands) : std::span<const std::string_view>(),
                               gpu::default_variant(m), stream);
        CHECK(empty.size() == 0);
        empty.run(stream);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> none{{1, 1}};
        empty.matches(stream, {}, none);
        CHECK(none.empty());
      }
    }
    for (const gpu::VariantInfo& info : gpu::variants(m))
      for (bool small_launches : {false, true}) {
        if (sanitizer && info.variant != gpu::default_variant(m) && (small_launches || info.variant != gpu::Variant::reference))
          continue;
        CAPTURE(method_name(m), info.name, small_launches);
        Stream stream;
        gpu::DeviceBatch batch(gpu::DeviceBatch::Crossed{}, m, ptrs, cands, info.variant, stream);
        CHECK(batch.size() == ptrs.size() * cands.size());
        if (small_launches) batch.set_launch_limits(137, 0);
        batch.run(stream);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
        batch.matches(stream, expected, got);
        CHECK(got == c.want);
      }
  }
}

TEST_CASE("GPU CryptEngine::crypt_cross equals the CPU engine: crossed, paired and libxcrypt accounts in one call",
          "[gpu][hash][audit]") {
  CrossCase c = cross_case("$6$", 30, 25, 41);
  const CrossCase md5 = cross_case("$1$", 30, 0, 43, false);  // passwords not planted among the candidates
  std::vector<std::string> hashes = c.hashes, passwords = c.passwords;
  hashes.insert(hashes.end(), md5.hashes.begin(), md5.hashes.end());
  passwords.insert(passwords.end(), md5.passwords.begin(), md5.passwords.end());
  const std::vector<std::pair<std::string, std::string>> others = {
      {"$2b$04$abcdefghijklmnopqrstuu", "bcrypt-pw"},  // bcrypt: a GPU job per pair
      {"ab", "des-pw!!"},                             // descrypt (8 bytes count): libxcrypt
      {"$y$j75$abcdefgh", "yescrypt-pw"},             // yescrypt: a GPU job per pair
  };
  for (const auto& [setting, pw] : others) {
    hashes.push_back(crypt_libxcrypt(setting, pw).value());
    passwords.push_back(pw);
    c.candidates.push_back(pw);
  }
  // Every account against the whole candidate list (an empty password may be a candidate too).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want = pairs_to_match(passwords, c.candidates);
  REQUIRE(want.size() > 10);
  hashes.push_back("$6$rounds=1000$abc$tooshort");  // never matches: no crypt(3) output has this shape
  hashes.push_back("$6$rounds=999999999999$abc$x");  // rejected
  c.candidates.push_back(std::string(512, 'a'));       // over 511 bytes: matches nothing
  const std::vector<std::string_view> hv = views_of(hashes), cv = views_of(c.candidates);
  CryptEngine gpu_engine(Backend::gpu), cpu_engine(Backend::cpu);
  std::size_t last = 0;
  bool monotonic = true;
  const CrossResult g = gpu_engine.crypt_cross({hv, cv}, [&](std::size_t done) {
    monotonic &= done >= last && done <= hv.size() * (cv.size() - 1);
    last = done;
  });
  CHECK(monotonic);
  CHECK(last == hv.size() * (cv.size() - 1));
  const CrossResult cpu = cpu_engine.crypt_cross({hv, cv});
  CHECK(g.matches == cpu.matches);
  CHECK(g.errors == cpu.errors);
  CHECK(g.matches == want);
  REQUIRE(g.errors.size() == hashes.size());
  CHECK_FALSE(g.errors.back().empty());
  CHECK(g.errors[hashes.size() - 2].empty());
}

TEST_CASE("GPU CryptEngine::crypt_cross: more pairs than one batch holds", "[gpu][hash][audit]") {
  if (wk::test::sanitizer_run()) return;  // 2 M pairs instrumented take too long; the crossed kernels are covered above
  // md5crypt's batches hold 2^21 pairs: 1500 x 1500 takes two, split by candidates.
  std::mt19937 rng(47);
  std::vector<std::string> candidates, hashes;
  for (int i = 0; i < 1500; ++i) candidates.push_back("cand" + std::to_string(i));
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t a = 0; a < 1500; ++a) {
    const std::uint32_t k = a % 7 == 0 ? std::uint32_t(rng() % 1500) : UINT32_MAX;
    hashes.push_back(crypt_libxcrypt("$1$" + random_salt(rng, 8), k == UINT32_MAX ? "none" : candidates[k]).value());
    if (k != UINT32_MAX) want.emplace_back(a, k);
  }
  CryptEngine engine(Backend::gpu);
  const CrossResult r = engine.crypt_cross({views_of(hashes), views_of(candidates)});
  CHECK(r.matches == want);
}

namespace {

// The candidates [first, first + count) of a mask as strings.
std::vector<std::string> mask_strings(const Mask& mask, std::uint64_t first, std::uint64_t count) {
  std::vector<std::string> out;
  for (std::uint64_t j = 0; j < count; ++j) {
    std::string c(mask.length(), '\0');
    mask.candidate(first + j, c.data());
    out.push_back(c);
  }
  return out;
}

// Accounts of a crossed batch, from their crypt strings: settings, hash characters, pointers.
struct CrossedAccounts {
  std::vector<Setting> settings;
  std::vector<std::string_view> expected;
  std::vector<const Setting*> ptrs;
  explicit CrossedAccounts(const std::vector<std::string>& hashes) {
    for (const std::string& h : hashes) settings.push_back(*parse_setting(h).setting);
    for (std::size_t a = 0; a < hashes.size(); ++a) expected.push_back(std::string_view(hashes[a]).substr(settings[a].prefix.size()));
    for (const Setting& s : settings) ptrs.push_back(&s);
  }
};

// crypt_cross of `accounts` (setting, password) on the GPU with `run`, and on the CPU with the
// run's candidates given as `strings`: both find `want` and reject the same hashes.
void check_run_against_cpu(CryptEngine& gpu_engine, CryptEngine& cpu_engine,
                           const std::vector<std::pair<std::string, std::string>>& accounts, const CandidateRun& run,
                           const std::vector<std::string>& strings,
                           const std::vector<std::pair<std::uint32_t, std::uint32_t>>& want) {
  std::vector<std::string> hashes;
  for (const auto& [setting, pw] : accounts) hashes.push_back(crypt_libxcrypt(setting, pw).value());
  const std::vector<std::string_view> hv = views_of(hashes), sv = views_of(strings);
  const CrossResult g = gpu_engine.crypt_cross({hv, {}, run});
  const CrossResult cpu = cpu_engine.crypt_cross({hv, sv});
  CHECK(g.matches == want);
  CHECK(cpu.matches == want);
  CHECK(g.errors == cpu.errors);
}

// The audit of two accounts on the GPU and on the CPU engine, slices of `slice_pairs` pairs: the
// first account matches at candidate `first`, the second at `second`, on both.
void check_audit_of_two(CryptEngine& gpu_engine, CryptEngine& cpu_engine, const std::vector<AuditAccount>& two,
                        const CandidateSource& source, std::size_t slice_pairs, std::uint64_t first, std::uint64_t second) {
  AuditOptions o;
  o.slice_pairs = slice_pairs;
  const AuditResult ga = audit(gpu_engine, two, source, o);
  const AuditResult ca = audit(cpu_engine, two, source, o);
  REQUIRE(ga.matches.size() == 2);
  CHECK(ga.matches[0].account == 0);
  CHECK(ga.matches[0].candidate == first);
  CHECK(ga.matches[1].candidate == second);
  REQUIRE(ca.matches.size() == 2);
  CHECK(ca.matches[0].candidate == ga.matches[0].candidate);
  CHECK(ca.matches[1].candidate == ga.matches[1].candidate);
}

}  // namespace

TEST_CASE("GPU crossed batches: a mask's candidates made on the device match as the same candidates given as strings",
          "[gpu][hash][audit]") {
  const bool sanitizer = wk::test::sanitizer_run();
  const Mask mask = Mask::parse("?d?1?l", {"aB!"});  // 780 candidates
  const CandidateRun run{&mask, {}, {}, 37, sanitizer ? 40u : 600u};
  const std::vector<std::string> strings = mask_strings(mask, run.first, run.count);
  for (const auto& [m, tag] : {std::pair{Method::md5crypt, "$1$"}, {Method::sha256crypt, "$5$"}, {Method::sha512crypt, "$6$"}}) {
    std::mt19937 rng(53);
    std::vector<Vec> v = sha_vectors(tag, sanitizer ? 12 : 90, 55);
    v.resize(sanitizer ? 12 : 90);
    for (Vec& x : v)
      if (rng() % 3 != 0) x.password = strings[rng() % strings.size()];
    const std::vector<std::string> hashes = reference(v);
    std::vector<std::string> passwords;
    for (const Vec& x : v) passwords.push_back(x.password);
    const auto want = pairs_to_match(passwords, strings);
    REQUIRE(want.size() > 4);
    const CrossedAccounts accounts(hashes);
    const std::vector<const Setting*>& ptrs = accounts.ptrs;
    const std::vector<std::string_view>& expected = accounts.expected;
    {
      Stream stream;
      gpu::DeviceBatch empty(gpu::DeviceBatch::Crossed{}, m, ptrs, CandidateRun{&mask, {}, {}, 0, 0}, gpu::default_variant(m), stream);
      CHECK(empty.size() == 0);
      const Mask nul = Mask::parse("?b");
      CHECK_THROWS_AS(gpu::DeviceBatch(gpu::DeviceBatch::Crossed{}, m, ptrs, CandidateRun{&nul, {}, {}, 0, 4}, gpu::default_variant(m), stream),
                      wk::Error);
    }
    for (const gpu::VariantInfo& info : gpu::variants(m)) {
      if (sanitizer && info.variant != gpu::default_variant(m) && info.variant != gpu::Variant::reference) continue;
      CAPTURE(method_name(m), info.name);
      Stream stream;
      gpu::DeviceBatch batch(gpu::DeviceBatch::Crossed{}, m, ptrs, run, info.variant, stream);
      CHECK(batch.size() == ptrs.size() * run.count);
      batch.run(stream);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
      batch.matches(stream, expected, got);
      CHECK(got == want);
    }
  }
}

TEST_CASE("GPU CryptEngine::crypt_cross and audit with a mask's run equal the CPU engine", "[gpu][hash][audit]") {
  const Mask mask = Mask::parse("?1?d?d", {"xyZ"});  // 300 candidates
  const CandidateRun run{&mask, {}, {}, 11, 250};
  const std::vector<std::string> strings = mask_strings(mask, run.first, run.count);
  // Crossed (md5crypt, sha512crypt), paired (bcrypt, yescrypt) and libxcrypt (descrypt) accounts.
  const std::vector<std::pair<std::string, std::string>> accounts = {
      {"$1$abcdefgh", strings[5]},    {"$1$xy", "none"},          {"$6$rounds=1000$salt", strings[249]},
      {"$1$q", strings[0]},           {"$2b$04$abcdefghijklmnopqrstuu", strings[17]},
      {"ab", strings[100]},           {"$y$j75$abcdefgh", strings[3]},
      {"$5$rounds=1000$q", "x00"},    // x00 is candidate 0: before the run
  };
  CryptEngine gpu_engine(Backend::gpu), cpu_engine(Backend::cpu);
  check_run_against_cpu(gpu_engine, cpu_engine, accounts, run, strings,
                        {{0, 5}, {2, 249}, {3, 0}, {4, 17}, {5, 100}, {6, 3}});

  // The audit: one md5crypt account, a mask with --increment, slices small enough that the run
  // crosses several of them and a length's end.
  const Mask inc_mask = Mask::parse("?d?d?d?d");
  const auto inc = mask_source(inc_mask, 2);  // 100 + 1000 + 10000 candidates
  const std::vector<AuditAccount> two = {{"u", crypt_libxcrypt("$1$onehash", "4321").value()},
                                         {"v", crypt_libxcrypt("$1$other", "77").value()}};
  check_audit_of_two(gpu_engine, cpu_engine, two, *inc, 1500, 100 + 1000 + 4321, 77);
}

namespace {

// Words and rules that use every rule function, with words at the edges: empty, one byte, bytes
// >= 0x80 and control bytes (L and - make NUL bytes of them: rejected), 255 and 511 bytes (d and
// $ go over 511: rejected).
struct RuleCase {
  std::vector<std::string> word_text;
  std::vector<std::string_view> words;
  std::vector<Rule> rules;
  std::vector<std::string> made;  // Rule::apply's candidate per index, or "" when rejected
  std::vector<bool> accepted;
};

Rule parsed_rule(std::string_view text) {
  std::optional<Rule> rule = Rule::parse(text);
  INFO("rule " << text);
  REQUIRE(rule.has_value());
  return *rule;
}

// Filled in place: the views point into word_text.
void fill_rule_case(RuleCase& c) {
  c.word_text = {"", "a", "p@ssW0rd", "p@ssW0rd w0rld-x", "\x01" "abc", "\x80\xff" "Ab", std::string(255, 'w'),
                 std::string(511, 'v'), "abcdefghijklm"};
  for (const std::string& w : c.word_text) c.words.push_back(w);
  for (const char* text :
       {":", "l", "u", "c", "C", "t", "T3", "r", "d", "p2", "f", "{", "}", "$1", "^1", "[", "]", "D3", "x04", "O12",
        "i4!", "o3$", "'6", "ss$", "@s", "z2", "Z2", "q", "k", "K", "*34", "L0", "R2", "+2", "-0", ".1", ",1", "y2", "Y2",
        "E", "e-", "TA", "xA2", "iB-", "<5", ">5", "_8", "!@", "/s", "(p", ")d", "=1@", "%2s", "pZ '5", "d d", "c $1 $2",
        "sa@ so0 $!", "] ] ]", "'8", "$ $1", "s _", "OA2", "*0Z", "z9 Z9", "y9", "YZ", "pZ"})
    c.rules.push_back(parsed_rule(text));
  const auto source = rules_source(c.words, c.rules);
  std::string out;
  for (std::uint64_t i = 0; i < source->size(); ++i) {
    const bool ok = source->get(i, out);
    c.made.push_back(ok ? out : "");
    c.accepted.push_back(ok);
  }
}

}  // namespace

TEST_CASE("GPU crossed batches: words through rules made on the device equal Rule::apply", "[gpu][hash][audit]") {
  const bool sanitizer = wk::test::sanitizer_run();
  RuleCase rc;
  fill_rule_case(rc);
  const std::uint64_t total = rc.made.size(), first = 5, count = total - 9;
  const CandidateRun run{nullptr, rc.words, rc.rules, first, count};
  std::size_t accepted = 0;
  for (std::uint64_t j = 0; j < count; ++j) accepted += rc.accepted[first + j];
  REQUIRE(accepted > count / 2);
  REQUIRE(accepted < count);
  // One md5crypt account per distinct candidate of the run (under the sanitizer every 16th), and
  // one whose password no candidate is.
  std::vector<std::string> passwords;
  for (std::uint64_t j = 0; j < count; ++j)
    if (rc.accepted[first + j] && std::find(passwords.begin(), passwords.end(), rc.made[first + j]) == passwords.end())
      passwords.push_back(rc.made[first + j]);
  if (sanitizer) {
    std::vector<std::string> some;
    for (std::size_t i = 0; i < passwords.size(); i += 16) some.push_back(passwords[i]);
    passwords = some;
  }
  passwords.push_back("no candidate");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t a = 0; a < passwords.size(); ++a)
    for (std::uint32_t j = 0; j < count; ++j)
      if (rc.accepted[first + j] && rc.made[first + j] == passwords[a]) want.emplace_back(a, j);
  std::mt19937 rng(61);
  for (const auto& [m, tag] : {std::pair{Method::md5crypt, "$1$"}, {Method::sha256crypt, "$5$rounds=1000$"}}) {
    if (sanitizer && m != Method::md5crypt) continue;
    std::vector<std::string> hashes;
    for (const std::string& pw : passwords) hashes.push_back(crypt_libxcrypt(tag + random_salt(rng, 8), pw).value());
    const CrossedAccounts accounts(hashes);
    const std::vector<const Setting*>& ptrs = accounts.ptrs;
    const std::vector<std::string_view>& expected = accounts.expected;
    for (const gpu::VariantInfo& info : gpu::variants(m)) {
      if ((sanitizer || m != Method::md5crypt) && info.variant != gpu::default_variant(m)) continue;
      CAPTURE(method_name(m), info.name);
      Stream stream;
      gpu::DeviceBatch batch(gpu::DeviceBatch::Crossed{}, m, ptrs, run, info.variant, stream);
      CHECK(batch.size() == ptrs.size() * accepted);  // no jobs for the rejected candidates
      batch.run(stream);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
      batch.matches(stream, expected, got);
      CHECK(got == want);
    }
  }
  // Every candidate rejected: an empty batch.
  const std::vector<Rule> reject = {parsed_rule("_Z")};  // no word is 35 bytes long
  Stream stream;
  std::vector<Setting> one = {*parse_setting(crypt_libxcrypt("$1$abc", "x").value()).setting};
  const std::vector<const Setting*> one_ptr = {&one[0]};
  gpu::DeviceBatch none(gpu::DeviceBatch::Crossed{}, Method::md5crypt, one_ptr, CandidateRun{nullptr, rc.words, reject, 0, 7},
                        gpu::default_variant(Method::md5crypt), stream);
  CHECK(none.size() == 0);
  none.run(stream);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  none.matches(stream, {}, got);
  CHECK(got.empty());
}

TEST_CASE("GPU CryptEngine::crypt_cross and audit with words through rules equal the CPU engine", "[gpu][hash][audit]") {
  // Under a sanitizer the rules' kernels run in the test above; here bcrypt and yescrypt would
  // take minutes of racecheck for kernels other tests cover.
  if (wk::test::sanitizer_run()) return;
  const std::vector<std::string_view> words = {"alpha", "beta", "gamma", "delta", "epsilon"};
  std::vector<Rule> rules;
  for (const char* text : {":", "c", "$1", ">5", "r", "so0 $!"}) rules.push_back(parsed_rule(text));
  // Candidates 1 .. 27 of words x rules (index = word * 6 + rule); ">5" rejects "beta" (index 9).
  const CandidateRun run{nullptr, words, rules, 1, 27};
  std::vector<std::string> strings;
  std::string one;
  for (std::uint64_t j = 0; j < run.count; ++j) strings.push_back(run.get(j, one) ? one : std::string(600, 'x'));
  // Crossed (md5crypt, sha512crypt), paired (bcrypt, yescrypt) and libxcrypt (descrypt) accounts.
  const std::vector<std::pair<std::string, std::string>> accounts = {
      {"$1$abcdefgh", "Gamma"},  {"$1$xy", "none"},         {"$6$rounds=1000$salt", "atled"},
      {"$1$q", "alpha1"},        {"$2b$04$abcdefghijklmnopqrstuu", "Epsilon"},
      {"ab", "beta1"},           {"$y$j75$abcdefgh", "delta"},
      {"$5$rounds=1000$q", "alpha"},  // also candidate 0, before the run
      {"$1$late", "epsil0n!"},        // candidate 29: after the run
  };
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t a = 0; a < accounts.size(); ++a)
    for (std::uint32_t j = 0; j < strings.size(); ++j)
      if (strings[j] == accounts[a].second) want.emplace_back(a, j);
  REQUIRE(want.size() == 8);  // delta twice (rules ":" and ">5")
  CryptEngine gpu_engine(Backend::gpu), cpu_engine(Backend::cpu);
  check_run_against_cpu(gpu_engine, cpu_engine, accounts, run, strings, want);

  // The audit: md5crypt accounts, slices small enough that a run spans several of them.
  const auto source = rules_source(words, rules);
  const std::vector<AuditAccount> two = {{"u", crypt_libxcrypt("$1$onehash", "epsil0n!").value()},
                                         {"v", crypt_libxcrypt("$1$other", "Beta").value()}};
  check_audit_of_two(gpu_engine, cpu_engine, two, *source, 8, 4 * 6 + 5, 1 * 6 + 1);
}

TEST_CASE("GPU CryptEngine::crypt_cross: candidates of many lengths over many chunks of the packing", "[gpu][hash][audit]") {
  if (wk::test::sanitizer_run()) return;  // the packing is host code; the kernels are covered above
  // 100 000 candidates of 0 to 40 bytes (the crossed packing sorts them by length in chunks of
  // 2^15 on all cores), one of them rejected, duplicates included; accounts whose passwords sit
  // in the first, a middle and the last chunk.
  std::mt19937 rng(59);
  std::vector<std::string> candidates;
  for (int i = 0; i < 100000; ++i) candidates.push_back(random_password(rng, int(rng() % 41)));
  candidates[70000] = std::string(600, 'z');  // over 511 bytes: matches nothing
  const std::vector<std::uint32_t> planted = {0, 5, 40000, 65536, 99999};
  std::vector<std::string> hashes;
  for (const std::uint32_t k : planted) hashes.push_back(crypt_libxcrypt("$1$" + random_salt(rng, 8), candidates[k]).value());
  hashes.push_back(crypt_libxcrypt("$5$rounds=1000$" + random_salt(rng, 16), candidates[77777]).value());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t a = 0; a < hashes.size(); ++a) {
    const std::string& pw = candidates[a < planted.size() ? planted[a] : 77777];
    for (std::uint32_t k = 0; k < candidates.size(); ++k)
      if (candidates[k] == pw) want.emplace_back(a, k);
  }
  CryptEngine engine(Backend::gpu);
  const CrossResult r = engine.crypt_cross({views_of(hashes), views_of(candidates)});
  CHECK(r.matches == want);
}
