// Password input: split_lines (parallel, in 1 MiB pieces) against a plain line splitter,
// read_secret_input against the bytes written, read_typed_line at a pseudo-terminal.
#include <catch2/catch.hpp>

#include <pthread.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "hash_test_util.hpp"
#include "pty_test_util.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/secret_input.hpp"

namespace {

std::vector<std::string_view> split_reference(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(at, nl - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    at = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("split_lines equals a plain splitter, across 1 MiB pieces", "[hash][input]") {
  std::mt19937 rng(5);
  std::vector<std::string> texts = {"", "\n", "a", "a\n", "a\r\n", "\n\n", "a\nb", "a\r\nb\r\n\r\n", "\r", "x\r\r\n"};
  for (int t = 0; t < 6; ++t) {
    // ~3 MiB of lines from 0 to 3000 bytes, some CRLF.
    std::string s;
    while (s.size() < (std::size_t(3) << 20)) {
      const std::size_t len = rng() % 4 == 0 ? rng() % 3000 : rng() % 12;
      s.append(len, char('a' + rng() % 26));
      if (rng() % 5 == 0) s += '\r';
      s += '\n';
    }
    if (t % 3 == 0) s.pop_back();  // no final newline
    if (t == 4) s.resize(std::size_t(2) << 20), s.back() = '\n';  // a newline as a piece's last byte
    texts.push_back(s);
  }
  for (const std::string& s : texts) {
    CAPTURE(s.size());
    const auto got = wk::hash::split_lines(s);
    const auto want = split_reference(s);
    REQUIRE(got.size() == want.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got[i].data() != want[i].data() || got[i] != want[i];
    CHECK(differ == 0);
  }
}

TEST_CASE("LineIndex: any range of lines equals split_lines, across 64 KiB pieces", "[hash][input]") {
  std::mt19937 rng(6);
  for (int t = 0; t < 4; ++t) {
    // ~1 MiB: short lines (many per piece), and with t odd some lines longer than a piece.
    std::string s;
    while (s.size() < (std::size_t(1) << 20)) {
      const std::size_t len = t % 2 && rng() % 50 == 0 ? 70000 + rng() % 100000 : rng() % 12;
      s.append(len, char('a' + rng() % 26));
      if (rng() % 5 == 0) s += '\r';
      s += '\n';
    }
    if (t >= 2) s.pop_back();  // no final newline
    const auto all = wk::hash::split_lines(s);
    const wk::hash::LineIndex index(s);
    REQUIRE(index.size() == all.size());
    for (int r = 0; r < 40; ++r) {
      const std::size_t first = rng() % all.size(), count = std::min<std::size_t>(all.size() - first, 1 + rng() % 30000);
      CAPTURE(t, first, count);
      std::vector<std::string_view> got(count);
      index.get(first, got);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < count; ++i) differ += got[i].data() != all[first + i].data() || got[i] != all[first + i];
      CHECK(differ == 0);
    }
    std::vector<std::string_view> past(2);
    CHECK_THROWS(index.get(all.size() - 1, past));
  }
  CHECK(wk::hash::LineIndex("").size() == 0);
  CHECK(wk::hash::LineIndex("a").size() == 1);
  CHECK(wk::hash::LineIndex("a\n").size() == 1);
}

TEST_CASE("read_secret_input returns the file's bytes", "[hash][input]") {
  const auto path = std::filesystem::temp_directory_path() / "wk-test-secret-input.txt";
  std::string bytes;
  std::mt19937 rng(9);
  for (int i = 0; i < (3 << 20) + 17; ++i) bytes += char(rng() % 256);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  std::fclose(f);
  const wk::hash::SecretBuffer in = wk::hash::read_secret_input(path);
  CHECK(in.view() == bytes);
  std::filesystem::remove(path);
  CHECK_THROWS(wk::hash::read_secret_input(path));
}

TEST_CASE("wipe_on_all_cores zeroes every byte it is given and nothing else", "[hash][input]") {
  // Sizes around the 1 MiB pieces it splits into, and an odd tail; guard bytes on both sides.
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4095), std::size_t(1) << 20, (std::size_t(1) << 20) + 1,
                              (std::size_t(7) << 20) + 12345}) {
    std::vector<unsigned char> buf(n + 64, 0xA5);
    wk::hash::wipe_on_all_cores(buf.data() + 32, n);
    std::size_t nonzero_inside = 0, changed_outside = 0;
    for (std::size_t i = 0; i < buf.size(); ++i) {
      const bool inside = i >= 32 && i < 32 + n;
      if (inside && buf[i] != 0) ++nonzero_inside;
      if (!inside && buf[i] != 0xA5) ++changed_outside;
    }
    INFO("bytes: " << n);
    CHECK(nonzero_inside == 0);
    CHECK(changed_outside == 0);
  }
  wk::hash::wipe_on_all_cores(nullptr, 100);  // no-op
}

