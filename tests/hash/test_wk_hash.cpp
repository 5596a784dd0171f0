// wk-hash on the CPU backend (--device cpu): every subcommand's output checked against libxcrypt,
// bad lines reported by number and skipped, passwords never echoed, exit codes, atomic output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hash_test_util.hpp"
#include "test_support.hpp"
#include "wk_hash_run.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/secret_input.hpp"

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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view l : wk::hash::split_lines(text)) out.emplace_back(l);
  return out;
}


}  // namespace

TEST_CASE("wk-hash hash: every method, output verified by libxcrypt, input order, CRLF, empty lines", "[hash][cli]") {
  TempDir dir;
  // CRLF on one line, an empty password, a password with spaces and 8-bit bytes, no final newline.
  const std::vector<std::string> passwords = {"correct horse", "", "p\xe4ssw\xf6rd", "tab\there", std::string(72, 'x'), "last"};
  std::string input;
  for (std::size_t i = 0; i < passwords.size(); ++i) input += passwords[i] + (i == 0 ? "\r\n" : i + 1 < passwords.size() ? "\n" : "");
  write_bytes(dir / "pw.txt", input);
  for (const char* method : {"md5crypt", "sha256crypt", "sha512crypt", "bcrypt"}) {
    CAPTURE(method);
    std::string extra = std::string(method) == "bcrypt" ? " --cost 4" : std::string(method) == "sha256crypt" ? " --rounds 1000" : "";
    const Run r = run_split(dir, std::string("hash --device cpu -q --method ") + method + extra + " -i " + sh_quote((dir / "pw.txt").string()));
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    const auto out = lines_of(r.out);
    REQUIRE(out.size() == passwords.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(wk::hash::crypt_libxcrypt(out[i], passwords[i]).value_or("") == out[i]);
      if (std::string(method) == "sha256crypt") CHECK(out[i].rfind("$5$rounds=1000$", 0) == 0);
    }
    auto setting_of = [&](const std::string& h) { return std::string(method) == "bcrypt" ? h.substr(0, 29) : h.substr(0, h.rfind('$')); };
    CHECK(setting_of(out[0]) != setting_of(out[1]));  // fresh salts
  }
}

TEST_CASE("wk-hash hash --users and --json, malformed lines reported by number, never echoed", "[hash][cli]") {
  TempDir dir;
  write_bytes(dir / "users.txt", "alice:s3cret-ALICE\nno-colon-SECRET-1\n:SECRET-2\nbob:pa:ss\n" + std::string("carol:") +
                                     std::string(600, 'Q') + "\n");
  const Run r = run_split(dir, "hash --device cpu --method md5crypt --users -i " + sh_quote((dir / "users.txt").string()));
  CHECK(r.code == 1);
  const auto out = lines_of(r.out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].rfind("alice:$1$", 0) == 0);
  CHECK(wk::hash::crypt_libxcrypt(out[0].substr(6), "s3cret-ALICE").value_or("") == out[0].substr(6));
  CHECK(out[1].rfind("bob:$1$", 0) == 0);  // split at the first ':', the password keeps the rest
  CHECK(wk::hash::crypt_libxcrypt(out[1].substr(4), "pa:ss").value_or("") == out[1].substr(4));
  CHECK(r.err.find("line 2:") != std::string::npos);
  CHECK(r.err.find("line 3:") != std::string::npos);
  CHECK(r.err.find("line 5:") != std::string::npos);
  for (const char* secret : {"SECRET-1", "SECRET-2", "QQQQ", "s3cret", "pa:ss"}) {
    CHECK(r.err.find(secret) == std::string::npos);
    CHECK(r.out.find(secret) == std::string::npos);
  }

  const Run j = run_split(dir, "hash --device cpu -q --json --method sha512crypt --users -i " + sh_quote((dir / "users.txt").string()));
  CHECK(j.code == 1);
  const auto jl = lines_of(j.out);
  REQUIRE(jl.size() == 5);  // one object per input line, errors included
  const auto first = nlohmann::json::parse(jl[0]);
  CHECK(first["line"] == 1);
  CHECK(first["user"] == "alice");
  CHECK(wk::hash::crypt_libxcrypt(first["hash"].get<std::string>(), "s3cret-ALICE").has_value());
  const auto second = nlohmann::json::parse(jl[1]);
  CHECK(second["line"] == 2);
  CHECK(second.contains("error"));
  CHECK_FALSE(second.contains("hash"));
  CHECK(j.out.find("SECRET") == std::string::npos);
}

TEST_CASE("wk-hash crypt: exact settings, TABs in passwords, other methods through libxcrypt", "[hash][cli]") {
  TempDir dir;
  std::mt19937 rng(99);
  std::vector<std::pair<std::string, std::string>> ok = {
      {"$6$saltsalt", "secret"},          {"$5$rounds=1000$abc", "pw\twith\ttabs"}, {"$1$12345678901", ""},
      {"$2a$04$abcdefghijklmnopqrstuu", "\xff\xff\xa3"}, {"$2y$04$abcdefghijklmnopqrstuv", "x"},
      {"$y$j9T$abcdefgh", "yescrypt goes to libxcrypt"},  {"ab", "descrypt"},
  };
  for (int i = 0; i < 40; ++i)
    ok.push_back({"$6$rounds=" + std::to_string(1000 + i) + "$" + wk::hash::test::random_salt(rng, i % 20),
                  wk::hash::test::random_password(rng, wk::hash::test::random_length(rng) % 100, true)});
  std::string input;
  for (std::size_t i = 0; i < ok.size(); ++i) {
    std::string pw = ok[i].second;
    for (char& ch : pw)
      if (ch == '\n' || ch == '\r') ch = '_';  // not representable in a line
    ok[i].second = pw;
    input += ok[i].first + "\t" + pw + "\n";
  }
  input += "no tab here SECRET-A\n$6$rounds=999$x\tSECRET-B\n$2b$03$abcdefghijklmnopqrstuu\tSECRET-C\n\tSECRET-D\n";
  write_bytes(dir / "in.tsv", input);
  const Run r = run_split(dir, "crypt --device cpu -q -i " + sh_quote((dir / "in.tsv").string()));
  CHECK(r.code == 1);
  const auto out = lines_of(r.out);
  REQUIRE(out.size() == ok.size());
  for (std::size_t i = 0; i < ok.size(); ++i) CHECK(out[i] == wk::hash::crypt_libxcrypt(ok[i].first, ok[i].second).value());
  for (int k = 1; k <= 4; ++k) CHECK(r.err.find("line " + std::to_string(ok.size() + k) + ":") != std::string::npos);
  CHECK(r.err.find("SECRET") == std::string::npos);
}

