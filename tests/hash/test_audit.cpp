// The audit engine's library parts: which hashes can be checked (hash_problems), the pot file, the
// session file, and the candidate walk in slices that a checkpoint can resume.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/audit.hpp"
#include "wk/hash/audit_session.hpp"
#include "wk/hash/potfile.hpp"

using wk::test::read_bytes;
using wk::test::TempDir;
using wk::test::write_bytes;
namespace fs = std::filesystem;
namespace h = wk::hash;

namespace {

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Candidates "c0", "c1", ...; every `reject`-th index makes none (as a rule that rejects a word).
class NumberedSource final : public h::CandidateSource {
 public:
  NumberedSource(std::uint64_t size, std::uint64_t reject = 0) : size_(size), reject_(reject) {}
  std::uint64_t size() const override { return size_; }
  bool get(std::uint64_t index, std::string& out) const override {
    if (reject_ && index % reject_ == reject_ - 1) return false;
    out = "c" + std::to_string(index);
    return true;
  }

 private:
  std::uint64_t size_, reject_;
};

std::vector<h::AuditAccount> numbered_accounts() {
  auto hash = [](const char* setting, const char* pw) { return h::crypt_libxcrypt(setting, pw).value(); };
  return {{"a", hash("$1$aa", "c5")},           {"b", hash("$5$rounds=1000$bb", "c77")},
          {"c", hash("$1$cc", "not-there")},    {"d", hash("$1$dd", "c199")},
          {"e", hash("$1$ee", "c5")},           {"f", hash("$1$ff", "c14")}};  // c14: rejected by the source
}

}  // namespace

TEST_CASE("hash_problems: a hash is checkable only in the exact shape crypt(3) writes", "[hash][audit]") {
  h::CryptEngine engine(wk::Backend::cpu);
  std::vector<h::AuditAccount> good;
  for (const char* setting : {"$1$saltsalt", "$5$rounds=1000$salt", "$6$saltsalt", "$2b$04$abcdefghijklmnopqrstuu",
                              "$2a$04$abcdefghijklmnopqrstuu", "$y$j9T$abcdefgh", "$7$CU..../....abcdefgh", "ab",
                              "_J9..salt", "$sha1$40000$abcdefgh", "$md5$abcdefgh", "$gy$j9T$abcdefgh", "$3$"}) {
    // Methods this libxcrypt was built without are no test of ours.
    if (const auto hash = h::crypt_libxcrypt(setting, "pw")) good.push_back({setting, *hash});
  }
  REQUIRE(good.size() >= 8);
  for (const auto& [problem, account] : [&] {
         std::vector<std::pair<std::string, h::AuditAccount>> v;
         const auto p = h::hash_problems(engine, good);
         for (std::size_t i = 0; i < good.size(); ++i) v.emplace_back(p[i], good[i]);
         return v;
       }()) {
    CAPTURE(account.hash);
    CHECK(problem.empty());
  }
  const std::string sha512 = h::crypt_libxcrypt("$6$saltsalt", "pw").value();
  const std::string des = h::crypt_libxcrypt("ab", "pw").value();
  const struct {
    std::string hash;
    const char* says;
  } bad[] = {
      {"8846f7eaee8fb117ad06bdd830b7586c", "32 bytes with no method prefix"},  // NT: no descrypt salt "88"
      {"5f4dcc3b5aa765d61d8327deb882cf99", "no method prefix"},                 // raw MD5
      {sha512.substr(0, sha512.size() - 1), "a $6$ hash of"},                   // truncated
      {des + "x", "14 bytes"},                                                  // descrypt plus a byte
      {des.substr(0, 12) + "!", "13 bytes with no method prefix"},              // a byte crypt never writes
      {"$6$rounds=12$abc$def", "a $6$ hash"},                                   // rounds out of range
      {"$9$abc$def", "a $9$ hash"},                                             // no such method
      {"$1$", "a $1$ hash"},
      {"no colon here", "no method prefix"},
  };
  std::vector<h::AuditAccount> accounts;
  for (const auto& b : bad) accounts.push_back({"u", b.hash});
  const auto problems = h::hash_problems(engine, accounts);
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    CAPTURE(accounts[i].hash, problems[i]);
    CHECK(problems[i].rfind("not checked: ", 0) == 0);
    CHECK_THAT(problems[i], Catch::Contains(bad[i].says));
    // Never more of the hash than its method prefix.
    const std::string_view secret = std::string_view(accounts[i].hash).substr(h::method_prefix(accounts[i].hash).size());
    if (secret.size() >= 4) CHECK(problems[i].find(secret.substr(secret.size() - 4)) == std::string::npos);
  }
  CHECK(h::method_prefix("$md5,rounds=5000$abc$$x") == "$md5,");
  CHECK(h::method_prefix("$2b$10$x") == "$2b$");
  CHECK(h::method_prefix("_J9..salt") == "_");
  CHECK(h::method_prefix("abcdefghijklm").empty());
}

