// The one output writer (io::OutputFile) and the checks around it: links kept, FIFOs and devices
// written in place, nothing left behind by a crash, no output that is an input, printable names,
// walks that lose no error, bounded reads.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/core/parallel.hpp"
#include "wk/io/files.hpp"
#include "wk/io/output_file.hpp"

namespace fs = std::filesystem;
using namespace wk;

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

ErrorCategory category_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.category();
  }
  FAIL("no wk::Error thrown");
  return ErrorCategory::internal;
}

bool has_temporaries(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".wk-") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("OutputFile writes through a symbolic link and keeps the link", "[io][output]") {
  test::TempDir dir;
  test::write_bytes(dir / "real.txt", "old");
  fs::create_symlink("real.txt", dir / "link.txt");
  io::write_output(dir / "link.txt", bytes_of("new content"));
  CHECK(fs::is_symlink(fs::symlink_status(dir / "link.txt")));
  CHECK(test::read_bytes(dir / "real.txt") == "new content");
  // A chain of links, and a dangling one: the final target is made.
  fs::create_directory(dir / "sub");
  fs::create_symlink("../link.txt", dir / "sub" / "chain.txt");
  io::write_output(dir / "sub" / "chain.txt", bytes_of("third"));
  CHECK(test::read_bytes(dir / "real.txt") == "third");
  CHECK(fs::is_symlink(fs::symlink_status(dir / "sub" / "chain.txt")));
  fs::create_symlink("made.txt", dir / "dangling.txt");
  io::write_output(dir / "dangling.txt", bytes_of("made"));
  CHECK(test::read_bytes(dir / "made.txt") == "made");
  CHECK(fs::is_symlink(fs::symlink_status(dir / "dangling.txt")));
  // A loop is an error, not a replaced link.
  fs::create_symlink("loop2", dir / "loop1");
  fs::create_symlink("loop1", dir / "loop2");
  CHECK(category_of([&] { io::write_output(dir / "loop1", bytes_of("x")); }) == ErrorCategory::io);
  CHECK(fs::is_symlink(fs::symlink_status(dir / "loop1")));
  CHECK_FALSE(has_temporaries(dir.path()));
}

TEST_CASE("OutputFile writes FIFOs and character devices in place", "[io][output]") {
  test::TempDir dir;
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto reader = std::async(std::launch::async, [&] { return test::read_bytes(fifo); });
  io::write_output(fifo, bytes_of("through the pipe"));
  CHECK(reader.get() == "through the pipe");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // /dev/null stays the device (a replacing writer running as root would make it a file).
  io::OutputFile null_out("/dev/null");
  CHECK(null_out.is_stream());
  null_out.write(bytes_of("discarded"));
  null_out.commit();
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK_FALSE(has_temporaries(dir.path()));
}

