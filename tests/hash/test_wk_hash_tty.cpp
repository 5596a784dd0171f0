// wk-hash with its standard input, output and error on a terminal (a pseudo-terminal played by
// the test): one password asked for on standard error without echo -- twice for hash and crypt,
// once for verify --, the echo back on at every end (Ctrl-C, SIGTERM included), the result on
// standard output.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pty_test_util.hpp"
#include "test_support.hpp"
#include "wk/hash/crypt.hpp"

using wk::test::Pty;
using wk::test::PtyProgram;

namespace {

// The screen's line that starts with `start` (without its CR LF); empty when there is none.
std::string line_from(const std::string& screen, std::string_view start) {
  const std::size_t at = screen.find(start);
  if (at == std::string::npos) return {};
  const std::size_t end = screen.find_first_of("\r\n", at);
  return screen.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Runs wk-hash `args` at the terminal: each password of `passwords` typed at its prompt -- which
// must come, with the echo off -- after the fields of `fields` (typed at their prompts with the
// echo on). Returns the exit status (-1: it did not end).
int typed_run(Pty& pty, const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& fields,
              const std::vector<std::pair<std::string, std::string>>& passwords) {
  PtyProgram program(pty, WK_HASH_EXE, args);
  std::size_t from = 0;
  for (const auto& [prompt, text] : fields) {
    INFO(pty.screen());
    REQUIRE(pty.wait_for(prompt, from));
    from = pty.screen().find(prompt, from) + prompt.size();
    pty.type(text + "\n");
  }
  for (const auto& [prompt, password] : passwords) {
    INFO(pty.screen());
    REQUIRE(pty.wait_for(prompt, from));
    from = pty.screen().find(prompt, from) + prompt.size();
    CHECK_FALSE(pty.echo_on());  // the prompt is written once the echo is off
    pty.type(password + "\n");
  }
  const auto code = program.wait();
  return code ? *code : -1;
}

}  // namespace

TEST_CASE("wk-hash hash at a terminal: the password asked twice without echo, its hash verifies, -i FILE asks nothing", "[hash][cli][tty]") {
  Pty pty;
  const std::string password = "tty-Secret-1 with spaces";
  const int code = typed_run(pty, {"hash", "--device", "cpu", "-q", "--method", "sha512crypt"}, {},
                             {{"Password: ", password}, {"Retype password: ", password}});
  const std::string& screen = pty.screen();
  INFO(screen);
  CHECK(code == 0);
  CHECK(screen.find("tty-Secret") == std::string::npos);  // never echoed
  CHECK(count_of(screen, "Password: ") == 1);
  CHECK(count_of(screen, "Retype password: ") == 1);
  CHECK(pty.echo_on());  // as it was
  const std::string hash = line_from(screen, "$6$");
  REQUIRE_FALSE(hash.empty());
  CHECK(wk::hash::crypt_libxcrypt(hash, password).value_or("") == hash);

  // With -i FILE the terminal is no input: nothing is asked.
  wk::test::TempDir dir;
  wk::test::write_bytes(dir / "pw.txt", "file-Secret\n");
  Pty other;
  PtyProgram program(other, WK_HASH_EXE, {"hash", "--device", "cpu", "-q", "--method", "md5crypt", "-i", (dir / "pw.txt").string()});
  const auto file_code = program.wait();
  INFO(other.screen());
  REQUIRE(file_code);
  CHECK(*file_code == 0);
  CHECK(other.screen().find("Password") == std::string::npos);
  const std::string from_file = line_from(other.screen(), "$1$");
  CHECK(wk::hash::crypt_libxcrypt(from_file, "file-Secret").value_or("") == from_file);
}

TEST_CASE("wk-hash hash at a terminal: two different passwords fail with exit status 1, nothing hashed", "[hash][cli][tty]") {
  Pty pty;
  const int code = typed_run(pty, {"hash", "--device", "cpu", "--method", "md5crypt"}, {},
                             {{"Password: ", "first-Secret"}, {"Retype password: ", "second-Secret"}});
  const std::string& screen = pty.screen();
  INFO(screen);
  CHECK(code == 1);
  CHECK_THAT(screen, Catch::Contains("the passwords typed differ"));
  CHECK(screen.find("$1$") == std::string::npos);
  CHECK(screen.find("Secret") == std::string::npos);
  CHECK(pty.echo_on());
}

TEST_CASE("wk-hash hash --users and crypt at a terminal: the field shown, the password asked twice", "[hash][cli][tty]") {
  {
    Pty pty;
    const int code = typed_run(pty, {"hash", "--device", "cpu", "-q", "--method", "md5crypt", "--users"}, {{"User: ", "alice"}},
                               {{"Password: ", "alice-Secret"}, {"Retype password: ", "alice-Secret"}});
    INFO(pty.screen());
    CHECK(code == 0);
    CHECK(pty.screen().find("Secret") == std::string::npos);
    const std::string out = line_from(pty.screen(), "alice:$1$");
    REQUIRE_FALSE(out.empty());
    CHECK(wk::hash::crypt_libxcrypt(out.substr(6), "alice-Secret").value_or("") == out.substr(6));
  }
  {
    Pty pty;
    const int code = typed_run(pty, {"crypt", "--device", "cpu", "-q"}, {{"Setting: ", "$5$rounds=1000$ttysalt"}},
                               {{"Password: ", "crypt-Secret"}, {"Retype password: ", "crypt-Secret"}});
    INFO(pty.screen());
    CHECK(code == 0);
    CHECK(pty.screen().find("Secret") == std::string::npos);
    const std::string expected = wk::hash::crypt_libxcrypt("$5$rounds=1000$ttysalt", "crypt-Secret").value();
    CHECK(count_of(pty.screen(), expected) == 1);
  }
}

TEST_CASE("wk-hash verify at a terminal: the hash shown, the password asked once without echo", "[hash][cli][tty]") {
  const std::string hash = wk::hash::crypt_libxcrypt("$5$rounds=1000$ttysalt", "right-Secret").value();
  {
    Pty pty;
    const int code = typed_run(pty, {"verify", "--device", "cpu", "-q"}, {{"Hash: ", hash}}, {{"Password: ", "right-Secret"}});
    const std::string& screen = pty.screen();
    INFO(screen);
    CHECK(code == 0);
    CHECK_THAT(screen, Catch::Contains("line 1: OK"));
    CHECK(screen.find("Retype") == std::string::npos);
    CHECK(screen.find("Secret") == std::string::npos);
    CHECK(pty.echo_on());
  }
  {
    Pty pty;
    const int code = typed_run(pty, {"verify", "--device", "cpu", "-q"}, {{"Hash: ", hash}}, {{"Password: ", "wrong-Secret"}});
    INFO(pty.screen());
    CHECK(code == 1);
    CHECK_THAT(pty.screen(), Catch::Contains("line 1: MISMATCH"));
    CHECK(pty.screen().find("Secret") == std::string::npos);
  }
}

TEST_CASE("wk-hash at a terminal: Ctrl-C, SIGTERM and Ctrl-D at the prompt leave the echo on", "[hash][cli][tty]") {
  SECTION("Ctrl-C mid-password: exit status 130") {
    Pty pty;
    PtyProgram program(pty, WK_HASH_EXE, {"hash", "--device", "cpu", "--method", "md5crypt"});
    REQUIRE(pty.wait_for("Password: "));
    CHECK_FALSE(pty.echo_on());
    pty.type("half-Secret");
    pty.type("\x03");  // ^C: SIGINT to the terminal's foreground process group
    const auto code = program.wait();
    INFO(pty.screen());
    REQUIRE(code);
    CHECK(*code == 130);
    CHECK(pty.echo_on());
    CHECK(pty.screen().find("Secret") == std::string::npos);
  }
  SECTION("SIGTERM at the retype prompt: exit status 130") {
    Pty pty;
    PtyProgram program(pty, WK_HASH_EXE, {"hash", "--device", "cpu", "--method", "md5crypt"});
    REQUIRE(pty.wait_for("Password: "));
    pty.type("some-Secret\n");
    REQUIRE(pty.wait_for("Retype password: "));
    CHECK_FALSE(pty.echo_on());
    ::kill(program.pid(), SIGTERM);
    const auto code = program.wait();
    INFO(pty.screen());
    REQUIRE(code);
    CHECK(*code == 130);
    CHECK(pty.echo_on());
  }
  SECTION("Ctrl-D: nothing typed, exit status 1") {
    Pty pty;
    PtyProgram program(pty, WK_HASH_EXE, {"hash", "--device", "cpu", "--method", "md5crypt"});
    REQUIRE(pty.wait_for("Password: "));
    pty.type("\x04");  // ^D at the start of the line: the end of input
    const auto code = program.wait();
    INFO(pty.screen());
    REQUIRE(code);
    CHECK(*code == 1);
    CHECK_THAT(pty.screen(), Catch::Contains("nothing hashed"));
    CHECK(pty.echo_on());
  }
}
