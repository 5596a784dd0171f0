// wk-hash and its engine on several GPUs in one process: output byte-identical to one GPU, every
// GPU given work. Hidden tests ([.multi-gpu]): the "multi-gpu" ctest runs them where the machine
// has 2 or more GPUs and skips them elsewhere (WK_TEST_MIN_GPUS, support/main_gpu.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "hash_test_util.hpp"
#include "test_support.hpp"
#include "wk/hash/crypt.hpp"
#include "wk_hash_run.hpp"

using namespace wk;
using namespace wk::hash;
using namespace wk::hash::test;
namespace wt = wk::test;

namespace {

// The jobs each GPU took, from -v's "GPU jobs: GPU 0 N GPU 1 M ..." line (empty: no such line).
std::vector<std::uint64_t> gpu_jobs(const std::string& err) {
  std::vector<std::uint64_t> jobs;
  const std::size_t at = err.find("GPU jobs:");
  if (at == std::string::npos) return jobs;
  const std::string line = err.substr(at, err.find('\n', at) - at);
  const std::regex one("GPU [0-9]+ ([0-9]+)");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), one); it != std::sregex_iterator(); ++it)
    jobs.push_back(std::stoull((*it)[1].str()));
  return jobs;
}

void check_every_gpu_worked(const std::string& err) {
  INFO(err);
  const std::vector<std::uint64_t> jobs = gpu_jobs(err);
  CHECK(jobs.size() >= 2);
  for (std::uint64_t n : jobs) CHECK(n > 0);
}

}  // namespace

TEST_CASE("CryptEngine on every GPU: concurrent calls equal libxcrypt, each GPU takes calls", "[gpu][hash][.multi-gpu]") {
  std::mt19937 rng(45);
  const char* tags[] = {"$1$", "$6$rounds=1000$", "$2b$04$", "$5$rounds=1000$"};
  std::vector<std::string> settings, passwords;
  for (int i = 0; i < 1600; ++i) {
    const std::string tag = tags[i % 4];
    settings.push_back(tag + (tag == "$2b$04$" ? random_bcrypt_salt(rng) : random_salt(rng, 8)));
    passwords.push_back(random_password(rng, random_length(rng) % 64));
  }
  CryptEngine engine(Backend::gpu);
  REQUIRE(engine.gpu_shares().size() >= 2);
  // 16 calls of 100 jobs from 8 threads at once, as the line engine makes them.
  std::vector<CryptOutcome> out(settings.size());
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t begin = std::size_t(t) * 100; begin < settings.size(); begin += 800) {
        std::vector<CryptJob> jobs;
        for (std::size_t i = begin; i < begin + 100; ++i) jobs.push_back({settings[i], passwords[i]});
        engine.crypt(jobs, std::span<CryptOutcome>(out).subspan(begin, 100));
      }
    });
  for (auto& t : pool) t.join();
  int bad = 0;
  for (std::size_t i = 0; i < settings.size(); ++i) bad += out[i].hash != crypt_libxcrypt(settings[i], passwords[i]).value_or("");
  CHECK(bad == 0);
  std::uint64_t total = 0;
  for (const CryptEngine::GpuShare& g : engine.gpu_shares()) {
    CAPTURE(g.device);
    CHECK(g.jobs > 0);
    total += g.jobs;
  }
  CHECK(total == settings.size());
}

