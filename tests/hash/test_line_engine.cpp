// The line engine (wk/hash/line_engine.hpp) called directly, on the CPU backend: output in input
// order across many slices, failed lines by number with the others still done, a sink or an
// engine that fails, an input that ends without a newline, an empty input, and a stream that is
// hashed while it is still being written.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hash_test_util.hpp"
#include "test_support.hpp"
#include "wk/core/error.hpp"
#include "wk/hash/crypt.hpp"
#include "wk/hash/line_engine.hpp"
#include "wk/hash/secret_input.hpp"

using namespace wk::hash;
using wk::hash::test::FedPipe;

namespace {

CryptEngine& cpu_engine() {
  static CryptEngine engine(wk::Backend::cpu);
  return engine;
}
CryptEngine& engine_access() { return cpu_engine(); }

// Keeps what the engine gives it; checks that progress only moves forward.
struct Collect : LineSink {
  std::string text;
  std::vector<std::pair<std::size_t, std::string>> failed_lines;
  std::size_t writes = 0, progress_lines = 0;
  std::uint64_t progress_bytes = 0;
  bool progress_backwards = false;
  void write(std::string_view t) override {
    text.append(t);
    ++writes;
  }
  void failed(std::size_t line, std::string_view why) override { failed_lines.emplace_back(line, std::string(why)); }
  void progress(std::size_t lines, std::uint64_t bytes) override {
    progress_backwards |= lines < progress_lines || bytes < progress_bytes;
    progress_lines = lines;
    progress_bytes = bytes;
  }
};

LineEngineOptions small_slices(std::size_t lines, std::size_t in_engine = 2, std::size_t bytes = std::size_t(32) << 20) {
  LineEngineOptions o;
  o.slice_lines = lines;
  o.in_engine = in_engine;
  o.slice_bytes = bytes;
  return o;
}

LineJobOptions task(LineTask t) {
  LineJobOptions job;
  job.task = t;
  return job;
}

// `text` through the engine from a pipe written `piece` bytes at a time.
LineCounts run_text(const std::string& text, Collect& sink, const LineJobOptions& job, const LineEngineOptions& options,
                    std::size_t piece = 4096) {
  const FedPipe pipe(text, piece);
  LineInput input = LineInput::stream(pipe.fd(), "the pipe");
  return run_lines(input, sink, engine_access, job, options);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view l : split_lines(text)) out.emplace_back(l);
  return out;
}

}  // namespace

TEST_CASE("line engine: output in input order across many slices, whatever bounds them", "[hash][engine]") {
  std::mt19937 rng(17);
  std::vector<std::string> settings, passwords;
  std::string crypt_in, hash_in;
  for (int i = 0; i < 203; ++i) {
    settings.push_back("$1$s" + std::to_string(i));
    passwords.push_back("pw" + std::to_string(rng() % 100000) + std::string(rng() % 40, 'x'));
    crypt_in += settings.back() + "\t" + passwords.back() + "\n";
    hash_in += "user" + std::to_string(i) + ":" + passwords.back() + "\n";
  }
  // Slices of 7 lines, of at most 100 bytes (a few lines each), of one line; 1 to 3 in the engine.
  for (const LineEngineOptions& o : {small_slices(7, 2), small_slices(1000, 3, 100), small_slices(1, 1)}) {
    CAPTURE(o.slice_lines, o.slice_bytes, o.in_engine);
    Collect c;
    const LineCounts counts = run_text(crypt_in, c, task(LineTask::crypt), o, 333);
    CHECK(counts.lines == settings.size());
    CHECK(counts.failed == 0);
    CHECK(c.failed_lines.empty());
    const auto out = lines_of(c.text);
    REQUIRE(out.size() == settings.size());
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == crypt_libxcrypt(settings[i], passwords[i]).value());
    CHECK(c.writes > 1);
    CHECK_FALSE(c.progress_backwards);
    CHECK(c.progress_lines == settings.size());
    CHECK(c.progress_bytes == crypt_in.size());

    // hash --users, on the fixed-record path and on one CryptJob per line: user:hash in order.
    for (const bool per_line : {false, true}) {
      CAPTURE(per_line);
      LineJobOptions job = task(LineTask::hash);
      job.hash.method = Method::md5crypt;
      job.users = true;
      job.per_line_jobs = per_line;
      Collect h;
      CHECK(run_text(hash_in, h, job, o, 1000).lines == passwords.size());
      const auto rows = lines_of(h.text);
      REQUIRE(rows.size() == passwords.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string user = "user" + std::to_string(i) + ":";
        REQUIRE(rows[i].rfind(user, 0) == 0);
        const std::string hash = rows[i].substr(user.size());
        CHECK(crypt_libxcrypt(hash, passwords[i]).value_or("") == hash);
      }
    }
  }
}