TEST_CASE("wk-hash verify: OK / MISMATCH per line, mixed formats, exit codes", "[hash][cli]") {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"$6$saltsalt", "right"}, {"$5$rounds=1000$s", "right"}, {"$1$abc", "right"}, {"$2b$04$abcdefghijklmnopqrstuu", "right"},
      {"$y$j9T$abcdefgh", "right"}};
  std::string all_ok, some_bad;
  for (const auto& [setting, pw] : pairs) {
    const std::string h = wk::hash::crypt_libxcrypt(setting, pw).value();
    all_ok += h + "\t" + pw + "\r\n";
    some_bad += h + "\t" + pw + "\n" + h + "\twrong-SECRET\n";
  }
  write_bytes(dir / "ok.tsv", all_ok);
  write_bytes(dir / "bad.tsv", some_bad + "garbage-SECRET\n");
  const Run a = run_split(dir, "verify --device cpu -q -i " + sh_quote((dir / "ok.tsv").string()));
  CHECK(a.code == 0);
  CHECK(a.out == "line 1: OK\nline 2: OK\nline 3: OK\nline 4: OK\nline 5: OK\n");
  const Run b = run_split(dir, "verify --device cpu -q -i " + sh_quote((dir / "bad.tsv").string()));
  CHECK(b.code == 1);
  const auto out = lines_of(b.out);
  REQUIRE(out.size() == 10);
  for (std::size_t i = 0; i < 10; ++i) CHECK(out[i] == "line " + std::to_string(i + 1) + (i % 2 ? ": MISMATCH" : ": OK"));
  CHECK(b.err.find("line 11:") != std::string::npos);
  CHECK(b.err.find("SECRET") == std::string::npos);
  CHECK(b.out.find("SECRET") == std::string::npos);
  const Run j = run_split(dir, "verify --device cpu -q --json -i " + sh_quote((dir / "bad.tsv").string()));
  const auto jl = lines_of(j.out);
  REQUIRE(jl.size() == 11);
  CHECK(nlohmann::json::parse(jl[1])["status"] == "MISMATCH");
  CHECK(nlohmann::json::parse(jl[10])["status"] == "ERROR");
}

TEST_CASE("wk-hash: many slices in the pipeline keep input order, errors and exit codes", "[hash][cli]") {
  // WK_HASH_SLICE_LINES=7: 61 lines run as 9 slices, two in the engine at a time.
  TempDir dir;
  std::mt19937 rng(21);
  std::vector<std::string> passwords;
  std::string input, pairs;
  for (int i = 0; i < 61; ++i) {
    passwords.push_back(i % 13 == 5 ? std::string(600, 'y') : "pw-" + std::to_string(i) + "-" + std::to_string(rng() % 1000));
    input += passwords.back() + "\n";
    const std::string valid = passwords.back().size() == 600 ? "x" : passwords.back();
    const std::string h = wk::hash::crypt_libxcrypt("$1$s" + std::to_string(i), valid).value();
    pairs += h + "\t" + (i % 4 == 3 ? std::string("wrong") : valid) + "\n";
  }
  write_bytes(dir / "pw.txt", input);
  write_bytes(dir / "pairs.tsv", pairs);
  const std::string env = "WK_HASH_SLICE_LINES=7 ";
  const auto out = wk::test::run("sh -c " + sh_quote(env + exe() + " hash --device cpu -q --json --method md5crypt -i " +
                                                     sh_quote((dir / "pw.txt").string()) + " >" + sh_quote((dir / "o.txt").string()) +
                                                     " 2>" + sh_quote((dir / "e.txt").string())));
  CHECK(out.exit_code == 1);  // the 600-byte passwords are rejected
  const auto rows = lines_of(read_bytes(dir / "o.txt"));
  REQUIRE(rows.size() == passwords.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    const auto j = nlohmann::json::parse(rows[i]);
    CHECK(j["line"] == i + 1);
    if (passwords[i].size() == 600) {
      CHECK(j.contains("error"));
    } else {
      const std::string hash = j["hash"];
      CHECK(wk::hash::crypt_libxcrypt(hash, passwords[i]).value_or("") == hash);
    }
  }
  const std::string err = read_bytes(dir / "e.txt");
  CHECK(err.find("line 6:") != std::string::npos);
  CHECK(err.find("line 58:") != std::string::npos);
  const auto v = wk::test::run("sh -c " + sh_quote(env + exe() + " verify --device cpu -q -i " + sh_quote((dir / "pairs.tsv").string()) +
                                                   " >" + sh_quote((dir / "v.txt").string()) + " 2>/dev/null"));
  CHECK(v.exit_code == 1);
  const auto vl = lines_of(read_bytes(dir / "v.txt"));
  REQUIRE(vl.size() == passwords.size());
  for (std::size_t i = 0; i < vl.size(); ++i) {
    const bool ok = i % 4 != 3;
    CHECK(vl[i] == "line " + std::to_string(i + 1) + (ok ? ": OK" : ": MISMATCH"));
  }
}

TEST_CASE("wk-hash: Ctrl-C ends with 130, the -o file as it was and no temporary file", "[hash][cli]") {
  TempDir dir;
  write_bytes(dir / "pw.txt", "one\ntwo\nthree\nfour\nfive\nsix\n");
  write_bytes(dir / "out.txt", "old contents\n");
  // bcrypt cost 14 on the CPU: about a second per line per core, so the signal comes mid-run.
  const std::string script = exe() + " hash --device cpu -q --method bcrypt --cost 14 -i " + sh_quote((dir / "pw.txt").string()) +
                             " -o " + sh_quote((dir / "out.txt").string()) + " & p=$!; sleep 0.5; kill -INT $p; wait $p; echo exit=$?";
  const auto r = wk::test::run("bash -c " + sh_quote(script));
  INFO(r.output);
  CHECK_THAT(r.output, Catch::Contains("exit=130"));
  CHECK(read_bytes(dir / "out.txt") == "old contents\n");
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename().string()[0] != '.');
}