namespace {

// The VmFlags of the mapping that holds `p` (/proc/self/smaps), or "" when none does.
std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
      inside = at >= begin && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8);
  }
  return {};
}

// What read_secret_input reads from a pipe that another thread fills with `bytes`.
wk::hash::SecretBuffer read_through_pipe(const std::string& bytes) {
  const wk::hash::test::FedPipe pipe(bytes);
  return wk::hash::read_secret_input(pipe.path());
}

}  // namespace

TEST_CASE("SecretBuffer: page-aligned pages of its own, marked MADV_DONTDUMP (left out of core dumps)", "[hash][input]") {
  const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
  wk::hash::SecretBuffer buf;
  buf.append("hunter2", 7);
  REQUIRE(buf.data() != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(buf.data()) % page == 0);
  const std::string flags = vm_flags_of(buf.data());
  INFO("VmFlags:" << flags);
  CHECK(flags.find(" dd") != std::string::npos);
  // Grown many times over (its pages moved): still aligned, still marked, the bytes kept.
  const std::string more(std::size_t(5) << 20, 'z');
  buf.append(more.data(), more.size());
  CHECK(reinterpret_cast<std::uintptr_t>(buf.data()) % page == 0);
  CHECK(vm_flags_of(buf.data() + buf.size() - 1).find(" dd") != std::string::npos);
  CHECK(buf.view().substr(0, 7) == "hunter2");
  CHECK(buf.view().substr(7) == more);
  // And what read_secret_input returns.
  const auto path = std::filesystem::temp_directory_path() / "wk-test-secret-dontdump.txt";
  { std::ofstream(path) << "pw\n"; }
  const wk::hash::SecretBuffer in = wk::hash::read_secret_input(path);
  std::filesystem::remove(path);
  CHECK(in.view() == "pw\n");
  CHECK(reinterpret_cast<std::uintptr_t>(in.data()) % page == 0);
  CHECK(vm_flags_of(in.data()).find(" dd") != std::string::npos);
  buf.clear();
  CHECK(buf.size() == 0);
}