TEST_CASE("line engine: failed lines by number, in order, the other lines still done", "[hash][engine]") {
  const std::string good0 = crypt_libxcrypt("$1$aa", "first").value(), good5 = crypt_libxcrypt("$5$rounds=1000$bb", "p\tq").value();
  const std::string text = good0 + "\tfirst\n"                   // 1 OK
                           "no tab here\n"                       // 2 no TAB
                           "\tpw\n"                              // 3 empty hash
                           + good0 + "\twrong\n"                 // 4 MISMATCH
                           + std::string(70000, 'L') + "\n"      // 5 over 64 KiB
                           + good5 + "\tp\tq\n"                  // 6 OK (the password keeps its TAB)
                           "$2a$0Z\tpw\n"                        // 7 a setting the engine rejects
                           + good0 + "\tfir" + std::string(1, '\0') + "st\n";  // 8 a NUL in the password
  LineJobOptions job = task(LineTask::verify);
  std::vector<LineResult> seen;
  std::mutex m;
  for (const bool custom : {false, true}) {
    CAPTURE(custom);
    if (custom)  // a format sees every line, failed ones too
      job.format = [&](const LineResult& r, std::string& t) {
        std::lock_guard lock(m);
        seen.push_back({r.line, {}, {}, {}, r.match});
        t += std::to_string(r.line) + (r.error.empty() ? "" : " error") + (r.match ? " match" : "") + "\n";
      };
    Collect c;
    const LineCounts counts = run_text(text, c, job, small_slices(3), 50);
    CHECK(counts.lines == 8);
    CHECK(counts.failed == 5);
    CHECK(counts.matched == 2);
    CHECK(counts.mismatched == 1);
    REQUIRE(c.failed_lines.size() == 5);
    const std::size_t failed[] = {2, 3, 5, 7, 8};
    for (std::size_t i = 0; i < 5; ++i) CHECK(c.failed_lines[i].first == failed[i]);
    CHECK_THAT(c.failed_lines[0].second, Catch::Contains("no TAB"));
    CHECK_THAT(c.failed_lines[2].second, Catch::Contains("longer than 65536 bytes"));
    for (const auto& [line, why] : c.failed_lines) CHECK(why.find("LLLL") == std::string::npos);
    if (!custom) CHECK(c.text == "line 1: OK\nline 4: MISMATCH\nline 6: OK\n");
    else CHECK(c.text == "1 match\n2 error\n3 error\n4\n5 error\n6 match\n7 error\n8 error\n");
  }
  CHECK(seen.size() == 8);
}

TEST_CASE("line engine: a sink or an engine that fails ends the run with its error", "[hash][engine]") {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "$1$ab\tpw" + std::to_string(i) + "\n";
  struct Failing : Collect {
    std::size_t fail_at;
    explicit Failing(std::size_t n) : fail_at(n) {}
    void write(std::string_view t) override {
      if (writes + 1 == fail_at) throw std::runtime_error("no space left on the device");
      Collect::write(t);
    }
  };
  Failing sink(3);
  const FedPipe pipe(text, 64);
  LineInput input = LineInput::stream(pipe.fd(), "the pipe");
  CHECK_THROWS_WITH(run_lines(input, sink, engine_access, task(LineTask::crypt), small_slices(5)),
                    "no space left on the device");
  CHECK(sink.writes == 2);  // nothing after the failure
  CHECK(lines_of(sink.text).size() == 10);

  // failed() may fail too (standard error closed, say).
  struct FailingErrors : Collect {
    void failed(std::size_t, std::string_view) override { throw wk::Error(wk::ErrorCategory::io, "cannot report"); }
  } errors;
  {
    const FedPipe p("$1$ab\tpw\nno tab\n$1$ab\tpw\n");
    LineInput in = LineInput::stream(p.fd(), "the pipe");
    CHECK_THROWS_AS(run_lines(in, errors, engine_access, task(LineTask::crypt), small_slices(1)), wk::Error);
  }
  CHECK(errors.text.size() > 0);  // the first line's slice was written

  // An engine that cannot start (a GPU asked for, none there): its error, not a hang.
  Collect none;
  const FedPipe p(text);
  LineInput in = LineInput::stream(p.fd(), "the pipe");
  const EngineAccess no_engine = []() -> CryptEngine& { throw wk::Error(wk::ErrorCategory::usage, "no GPU"); };
  CHECK_THROWS_WITH(run_lines(in, none, no_engine, task(LineTask::crypt), small_slices(5)), "no GPU");
  CHECK(none.text.empty());
}

