// wk-crypt at a terminal (a pseudo-terminal played by the test): a passphrase typed without echo,
// asked twice to encrypt and once to decrypt, a mismatch refused with nothing written, and no
// terminal at all refused as a usage error.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "pty_test_util.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::Pty;
using wk::test::PtyProgram;

namespace {

// Runs wk-crypt `args` on the terminal, typing each passphrase at its prompt once the echo is off.
int typed_run(Pty& pty, const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& typed) {
  PtyProgram program(pty, WK_CRYPT_EXE, args);
  std::size_t from = 0;
  for (const auto& [prompt, text] : typed) {
    INFO(pty.screen());
    REQUIRE(pty.wait_for(prompt, from));
    from = pty.screen().find(prompt, from) + prompt.size();
    CHECK_FALSE(pty.echo_on());
    pty.type(text + "\n");
  }
  const auto code = program.wait();
  return code ? *code : -1;
}

}  // namespace

TEST_CASE("wk-crypt at a terminal: the passphrase asked without echo, twice to encrypt, a mismatch refused", "[cli][wk-crypt][idea][tty]") {
  wk::test::TempDir dir;
  const std::string data = "plaintext for the terminal test\n";
  wk::test::write_bytes(dir / "plain", data);
  const std::string pass = "Correct-Horse battery";
  const std::string in = (dir / "plain").string(), sealed = (dir / "sealed").string(), back = (dir / "back").string();
  {
    Pty pty;
    const int code = typed_run(pty, {"encrypt", "-q", "--device", "cpu", "--scrypt-log-n", "10", in, sealed},
                               {{"Passphrase: ", pass}, {"Retype passphrase: ", pass}});
    INFO(pty.screen());
    CHECK(code == 0);
    CHECK(pty.screen().find("Correct-Horse") == std::string::npos);  // never echoed
    CHECK(pty.echo_on());
  }
  REQUIRE(fs::exists(sealed));
  {
    Pty pty;
    const int code = typed_run(pty, {"decrypt", "-q", "--device", "cpu", sealed, back}, {{"Passphrase: ", pass}});
    INFO(pty.screen());
    CHECK(code == 0);
    CHECK(pty.screen().find("Retype") == std::string::npos);  // once to decrypt
    CHECK(wk::test::read_bytes(back) == data);
  }
  {
    Pty pty;  // a wrong passphrase: refused by the header's tag, nothing written
    const int code = typed_run(pty, {"decrypt", "-q", "--device", "cpu", sealed, back + "2"}, {{"Passphrase: ", pass + "x"}});
    INFO(pty.screen());
    CHECK(code == 1);
    CHECK(pty.screen().find("wrong passphrase") != std::string::npos);
    CHECK(!fs::exists(back + "2"));
  }
  {
    Pty pty;  // the two differ: nothing written
    const int code = typed_run(pty, {"encrypt", "-q", "--device", "cpu", "--scrypt-log-n", "10", in, sealed + "2"},
                               {{"Passphrase: ", pass}, {"Retype passphrase: ", pass + "!"}});
    INFO(pty.screen());
    CHECK(code == 2);
    CHECK(pty.screen().find("differ") != std::string::npos);
    CHECK(!fs::exists(sealed + "2"));
    CHECK(pty.echo_on());
  }
  // No terminal (setsid: no controlling one) and no key: a usage error before any work.
  const auto r = wk::test::run("setsid " + std::string(WK_CRYPT_EXE) + " encrypt --device cpu " + wk::test::sh_quote(in) + " " +
                               wk::test::sh_quote(sealed + "3") + " < /dev/null");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("no terminal") != std::string::npos);
  CHECK(!fs::exists(sealed + "3"));
}
