// wk-hash audit on the CPU backend (--device cpu): the hash list's line formats and the hashes it
// cannot check, the pot file and --show, rules and masks, sessions interrupted and resumed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "wk_hash_run.hpp"
#include "wk/hash/crypt.hpp"

using wk::test::read_bytes;
using wk::test::run;
using wk::test::sh_quote;
using wk::test::TempDir;
using wk::hash::test::Run;
using wk::hash::test::run_script_split;
using wk::hash::test::run_split;
using wk::test::write_bytes;
namespace fs = std::filesystem;

namespace {

std::string exe() { return sh_quote(WK_HASH_EXE); }
std::string hash_of(const char* setting, const std::string& pw) { return wk::hash::crypt_libxcrypt(setting, pw).value(); }


// share/rules/warpkit64.rule of the source tree.
std::string shipped_rules() {
  return (fs::path(__FILE__).parent_path().parent_path().parent_path() / "share" / "rules" / "warpkit64.rule").string();
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("wk-hash audit: user:hash and bare hash lines, hashes crypt(3) cannot check are named and fail", "[hash][cli][audit]") {
  TempDir dir;
  write_bytes(dir / "hashes", "alice:" + hash_of("$1$aa", "letmein") + ":19000:0:99999:7:::\n" +  // shadow
                                  "bob:" + hash_of("$5$rounds=1000$bb", "Tr0ub4dor&3-long") + "\n" +  // user:hash
                                  hash_of("$6$saltsalt", "password") + "\n" +                        // bare, line 3
                                  "8846f7eaee8fb117ad06bdd830b7586c\n" +                             // NT: bare, line 4
                                  "carol:5f4dcc3b5aa765d61d8327deb882cf99\n" +                       // raw MD5
                                  "dave:" + hash_of("$1$dd", "x").substr(0, 20) + "\n");             // truncated
  write_bytes(dir / "words", "password\nletmein\n123456\n");
  const std::string args = "audit --device cpu --hashes " + sh_quote((dir / "hashes").string()) + " --wordlist " +
                           sh_quote((dir / "words").string());
  const Run r = run_split(dir, args + " --show-passwords");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.out == "alice:letmein\nline 3:password\n");
  // Every hash that can never match is named with its file and line: never counted as safe.
  const std::string file = (dir / "hashes").string();
  CHECK_THAT(r.err, Catch::Contains(file + ": line 4: not checked: a hash of 32 bytes with no method prefix"));
  CHECK_THAT(r.err, Catch::Contains(file + ": line 5: not checked:"));
  CHECK_THAT(r.err, Catch::Contains(file + ": line 6: not checked: a $1$ hash"));
  CHECK_THAT(r.err, Catch::Contains("2 with a password from the word list; 3 not checked"));
  for (const char* secret : {"letmein", "password\n", "Tr0ub4dor", "8846f7ee", "5f4dcc3b"}) CHECK(r.err.find(secret) == std::string::npos);
  const Run j = run_split(dir, args + " -q --json");
  CHECK(j.code == 1);
  CHECK(nlohmann::json::parse(j.out.substr(j.out.find('\n') + 1))["user"] == "line 3");
  CHECK(nlohmann::json::parse(j.out.substr(j.out.find('\n') + 1))["line"] == 3);
  // Only checkable hashes, none weak: success. One NT hash among them: failure, said on stderr.
  write_bytes(dir / "clean", "bob:" + hash_of("$5$rounds=1000$bb", "Tr0ub4dor&3-long") + "\n");
  const std::string clean = "audit --device cpu -q --wordlist " + sh_quote((dir / "words").string()) + " --hashes ";
  CHECK(run_split(dir, clean + sh_quote((dir / "clean").string())).code == 0);
  write_bytes(dir / "with-nt", read_bytes(dir / "clean") + "8846f7eaee8fb117ad06bdd830b7586c\n");
  const Run nt = run_split(dir, clean + sh_quote((dir / "with-nt").string()));
  CHECK(nt.code == 1);
  CHECK(nt.out.empty());
  CHECK_THAT(nt.err, Catch::Contains("line 2: not checked"));
}

TEST_CASE("wk-hash audit --pot: found passwords appended with mode 0600, never tried again, --show reads them", "[hash][cli][audit]") {
  TempDir dir;
  const std::string file = (dir / "hashes").string(), pot = (dir / "audit.pot").string();
  write_bytes(dir / "hashes", "alice:" + hash_of("$1$aa", "pass:word") + ":19000::::::\n" +
                                  "bob:" + hash_of("$5$rounds=1000$bb", "not-listed") + "\n" +
                                  hash_of("$1$cc", "123456") + "\n");
  write_bytes(dir / "words", "password\npass:word\n123456\n");
  const std::string args = "audit --device cpu --hashes " + sh_quote(file) + " --wordlist " +
                           sh_quote((dir / "words").string()) + " --pot " + sh_quote(pot);
  const Run first = run_split(dir, args);
  INFO(first.err);
  CHECK(first.code == 1);
  CHECK(first.out == "alice\nline 3\n");
  CHECK(mode_of(pot) == 0600);
  const std::string pot_text = hash_of("$1$aa", "pass:word") + ":pass:word\n" + hash_of("$1$cc", "123456") + ":123456\n";
  CHECK(read_bytes(pot) == pot_text);
  CHECK(first.err.find("pass:word") == std::string::npos);  // passwords only where asked for
  // Again: the two found come from the pot, only bob's hash is tried; the pot is not appended to.
  const Run again = run_split(dir, args + " -v --json");
  CHECK(again.code == 1);
  CHECK_THAT(again.err, Catch::Contains("1 accounts x 3 words"));
  CHECK_THAT(again.err, Catch::Contains("2 with a password from the word list (2 from the pot file)"));
  CHECK(nlohmann::json::parse(again.out.substr(0, again.out.find('\n')))["finding"] == "password in the pot file");
  CHECK(read_bytes(pot) == pot_text);

  // --show: the pot's passwords of the hash list's accounts, split at the first ':', nothing
  // hashed: a bcrypt hash of cost 31 (days of CPU) in the pot is shown at once.
  const std::string slow = "$2b$31$abcdefghijklmnopqrstuu" + std::string(31, 'A');
  write_bytes(dir / "hashes", read_bytes(dir / "hashes") + "slow:" + slow + "\nnobody:*\n");
  write_bytes(dir / "audit.pot", read_bytes(pot) + slow + ":a:b:c\n");
  const std::string show = "audit --hashes " + sh_quote(file) + " --pot " + sh_quote(pot) + " --show";
  const Run s = run_script_split(dir, "timeout 20 " + exe() + " " + show);
  INFO(s.err);
  CHECK(s.code == 0);
  CHECK(s.out == "alice:pass:word\nline 3:123456\nslow:a:b:c\n");
  CHECK_THAT(s.err, Catch::Contains("3 of 4 accounts with a password in the pot file, 1 left"));
  const Run sj = run_split(dir, show + " -q --json");
  CHECK(nlohmann::json::parse(sj.out.substr(0, sj.out.find('\n')))["password"] == "pass:word");
  // Nothing of this hash list in the pot: exit 1.
  write_bytes(dir / "other", "eve:" + hash_of("$1$ee", "zzz") + "\n");
  const Run none = run_split(dir, "audit -q --hashes " + sh_quote((dir / "other").string()) + " --pot " + sh_quote(pot) + " --show");
  CHECK(none.code == 1);
  CHECK(none.out.empty());
  // Usage: --show needs --pot and takes no candidates; the pot file may not be a file the job reads.
  CHECK(run_split(dir, "audit --hashes " + sh_quote(file) + " --show").code == 2);
  CHECK(run_split(dir, show + " --wordlist " + sh_quote((dir / "words").string())).code == 2);
  const Run same = run_split(dir, "audit --device cpu --hashes " + sh_quote(file) + " --wordlist " +
                                      sh_quote((dir / "words").string()) + " --pot " + sh_quote((dir / "words").string()));
  CHECK(same.code == 2);
  CHECK(read_bytes(dir / "words") == "password\npass:word\n123456\n");
}

TEST_CASE("wk-hash audit: rules, masks with custom charsets and --increment, word+mask and mask+word", "[hash][cli][audit]") {
  TempDir dir;
  const std::string file = (dir / "hashes").string();
  write_bytes(dir / "hashes", "upper:" + hash_of("$1$aa", "Summer") + "\n" +      // rule c
                                  "digits:" + hash_of("$1$bb", "4711") + "\n" +    // mask ?d?d?d?d
                                  "short:" + hash_of("$1$cc", "42") + "\n" +       // --increment
                                  "hybrid:" + hash_of("$1$dd", "summer7!") + "\n" +  // word + ?d?1
                                  "first:" + hash_of("$1$ee", "7!summer") + "\n" +  // ?d?1 + word
                                  "ruled:" + hash_of("$1$ff", "Summer7!") + "\n");  // word, rule c, ?d?1
  write_bytes(dir / "words", "summer\nwinter\n");
  write_bytes(dir / "rules", "# capitalize, or the word as it is\n:\nc\n");
  const std::string base = "audit --device cpu -q --show-passwords --hashes " + sh_quote(file);
  const std::string words = " --wordlist " + sh_quote((dir / "words").string());
  const Run rules = run_split(dir, base + words + " --rules " + sh_quote((dir / "rules").string()));
  INFO(rules.err);
  CHECK(rules.out == "upper:Summer\n");
  const Run mask = run_split(dir, base + " --mask '?d?d?d?d'");
  CHECK(mask.out == "digits:4711\n");
  const Run inc = run_split(dir, base + " --mask '?d?d?d?d' --increment");
  CHECK(inc.out == "digits:4711\nshort:42\n");
  const Run hybrid = run_split(dir, base + words + " --mask '?d?1' -1 '!@#'");
  CHECK(hybrid.out == "hybrid:summer7!\n");
  const Run first = run_split(dir, base + words + " --mask '?d?1' -1 '!@#' --mask-first");
  CHECK(first.out == "first:7!summer\n");
  const Run ruled = run_split(dir, base + words + " --rules " + sh_quote((dir / "rules").string()) + " --mask '?d?1' -1 '!@#'");
  CHECK(ruled.out == "hybrid:summer7!\nruled:Summer7!\n");
  const Run ruled_talk = run_split(dir, "audit --device cpu --hashes " + sh_quote(file) + words + " --rules " +
                                           sh_quote((dir / "rules").string()) + " --mask '?d?1' -1 '!@#'");
  CHECK_THAT(ruled_talk.err, Catch::Contains("2 with a password from the word list, rules and mask"));
  const Run talk = run_split(dir, "audit --device cpu --hashes " + sh_quote(file) + " --mask '?d?d'");
  CHECK_THAT(talk.err, Catch::Contains("100 candidates"));
  CHECK_THAT(talk.err, Catch::Contains("with a password from the mask"));
  // The warpkit rule set loads and runs.
  const Run shipped = run_split(dir, base + words + " --rules " + sh_quote(shipped_rules()));
  CHECK(shipped.err.empty());
  CHECK_THAT(shipped.out, Catch::Contains("upper:Summer\n"));
  // Usage errors before any work.
  for (const std::string& bad : {base, base + " --rules " + sh_quote((dir / "rules").string()), base + " --mask '?d' -1 ab --increment --mask-first",
                                 base + words + " --increment", base + words + " -2 abc", base + " --mask '?q'",
                                 base + " --mask '?3'", base + " --rules " + sh_quote((dir / "rules").string()) + " --mask '?d'",
                                 "audit --restore x --hashes " + sh_quote(file)}) {
    CAPTURE(bad);
    CHECK(run_split(dir, bad).code == 2);
  }
}

TEST_CASE("wk-hash audit --session: stopped by SIGTERM at a slice's end, --restore finds what one run finds", "[hash][cli][audit]") {
  TempDir dir;
  // bcrypt cost 5 on the CPU: a few ms a try, so the audit runs for seconds; slices of 8 pairs.
  std::string words;
  for (int i = 0; i < 1500; ++i) words += "w" + std::to_string(1000 + i) + "\n";
  write_bytes(dir / "words", words);
  write_bytes(dir / "hashes", "early:" + hash_of("$2b$05$abcdefghijklmnopqrstuu", "w1040") + "\n" +
                                  "late:" + hash_of("$2b$05$bbcdefghijklmnopqrstuu", "w2400") + "\n" +
                                  "strong:" + hash_of("$2b$05$cbcdefghijklmnopqrstuu", "not-in-the-list") + "\n");
  const std::string file = (dir / "hashes").string(), session = (dir / "audit.session").string();
  const Run whole = run_split(dir, "audit --device cpu -q --show-passwords --hashes " + sh_quote(file) + " --wordlist " +
                                       sh_quote((dir / "words").string()));  // one uninterrupted run
  REQUIRE(whole.code == 1);
  REQUIRE(whole.out == "early:w1040\nlate:w2400\n");

  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int out = ::open((dir / "out1").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open((dir / "err1").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::setenv("WK_AUDIT_SLICE_PAIRS", "8", 1);
    ::setenv("WK_AUDIT_CHECKPOINT_SECONDS", "0.1", 1);
    ::execl(WK_HASH_EXE, "wk-hash", "audit", "--device", "cpu", "-q", "--show-passwords", "--hashes", file.c_str(),
            "--wordlist", (dir / "words").c_str(), "--session", session.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Past the first match (w1040: candidate 40) by the session's own account, then SIGTERM.
  std::uint64_t seen = 0;
  for (int i = 0; i < 600 && seen < 60; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!fs::exists(session)) continue;
    const auto j = nlohmann::json::parse(read_bytes(session), nullptr, false);
    if (!j.is_discarded()) seen = j.value("next", std::uint64_t(0));
  }
  CHECK(seen >= 60);
  ::kill(pid, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const std::string err1 = read_bytes(dir / "err1");
  INFO(err1);
  CHECK_THAT(err1, Catch::Contains("wk-hash audit --restore " + session));
  CHECK(read_bytes(dir / "out1").empty());  // findings only from a complete audit
  CHECK(mode_of(session) == 0600);
  const auto saved = nlohmann::json::parse(read_bytes(session));
  const std::uint64_t next = saved.at("next");
  CHECK(next >= 60);
  CHECK(next < 1500);
  CHECK(saved.at("found") == nlohmann::json::parse("[[1, 40]]"));  // line 1 at candidate 40; no password
  CHECK(read_bytes(session).find("w1040") == std::string::npos);

  // Resumed: from `next` on (only the candidates after the checkpoint), the same findings.
  const Run resumed = run_split(dir, "audit -v --restore " + sh_quote(session));
  INFO(resumed.err);
  CHECK(resumed.code == 1);
  CHECK(resumed.out == whole.out);
  CHECK_THAT(resumed.err, Catch::Contains("resuming " + session + " at candidate " + std::to_string(next) + " of 1500"));
  CHECK_THAT(resumed.err, Catch::Contains("2 accounts x " + std::to_string(1500 - next) + " words"));
  CHECK_FALSE(fs::exists(session));  // complete: nothing left to resume
  CHECK(run_split(dir, "audit --restore " + sh_quote(session)).code != 0);
}

TEST_CASE("wk-hash audit --help: the worked example with a word list, rules and a pot file", "[hash][cli][audit]") {
  const auto help = run(exe() + " audit --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.output, Catch::Contains("wk-hash audit --hashes /etc/shadow --wordlist words.txt --rules "
                                          "share/rules/warpkit64.rule --pot audit.pot"));
  for (const char* option : {"--mask", "--increment", "--mask-first", "--show", "--session", "--restore", "-1,"})
    CHECK_THAT(help.output, Catch::Contains(option));
}