TEST_CASE("PotFile splits at the first colon, keeps a hash's first line, names bad lines", "[hash][audit]") {
  const std::string text = "$1$aa$x:pass:with:colons\n\nno colon\n:empty-hash\n$1$aa$x:second\n$1$bb$y:\r\n";
  wk::hash::SecretBuffer buf;
  buf.append(text.data(), text.size());
  const h::PotFile pot(std::move(buf));
  CHECK(pot.size() == 2);
  CHECK(pot.find("$1$aa$x").value() == "pass:with:colons");
  CHECK(pot.find("$1$bb$y").value().empty());  // an empty password found is a password found
  CHECK_FALSE(pot.find("$1$aa").has_value());
  REQUIRE(pot.errors().size() == 2);
  CHECK(pot.errors()[0].first == 3);
  CHECK(pot.errors()[1].first == 4);
  for (const auto& e : pot.errors()) CHECK(e.second.find("empty-hash") == std::string::npos);
  TempDir dir;
  CHECK(h::PotFile::read(dir / "missing.pot").size() == 0);  // no file yet: an empty pot
}

TEST_CASE("PotWriter creates the pot with mode 0600, appends lines, mends a missing final newline", "[hash][audit]") {
  TempDir dir;
  const fs::path p = dir / "new.pot";
  {
    h::PotWriter w(p);
    w.append("$1$aa$x", "a:b");
    w.append("$1$bb$y", "second");
  }
  CHECK(mode_of(p) == 0600);
  CHECK(read_bytes(p) == "$1$aa$x:a:b\n$1$bb$y:second\n");
  write_bytes(dir / "old.pot", "$1$cc$z:cut short");  // no final newline
  ::chmod((dir / "old.pot").c_str(), 0640);
  {
    h::PotWriter w(dir / "old.pot");
    w.append("$1$dd$w", "next");
  }
  CHECK(read_bytes(dir / "old.pot") == "$1$cc$z:cut short\n$1$dd$w:next\n");
  CHECK(mode_of(dir / "old.pot") == 0640);  // an existing file's mode is the user's
  const auto reread = h::PotFile::read(dir / "old.pot");
  CHECK(reread.find("$1$cc$z").value() == "cut short");
  CHECK(reread.find("$1$dd$w").value() == "next");
  CHECK_THROWS_AS(h::PotWriter(dir / "no-such-folder" / "x.pot"), wk::Error);
}