TEST_CASE("wk-hash audit: accounts with a listed password, locked accounts skipped", "[hash][cli]") {
  TempDir dir;
  auto h = [](const char* s, const char* pw) { return wk::hash::crypt_libxcrypt(s, pw).value(); };
  write_bytes(dir / "shadow", "root:!:19000:0:99999:7:::\n"
                              "alice:" + h("$6$rounds=1000$aa", "letmein") + ":19000:0:99999:7:::\n"
                              "bob:" + h("$2b$04$abcdefghijklmnopqrstuu", "hunter2") + "\n"
                              "carol:" + h("$5$rounds=1000$cc", "not-in-the-list") + ":1\n"
                              "dave:" + h("$1$dd", "123456") + "\n"
                              "erin:*\n"
                              "frank:" + h("$y$j9T$abcdefgh", "password") + "\n");
  write_bytes(dir / "words", "password\r\nletmein\n123456\nhunter2");
  const std::string args = "audit --device cpu -q --hashes " + sh_quote((dir / "shadow").string()) + " --wordlist " +
                           sh_quote((dir / "words").string());
  const Run r = run_split(dir, args);
  CHECK(r.code == 1);  // weak passwords found: a linter's failure
  CHECK(r.out == "alice\nbob\ndave\nfrank\n");
  const Run s = run_split(dir, args + " --show-passwords");
  CHECK(s.out == "alice:letmein\nbob:hunter2\ndave:123456\nfrank:password\n");
  const Run j = run_split(dir, args + " --json");
  const auto jl = lines_of(j.out);
  REQUIRE(jl.size() == 4);
  CHECK(nlohmann::json::parse(jl[0])["user"] == "alice");
  CHECK(nlohmann::json::parse(jl[0])["line"] == 2);
  CHECK_FALSE(nlohmann::json::parse(jl[0]).contains("password"));

  write_bytes(dir / "shadow2", "x:$6$rounds=12$abc$def\nnocolon\n");
  const Run bad = run_split(dir, "audit --device cpu -q --hashes " + sh_quote((dir / "shadow2").string()) + " --wordlist " +
                                     sh_quote((dir / "words").string()));
  CHECK(bad.code == 1);
  CHECK(bad.err.find("line 1:") != std::string::npos);
  CHECK(bad.err.find("line 2:") != std::string::npos);
}

TEST_CASE("wk-hash: -o replaces the file atomically, usage errors exit 2, stdin works", "[hash][cli]") {
  TempDir dir;
  write_bytes(dir / "pw.txt", "a\nb\n");
  write_bytes(dir / "out.txt", "old contents\n");
  const auto o = run(exe() + " hash --device cpu -q --method md5crypt -i " + sh_quote((dir / "pw.txt").string()) + " -o " +
                     sh_quote((dir / "out.txt").string()));
  CHECK(o.exit_code == 0);
  CHECK(lines_of(read_bytes(dir / "out.txt")).size() == 2);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) entries += e.path().filename().string().find(".wk-") != std::string::npos;
  CHECK(entries == 0);  // no temporary left behind

  const auto missing = run(exe() + " hash --device cpu -q --method md5crypt -i " + sh_quote((dir / "nope.txt").string()) +
                           " -o " + sh_quote((dir / "out.txt").string()));
  CHECK(missing.exit_code == 1);
  CHECK(missing.output.find("nope.txt") != std::string::npos);
  CHECK(lines_of(read_bytes(dir / "out.txt")).size() == 2);  // untouched

  // Option errors come from the library in its own terms; wk-hash names the flag before them.
  const struct {
    const char* args;
    const char* error;
  } option_errors[] = {
      {"--method md5crypt --rounds 5000", "wk-hash: error: --rounds: rounds apply to sha256crypt and sha512crypt only\n"},
      {"--method sha512crypt --rounds 999",
       "wk-hash: error: --rounds: rounds must be in 1000..999999999 (libxcrypt rejects other counts)\n"},
      {"--method bcrypt --cost 3", "wk-hash: error: --cost: bcrypt cost must be in 4..31\n"},
      {"--method bcrypt --bcrypt-variant 2x", "wk-hash: error: --bcrypt-variant: bcrypt variant must be 2a, 2b or 2y\n"},
      {"--method sha256crypt --cost 5", "wk-hash: error: --cost applies to bcrypt, yescrypt and scrypt only\n"},
      {"--method yescrypt --cost 12", "wk-hash: error: --cost: yescrypt cost must be in 1..11\n"},
      {"--method scrypt --cost 5", "wk-hash: error: --cost: scrypt cost must be in 6..11\n"},
  };
  for (const auto& e : option_errors) {
    CAPTURE(e.args);
    const auto r = run(exe() + " hash --device cpu " + e.args);
    CHECK(r.exit_code == 2);
    CHECK(r.output == e.error);
  }
  CHECK(run(exe() + " hash --method descrypt").exit_code == 2);
  // No --method: yescrypt at libxcrypt's default cost, as mkpasswd writes it.
  {
    const auto y = run("sh -c " + sh_quote("printf 'secret\\n' | " + exe() + " hash --device cpu -q"));
    CHECK(y.exit_code == 0);
    REQUIRE(y.output.size() == 7 + 22 + 1 + 43 + 1);
    CHECK(y.output.rfind("$y$j9T$", 0) == 0);
    const std::string hash = y.output.substr(0, y.output.size() - 1);
    CHECK(wk::hash::crypt_libxcrypt(hash, "secret") == hash);
  }
  CHECK(run(exe() + " audit --wordlist x").exit_code == 2);
  CHECK(run(exe() + " hash --method sha512crypt --device tpu").exit_code == 2);
  const auto help = run(exe() + " --help");
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("Examples:") != std::string::npos);

  const auto piped = run("sh -c " + sh_quote("printf 'x\\ny' | " + exe() + " hash --device cpu -q --method sha256crypt"));
  CHECK(piped.exit_code == 0);
  CHECK(lines_of(piped.output).size() == 2);
}