TEST_CASE("line engine: the last line needs no newline, CRLF, an input with no end of line stops the run", "[hash][engine]") {
  const std::string a = crypt_libxcrypt("$1$aa", "one").value(), b = crypt_libxcrypt("$1$aa", "two").value(),
                    c3 = crypt_libxcrypt("$1$aa", "three").value();
  // Every way the slices can fall: one line a slice, two, all; the pipe written byte by byte.
  for (const std::size_t slice : {std::size_t(1), std::size_t(2), std::size_t(100)}) {
    CAPTURE(slice);
    Collect c;
    const LineCounts counts = run_text("$1$aa\tone\r\n$1$aa\ttwo\n$1$aa\tthree", c, task(LineTask::crypt), small_slices(slice), 1);
    CHECK(counts.lines == 3);
    CHECK(c.text == a + "\n" + b + "\n" + c3 + "\n");
  }
  // An empty last line is a line only before a newline: "x\n" is one line, "x\n\n" two.
  Collect one, two;
  LineJobOptions job = task(LineTask::hash);
  job.hash.method = Method::md5crypt;
  CHECK(run_text("x\n", one, job, small_slices(1)).lines == 1);
  CHECK(run_text("x\n\n", two, job, small_slices(1)).lines == 2);
  const std::string empty_pw = lines_of(two.text).at(1);
  CHECK(crypt_libxcrypt(empty_pw, "").value_or("") == empty_pw);  // an empty password

  // No end of line in 16 MiB: the run ends with the reader's error naming the line; what came
  // before it was written.
  Collect stopped;
  try {
    run_text("$1$aa\tone\n$1$aa\ttwo\n" + std::string(std::size_t(17) << 20, 'z'), stopped, task(LineTask::crypt),
             small_slices(1), std::size_t(1) << 20);
    FAIL("no error");
  } catch (const wk::Error& e) {
    CHECK(e.category() == wk::ErrorCategory::decode);
    CHECK_THAT(e.what(), Catch::Contains("the pipe: line 3: longer than 65536 bytes"));
  }
  CHECK(stopped.text == a + "\n" + b + "\n");
}

TEST_CASE("line engine: an empty input is no line, no output, no failure", "[hash][engine]") {
  for (const LineTask t : {LineTask::hash, LineTask::crypt, LineTask::verify}) {
    Collect c;
    const LineCounts counts = run_text("", c, task(t), {});
    CHECK(counts.lines == 0);
    CHECK(counts.failed == 0);
    CHECK(c.writes == 0);
    CHECK(c.failed_lines.empty());
  }
  // A file, and the whole-file input of a one-process world, the same.
  wk::test::TempDir dir;
  wk::test::write_bytes(dir / "empty", "");
  for (const bool dealt : {false, true}) {
    LineInput in = dealt ? LineInput::dealt(dir / "empty") : LineInput::stream(dir / "empty");
    CHECK(in.size_bytes() == std::optional<std::uint64_t>(0));
    Collect c;
    CHECK(run_lines(in, c, engine_access, task(LineTask::crypt)).lines == 0);
    CHECK(c.text.empty());
  }
}

