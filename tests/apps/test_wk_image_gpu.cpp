// wk-image on the GPU writes exactly what the CPU backend writes.
#include <catch2/catch.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using wk::test::sh_quote;

TEST_CASE("wk-image gray: GPU outputs are byte-identical to CPU outputs", "[gpu][cli][wk-image]") {
  wk::test::TempDir dir;
  const auto gen = wk::test::run(std::string(WK_MAKE_IMAGES_EXE) + " -o " + sh_quote((dir / "in").string()) +
                                 " --count 8 --size 1921x1081 --formats jpg,png,bmp,ppm");
  REQUIRE(gen.exit_code == 0);
  for (const char* dev : {"cpu", "gpu"}) {
    const auto r = wk::test::run(std::string(WK_IMAGE_EXE) + " gray -q --device " + dev + " -o " +
                                 sh_quote((dir / dev).string()) + " " + sh_quote((dir / "in").string()));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  int compared = 0;
  for (const auto& e : fs::directory_iterator(dir / "cpu")) {
    const fs::path name = e.path().filename();
    CAPTURE(name);
    CHECK(wk::test::read_bytes(e.path()) == wk::test::read_bytes(dir / "gpu" / name));
    ++compared;
  }
  CHECK(compared == 8);
}