TEST_CASE("OutputFile: an uncommitted file leaves the target as it was, refusals are usage errors", "[io][output]") {
  test::TempDir dir;
  test::write_bytes(dir / "keep.txt", "original");
  {
    io::OutputFile out(dir / "keep.txt");
    out.write(bytes_of("never seen"));
  }
  CHECK(test::read_bytes(dir / "keep.txt") == "original");
  CHECK(test::files_below(dir.path()) == std::vector<std::string>{"keep.txt"});
  io::OutputOptions keep;
  keep.replace = false;
  CHECK(category_of([&] { io::OutputFile out(dir / "keep.txt", keep); }) == ErrorCategory::usage);
  CHECK(category_of([&] { io::OutputFile out(dir.path(), {}); }) == ErrorCategory::usage);
  io::OutputOptions key;
  key.replace = false;
  key.mode = 0600;
  io::write_output(dir / "new.key", bytes_of("0123456789abcdef"), key);
  struct stat st {};
  REQUIRE(::stat((dir / "new.key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("OutputFile: a process killed while writing leaves no temporary file", "[io][output]") {
  test::TempDir dir;
  test::write_bytes(dir / "out.bin", "before");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    io::OutputFile out(dir / "out.bin");
    const std::string chunk(1 << 20, 'x');
    out.write(chunk.data(), chunk.size());
    ::raise(SIGKILL);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(test::read_bytes(dir / "out.bin") == "before");
  CHECK(test::files_below(dir.path()) == std::vector<std::string>{"out.bin"});
}

TEST_CASE("sweep_stale_temporaries removes what dead processes left, nothing else", "[io][output]") {
  test::TempDir dir;
  // A PID that runs no process: count down from the largest until kill says so.
  pid_t dead = 4194000;
  while (dead > 2 && !(::kill(dead, 0) != 0 && errno == ESRCH)) --dead;
  const std::string stale = ".a.png.wk-" + std::to_string(dead) + "-AbC123";
  const std::string live = ".a.png.wk-" + std::to_string(::getpid()) + "-XyZ789";
  for (const std::string& n : {stale, live, std::string("a.png"), std::string(".a.png.wk-noPid-000000")})
    test::write_bytes(dir / n, "x");
  CHECK(io::sweep_stale_temporaries(dir.path()) == 1);
  CHECK_FALSE(fs::exists(dir / stale));
  CHECK(fs::exists(dir / live));
  CHECK(fs::exists(dir / "a.png"));
  CHECK(io::sweep_stale_temporaries(dir.path()) == 0);  // once per folder and process
}

TEST_CASE("check_writes_apart: no output is an input, through links and hard links", "[io][output]") {
  test::TempDir dir;
  test::write_bytes(dir / "in.txt", "input");
  fs::create_symlink("in.txt", dir / "sym.txt");
  fs::create_hard_link(dir / "in.txt", dir / "hard.txt");
  const std::vector<io::JobFile> reads{{"the input", dir / "in.txt"}, {"the key file", "-"}};
  for (const char* name : {"in.txt", "sym.txt", "hard.txt"}) {
    CAPTURE(name);
    const std::vector<io::JobFile> writes{{"the output", dir / name}};
    CHECK(category_of([&] { io::check_writes_apart(reads, writes); }) == ErrorCategory::usage);
  }
  const std::vector<io::JobFile> fine{{"the output", dir / "out.txt"}, {"the report", dir / "report.json"}, {"x", "-"}};
  CHECK_NOTHROW(io::check_writes_apart(reads, fine));
  const std::vector<io::JobFile> twice{{"the output", dir / "out.txt"}, {"the report", dir / "." / "out.txt"}};
  CHECK(category_of([&] { io::check_writes_apart(reads, twice); }) == ErrorCategory::usage);
}

TEST_CASE("printable escapes control bytes and bad UTF-8, nothing else", "[io]") {
  CHECK(io::printable("plain name.jpg") == "plain name.jpg");
  CHECK(io::printable("a\nb") == "a\\nb");
  CHECK(io::printable("\x1b]0;owned\x07.png") == "\\033]0;owned\\007.png");
  CHECK(io::printable("caf\xc3\xa9 \xe6\x97\xa5.jpg") == "caf\xc3\xa9 \xe6\x97\xa5.jpg");
  CHECK(io::printable("bad\xff\xc3") == "bad\\377\\303");
  CHECK(io::printable("c1\xc2\x9b") == "c1\\302\\233");  // U+009B, a C1 CSI
  CHECK(io::printable(io::printable("x\ty")) == io::printable("x\ty"));
}

TEST_CASE("scan_inputs names every folder it cannot read and walks the rest", "[io][walk]") {
  test::TempDir dir;
  const fs::path tree = dir / "tree";
  for (const char* sub : {"a", "b", "c", "d"}) {
    fs::create_directories(tree / sub);
    test::write_bytes(tree / sub / "img.png", "not decoded here");
  }
  fs::permissions(dir.path(), fs::perms::all);
  fs::permissions(tree, fs::perms::all);
  for (const char* sub : {"a", "c", "d"}) fs::permissions(tree / sub, fs::perms::all);
  fs::permissions(tree / "a" / "img.png", fs::perms::all);
  fs::permissions(tree / "c" / "img.png", fs::perms::all);
  fs::permissions(tree / "d" / "img.png", fs::perms::all);
  fs::permissions(tree / "b", fs::perms::none);
  // As root every folder is readable: the walk runs in a child that is user "nobody".
  const int code = test::run_unprivileged([&]() -> int {
    const std::vector<std::string> inputs{tree.string()};
    const io::InputScan scan = io::scan_inputs(inputs, {});
    if (scan.files.size() != 3) return 10 + int(scan.files.size());
    if (scan.errors.size() != 1) return 20 + int(scan.errors.size());
    if (scan.errors[0].find((tree / "b").string()) != 0) return 30;
    if (scan.errors[0].find("cannot list folder") == std::string::npos) return 31;
    return 0;
  });
  fs::permissions(tree / "b", fs::perms::all);
  CHECK(code == 0);
}

TEST_CASE("scan_inputs: a link loop is named a loop, one file named twice is taken once", "[io][walk]") {
  test::TempDir dir;
  fs::create_symlink("loop2.png", dir / "loop1.png");
  fs::create_symlink("loop1.png", dir / "loop2.png");
  fs::create_symlink("nothing.png", dir / "dangling.png");
  test::write_bytes(dir / "a.png", "x");
  const std::vector<std::string> inputs{(dir / "loop1.png").string(), (dir / "a.png").string(), (dir / "a.png").string(),
                                        dir.path().string()};
  const io::InputScan scan = io::scan_inputs(inputs, {});
  REQUIRE(scan.errors.size() >= 3);  // loop1.png named, and in the folder loop1, loop2, dangling
  CHECK(scan.errors[0].find("symbolic link loop") != std::string::npos);
  std::size_t loops = 0, dangling = 0;
  for (const auto& e : scan.errors) {
    loops += e.find("symbolic link loop") != std::string::npos;
    dangling += e.find("dangling symbolic link") != std::string::npos;
  }
  CHECK(loops == 3);
  CHECK(dangling == 1);
  REQUIRE(scan.files.size() == 1);  // a.png given twice and found in the folder: one output a.png
  CHECK(scan.notices.size() == 2);
}

TEST_CASE("read_file refuses FIFOs and devices without blocking, and files over its bound", "[io]") {
  test::TempDir dir;
  const fs::path fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(category_of([&] { io::read_file(fifo); }) == ErrorCategory::io);  // no writer: would block
  CHECK(category_of([&] { io::read_file("/dev/zero"); }) == ErrorCategory::io);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  test::write_bytes(dir / "big", std::string(5000, 'x'));
  CHECK(io::read_file(dir / "big", 5000).size() == 5000);
  CHECK(category_of([&] { io::read_file(dir / "big", 4999); }) == ErrorCategory::io);
}

TEST_CASE("ByteBudget never holds more than its capacity, except one request alone", "[core]") {
  ByteBudget budget(100);
  std::atomic<int> inside{0};
  std::atomic<bool> over{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 200; ++k) {
        const std::uint64_t n = 30 + std::uint64_t((t * 7 + k) % 40);
        REQUIRE(budget.acquire(n));
        if (budget.held() > 100) over = true;
        budget.release(n);
      }
    });
  for (auto& th : threads) th.join();
  CHECK_FALSE(over);
  CHECK(budget.peak() <= 100);
  CHECK(budget.held() == 0);
  REQUIRE(budget.acquire(500));  // larger than the budget: granted alone
  std::atomic<bool> stop{false};
  auto waiting = std::async(std::launch::async, [&] { return budget.acquire(10, &stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  CHECK_FALSE(waiting.get());  // gave up on stop, took nothing
  budget.release(500);
  CHECK(budget.held() == 0);
}

TEST_CASE("OutputFile writes the process's own descriptors as the shell set them up", "[io][output]") {
  test::TempDir dir;
  // `>> f`: an appending descriptor keeps what the file held.
  test::write_bytes(dir / "log.txt", "earlier\n");
  const int fd = ::open((dir / "log.txt").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  REQUIRE(fd >= 0);
  for (const std::string name : {"/proc/self/fd/" + std::to_string(fd), "/dev/fd/" + std::to_string(fd)}) {
    io::OutputFile out(name);
    CHECK(out.is_stream());
    out.write(bytes_of("more\n"));
    out.commit();
  }
  ::close(fd);
  CHECK(test::read_bytes(dir / "log.txt") == "earlier\nmore\nmore\n");
  // `| cmd` or `>(cmd)`: a pipe.
  int p[2];
  REQUIRE(::pipe(p) == 0);
  io::write_output("/dev/fd/" + std::to_string(p[1]), bytes_of("piped"));
  ::close(p[1]);
  char buf[16] = {};
  CHECK(::read(p[0], buf, sizeof buf) == 5);
  ::close(p[0]);
  CHECK(std::string(buf) == "piped");
  // A job may read and write the same FIFO or device (`-i /dev/stdin -o /dev/stdout`).
  const std::vector<io::JobFile> reads{{"the input", "/dev/null"}, {"the input", "/dev/stdin"}};
  const std::vector<io::JobFile> writes{{"the output", "/dev/null"}, {"the output", "/dev/stdout"}};
  CHECK_NOTHROW(io::check_writes_apart(reads, writes));
}
