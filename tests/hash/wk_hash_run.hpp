#pragma once
// wk-hash run by the CLI tests with its standard output and standard error kept apart.
#include <string>

#include "test_support.hpp"

namespace wk::hash::test {

struct Run {
  int code;
  std::string out, err;
};

// The wk-hash under test, quoted for a shell.
inline std::string wk_hash_exe() { return wk::test::sh_quote(WK_HASH_EXE); }

// A shell command line (pipes, environment variables) with stdout and stderr to files of `dir`.
inline Run run_script_split(const wk::test::TempDir& dir, const std::string& script) {
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const auto r = wk::test::run("sh -c " + wk::test::sh_quote("{ " + script + "; } >" + wk::test::sh_quote(out.string()) +
                                                        " 2>" + wk::test::sh_quote(err.string())));
  return {r.exit_code, wk::test::read_bytes(out), wk::test::read_bytes(err)};
}

// wk-hash with these arguments, stdout and stderr to files of `dir`.
inline Run run_split(const wk::test::TempDir& dir, const std::string& args) {
  return run_script_split(dir, wk_hash_exe() + " " + args);
}

}  // namespace wk::hash::test