TEST_CASE("Audit session file: written whole with mode 0600, read back, anything else refused", "[hash][audit]") {
  TempDir dir;
  const fs::path p = dir / "audit.session";
  h::AuditCheckpoint c;
  c.options = R"({"hashes":"/etc/shadow","mask":"?d?d"})";
  c.candidates = 100;
  c.next = 42;
  c.found = {{3, 7}, {9, 41}};
  h::write_checkpoint(p, c);
  CHECK(mode_of(p) == 0600);
  const h::AuditCheckpoint r = h::read_checkpoint(p);
  CHECK(r.options == R"({"hashes":"/etc/shadow","mask":"?d?d"})");
  CHECK(r.candidates == 100);
  CHECK(r.next == 42);
  CHECK(r.found == c.found);
  c.next = 43;
  h::write_checkpoint(p, c);  // replaced whole
  CHECK(h::read_checkpoint(p).next == 43);
  for (const char* bad : {"", "[]", "{\"next\":1}", "{\"warpkit_audit_session\":2,\"options\":{},\"candidates\":1,\"next\":0,\"found\":[]}",
                          "{\"warpkit_audit_session\":1,\"options\":{},\"candidates\":1,\"next\":2,\"found\":[]}",
                          "{\"warpkit_audit_session\":1,\"options\":[],\"candidates\":1,\"next\":0,\"found\":[]}"}) {
    CAPTURE(bad);
    write_bytes(dir / "bad", bad);
    CHECK_THROWS_WITH(h::read_checkpoint(dir / "bad"), Catch::Contains("not a wk-hash audit session file"));
  }
  CHECK_THROWS_AS(h::read_checkpoint(dir / "missing"), wk::Error);
}

TEST_CASE("audit over a candidate source: first match per account, stopped and resumed without a candidate twice", "[hash][audit]") {
  h::CryptEngine engine(wk::Backend::cpu);
  const auto accounts = numbered_accounts();
  const NumberedSource source(300, 15);  // c14, c29, ... make no candidate
  const h::AuditResult whole = h::audit(engine, accounts, source);
  CHECK_FALSE(whole.stopped);
  CHECK(whole.next == 300);
  REQUIRE(whole.matches.size() == 4);
  CHECK(whole.matches[0].account == 0);
  CHECK(whole.matches[0].candidate == 5);
  CHECK(whole.matches[1].account == 1);
  CHECK(whole.matches[1].candidate == 77);
  CHECK(whole.matches[2].account == 3);
  CHECK(whole.matches[2].candidate == 199);
  CHECK(whole.matches[3].account == 4);
  CHECK(whole.matches[3].candidate == 5);
  CHECK(whole.rejected.empty());

  // Small slices, stopped after the third: the slice already in the engine then finishes and
  // counts, and the audit is resumed from `next`. Every candidate index is handed out once over
  // both runs, and the matches are the uninterrupted run's.
  std::vector<int> tried(300, 0);
  class CountingSource final : public h::CandidateSource {
   public:
    CountingSource(const h::CandidateSource& s, std::vector<int>& tried) : s_(s), tried_(tried) {}
    std::uint64_t size() const override { return s_.size(); }
    bool get(std::uint64_t i, std::string& out) const override {
      ++tried_[i];
      return s_.get(i, out);
    }

   private:
    const h::CandidateSource& s_;
    std::vector<int>& tried_;
  } counting(source, tried);
  h::AuditOptions o;
  o.slice_pairs = 60;  // 6 accounts open: 10 candidates a slice
  int slices = 0;
  std::vector<h::AuditMatch> found;
  o.found = [&](const h::AuditMatch& m) { found.push_back(m); };
  o.slice_done = [&](std::uint64_t) { return ++slices < 3; };
  const h::AuditResult first = h::audit(engine, accounts, counting, o);
  CHECK(first.stopped);
  // Two slices stay in the engine while a third is compared: the first three are built with 6
  // accounts open (10 candidates each), the next ones after a and e were found in the first (4 open:
  // 15 each). Stopped after the third, the fourth and fifth (in the engine) are settled too:
  // 3 x 10 + 2 x 15.
  CHECK(first.next == 60);
  REQUIRE(found.size() == 2);  // a and e, both at c5, in account order
  CHECK(found[0].account == 0);
  CHECK(found[1].account == 4);
  o.begin = first.next;
  o.skip.assign(accounts.size(), false);
  for (const auto& m : first.matches) o.skip[m.account] = true;
  o.slice_done = {};
  const h::AuditResult rest = h::audit(engine, accounts, counting, o);
  CHECK_FALSE(rest.stopped);
  CHECK(rest.next == 300);
  std::vector<h::AuditMatch> all = first.matches;
  all.insert(all.end(), rest.matches.begin(), rest.matches.end());
  std::sort(all.begin(), all.end(), [](auto& x, auto& y) { return x.account < y.account; });
  REQUIRE(all.size() == whole.matches.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i].account == whole.matches[i].account);
    CHECK(all[i].candidate == whole.matches[i].candidate);
  }
  // Once d (c199) is found only c's hash stays open; nothing is tried twice, and with every account
  // settled the walk ends.
  for (std::size_t i = 0; i < tried.size(); ++i) {
    CAPTURE(i);
    CHECK(tried[i] <= 1);
    if (i < 200) CHECK(tried[i] == 1);
  }
}

