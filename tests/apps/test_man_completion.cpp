// The apps' --help-all (what the man pages are made from) and --completion bash|zsh (the shell
// completion scripts the build installs), run on the built apps: every subcommand and option the
// app parses is named, the scripts are valid shell, and bash completes what a user types.
// tests/apps/app_install_test.cmake checks what `cmake --install` puts in PREFIX/share.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace {

using wk::test::run;
using wk::test::sh_quote;

const std::vector<std::pair<std::string, std::string>>& apps() {
  static const std::vector<std::pair<std::string, std::string>> list{
      {"wk-image", WK_IMAGE_EXE}, {"wk-hash", WK_HASH_EXE}, {"wk-crypt", WK_CRYPT_EXE}, {"wk-bench", WK_BENCH_EXE}};
  return list;
}

// The names in the "Subcommands:" block of `exe --help` (lines "  NAME   description").
std::vector<std::string> listed_subcommands(const std::string& exe) {
  std::istringstream help(run(exe + " --help 2>/dev/null").output);
  std::vector<std::string> names;
  bool in_block = false;
  for (std::string line; std::getline(help, line);) {
    if (line == "Subcommands:") {
      in_block = true;
    } else if (in_block) {
      if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') break;
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return names;
}

// The candidates bash completion offers for `line` (the cursor at its end): the script of `exe`
// sourced in a bash without bash-completion, its function called as bash calls it. `last` is the
// word bash itself would replace (COMP_WORDS[COMP_CWORD]: the text after the last ':' or '=').
std::string bash_candidates(const std::string& exe, const std::string& function, const std::string& line,
                            const std::string& last) {
  wk::test::TempDir dir;
  const auto script = dir / "completion.bash";
  REQUIRE(run(exe + " --completion bash > " + sh_quote(script.string())).exit_code == 0);
  const std::string code = "source " + sh_quote(script.string()) + "; COMP_LINE=" + sh_quote(line) +
                           "; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(" + sh_quote(last) + "); COMP_CWORD=0; " + function +
                           "; printf '<%s>' \"${COMPREPLY[@]}\"";
  const auto r = run("bash --norc -c " + sh_quote(code));
  CHECK(r.exit_code == 0);
  return r.output;
}

}  // namespace

TEST_CASE("every app's bash and zsh completion names its subcommands and options", "[cli][completion]") {
  for (const auto& [name, exe] : apps()) {
    CAPTURE(name);
    for (const char* shell : {"bash", "zsh"}) {
      CAPTURE(shell);
      // Answered before the required arguments are checked (wk-image needs a pipeline otherwise).
      const auto r = run(exe + " --completion " + shell + " 2>&1");
      REQUIRE(r.exit_code == 0);
      CHECK_THAT(r.output, Catch::Contains("--help") && Catch::Contains("--version"));
      for (const std::string& sub : listed_subcommands(exe)) CHECK_THAT(r.output, Catch::Contains(sub));
      if (name == "wk-hash")
        CHECK_THAT(r.output, Catch::Contains("audit") && Catch::Contains("verify") && Catch::Contains("--quiet") &&
                                 Catch::Contains("--wordlist") && Catch::Contains("sha512crypt"));
      if (name == "wk-crypt")
        CHECK_THAT(r.output, Catch::Contains("encrypt") && Catch::Contains("decrypt") && Catch::Contains("keygen") &&
                                 Catch::Contains("--key") && Catch::Contains("ecb"));
      if (name == "wk-bench")
        CHECK_THAT(r.output, Catch::Contains("histogram") && Catch::Contains("resize") && Catch::Contains("--ladder"));
      if (name == "wk-image")  // the operations, from the library's declarations
        CHECK_THAT(r.output, Catch::Contains("thumbnail:") && Catch::Contains("gauss:") && Catch::Contains("histogram") &&
                                 Catch::Contains("rotate:90") && Catch::Contains("--jpeg-decoder") &&
                                 Catch::Contains("nvjpeg"));
      // No hidden option: --completion itself is for packagers.
      CHECK_THAT(r.output, !Catch::Contains("'--completion'") && !Catch::Contains("--completion["));
    }
    CHECK(listed_subcommands(exe).empty() == (name == "wk-image"));  // the parser of the help above works
  }
}

TEST_CASE("the completion scripts are valid bash and zsh", "[cli][completion]") {
  const bool have_zsh = run("command -v zsh").exit_code == 0;
  if (!have_zsh) WARN("zsh is not installed: only the bash scripts are checked");
  for (const auto& [name, exe] : apps()) {
    CAPTURE(name);
    wk::test::TempDir dir;
    const std::string bash = sh_quote((dir / "bash").string()), zsh = sh_quote((dir / "zsh").string());
    REQUIRE(run(exe + " --completion bash > " + bash).exit_code == 0);
    REQUIRE(run(exe + " --completion zsh > " + zsh).exit_code == 0);
    const auto b = run("bash -n " + bash);
    CHECK(b.exit_code == 0);
    CHECK(b.output.empty());
    CHECK_THAT(wk::test::read_bytes(dir / "zsh"), Catch::StartsWith("#compdef " + name + "\n"));
    if (have_zsh) {
      const auto z = run("zsh -n " + zsh);
      CHECK(z.exit_code == 0);
      CHECK(z.output.empty());
    }
  }
}

TEST_CASE("bash completes subcommands, options, their values and wk-image operations", "[cli][completion]") {
  const std::string hash = WK_HASH_EXE, image = WK_IMAGE_EXE, crypt = WK_CRYPT_EXE;
  CHECK(bash_candidates(hash, "_wk_hash", "wk-hash au", "au") == "<audit>");
  CHECK(bash_candidates(hash, "_wk_hash", "wk-hash audit --qu", "--qu") == "<--quiet>");
  CHECK(bash_candidates(hash, "_wk_hash", "wk-hash hash --method sha5", "sha5") == "<sha512crypt>");
  CHECK(bash_candidates(hash, "_wk_hash", "wk-hash hash --method=sha2", "sha2") == "<sha256crypt>");
  CHECK(bash_candidates(hash, "_wk_hash", "wk-hash hash --device=", "=") == "<auto><gpu><cpu>");
  // A flag takes no value: the word after it is completed as an option again.
  CHECK(bash_candidates(hash, "_wk_hash", "wk-hash hash --json --dev", "--dev") == "<--device>");
  CHECK(bash_candidates(crypt, "_wk_crypt", "wk-crypt encrypt --mode e", "e") == "<ecb>");
  // wk-image's first argument is the pipeline: the operation after the last ','.
  CHECK(bash_candidates(image, "_wk_image", "wk-image thumb", "thumb") == "<thumbnail:>");
  CHECK(bash_candidates(image, "_wk_image", "wk-image gray,gauss:5,thu", "5,thu") == "<5,thumbnail:>");
  CHECK(bash_candidates(image, "_wk_image", "wk-image rotate:1", "1") == "<180>");
  CHECK(bash_candidates(image, "_wk_image", "wk-image --jpeg-decoder nv", "nv") == "<nvjpeg>");
  // After the pipeline, and after an option's value, come the inputs: file names.
  wk::test::TempDir dir;
  wk::test::write_bytes(dir / "photo.jpg", "x");
  const std::string prefix = (dir / "pho").string();
  CHECK(bash_candidates(image, "_wk_image", "wk-image gray -o out " + prefix, prefix) == "<" + (dir / "photo.jpg").string() + ">");
}

TEST_CASE("every app's --help-all shows every subcommand's help, footers included", "[cli][help]") {
  for (const auto& [name, exe] : apps()) {
    CAPTURE(name);
    const auto r = run(exe + " --help-all 2>&1");
    REQUIRE(r.exit_code == 0);
    const auto help = run(exe + " --help 2>&1");
    CHECK_THAT(r.output, Catch::StartsWith(help.output.substr(0, help.output.find("\nOptions:"))));
    for (const std::string& sub : listed_subcommands(exe)) {
      CAPTURE(sub);
      CHECK_THAT(r.output, Catch::Contains(" " + sub + ":\n  ") && Catch::Contains(" " + sub + " [OPTIONS]"));
    }
    // Shown in --help where there are subcommands to expand.
    CHECK((help.output.find("--help-all") != std::string::npos) == !listed_subcommands(exe).empty());
  }
  const auto hash = run(std::string(WK_HASH_EXE) + " --help-all");
  CHECK_THAT(hash.output, Catch::Contains("--wordlist") && Catch::Contains("shadow(5)") && Catch::Contains("--bcrypt-variant"));
}

TEST_CASE("an app's --completion takes bash or zsh only", "[cli][completion]") {
  const auto r = run(std::string(WK_HASH_EXE) + " --completion fish 2>&1");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--completion"));
}