TEST_CASE("line engine: a stream is hashed while it is written, whole-file input gives the same", "[hash][engine]") {
  // 40 lines, then the writer waits until the first slice's output has arrived: an engine that
  // read its whole input first would wait forever (here: 20 s, then fail).
  std::string text;
  for (int i = 0; i < 100; ++i) text += "$1$st\tpw" + std::to_string(i) + "\n";
  const std::size_t first_part = text.find("pw40");
  std::mutex m;
  std::condition_variable cv;
  bool output_seen = false, waited_out = false;
  struct Signal : Collect {
    std::mutex* m;
    std::condition_variable* cv;
    bool* seen;
    void write(std::string_view t) override {
      Collect::write(t);
      std::lock_guard lock(*m);
      *seen = true;
      cv->notify_all();
    }
  } sink;
  sink.m = &m;
  sink.cv = &cv;
  sink.seen = &output_seen;
  {
    const FedPipe pipe(text, first_part, [&](std::size_t at) {
      if (at == 0) return;
      std::unique_lock lock(m);
      waited_out = !cv.wait_for(lock, std::chrono::seconds(20), [&] { return output_seen; });
    });
    LineInput input = LineInput::stream(pipe.fd(), "the pipe");
    CHECK(run_lines(input, sink, engine_access, task(LineTask::crypt), small_slices(8)).lines == 100);
  }
  CHECK_FALSE(waited_out);
  // The same lines from a file, streamed and read whole (a one-process world deals them itself).
  wk::test::TempDir dir;
  wk::test::write_bytes(dir / "in.tsv", text);
  for (const bool dealt : {false, true}) {
    CAPTURE(dealt);
    LineInput in = dealt ? LineInput::dealt(dir / "in.tsv") : LineInput::stream(dir / "in.tsv");
    CHECK(in.line_count() == (dealt ? std::optional<std::size_t>(100) : std::optional<std::size_t>()));
    Collect c;
    CHECK(run_lines(in, c, engine_access, task(LineTask::crypt), small_slices(8)).lines == 100);
    CHECK(c.text == sink.text);
    CHECK(c.progress_lines == 100);
  }
}

TEST_CASE("line engine: input dealt in byte ranges gives the lines, numbers and output of the stream", "[hash][engine]") {
  // Pieces of 4 KiB at least: lines shorter and longer than a piece, longer than wk-hash takes,
  // empty, CRLF, and no LF at the end; slices of a few lines, so chunks end inside lines.
  std::mt19937 rng(45);
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    const unsigned kind = rng() % 40;
    if (kind == 0) text += "$1$ab\t" + std::string(5000 + rng() % 9000, 'x');       // longer than a piece
    else if (kind == 1) text += "";                                                  // no tab
    else if (i == 1500) text += "$1$ab\t" + std::string(wk::hash::kMaxLineBytes + 9, 'y');  // too long a line
    else text += "$1$ab\tpw" + std::to_string(i) + (kind == 2 ? "\r" : "");
    text += "\n";
  }
  text += "$1$ab\tlast-without-lf";
  wk::test::TempDir dir;
  wk::test::write_bytes(dir / "in.tsv", text);
  for (const std::size_t lines : {std::size_t(1), std::size_t(7), std::size_t(1) << 18}) {
    CAPTURE(lines);
    Collect streamed, dealt;
    LineInput s = LineInput::stream(dir / "in.tsv"), d = LineInput::dealt(dir / "in.tsv");
    CHECK(d.line_count() == std::optional<std::size_t>(3001));
    const LineCounts cs = run_lines(s, streamed, engine_access, task(LineTask::crypt), small_slices(lines, 3));
    const LineCounts cd = run_lines(d, dealt, engine_access, task(LineTask::crypt), small_slices(lines, 3));
    CHECK(cd.lines == 3001);
    CHECK(cd.lines == cs.lines);
    CHECK(cd.failed == cs.failed);
    CHECK(dealt.text == streamed.text);
    CHECK(dealt.failed_lines == streamed.failed_lines);
    CHECK_FALSE(dealt.progress_backwards);
    CHECK(dealt.progress_lines == 3001);
    // One process: the line count reads the file once, the chunks once more, and each chunk
    // the part of its first piece before its first line and the end of its last line (most of
    // this file's bytes are in lines longer than a piece: with slices of a line or a few, that
    // is much of it again).
    CHECK(d.bytes_read() >= 2 * text.size());
    if (lines > 7) CHECK(d.bytes_read() < 2 * text.size() + text.size() / 2);
  }
}