TEST_CASE("wk-hash on hostile outputs: a full disk, an -o that is a folder, names with dashes and newlines", "[hash][cli][hostile]") {
  TempDir dir;
  std::string words;
  for (int i = 0; i < 400; ++i) words += "password" + std::to_string(i) + "\n";  // ~14 kB of md5crypt lines
  write_bytes(dir / "pw.txt", words);
  write_bytes(dir / "out.txt", "old contents\n");
  const std::string in = " -i " + sh_quote((dir / "pw.txt").string());

  // A full disk (a 4 KiB file-size limit; SIGXFSZ ignored, so the write fails with EFBIG): an
  // error naming the output, exit 1, the old output as it was, no temporary file.
  const auto full = run("trap '' XFSZ; ulimit -f 8; " + exe() + " hash --device cpu -q --method md5crypt" + in + " -o " +
                        sh_quote((dir / "out.txt").string()));
  INFO(full.output);
  CHECK(full.exit_code == 1);
  CHECK_THAT(full.output, Catch::Contains("out.txt"));
  CHECK(read_bytes(dir / "out.txt") == "old contents\n");
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename().string().find(".wk-") == std::string::npos);
  // The same from a pipe in slices of 16 lines: the write fails while the reader thread reads
  // ahead, and the run still ends at once with the same error.
  const auto piped = run("trap '' XFSZ; ulimit -f 8; { cat " + sh_quote((dir / "pw.txt").string()) +
                         " | WK_HASH_SLICE_LINES=16 " + exe() + " hash --device cpu -q --method md5crypt -o " +
                         sh_quote((dir / "out.txt").string()) + "; }");
  INFO(piped.output);
  CHECK(piped.exit_code == 1);
  CHECK_THAT(piped.output, Catch::Contains("out.txt"));
  CHECK(read_bytes(dir / "out.txt") == "old contents\n");
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename().string().find(".wk-") == std::string::npos);

  // -o naming a folder.
  fs::create_directories(dir / "folder");
  const auto folder = run(exe() + " hash --device cpu -q --method md5crypt" + in + " -o " + sh_quote((dir / "folder").string()));
  INFO(folder.output);
  CHECK(folder.exit_code == 2);
  CHECK_THAT(folder.output, Catch::Contains("folder: is a folder"));
  CHECK(fs::is_directory(dir / "folder"));

  // Files whose names start with a dash or hold a newline, as -i and -o.
  write_bytes(dir / "-pw\nlist", "a\nb\n");
  const auto odd = run("cd " + sh_quote(dir.path().string()) + " && " + exe() + " hash --device cpu -q --method md5crypt -i " +
                       sh_quote("-pw\nlist") + " -o " + sh_quote("-out"));
  INFO(odd.output);
  CHECK(odd.exit_code == 0);
  CHECK(lines_of(read_bytes(dir / "-out")).size() == 2);
}

namespace {

// wk-hash hash's output with every crypt string replaced by "<H>", after checking it (its length;
// every 7th against libxcrypt with its line's password) (pw_of_line: 1-based line -> password; output lines in
// order name their input line through `line_of`). Salts are fresh in every run, so two runs'
// outputs are equal exactly when their masked forms are.
std::string masked(const std::string& out, const std::vector<std::string>& pw_of_line, const std::vector<std::size_t>& line_of,
                   bool json, int& wrong) {
  std::string result;
  std::size_t hash_bytes = 0;
  const auto rows = lines_of(out);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string row = rows[r];
    std::size_t line = r < line_of.size() ? line_of[r] : 0;
    if (json) line = nlohmann::json::parse(row)["line"].get<std::size_t>();
    const std::size_t at = row.find('$');
    if (at != std::string::npos) {
      const std::size_t end = json ? row.find('"', at) : row.size();
      const std::string h = row.substr(at, end - at);
      // Every 7th checked (libxcrypt is slow on the CI's cores); all have one length.
      if (!hash_bytes) hash_bytes = h.size();
      if (line == 0 || line > pw_of_line.size() || h.size() != hash_bytes) ++wrong;
      else if (r % 7 == 0 && wk::hash::crypt_libxcrypt(h, pw_of_line[line - 1]).value_or("") != h) ++wrong;
      row.replace(at, end - at, "<H>");
    }
    result += row + "\n";
  }
  return result;
}

}  // namespace

