#pragma once
// The line engine: lines of input through the crypt engine, output lines in input order.
//
//   input    a LineInput: a file or descriptor read as the engine takes its lines (memory bounded
//            by the slices in flight, whatever the input's size), or the whole of a file that every
//            process of a wk::dist world reads, its lines dealt to the processes in chunks
//   slices   the lines in slices of up to slice_lines lines (and slice_bytes bytes); three stages
//            overlap: the calling thread reads and prepares a slice (splits its lines, draws its
//            salts, on all cores), up to in_engine slices are in the crypt engine at once, each on
//            a thread of its own (one slice's host work overlaps the others' kernels), and a writer
//            thread takes the slices in input order and makes their output text on all cores
//   output   a LineSink: the text in input order, each failed line by number (never its bytes),
//            progress
//
// Password bytes live in each slice's SecretBuffer (MADV_DONTDUMP) and are wiped as soon as the
// slice is written.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "wk/hash/crypt.hpp"
#include "wk/hash/setting.hpp"

namespace wk::hash {

// What each line is and what comes of it.
//   hash    a password (with users: user:password, split at the first ':'), hashed with a fresh
//           setting of `hash`; out: the crypt string (user:crypt string)
//   crypt   SETTING<TAB>PASSWORD (split at the first TAB); out: the crypt string of that setting
//   verify  HASH<TAB>PASSWORD; out: "line N: OK" or "line N: MISMATCH"
enum class LineTask { hash, crypt, verify };

// One line's result, as a LineFormat sees it. Views valid during the call only.
struct LineResult {
  std::size_t line = 0;    // 1-based
  std::string_view user;   // hash with users: the user name, when the line has one
  std::string_view hash;   // the crypt string; empty when the line failed
  std::string_view error;  // why the line failed; empty when it did not
  bool match = false;      // verify: the password reproduced the hash
};

// Appends a line's output (its newline included, or nothing) to `text`. Called on all cores at
// once, for failed lines too. Empty: one line per line that did not fail -- the crypt string
// (hash with users: user:crypt string), or for verify "line N: OK" / "line N: MISMATCH".
using LineFormat = std::function<void(const LineResult&, std::string& text)>;

struct LineJobOptions {
  LineTask task = LineTask::hash;
  HashOptions hash;    // hash: the method and its parameters (check_hash_options)
  bool users = false;  // hash: user:password lines
  LineFormat format;
  // hash: through one CryptJob per line as crypt and verify go (the reference for the default
  // path, which keeps the settings and results of a slice as fixed-size records).
  bool per_line_jobs = false;
};

struct LineEngineOptions {
  std::size_t slice_lines = std::size_t(1) << 18;
  // A streamed slice ends early when its lines reach this many bytes (one line at least): what a
  // slice of long lines holds in memory stays bounded. 32 MiB: 2^18 lines of up to 128 bytes,
  // which covers a verify line of sha512crypt.
  std::size_t slice_bytes = std::size_t(32) << 20;
  std::size_t in_engine = 4;  // slices in the crypt engine at once (1..64)
};

// Where the output goes. write() and failed() are called from one thread at a time, in input
// order (a slice's failed lines before its text); an exception from either ends the run and is
// rethrown by run_lines. progress() comes from the same thread or, dealt, from the thread that
// receives the other processes' output.
class LineSink {
 public:
  virtual ~LineSink() = default;
  virtual void write(std::string_view text) = 0;
  virtual void failed(std::size_t line, std::string_view why) = 0;
  // Lines [0, lines) are done; `bytes`: the input bytes they took (streamed input only; 0 dealt).
  virtual void progress(std::size_t lines, std::uint64_t bytes) {
    (void)lines;
    (void)bytes;
  }
};

// What a run did: over every process of the world for dealt input.
// Where the pipeline's host threads spent the run (seconds; this process's). Reading the slices
// and locating their lines (read_s) is the builder's, or a reader thread's for a streamed input;
// the builder prepares their jobs on all cores and waits for the next slice's lines or room in
// the engine; the writer waits for the oldest slice's jobs, then makes its output text on all
// cores and writes it. A stage that never waits bounds the run; all of them waiting: the engine.
struct LineStages {
  double read_s = 0, prepare_s = 0, builder_wait_s = 0;
  double writer_wait_s = 0, write_s = 0;
};

struct LineCounts {
  std::uint64_t lines = 0;
  std::uint64_t failed = 0;      // lines reported to LineSink::failed
  std::uint64_t matched = 0;     // verify
  std::uint64_t mismatched = 0;  // verify
  LineStages stages;
};

// The crypt engine, when the run first needs it: called from the engine's threads (the caller may
// still be starting it -- a GPU's context -- while the first slices are read and prepared).
using EngineAccess = std::function<CryptEngine&()>;

// The input of a run.
class LineInput {
 public:
  // `path` (empty or "-": standard input), read a slice at a time as the engine takes the lines.
  // Lines end in LF, one CR before it is removed, the last one needs none; a line longer than
  // kMaxLineBytes keeps its first kMaxLineBytes + 2 bytes (check_line rejects it) and the rest is
  // read past; a line running kMaxLineRunBytes with no end of line ends the run with
  // wk::Error{decode} ("NAME: line N: ..."). Throws wk::Error{io} when it cannot be opened.
  static LineInput stream(const std::filesystem::path& path);
  // The same from an open descriptor (left open), named `name` in messages.
  static LineInput stream(int fd, std::string name);
  // A regular file `path` dealt over the processes of the wk::dist world in byte ranges: each
  // process counts the lines of its share of the file (the counts are summed over the world, so
  // line numbers are those of the whole file), then process 0 deals chunks of lines on demand, a
  // process reads only the byte ranges of its chunks, and process 0 writes every process's output
  // to its sink in input order; each process reports its own failed lines. With one process, the
  // same as reading it whole and running it alone. Throws wk::Error{io} when it cannot be opened
  // or is no regular file.
  static LineInput dealt(const std::filesystem::path& path);

  ~LineInput();
  LineInput(LineInput&&) noexcept;
  LineInput& operator=(LineInput&&) noexcept;

  // The input's size when known up front (a regular file): for progress over bytes.
  std::optional<std::uint64_t> size_bytes() const;
  // Its number of lines when known up front (dealt input): for progress over lines.
  std::optional<std::size_t> line_count() const;
  // Input bytes this process has read so far; dealt input, after the run: every process's reads
  // together (the line count reads the file once, the chunks once more).
  std::uint64_t bytes_read() const;

  struct Impl;  // what the engine asks of an input (line_engine.cpp)

 private:
  explicit LineInput(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend LineCounts run_lines(LineInput&, LineSink&, const EngineAccess&, const LineJobOptions&,
                              const LineEngineOptions&);
};

// Runs every line of `input` (which is used up) through the engine. Throws what the input, the
// engine or the sink threw, after every thread of the run has ended; what the sink was given by
// then stays given.
LineCounts run_lines(LineInput& input, LineSink& sink, const EngineAccess& engine, const LineJobOptions& job,
                     const LineEngineOptions& options = {});

}  // namespace wk::hash