TEST_CASE("wk-hash crypt, verify, hash and audit on every GPU: the output of one GPU, every GPU used", "[gpu][hash][cli][.multi-gpu]") {
  wt::TempDir dir;
  std::mt19937 rng(46);
  std::string input;
  const char* tags[] = {"$1$", "$5$rounds=1000$", "$6$rounds=1000$", "$2b$04$"};
  for (int i = 0; i < 6000; ++i) {
    const std::string tag = tags[i % 4];
    input += tag + (tag == "$2b$04$" ? random_bcrypt_salt(rng) : random_salt(rng, 8 + int(rng() % 9))) + "\t" +
             random_password(rng, int(rng() % 40), true) + "\n";
    if (i == 3000) input += "a line without a tab\n";
  }
  wt::write_bytes(dir / "in.tsv", input);
  // Slices of 256 lines: some 24 of them, dealt over the GPUs.
  const std::string env = "WK_HASH_SLICE_LINES=256 ";
  const std::string in = wt::sh_quote((dir / "in.tsv").string());
  const Run one = run_script_split(dir, env + wk_hash_exe() + " crypt --device gpu --gpus 0 -q -i " + in);
  const Run all = run_script_split(dir, env + wk_hash_exe() + " crypt --device gpu -v -i " + in);
  CHECK(one.code == 1);  // the line without a tab
  CHECK(all.code == 1);
  CHECK(all.out == one.out);
  CHECK(std::count(one.out.begin(), one.out.end(), '\n') == 6000);
  check_every_gpu_worked(all.err);
  // A sample against libxcrypt.
  std::size_t pos = 0, line = 0, checked = 0, bad = 0;
  for (std::size_t at = 0; at < input.size(); ++line) {
    const std::size_t nl = input.find('\n', at), tab = input.find('\t', at);
    if (tab < nl && line % 37 == 0) {
      const std::size_t end = one.out.find('\n', pos);
      bad += one.out.substr(pos, end - pos) != crypt_libxcrypt(input.substr(at, tab - at), input.substr(tab + 1, nl - tab - 1));
      ++checked;
    }
    if (tab < nl) pos = one.out.find('\n', pos) + 1;
    at = nl + 1;
  }
  CHECK(checked > 100);
  CHECK(bad == 0);

  // verify: the hashes with their passwords, every 10th one wrong.
  std::string pairs;
  pos = 0;
  line = 0;
  for (std::size_t at = 0; at < input.size(); at = input.find('\n', at) + 1) {
    const std::size_t nl = input.find('\n', at), tab = input.find('\t', at);
    if (tab > nl) continue;
    const std::size_t end = one.out.find('\n', pos);
    pairs += one.out.substr(pos, end - pos) + "\t" + input.substr(tab + 1, nl - tab - 1) + (line++ % 10 == 0 ? "x" : "") + "\n";
    pos = end + 1;
  }
  wt::write_bytes(dir / "pairs.tsv", pairs);
  const std::string p = wt::sh_quote((dir / "pairs.tsv").string());
  const Run v1 = run_script_split(dir, env + wk_hash_exe() + " verify --device gpu --gpus 0 -q -i " + p);
  const Run va = run_script_split(dir, env + wk_hash_exe() + " verify --device gpu --gpus all -v -i " + p);
  CHECK(v1.code == 1);  // the mismatches
  CHECK(va.code == v1.code);
  CHECK(va.out == v1.out);
  CHECK(std::count(va.out.begin(), va.out.end(), '\n') == 6000);
  std::size_t mismatches = 0;
  for (std::size_t at = va.out.find(": MISMATCH\n"); at != std::string::npos; at = va.out.find(": MISMATCH\n", at + 1)) ++mismatches;
  CHECK(mismatches == 600);
  check_every_gpu_worked(va.err);

  // hash: fresh salts, so each line is checked with its own password, in input order.
  std::string pw_list;
  for (int i = 0; i < 20000; ++i) pw_list += "pw-" + std::to_string(i) + "\n";
  wt::write_bytes(dir / "pw.txt", pw_list);
  const Run h = run_script_split(dir, "WK_HASH_SLICE_LINES=1000 " + wk_hash_exe() +
                                          " hash --device gpu -v --method sha512crypt --rounds 1000 -i " +
                                          wt::sh_quote((dir / "pw.txt").string()));
  CHECK(h.code == 0);
  check_every_gpu_worked(h.err);
  std::size_t hash_bad = 0, lines = 0;
  for (std::size_t at = 0; at < h.out.size(); at = h.out.find('\n', at) + 1, ++lines)
    if (lines % 97 == 0) {
      const std::string hashed = h.out.substr(at, h.out.find('\n', at) - at);
      hash_bad += crypt_libxcrypt(hashed, "pw-" + std::to_string(lines)) != hashed;
    }
  CHECK(lines == 20000);
  CHECK(hash_bad == 0);

  // audit: many accounts, small slices; the same findings in the same order.
  std::string hashes, words;
  for (int i = 0; i < 64; ++i) {
    const std::string setting = std::string(i % 2 ? "$1$" : "$6$rounds=1000$") + random_salt(rng, 8);
    hashes += "user" + std::to_string(i) + ":" + *crypt_libxcrypt(setting, "word" + std::to_string(i * 37)) + "\n";
  }
  for (int i = 0; i < 3000; ++i) words += "word" + std::to_string(i) + "\n";
  wt::write_bytes(dir / "hashes", hashes);
  wt::write_bytes(dir / "words", words);
  const std::string audit = "WK_AUDIT_SLICE_PAIRS=4096 " + wk_hash_exe() + " audit --device gpu --show-passwords --hashes " +
                            wt::sh_quote((dir / "hashes").string()) + " --wordlist " + wt::sh_quote((dir / "words").string());
  const Run a1 = run_script_split(dir, audit + " --gpus 0 -q");
  const Run aa = run_script_split(dir, audit + " -v");
  CHECK(a1.code == 1);  // weak passwords found
  CHECK(aa.code == 1);
  CHECK(aa.out == a1.out);
  CHECK(std::count(aa.out.begin(), aa.out.end(), '\n') == 64);  // word i * 37 is in the list for every account
  check_every_gpu_worked(aa.err);
}