TEST_CASE("wk-hash hash: the fixed-record path equals the generic path (many lines, --users, --json, errors)", "[hash][cli]") {
  // 12000 lines: chunks of 8192 lines inside a slice, and with WK_HASH_SLICE_LINES=9000 slices
  // that end inside a chunk. Failed lines (no user, an empty user, 600 bytes, a NUL byte) scattered;
  // user names that JSON must escape (quotes, backslashes, control and 8-bit bytes); CRLF.
  TempDir dir;
  std::mt19937 rng(2026);
  const std::size_t n = 12000;
  std::string input;
  std::vector<std::string> pw_plain(n), pw_users(n);  // the password of each line, without / with --users
  std::vector<bool> bad_plain(n), bad_users(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int kind = int(rng() % 97);
    std::string user = "user" + std::to_string(i);
    if (kind == 1) user = "q\"uo\\te";
    if (kind == 2) user = "tab\there\x01\xc3\xa4\xff";
    std::string pw = wk::hash::test::random_password(rng, int(rng() % 24), kind % 3 != 0);
    for (char& ch : pw)
      if (ch == '\n' || ch == '\r' || ch == ':' || ch == '\0') ch = '_';
    std::string text = user + ":" + pw;
    if (kind == 3) text = "no-colon-" + pw;
    if (kind == 4) text = ":" + pw;
    if (kind == 5) text = user + ":" + std::string(600, 'Q');
    if (kind == 6) text = user + ":a" + std::string(1, '\0') + "b";
    input += text + (kind == 7 ? "\r\n" : "\n");
    pw_plain[i] = text;
    const std::size_t colon = text.find(':');
    pw_users[i] = colon == std::string::npos ? "" : text.substr(colon + 1);
    bad_plain[i] = kind == 5 || kind == 6;
    bad_users[i] = kind >= 3 && kind <= 6;
  }
  write_bytes(dir / "pw.txt", input);
  // (libxcrypt on the CI's few cores: three runs of each path, not every combination.)
  const std::pair<const char*, const char*> runs[] = {
      {"", ""}, {"", "--users --json"}, {"WK_HASH_SLICE_LINES=9000 ", "--users"}, {"WK_HASH_SLICE_LINES=9000 ", "--json"}};
  for (const auto& run_args : runs) {
    const std::string slices = run_args.first, mode = run_args.second;
    {
      CAPTURE(slices, mode);
      const bool users = mode.find("users") != std::string::npos, json = mode.find("json") != std::string::npos;
      const std::string args = "hash --device cpu -q --method md5crypt " + mode + " -i " + sh_quote((dir / "pw.txt").string());
      const auto fast = run("sh -c " + sh_quote(slices + exe() + " " + args + " >" + sh_quote((dir / "fast.txt").string()) +
                                                " 2>" + sh_quote((dir / "fast.err").string())));
      const auto generic = run("sh -c " + sh_quote(slices + "WK_HASH_GENERIC=1 " + exe() + " " + args + " >" +
                                                   sh_quote((dir / "generic.txt").string()) + " 2>" + sh_quote((dir / "generic.err").string())));
      CHECK(fast.exit_code == 1);
      CHECK(generic.exit_code == 1);
      const auto& bad = users ? bad_users : bad_plain;
      std::vector<std::size_t> line_of;  // output row -> input line (text output: the good lines only)
      for (std::size_t i = 0; i < n; ++i)
        if (!bad[i]) line_of.push_back(i + 1);
      int wrong = 0;
      const std::string f = masked(read_bytes(dir / "fast.txt"), users ? pw_users : pw_plain, line_of, json, wrong);
      const std::string g = masked(read_bytes(dir / "generic.txt"), users ? pw_users : pw_plain, line_of, json, wrong);
      CHECK(wrong == 0);
      CHECK(lines_of(f).size() == (json ? n : line_of.size()));
      CHECK(f == g);
      CHECK(read_bytes(dir / "fast.err") == read_bytes(dir / "generic.err"));
      CHECK(read_bytes(dir / "fast.err").find("line ") != std::string::npos);
    }
  }
  // Every method through both paths (fewer lines: bcrypt and sha-crypt are slow on the CPU).
  std::string few;
  for (std::size_t i = 0; i < 100; ++i) few += pw_users[i].empty() ? "x:\n" : "u" + std::to_string(i) + ":" + pw_users[i] + "\n";
  write_bytes(dir / "few.txt", few);
  std::vector<std::string> few_pw;
  for (std::size_t i = 0; i < 100; ++i) few_pw.push_back(pw_users[i]);
  for (const char* method : {"sha256crypt --rounds 1000", "sha512crypt", "bcrypt --cost 4 --bcrypt-variant 2y"})
    for (const char* mode : {"--users", "--users --json"}) {
      CAPTURE(method, mode);
      const bool json = std::string(mode).find("json") != std::string::npos;
      const std::string args = std::string("hash --device cpu -q --method ") + method + " " + mode + " -i " + sh_quote((dir / "few.txt").string());
      const Run fast = run_split(dir, args);
      const auto generic = run("sh -c " + sh_quote("WK_HASH_GENERIC=1 " + exe() + " " + args + " 2>/dev/null"));
      std::vector<std::size_t> line_of;
      for (std::size_t i = 0; i < 100; ++i)
        if (few_pw[i].size() <= 511 && few_pw[i].find('\0') == std::string::npos) line_of.push_back(i + 1);
      int wrong = 0;
      const std::string f = masked(fast.out, few_pw, line_of, json, wrong);
      CHECK(wrong == 0);
      CHECK(f == masked(generic.output, few_pw, line_of, json, wrong));
      CHECK(fast.code == generic.exit_code);
    }
}

namespace {

// The -o tests: two passwords in, their crypt strings checked against libxcrypt.
bool two_good_hashes(const std::string& out) {
  const auto l = lines_of(out);
  return l.size() == 2 && wk::hash::crypt_libxcrypt(l[0], "first").value_or("") == l[0] &&
         wk::hash::crypt_libxcrypt(l[1], "second").value_or("") == l[1];
}

}  // namespace

TEST_CASE("wk-hash -o through a symbolic link, to a FIFO, /dev/stdout and /dev/null: links and devices stay", "[hash][cli][output]") {
  TempDir dir;
  write_bytes(dir / "pw.txt", "first\nsecond\n");
  const std::string hash = exe() + " hash --device cpu -q --method md5crypt -i " + sh_quote((dir / "pw.txt").string());

  // A symbolic link: its target is replaced, the link stays a link.
  write_bytes(dir / "target.txt", "old contents\n");
  fs::create_symlink("target.txt", dir / "link");
  const auto l = run(hash + " -o " + sh_quote((dir / "link").string()));
  INFO(l.output);
  CHECK(l.exit_code == 0);
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link")));
  CHECK(fs::read_symlink(dir / "link") == "target.txt");
  CHECK(two_good_hashes(read_bytes(dir / "target.txt")));
  CHECK((fs::status(dir / "target.txt").permissions() & (fs::perms::group_all | fs::perms::others_all)) == fs::perms::none);
  for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename().string().find(".wk-") == std::string::npos);

  // A FIFO, read by a child: written in place, still a FIFO afterwards.
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  const auto f = run("sh -c " + sh_quote("timeout 30 cat " + sh_quote((dir / "fifo").string()) + " >" +
                                         sh_quote((dir / "from-fifo.txt").string()) + " & " + hash + " -o " +
                                         sh_quote((dir / "fifo").string()) + "; rc=$?; wait; exit $rc"));
  INFO(f.output);
  CHECK(f.exit_code == 0);
  CHECK(fs::is_fifo(fs::symlink_status(dir / "fifo")));
  CHECK(two_good_hashes(read_bytes(dir / "from-fifo.txt")));

  // /dev/stdout on a pipe, and on a file the shell opened after a first line of its own.
  const auto p = run("sh -c " + sh_quote(hash + " -o /dev/stdout | cat >" + sh_quote((dir / "piped.txt").string())));
  INFO(p.output);
  CHECK(p.exit_code == 0);
  CHECK(two_good_hashes(read_bytes(dir / "piped.txt")));
  const auto g = run("sh -c " + sh_quote("{ echo first-line; " + hash + " -o /dev/stdout; } >" + sh_quote((dir / "grouped.txt").string())));
  INFO(g.output);
  CHECK(g.exit_code == 0);
  const std::string grouped = read_bytes(dir / "grouped.txt");
  CHECK(grouped.rfind("first-line\n", 0) == 0);
  CHECK(two_good_hashes(grouped.substr(std::string("first-line\n").size())));

  // /dev/null: written in place (as root, replacing it with a file would break the machine).
  const auto n = run(hash + " -o /dev/null");
  CHECK(n.exit_code == 0);
  CHECK(fs::is_character_file(fs::symlink_status("/dev/null")));
}