TEST_CASE("read_secret_input from a pipe: lines over 64 KiB cut short, no end of line in 16 MiB is an error", "[hash][input]") {
  using wk::hash::kMaxLineBytes;
  // Lines around the bound, CRLF included; the long ones keep kMaxLineBytes + 2 bytes, which
  // check_line rejects whatever they end in (a CR included).
  const std::string at_bound(kMaxLineBytes, 'a'), crlf_bound = std::string(kMaxLineBytes, 'b') + "\r";
  const std::string over(kMaxLineBytes + 1, 'c'), cr_inside = std::string(kMaxLineBytes, 'd') + "\rmore";
  const std::string far_over = std::string(3 << 20, 'e');  // 3 MiB: over many reads
  const std::string text = "one\n" + at_bound + "\n" + crlf_bound + "\n" + over + "\n" + cr_inside + "\n" + far_over +
                           "\nlast";
  const wk::hash::SecretBuffer in = read_through_pipe(text);
  const auto lines = wk::hash::split_lines(in.view());
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == "one");
  CHECK(lines[1] == at_bound);
  CHECK(wk::hash::check_line(lines[1]).empty());
  CHECK(lines[2] == std::string(kMaxLineBytes, 'b'));
  CHECK(wk::hash::check_line(lines[2]).empty());
  for (std::size_t i : {3, 4, 5}) {
    CAPTURE(i);
    CHECK(lines[i].size() == kMaxLineBytes + 2 - (i == 3 ? 1 : 0));
    CHECK_THAT(wk::hash::check_line(lines[i]), Catch::Contains("longer than 65536 bytes"));
    CHECK(wk::hash::check_line(lines[i]).find("ccc") == std::string::npos);
  }
  CHECK(lines[6] == "last");
  CHECK(in.size() < 8 * kMaxLineBytes);  // the 3 MiB were read past, not kept

  // 17 MiB without an end of line (a binary stream, /dev/zero): an error naming the line.
  const std::string endless = "pw\nsecond\n" + std::string(std::size_t(17) << 20, '\0');
  try {
    read_through_pipe(endless);
    FAIL("no error");
  } catch (const wk::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("line 3: longer than 65536 bytes"));
  }
}

TEST_CASE("LineReader: whole lines a block at a time, the lines read_secret_input splits, bounded", "[hash][input]") {
  using wk::hash::kMaxLineBytes;
  // Lines of every length up to a few hundred bytes, CRLF and empty ones, two over 64 KiB (one
  // far over: read past), and a last line with no end of line.
  std::mt19937 rng(5);
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t len = i == 100 ? kMaxLineBytes + 9 : i == 2000 ? std::size_t(3) << 20 : rng() % 300;
    text += std::string(len, char('a' + i % 26)) + (i % 7 == 3 ? "\r\n" : "\n");
  }
  text += "last";
  const wk::hash::SecretBuffer whole = read_through_pipe(text);
  const auto expected = wk::hash::split_lines(whole.view());
  REQUIRE(expected.size() == 3001);
  struct Bounds {
    std::size_t lines, bytes, piece;
  };
  for (const Bounds b : {Bounds{1, std::size_t(1) << 30, 4096}, Bounds{7, std::size_t(1) << 30, 777},
                         Bounds{1000, 4096, std::size_t(1) << 16}, Bounds{std::size_t(1) << 18, std::size_t(1) << 20, 100000}}) {
    CAPTURE(b.lines, b.bytes, b.piece);
    const wk::hash::test::FedPipe pipe(text, b.piece);
    wk::hash::LineReader reader(pipe.fd(), "the pipe");
    CHECK_FALSE(reader.size().has_value());
    wk::hash::SecretBuffer block;
    std::size_t at = 0, blocks = 0;
    while (const std::size_t n = reader.next(block, b.lines, b.bytes)) {
      ++blocks;
      const auto lines = wk::hash::split_lines(block.view());
      REQUIRE(lines.size() == n);
      CHECK(n <= b.lines);
      // No more bytes than the bound, beyond one more read (1 MiB) or one bounded line.
      CHECK(block.size() <= b.bytes + std::max<std::size_t>(std::size_t(1) << 20, kMaxLineBytes + 2));
      REQUIRE(at + n <= expected.size());
      for (std::size_t i = 0; i < n; ++i) CHECK(lines[i] == expected[at + i]);
      at += n;
    }
    CHECK(at == expected.size());
    CHECK(reader.consumed() == text.size());
    CHECK(reader.next(block, b.lines, b.bytes) == 0);  // and stays at the end
    CHECK(block.size() == 0);
    if (b.lines == 1) CHECK(blocks == expected.size());
  }
  // A regular file says its size.
  const auto path = std::filesystem::temp_directory_path() / "wk-test-line-reader.txt";
  { std::ofstream(path) << "a\nb\n"; }
  wk::hash::LineReader file(path);
  CHECK(file.size() == std::optional<std::uint64_t>(4));
  CHECK(file.name() == path.string());
  std::filesystem::remove(path);
  CHECK_THROWS_AS(wk::hash::LineReader(path), wk::Error);
}

