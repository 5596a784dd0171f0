// File helpers: atomic replacement, nothing half-written, input discovery.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {
std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::size_t count_entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}
}  // namespace

TEST_CASE("write_output creates, replaces, and leaves no temporary files", "[io]") {
  test::TempDir dir;
  const fs::path p = dir / "sub" / "out.bin";
  io::write_output(p, bytes_of("first"));
  CHECK(test::read_bytes(p) == "first");
  io::write_output(p, bytes_of("second, longer"));
  CHECK(test::read_bytes(p) == "second, longer");
  CHECK(count_entries(dir / "sub") == 1);
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) != 0600);  // not mkstemp's private mode
}

TEST_CASE("remove_registered_temporaries unlinks exactly the registered, unreleased files", "[io]") {
  test::TempDir dir;
  for (const char* n : {"a.tmp", "b.tmp", "c.tmp"}) test::write_bytes(dir / n, "x");
  io::TemporaryRegistration a(dir / "a.tmp"), b(dir / "b.tmp");
  io::TemporaryRegistration moved = std::move(b);  // the registration moves with its owner
  a.release();                                      // renamed into place, say: no longer temporary
  io::remove_registered_temporaries();
  CHECK(fs::exists(dir / "a.tmp"));
  CHECK_FALSE(fs::exists(dir / "b.tmp"));
  CHECK(fs::exists(dir / "c.tmp"));  // never registered
  moved.release();                   // after a handler took the slot: harmless
  // Too long a path is simply not tracked.
  io::TemporaryRegistration too_long(fs::path(std::string(5000, 'x')));
}

TEST_CASE("write_output into a read-only folder fails cleanly", "[io]") {
  if (::geteuid() == 0) {
    WARN("running as root: permission checks do not apply, test skipped");
    return;
  }
  test::TempDir dir;
  const fs::path ro = dir / "ro";
  fs::create_directory(ro);
  io::write_output(ro / "keep.txt", bytes_of("old"));
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  CHECK_THROWS_AS(io::write_output(ro / "keep.txt", bytes_of("new")), Error);
  fs::permissions(ro, fs::perms::owner_all);
  CHECK(test::read_bytes(ro / "keep.txt") == "old");
  CHECK(count_entries(ro) == 1);
}

TEST_CASE("read_file reports missing and special files by name", "[io]") {
  test::TempDir dir;
  try {
    io::read_file(dir / "missing.jpg");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::io);
    CHECK_THAT(e.what(), Catch::Contains("missing.jpg"));
  }
  REQUIRE(::mkfifo((dir / "fifo.jpg").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(io::read_file(dir / "fifo.jpg"), Catch::Contains("not a regular file"));
}

TEST_CASE("scan_inputs walks folders sorted, by extension, skipping the output folder", "[io]") {
  test::TempDir dir;
  const fs::path in = dir / "in";
  fs::create_directories(in / "b" / "c");
  fs::create_directories(in / "out");
  for (const char* f : {"z.JPG", "a.png", "b/c/d.tiff", "notes.txt", "out/old.png", ".x.png.wk-123456"})
    test::write_bytes(in / f, "x");
  fs::create_symlink(in / "nowhere.png", in / "dangling.png");
  const std::vector<std::string> inputs{in.string(), (dir / "missing").string(), (in / "notes.txt").string()};
  const io::InputScan scan = io::scan_inputs(inputs, in / "out");
  std::vector<std::string> rel;
  for (const auto& f : scan.files) rel.push_back(f.relative.string());
  CHECK(rel == std::vector<std::string>{"a.png", "b/c/d.tiff", "z.JPG", "notes.txt"});
  REQUIRE(scan.errors.size() == 2);
  CHECK_THAT(scan.errors[0], Catch::Contains("dangling.png") && Catch::Contains("dangling"));
  CHECK_THAT(scan.errors[1], Catch::Contains("missing") && Catch::Contains("no such file"));
}