TEST_CASE("wk-hash: an output that is a file the job reads is a usage error before any work", "[hash][cli][output]") {
  TempDir dir;
  auto h = [](const char* s, const char* pw) { return wk::hash::crypt_libxcrypt(s, pw).value(); };
  const std::string pw = "first\nsecond\n", pairs = h("$1$ab", "first") + "\tfirst\n";
  const std::string shadow = "alice:" + h("$1$cd", "letmein") + ":19000::::::\n", words = "letmein\npassword\n";
  write_bytes(dir / "pw.txt", pw);
  write_bytes(dir / "pairs.tsv", pairs);
  write_bytes(dir / "shadow", shadow);
  write_bytes(dir / "words", words);
  fs::create_symlink("pw.txt", dir / "pw-link");
  fs::create_hard_link(dir / "pw.txt", dir / "pw-hard");
  fs::create_symlink("shadow", dir / "shadow-link");
  fs::create_hard_link(dir / "words", dir / "words-hard");
  const auto q = [&](const char* name) { return sh_quote((dir / name).string()); };
  const std::string shadow_words = " --hashes " + q("shadow") + " --wordlist " + q("words");
  const std::vector<std::string> cases = {
      "hash --method md5crypt -i " + q("pw.txt") + " -o " + q("pw.txt"),
      "hash --method md5crypt -i " + q("pw.txt") + " -o " + q("pw-link"),     // through a symbolic link
      "hash --method md5crypt -i " + q("pw-link") + " -o " + q("pw.txt"),
      "hash --method md5crypt -i " + q("pw.txt") + " -o " + q("pw-hard"),     // a hard link
      "hash --method md5crypt -o " + q("pw.txt") + " < " + q("pw.txt"),      // standard input from it
      "crypt -i " + q("pairs.tsv") + " -o " + q("pairs.tsv"),
      "verify -i " + q("pairs.tsv") + " -o " + q("pairs.tsv"),
      "audit" + shadow_words + " -o " + q("shadow"),
      "audit" + shadow_words + " -o " + q("shadow-link"),
      "audit" + shadow_words + " -o " + q("words"),
      "audit" + shadow_words + " -o " + q("words-hard"),
  };
  for (const std::string& args : cases) {
    CAPTURE(args);
    const auto r = run("sh -c " + sh_quote(exe() + " " + args.substr(0, args.find(' ')) + " --device cpu -q" + args.substr(args.find(' '))));
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("would overwrite"));
    CHECK(read_bytes(dir / "pw.txt") == pw);
    CHECK(read_bytes(dir / "pairs.tsv") == pairs);
    CHECK(read_bytes(dir / "shadow") == shadow);
    CHECK(read_bytes(dir / "words") == words);
    CHECK(fs::is_symlink(fs::symlink_status(dir / "pw-link")));
    CHECK(fs::hard_link_count(dir / "pw.txt") == 2);
  }
  // Reading and writing different files is fine, also when the output is a link to a new file.
  fs::create_symlink("new.txt", dir / "new-link");
  const auto ok = run(exe() + " hash --device cpu -q --method md5crypt -i " + q("pw-link") + " -o " + q("new-link"));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK(two_good_hashes(read_bytes(dir / "new.txt")));
}

TEST_CASE("wk-hash: lines are bounded -- /dev/zero ends at once, an over-long line is an error of its own", "[hash][cli][input]") {
  TempDir dir;
  // No end of line at all: a clear error within seconds (memory bounded), from a file name and
  // from standard input.
  for (const std::string redirect : {" -i /dev/zero", " < /dev/zero"}) {
    CAPTURE(redirect);
    const auto start = std::chrono::steady_clock::now();
    const auto r = run("sh -c " + sh_quote("timeout 60 " + exe() + " hash --device cpu -q --method md5crypt" + redirect));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Catch::Contains("line 1: longer than 65536 bytes"));
    CHECK(seconds < 10);
  }
  // One line over 64 KiB among good ones: reported by number (its bytes never), the others hashed;
  // the same from a regular file and through a pipe (where only its first 64 KiB are kept).
  const std::string long_line = "SECRET" + std::string(100000, 'x');
  write_bytes(dir / "pw.txt", "first\n" + long_line + "\nsecond\n" + std::string(65536, 'y') + "\n");
  const std::string file = sh_quote((dir / "pw.txt").string());
  for (const std::string& cmd : {exe() + " hash --device cpu -q --method md5crypt -i " + file,
                                 "cat " + file + " | " + exe() + " hash --device cpu -q --method md5crypt",
                                 "WK_HASH_GENERIC=1 " + exe() + " hash --device cpu -q --method md5crypt -i " + file}) {
    CAPTURE(cmd);
    const Run r = run_script_split(dir, cmd);
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(two_good_hashes(r.out));
    CHECK_THAT(r.err, Catch::Contains("line 2: the line is longer than 65536 bytes"));
    CHECK_THAT(r.err, Catch::Contains("line 4: the password is 65536 bytes"));  // 64 KiB is a line, not a password
    CHECK(r.err.find("SECRET") == std::string::npos);
  }
  // crypt, verify and audit's word list take the same bound.
  write_bytes(dir / "pairs.tsv", wk::hash::crypt_libxcrypt("$1$ab", "first").value() + "\tfirst\n$1$ab\t" + long_line + "\n");
  const Run v = run_split(dir, "verify --device cpu -q -i " + sh_quote((dir / "pairs.tsv").string()));
  CHECK(v.code == 1);
  CHECK(v.out == "line 1: OK\n");
  CHECK_THAT(v.err, Catch::Contains("line 2: the line is longer than 65536 bytes"));
  write_bytes(dir / "shadow", "alice:" + wk::hash::crypt_libxcrypt("$1$cd", "first").value() + "\n");
  write_bytes(dir / "words", long_line + "\nfirst\n");
  const Run a = run_split(dir, "audit --device cpu -q --hashes " + sh_quote((dir / "shadow").string()) + " --wordlist " +
                                   sh_quote((dir / "words").string()));
  CHECK(a.code == 1);
  CHECK(a.out == "alice\n");
  CHECK_THAT(a.err, Catch::Contains("line 1: the line is longer than 65536 bytes"));
  CHECK(a.err.find("SECRET") == std::string::npos);
}