TEST_CASE("LineReader: no end of line in 16 MiB is an error naming the line, counted over the blocks", "[hash][input]") {
  const std::string endless = "pw\nsecond\n" + std::string(std::size_t(17) << 20, '\0');
  const wk::hash::test::FedPipe pipe(endless, std::size_t(1) << 20);
  wk::hash::LineReader reader(pipe.fd(), "standard input");
  wk::hash::SecretBuffer block;
  CHECK(reader.next(block, 1, 1000) == 1);
  CHECK(block.view() == "pw\n");
  CHECK(reader.next(block, 1, 1000) == 1);
  CHECK(block.view() == "second\n");
  try {
    reader.next(block, 1, 1000);
    FAIL("no error");
  } catch (const wk::Error& e) {
    CHECK(e.category() == wk::ErrorCategory::decode);
    CHECK_THAT(e.what(), Catch::Contains("standard input: line 3: longer than 65536 bytes"));
  }
}

TEST_CASE("SecretBuffer::reset wipes what it held and keeps its pages", "[hash][input]") {
  wk::hash::SecretBuffer buf;
  const std::string secret(100000, 's');
  buf.append(secret.data(), secret.size());
  const char* const pages = buf.data();
  buf.truncate(10);  // what was handed out beyond the size is wiped too
  buf.reset();
  CHECK(buf.size() == 0);
  CHECK(buf.data() == pages);
  CHECK(std::string_view(pages, secret.size()).find_first_not_of('\0') == std::string_view::npos);
  buf.append("pw", 2);
  CHECK(buf.view() == "pw");
  CHECK(buf.data() == pages);
}

// ---- read_typed_line: a line typed at a (pseudo-)terminal ----------------------------------------
namespace {

// The prompt's pipe: what read_typed_line wrote there, read by the typing thread.
struct PromptPipe {
  int fds[2] = {-1, -1};
  PromptPipe() {
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  }
  ~PromptPipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  // Reads until `text` came (or the write end is closed).
  std::string wait_for(std::string_view text) {
    std::string got;
    char c;
    while (got.find(text) == std::string::npos && ::read(fds[0], &c, 1) == 1) got.push_back(c);
    return got;
  }
};

std::atomic<int> g_handler_calls{0};
std::atomic<int> g_echo_in_handler{-1};
int g_handler_tty = -1;
extern "C" void note_signal(int) {
  termios t{};
  ::tcgetattr(g_handler_tty, &t);
  g_echo_in_handler = (t.c_lflag & ECHO) ? 1 : 0;
  ++g_handler_calls;
}

}  // namespace

TEST_CASE("read_typed_line: no echo while the password is typed, the terminal as it was after", "[hash][input][tty]") {
  wk::test::Pty pty;
  PromptPipe prompt;
  REQUIRE(pty.echo_on());
  bool echo_at_prompt = true;
  std::thread person([&] {
    prompt.wait_for("Password: ");
    echo_at_prompt = pty.echo_on();
    pty.type("typed-Secret\n");
  });
  const auto line = wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "Password: ", wk::hash::Echo::off);
  person.join();
  REQUIRE(line);
  CHECK(line->view() == "typed-Secret");
  CHECK_FALSE(echo_at_prompt);
  CHECK(pty.echo_on());
  while (pty.read_some(50)) {
  }
  CHECK(pty.screen().find("Secret") == std::string::npos);  // not echoed
  CHECK(pty.screen() == "\r\n");                            // the Enter alone (ECHONL)

  // Echo::on: a field shown as typed (a user name); an empty line is an empty field.
  std::thread shown([&] {
    prompt.wait_for("User: ");
    pty.type("alice\n\n");
  });
  const auto user = wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "User: ", wk::hash::Echo::on);
  shown.join();
  REQUIRE(user);
  CHECK(user->view() == "alice");
  while (pty.read_some(50)) {
  }
  CHECK_THAT(pty.screen(), Catch::Contains("alice"));
  const auto empty = wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "", wk::hash::Echo::on);
  REQUIRE(empty);
  CHECK(empty->size() == 0);
}