TEST_CASE("audit: a rejected setting closes its account, skip leaves accounts untried", "[hash][audit]") {
  h::CryptEngine engine(wk::Backend::cpu);
  std::vector<h::AuditAccount> accounts = numbered_accounts();
  accounts.push_back({"bad", "$6$rounds=12$abc$def"});
  const NumberedSource source(20);
  h::AuditOptions o;
  o.skip = {true, false, false, false, false, false, false};  // a: found before (a pot file)
  const h::AuditResult r = h::audit(engine, accounts, source, o);
  REQUIRE(r.matches.size() == 2);
  CHECK(r.matches[0].account == 4);  // e; a was skipped
  CHECK(r.matches[1].account == 5);  // f: c14 is a candidate in this source
  REQUIRE(r.rejected.size() == 1);
  CHECK(r.rejected[0].first == 6);
}

TEST_CASE("CryptEngine::crypt_cross on the CPU: a mask's run equals its candidates given as strings", "[hash][audit]") {
  h::CryptEngine engine(wk::Backend::cpu);
  const h::Mask mask = h::Mask::parse("?d?1x", {"ab"});  // 20 candidates; the run is 3 .. 17
  const h::CandidateRun run{&mask, {}, {}, 3, 15};
  std::vector<std::string> candidates;
  for (std::uint64_t j = 0; j < run.count; ++j) {
    std::string c(mask.length(), '\0');
    mask.candidate(run.first + j, c.data());
    candidates.push_back(c);
  }
  REQUIRE(candidates.front() == "1bx");
  const std::vector<std::string> hashes = {
      h::crypt_libxcrypt("$1$aa", "2ax").value(),                    // candidate 4 of the mask: run number 1
      h::crypt_libxcrypt("$5$rounds=1000$bb", "8bx").value(),        // 17: 14
      h::crypt_libxcrypt("$2b$04$abcdefghijklmnopqrstuu", "0ax").value(),  // 0: before the run
      h::crypt_libxcrypt("xy", "5ax").value(),                       // 10: 7
      "$6$rounds=12$abc$def"};
  const std::vector<std::string_view> hv(hashes.begin(), hashes.end()), cv(candidates.begin(), candidates.end());
  std::size_t last = 0;
  const h::CrossResult r = engine.crypt_cross({hv, {}, run}, [&](std::size_t done) { last = done; });
  CHECK(last == hashes.size() * run.count);
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> want = {{0, 1}, {1, 14}, {3, 7}};
  CHECK(r.matches == want);
  const h::CrossResult strings = engine.crypt_cross({hv, cv});
  CHECK(r.matches == strings.matches);
  CHECK(r.errors == strings.errors);
  CHECK_FALSE(r.errors[4].empty());
  // A run whose candidates may hold a NUL byte is the caller's mistake.
  const h::Mask nul = h::Mask::parse("?b");
  CHECK_THROWS_AS(engine.crypt_cross({hv, {}, {&nul, {}, {}, 0, 4}}), wk::Error);
}