TEST_CASE("wk-hash: no message quotes a password byte (columns swapped, bad bytes in a setting)", "[hash][cli]") {
  TempDir dir;
  // PASSWORD<TAB>SETTING instead of SETTING<TAB>PASSWORD: the "setting" is the password.
  write_bytes(dir / "swapped.tsv", "hunter!2\t$6$saltsalt\n$2a$0Z\tpw\n");
  for (const char* sub : {"crypt", "verify"}) {
    CAPTURE(sub);
    const Run r = run_split(dir, std::string(sub) + " --device cpu -q -i " + sh_quote((dir / "swapped.tsv").string()));
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("line 1: the setting has a byte crypt(3) never accepts in a setting, at position 7"));
    CHECK_THAT(r.err, Catch::Contains("line 2: bcrypt setting:"));
    for (const char* secret : {"0x21", "hunter", "!", "$2a$", "0Z"}) CHECK(r.err.find(secret) == std::string::npos);
  }
}

TEST_CASE("wk-hash audit: an empty password field is a finding, listed first, nothing audited fails", "[hash][cli]") {
  TempDir dir;
  auto h = [](const char* s, const char* pw) { return wk::hash::crypt_libxcrypt(s, pw).value(); };
  write_bytes(dir / "shadow", "root:!:19000:0:99999:7:::\n"
                              "alice:" + h("$1$aa", "letmein") + ":19000:0:99999:7:::\n"
                              "guest::19000:0:99999:7:::\n"
                              "carol:" + h("$1$cc", "not-listed") + "\n"
                              "kiosk:\n");
  write_bytes(dir / "words", "password\nletmein\n");
  const std::string args = "audit --device cpu --hashes " + sh_quote((dir / "shadow").string()) + " --wordlist " +
                           sh_quote((dir / "words").string());
  const Run r = run_split(dir, args);
  INFO(r.err);
  CHECK(r.code == 1);  // findings
  CHECK(r.out == "guest\nkiosk\nalice\n");
  CHECK_THAT(r.err, Catch::Contains("2 with no password set"));
  const Run s = run_split(dir, args + " -q --show-passwords");
  CHECK(s.out == "guest:\nkiosk:\nalice:letmein\n");
  const Run j = run_split(dir, args + " -q --json");
  const auto jl = lines_of(j.out);
  REQUIRE(jl.size() == 3);
  CHECK(nlohmann::json::parse(jl[0])["user"] == "guest");
  CHECK(nlohmann::json::parse(jl[0])["line"] == 3);
  CHECK(nlohmann::json::parse(jl[0])["finding"] == "no password set");
  CHECK(nlohmann::json::parse(jl[1])["line"] == 5);
  CHECK(nlohmann::json::parse(jl[2])["user"] == "alice");
  CHECK(nlohmann::json::parse(jl[2])["finding"] == "password in the word list");

  // Nothing to audit is no success: only locked accounts, or hashes but no words.
  write_bytes(dir / "locked", "root:!:1::::::\ndaemon:*:1::::::\n");
  const Run locked = run_split(dir, "audit --device cpu -q --hashes " + sh_quote((dir / "locked").string()) + " --wordlist " +
                                        sh_quote((dir / "words").string()));
  CHECK(locked.code == 1);
  CHECK_THAT(locked.err, Catch::Contains("nothing was audited"));
  const Run no_words = run_split(dir, "audit --device cpu -q --hashes " + sh_quote((dir / "shadow").string()) + " --wordlist /dev/null");
  CHECK(no_words.code == 1);
  CHECK_THAT(no_words.err, Catch::Contains("no word to try"));
}

TEST_CASE("wk-hash: an empty input fails verify (nothing verified) and is said by hash and crypt", "[hash][cli]") {
  TempDir dir;
  write_bytes(dir / "empty", "");
  const std::string in = " -i " + sh_quote((dir / "empty").string());
  const Run v = run_split(dir, "verify --device cpu" + in);
  CHECK(v.code == 1);
  CHECK_THAT(v.err, Catch::Contains("no password was verified"));
  const Run vq = run_split(dir, "verify --device cpu -q < /dev/null");
  CHECK(vq.code == 1);
  CHECK_THAT(vq.err, Catch::Contains("no password was verified"));  // an error, not a notice: -q keeps it
  const Run hsh = run_split(dir, "hash --device cpu --method md5crypt" + in);
  CHECK(hsh.code == 0);
  CHECK(hsh.out.empty());
  CHECK_THAT(hsh.err, Catch::Contains("nothing hashed"));
  const Run c = run_split(dir, "crypt --device cpu" + in);
  CHECK(c.code == 0);
  CHECK_THAT(c.err, Catch::Contains("nothing hashed"));
  CHECK(run_split(dir, "crypt --device cpu -q" + in).err.empty());
}