TEST_CASE("read_typed_line: Ctrl-D is the end of input, a pipe is no terminal, an over-long line is an error", "[hash][input][tty]") {
  wk::test::Pty pty;
  PromptPipe prompt;
  pty.type("\x04");  // ^D at the start of a line
  // Echo::on: no flush of what was typed ahead (Echo::off drops it: it was echoed).
  CHECK_FALSE(wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "", wk::hash::Echo::on));

  try {
    (void)wk::hash::read_typed_line(prompt.fds[0], prompt.fds[1], "Password: ", wk::hash::Echo::off);
    FAIL("a pipe was taken for a terminal");
  } catch (const wk::Error& e) {
    CHECK(e.category() == wk::ErrorCategory::io);
    CHECK_THAT(e.what(), Catch::Contains("not a terminal"));
  }

  // A terminal in canonical mode hands over at most 4095 bytes a line; raw mode hands over more.
  termios raw{};
  REQUIRE(::tcgetattr(pty.slave(), &raw) == 0);
  raw.c_lflag &= ~tcflag_t(ICANON | ECHO);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  REQUIRE(::tcsetattr(pty.slave(), TCSANOW, &raw) == 0);
  std::thread person([&] { pty.type(std::string(wk::hash::kMaxTypedBytes + 10, 'L') + "\nnext\n"); });
  try {
    (void)wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "", wk::hash::Echo::on);
    FAIL("an over-long line was taken");
  } catch (const wk::Error& e) {
    CHECK(e.category() == wk::ErrorCategory::decode);
    CHECK(std::string(e.what()).find("LLLL") == std::string::npos);
  }
  // Read to its end, and no further: the next line is still there.
  const auto next = wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "", wk::hash::Echo::on);
  person.join();
  REQUIRE(next);
  CHECK(next->view() == "next");
}

TEST_CASE("read_typed_line: a signal while the echo is off finds the terminal restored, then the read goes on", "[hash][input][tty]") {
  wk::test::Pty pty;
  PromptPipe prompt;
  g_handler_tty = pty.slave();
  g_handler_calls = 0;
  g_echo_in_handler = -1;
  struct sigaction note {}, before {};
  note.sa_handler = note_signal;
  sigemptyset(&note.sa_mask);
  REQUIRE(::sigaction(SIGTERM, &note, &before) == 0);
  const pthread_t reader = ::pthread_self();
  bool echo_at_prompt = true, echo_off_again = false;
  std::thread person([&] {
    prompt.wait_for("Password: ");
    echo_at_prompt = pty.echo_on();
    ::pthread_kill(reader, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (g_handler_calls == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // The handler before ours returned: the echo goes off again for the rest of the line.
    while (pty.echo_on() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    echo_off_again = !pty.echo_on();
    pty.type("after-Signal\n");
  });
  const auto line = wk::hash::read_typed_line(pty.slave(), prompt.fds[1], "Password: ", wk::hash::Echo::off);
  person.join();
  struct sigaction now {};
  ::sigaction(SIGTERM, nullptr, &now);
  ::sigaction(SIGTERM, &before, nullptr);
  CHECK(now.sa_handler == note_signal);  // the handler before is back in place
  CHECK_FALSE(echo_at_prompt);
  CHECK(g_handler_calls == 1);
  CHECK(g_echo_in_handler == 1);  // the terminal was restored before the handler before ran
  CHECK(echo_off_again);
  REQUIRE(line);
  CHECK(line->view() == "after-Signal");
  CHECK(pty.echo_on());
  while (pty.read_some(50)) {
  }
  CHECK(pty.screen().find("Signal") == std::string::npos);
}
