// --version in every app: the name and version, the commit, the CUDA runtime and driver, and the
// optional parts built in; exit 0, on stdout, whatever else the command line lacks.
#include <catch2/catch.hpp>

#include <string>

#include "test_support.hpp"
#include "wk/version.hpp"

TEST_CASE("every app prints its version, commit, CUDA versions and built-in parts with --version", "[cli][version]") {
  for (const auto& [name, exe] : {std::pair<std::string, std::string>{"wk-image", WK_IMAGE_EXE}, {"wk-hash", WK_HASH_EXE},
                                  {"wk-crypt", WK_CRYPT_EXE}, {"wk-bench", WK_BENCH_EXE}}) {
    CAPTURE(name);
    // wk-image needs a pipeline, inputs and -o otherwise: --version answers without them.
    const auto r = wk::test::run(exe + " --version 2>/dev/null");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::StartsWith(name + " " + wk::version_string + " (commit " + wk::git_commit + ")"));
    CHECK_THAT(r.output, Catch::Contains("CUDA runtime ") && Catch::Contains(", driver ") &&
                             Catch::Contains("built with: nvJPEG ") && Catch::Contains(", MPI ") &&
                             Catch::Contains(", libexiv2 metadata "));
  }
}