TEST_CASE("wk-hash: memory stays bounded by the slices in flight, whatever the input's size", "[hash][cli][input]") {
  // 300 MB through a pipe, read as it is hashed: 1 KiB lines, each a password libxcrypt cannot
  // take (a NUL byte: an error of its own, no hashing) but the last of every 1 MiB, which is
  // hashed. Slices of 4096 lines (4 MiB): the whole input in memory would be 300 MB and more.
  const std::size_t blocks = wk::test::sanitizer_run() ? 30 : 300;
  std::string block;
  while (block.size() + 2048 < (std::size_t(1) << 20)) block += "bad" + std::string(1, '\0') + std::string(1019, 'x') + "\n";
  block += "good-password\n";
  TempDir dir;
  const std::string out = (dir / "hashes.txt").string();
  int in[2];
  REQUIRE(::pipe(in) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::close(in[0]);
    ::close(in[1]);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::setenv("WK_HASH_SLICE_LINES", "4096", 1);
    ::execl(WK_HASH_EXE, "wk-hash", "hash", "--device", "cpu", "-q", "--method", "md5crypt", "-o", out.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  {
    sigset_t pipe_signal, old;  // the child gone early: EPIPE here, no SIGPIPE for the tests
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
    for (std::size_t b = 0; b < blocks; ++b)
      for (std::size_t at = 0; at < block.size();) {
        const ssize_t n = ::write(in[1], block.data() + at, block.size() - at);
        if (n <= 0) break;
        at += std::size_t(n);
      }
    ::close(in[1]);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  int status = 0;
  struct rusage usage {};
  REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);  // the bad lines
  const auto hashes = lines_of(read_bytes(out));
  REQUIRE(hashes.size() == blocks);
  CHECK(wk::hash::crypt_libxcrypt(hashes.front(), "good-password").value_or("") == hashes.front());
  CHECK(wk::hash::crypt_libxcrypt(hashes.back(), "good-password").value_or("") == hashes.back());
  const double peak_mb = double(usage.ru_maxrss) / 1024;  // ru_maxrss: KiB
  INFO("peak RSS " << peak_mb << " MiB for " << blocks << " MiB of input");
  if (!wk::test::sanitizer_run()) CHECK(peak_mb < 100);
}

TEST_CASE("wk-hash audit exits as a linter: 1 with a weak password, 1 with an unparseable line, 0 when clean", "[hash][cli][audit]") {
  TempDir dir;
  auto h = [](const char* s, const char* pw) { return wk::hash::crypt_libxcrypt(s, pw).value(); };
  const std::string strong = "alice:" + h("$1$aa", "Tr0ub4dor&3-long") + ":19000::::::\n" + "bob:" +
                             h("$5$rounds=1000$bb", "correct horse battery") + "\nroot:!:19000::::::\n";
  write_bytes(dir / "clean", strong);
  write_bytes(dir / "weak", strong + "carol:" + h("$1$cc", "letmein") + "\n");
  write_bytes(dir / "no-password", strong + "guest::19000::::::\n");
  write_bytes(dir / "unparseable", strong + "no colon on this line\n");
  write_bytes(dir / "bad-hash", strong + "dave:$6$rounds=12$abc$def\n");  // a setting crypt rejects
  write_bytes(dir / "words", "password\nletmein\n123456\n");
  auto audit = [&](const char* hashes, const std::string& extra = " -q") {
    return run_split(dir, "audit --device cpu" + extra + " --hashes " + sh_quote((dir / hashes).string()) + " --wordlist " +
                              sh_quote((dir / "words").string()));
  };
  const Run clean = audit("clean");
  INFO(clean.err);
  CHECK(clean.code == 0);
  CHECK(clean.out.empty());
  CHECK(clean.err.empty());
  const Run weak = audit("weak");
  CHECK(weak.code == 1);
  CHECK(weak.out == "carol\n");  // the finding is data: on standard output
  CHECK(weak.err.empty());       // -q: no talk, and a finding is no error message
  const Run none = audit("no-password");
  CHECK(none.code == 1);
  CHECK(none.out == "guest\n");
  const Run unparseable = audit("unparseable");
  CHECK(unparseable.code == 1);
  CHECK(unparseable.out.empty());
  CHECK_THAT(unparseable.err, Catch::Contains("line 4:"));
  const Run bad = audit("bad-hash");
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("line 4:"));
  // The summary (talk) on standard error, without -q; the exit status is the same.
  const Run talk = audit("weak", "");
  CHECK(talk.code == 1);
  CHECK(talk.out == "carol\n");
  CHECK_THAT(talk.err, Catch::Contains("1 with a password from the word list"));
  // --help says so.
  const auto help = run(exe() + " --help");
  CHECK_THAT(help.output, Catch::Contains("none is weak"));
  CHECK_THAT(run(exe() + " audit --help").output, Catch::Contains("as a linter"));
}

TEST_CASE("wk-hash -v: the backend, counts and stage times on standard error, the data unchanged", "[hash][cli]") {
  TempDir dir;
  write_bytes(dir / "pw.txt", "one\ntwo\nthree\n");
  const std::string in = " -i " + sh_quote((dir / "pw.txt").string());
  const Run v = run_split(dir, "hash --device cpu -v --method md5crypt" + in);
  INFO(v.err);
  CHECK(v.code == 0);
  CHECK(lines_of(v.out).size() == 3);
  for (const auto& line : lines_of(v.out)) CHECK(line.rfind("$1$", 0) == 0);  // only hashes on standard output
  CHECK_THAT(v.err, Catch::Contains("backend: cpu (libxcrypt on"));
  CHECK_THAT(v.err, Catch::Contains("3 lines through the engine in"));
  CHECK_THAT(v.err, Catch::Contains("3 hashed, 0 failed"));  // the summary too
  const Run plain = run_split(dir, "hash --device cpu --method md5crypt" + in);
  CHECK(plain.err.find("backend:") == std::string::npos);
  CHECK(run_split(dir, "hash --device cpu -q --method md5crypt" + in).err.empty());

  auto h = [](const char* s, const char* pw) { return wk::hash::crypt_libxcrypt(s, pw).value(); };
  write_bytes(dir / "shadow", "alice:" + h("$1$aa", "secret-long") + "\n");
  write_bytes(dir / "words", "a\nb\n");
  const Run a = run_split(dir, "audit --device cpu --verbose --hashes " + sh_quote((dir / "shadow").string()) + " --wordlist " +
                                   sh_quote((dir / "words").string()));
  INFO(a.err);
  CHECK(a.code == 0);
  CHECK(a.out.empty());
  CHECK_THAT(a.err, Catch::Contains("backend: cpu"));
  CHECK_THAT(a.err, Catch::Contains("1 accounts x 2 words"));

  const Run both = run_split(dir, "hash --device cpu -q -v --method md5crypt" + in);
  CHECK(both.code == 2);  // -q and -v contradict: a usage error before any work
  CHECK(both.out.empty());
}