TEST_CASE("CryptEngine::crypt_cross on the CPU: words through rules as a run equal their candidates as strings", "[hash][audit]") {
  h::CryptEngine engine(wk::Backend::cpu);
  const std::vector<std::string_view> words = {"alpha", "beta", "gamma"};
  std::vector<h::Rule> rules;
  for (const char* text : {":", "c", "$1", ">5", "r"}) rules.push_back(h::Rule::parse(text).value());
  // Candidates 2 .. 13 of words x rules (index = word * 5 + rule); ">5" rejects "beta" (index 8).
  const h::CandidateRun run{nullptr, words, rules, 2, 12};
  std::vector<std::string> candidates;
  std::string one;
  for (std::uint64_t j = 0; j < run.count; ++j)
    candidates.push_back(run.get(j, one) ? one : std::string(600, 'x'));  // too long: matches nothing
  REQUIRE(candidates[0] == "alpha1");
  REQUIRE(candidates[6] == std::string(600, 'x'));
  const std::vector<std::string> hashes = {
      h::crypt_libxcrypt("$1$aa", "beta1").value(),                       // index 7: run number 5
      h::crypt_libxcrypt("$5$rounds=1000$bb", "ateb").value(),            // 9: 7
      h::crypt_libxcrypt("$2b$04$abcdefghijklmnopqrstuu", "alpha").value(),  // 0 (before the run) and 3: 1
      h::crypt_libxcrypt("xy", "Gamma").value(),                          // 11: 9
      h::crypt_libxcrypt("$6$rounds=1000$cc", "gamma").value()};          // 10 and 13: 8 and 11
  const std::vector<std::string_view> hv(hashes.begin(), hashes.end()), cv(candidates.begin(), candidates.end());
  std::size_t last = 0;
  const h::CrossResult r = engine.crypt_cross({hv, {}, run}, [&](std::size_t done) { last = done; });
  CHECK(last == hashes.size() * run.count);  // the rejected candidate's pairs count as done
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> want = {{0, 5}, {1, 7}, {2, 1}, {3, 9}, {4, 8}, {4, 11}};
  CHECK(r.matches == want);
  const h::CrossResult strings = engine.crypt_cross({hv, cv});
  CHECK(r.matches == strings.matches);
  CHECK(r.errors == strings.errors);
}

TEST_CASE("CryptEngine::crypt_cross on the CPU: every pair, each hash parsed once, errors per hash", "[hash][audit]") {
  h::CryptEngine engine(wk::Backend::cpu);
  const std::vector<std::string> candidates = {"c0", "c1", std::string(512, 'x'), "c3", "c1"};
  const std::vector<std::string> hashes = {
      h::crypt_libxcrypt("$1$aa", "c1").value(),       h::crypt_libxcrypt("$5$rounds=1000$bb", "c3").value(),
      "$6$rounds=12$abc$def",                           h::crypt_libxcrypt("$2b$04$abcdefghijklmnopqrstuu", "c0").value(),
      h::crypt_libxcrypt("xy", "none of them").value(), "$q$unknown"};
  const std::vector<std::string_view> hv(hashes.begin(), hashes.end()), cv(candidates.begin(), candidates.end());
  std::size_t last = 0;
  const h::CrossResult r = engine.crypt_cross({hv, cv}, [&](std::size_t done) { last = done; });
  CHECK(last == hashes.size() * 4);  // the 512-byte candidate is no pair
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> want = {{0, 1}, {0, 4}, {1, 3}, {3, 0}};
  CHECK(r.matches == want);
  REQUIRE(r.errors.size() == hashes.size());
  for (std::size_t a : {0, 1, 3, 4}) CHECK(r.errors[a].empty());
  CHECK_FALSE(r.errors[2].empty());
  CHECK_FALSE(r.errors[5].empty());
}
