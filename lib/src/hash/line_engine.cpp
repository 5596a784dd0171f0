// The line engine (wk/hash/line_engine.hpp): the inputs that feed it slices, the three-stage
// pipeline, and the two kinds of slice -- fixed-size records for hash, one CryptJob per line for
// crypt and verify (and hash's reference path).
#include "wk/hash/line_engine.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <future>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "wk/core/dist.hpp"
#include "wk/core/error.hpp"
#include "wk/core/nvtx.hpp"
#include "wk/core/parallel.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk/io/output_file.hpp"

namespace wk::hash {

namespace {

// Lines per parallel_for chunk when preparing a slice (split lines, draw salts) and when making
// its output text.
constexpr std::size_t kLineGrain = 8192;

// hash with users: a line without a user name.
constexpr const char* kNoUserError = "expected user:password (a user name, ':', the password)";

}  // namespace

// One slice's lines.
struct SliceInput {
  dist::Chunk chunk;                    // id: the slice's place in input order; [begin, end): its lines, 0-based
  dist::Chunk dealt;                    // dealt: the chunk as the dealer gave it (byte-range pieces)
  std::vector<std::string_view> lines;  // chunk.end - chunk.begin of them
  SecretBuffer text;                    // streamed: the bytes of the lines
  std::uint64_t bytes_begin = 0, bytes_end = 0;  // streamed: where they are in the input
  std::size_t size() const noexcept { return lines.size(); }
};

// Where a run's slices come from and where their output text goes.
struct LineInput::Impl {
  virtual ~Impl() = default;
  virtual std::optional<std::uint64_t> size_bytes() const { return std::nullopt; }
  virtual std::optional<std::size_t> line_count() const { return std::nullopt; }
  // Before the first slice.
  virtual void start(LineSink& sink, const LineEngineOptions& options) = 0;
  // The next slice into `in` (a slot of the ring, its previous lines wiped); false when none is left.
  virtual bool next(SliceInput& in) = 0;
  // A slice's output text, piece by piece (the writer thread), then written(in).
  virtual void write(std::string_view text) = 0;
  virtual void written(const SliceInput& in) = 0;
  // While slice `in` is in the engine: `done` of its lines are finished.
  virtual void computing(const SliceInput& in, std::size_t done) {
    (void)in;
    (void)done;
  }
  // After the last slice: every process gets the sums of `counts` over the processes.
  virtual void finish(std::vector<std::uint64_t>& counts) { (void)counts; }
  // Input bytes this process has read so far; dealt input, after finish(): every process's.
  virtual std::uint64_t bytes_read() const = 0;
  // Whether next() may run on a thread of its own, beside write(), written() and computing().
  virtual bool reads_ahead() const { return false; }
};

namespace {

// A file or descriptor read a slice at a time.
class StreamInput final : public LineInput::Impl {
 public:
  explicit StreamInput(std::unique_ptr<LineReader> reader) : reader_(std::move(reader)) {}
  std::optional<std::uint64_t> size_bytes() const override { return reader_->size(); }
  std::uint64_t bytes_read() const override { return reader_->consumed(); }
  void start(LineSink& sink, const LineEngineOptions& options) override {
    sink_ = &sink;
    max_lines_ = std::max<std::size_t>(1, options.slice_lines);
    max_bytes_ = options.slice_bytes;
  }
  bool next(SliceInput& in) override {
    nvtx::Range r("read", nvtx::Color::io, std::int64_t(next_line_));
    in.bytes_begin = reader_->consumed();
    const std::size_t n = reader_->next(in.text, max_lines_, max_bytes_);
    if (n == 0) return false;
    in.bytes_end = reader_->consumed();
    in.chunk = {next_id_++, next_line_, next_line_ + n};
    next_line_ += n;
    // The slice's lines located on all cores.
    const LineIndex index(in.text.view());
    if (index.size() != n) throw Error(ErrorCategory::internal, "line engine: a slice's lines were miscounted");
    in.lines.resize(n);
    index.get(0, in.lines);
    return true;
  }
  void write(std::string_view text) override { sink_->write(text); }
  // next() touches only the reader and the slice it fills; the others, the sink.
  bool reads_ahead() const override { return true; }
  void written(const SliceInput& in) override { sink_->progress(in.chunk.end, in.bytes_end); }
  void computing(const SliceInput& in, std::size_t done) override {
    const std::size_t n = std::max<std::size_t>(1, in.size());
    sink_->progress(in.chunk.begin + done, in.bytes_begin + (in.bytes_end - in.bytes_begin) * done / n);
  }

 private:
  std::unique_ptr<LineReader> reader_;
  LineSink* sink_ = nullptr;
  std::size_t max_lines_ = 1, max_bytes_ = 0;
  std::size_t next_line_ = 0, next_id_ = 0;
};

// pread(2) of bytes [at, at + n) into dst until they are all there or the file ends (`got` says
// how many came); returns errno on a read error, else 0.
int pread_full(int fd, char* dst, std::size_t n, std::uint64_t at, std::size_t& got) {
  got = 0;
  while (got < n) {
    const ssize_t k = ::pread(fd, dst + got, n - got, off_t(at + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    if (k == 0) break;
    got += std::size_t(k);
  }
  return 0;
}

// A regular file dealt over the processes of the wk::dist world in byte ranges: no process reads
// all of it. The file is cut into pieces of equal bytes; each process counts the line starts in
// its share of the pieces (a piece owns the lines that start in it) and the counts are summed
// over the world, so every process knows where each piece's lines begin in the whole input.
// Runs of pieces then make the chunks (about 32 per process, at most a slice each), dealt on
// demand: a process reads only the chunks it is dealt. Process 0 writes every chunk's text in
// input order (ordered delivery, a window of chunks bounding what waits in its memory).
class RangedInput final : public LineInput::Impl {
 public:
  explicit RangedInput(const std::filesystem::path& path) : name_(io::printable(path.string())) {
    // Non-blocking: opening a FIFO for reading would wait for a writer, with every rank stuck
    // there, before the check below could refuse it. A regular file's reads ignore the flag.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd_ < 0) throw Error(ErrorCategory::io, name_ + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw Error(ErrorCategory::io, name_ + ": not a regular file (under mpirun/srun each rank reads its own byte ranges of it)");
    }
    size_ = std::uint64_t(st.st_size);
    count_pieces();
  }
  ~RangedInput() override { ::close(fd_); }
  std::optional<std::uint64_t> size_bytes() const override { return size_; }
  std::optional<std::size_t> line_count() const override { return std::size_t(first_line_.back()); }
  std::uint64_t bytes_read() const override { return read_; }

  void start(LineSink& sink, const LineEngineOptions& options) override {
    sink_ = &sink;
    const dist::World& w = dist::world();
    const std::uint64_t lines = first_line_.back();
    // About 32 chunks per process (a slow one takes fewer), at most a slice each: runs of pieces
    // cut once they hold that many lines or slice_bytes bytes; a run with no line start (inside
    // a long line) goes with the run after it, the last one with the run before it.
    const std::uint64_t slice = std::max<std::size_t>(1, options.slice_lines);
    const std::uint64_t per = std::clamp<std::uint64_t>((lines + 32 * std::uint64_t(w.size) - 1) / (32 * std::uint64_t(w.size)), 1, slice);
    const std::uint64_t max_bytes = std::max<std::uint64_t>(options.slice_bytes, piece_);
    dist::ChunkDealer::Options o;
    o.bounds.push_back(0);
    const std::size_t pieces = first_line_.size() - 1;
    for (std::size_t p = 1; p <= pieces; ++p) {
      const std::size_t b = o.bounds.back();
      if (first_line_[p] - first_line_[b] >= per || (p - b) * piece_ >= max_bytes) o.bounds.push_back(p);
    }
    if (o.bounds.back() != pieces) o.bounds.push_back(pieces);
    if (o.bounds.size() > 2 && first_line_[o.bounds.back()] == first_line_[o.bounds[o.bounds.size() - 2]])
      o.bounds.erase(o.bounds.end() - 2);
    if (pieces == 0) o.bounds.push_back(0);  // an empty file: one empty chunk, so rank 0 still ends in order
    o.ordered = true;
    o.window = std::size_t(w.size) * (options.in_engine + 3) + 2;
    o.deliver = [this](const dist::Chunk& c, int, std::string&& text) {
      sink_->write(text);
      sink_->progress(std::size_t(first_line_[c.end]), 0);
    };
    dealer_ = std::make_unique<dist::ChunkDealer>(std::move(o));
  }
  bool next(SliceInput& in) override {
    const std::optional<dist::Chunk> chunk = dealer_->next();
    if (!chunk) return false;
    nvtx::Range r("read", nvtx::Color::io, std::int64_t(first_line_[chunk->begin]));
    in.dealt = *chunk;
    in.chunk = {chunk->id, std::size_t(first_line_[chunk->begin]), std::size_t(first_line_[chunk->end])};
    // From the first piece where one of its lines starts (a piece before it lies inside a line
    // that the chunk before ends: read there already).
    std::size_t from = chunk->begin;
    while (from + 1 < chunk->end && first_line_[from + 1] == first_line_[from]) ++from;
    read_lines(std::min(size_, from * piece_), std::min(size_, chunk->end * piece_), in.text);
    const LineIndex index(in.text.view());
    if (index.size() != in.chunk.end - in.chunk.begin)
      throw Error(ErrorCategory::internal, name_ + ": a byte range held other lines than counted (was the file changed?)");
    in.lines.resize(index.size());
    index.get(0, in.lines);
    return true;
  }
  void write(std::string_view text) override { buffer_.append(text); }
  void written(const SliceInput& in) override {
    dealer_->done(in.dealt, std::move(buffer_));
    buffer_.clear();
  }
  void finish(std::vector<std::uint64_t>& counts) override {
    if (!dealer_->finish().empty()) throw Error(ErrorCategory::io, "a rank's output never reached rank 0");
    counts.push_back(read_);
    dist::sum(counts);
    read_ = counts.back();  // from now on: every process's reads together
    counts.pop_back();
  }

 private:
  std::string name_;
  int fd_ = -1;
  std::uint64_t size_ = 0, piece_ = 1, read_ = 0;
  std::vector<std::uint64_t> first_line_;  // piece p's lines start at line first_line_[p]; back(): all
  LineSink* sink_ = nullptr;
  std::unique_ptr<dist::ChunkDealer> dealer_;
  std::string buffer_;  // the text of the slice being written

  // Bytes [at, at + n) of the file into `out` (appended); fewer only at the end of the file.
  std::size_t pread_into(std::uint64_t at, std::size_t n, SecretBuffer& out) {
    std::size_t got = 0;
    if (const int err = pread_full(fd_, out.extend(n), n, at, got)) {
      out.clear();
      throw Error(ErrorCategory::io, name_ + ": read error: " + std::strerror(err));
    }
    out.truncate(out.size() - (n - got));
    read_ += got;
    return got;
  }

  // The line starts in every piece (this process's share counted, then summed over the world).
  void count_pieces() {
    const dist::World& w = dist::world();
    // ~256 pieces per process, 4 KiB to 1 MiB each.
    piece_ = std::clamp<std::uint64_t>(size_ / (256 * std::uint64_t(w.size)), 4096, 1 << 20);
    const std::size_t pieces = std::size_t((size_ + piece_ - 1) / piece_);
    std::vector<std::uint64_t> starts(pieces, 0);
    // This process's share: a contiguous run of pieces (read ahead as one stretch of the file).
    std::vector<std::size_t> mine;
    for (std::size_t p = pieces * std::size_t(w.rank) / std::size_t(w.size);
         p < pieces * std::size_t(w.rank + 1) / std::size_t(w.size); ++p)
      mine.push_back(p);
    std::atomic<std::uint64_t> read{0};
    std::atomic<int> error{0};
    parallel_for(mine.size(), 1, [&](std::size_t k0, std::size_t k1) {
      std::vector<char> buf;
      for (std::size_t k = k0; k < k1 && !error; ++k) {
        const std::size_t p = mine[k];
        // A line starts at piece byte b when b is 0 or byte b - 1 is LF (and b is in the file):
        // the LFs in [begin - 1, end - 1).
        const std::uint64_t begin = p * piece_, end = std::min(size_, begin + piece_);
        const std::uint64_t from = begin ? begin - 1 : 0, to = end - 1;
        buf.resize(std::size_t(to - from));
        std::size_t got = 0;
        if (const int err = pread_full(fd_, buf.data(), buf.size(), from, got)) error = err;
        else if (got < buf.size()) error = EIO;  // the file got shorter
        read += got;
        starts[p] = (begin == 0 ? 1 : 0) + std::uint64_t(std::count(buf.begin(), buf.begin() + std::ptrdiff_t(got), '\n'));
      }
      std::fill(buf.begin(), buf.end(), '\0');
    });
    if (const int err = error.load()) throw Error(ErrorCategory::io, name_ + ": read error: " + std::strerror(err));
    read_ += read.load();
    dist::sum(starts);
    first_line_.assign(pieces + 1, 0);
    for (std::size_t p = 0; p < pieces; ++p) first_line_[p + 1] = first_line_[p] + starts[p];
  }

  // The lines that start in bytes [begin, end) into `out` (wiped first): from the first line start
  // at or after `begin` through the LF ending the last one (or the end of the file).
  void read_lines(std::uint64_t begin, std::uint64_t end, SecretBuffer& out) {
    out.reset();
    if (begin >= end) return;
    const std::uint64_t from = begin ? begin - 1 : 0;  // one byte before: does a line start at `begin`?
    std::uint64_t at = from + pread_into(from, std::size_t(end - from), out);
    // The last line runs on to its LF: read past `end` until there is one at or after end - 1.
    for (std::size_t block = 1024; out.size() && out.data()[out.size() - 1] != '\n' && at < size_;) {
      const std::size_t got = pread_into(at, std::size_t(std::min<std::uint64_t>(block, size_ - at)), out);
      if (!got) break;
      at += got;
      if (const void* nl = std::memchr(out.data() + out.size() - got, '\n', got)) {
        out.truncate(std::size_t(static_cast<const char*>(nl) - out.data()) + 1);
        break;
      }
      block = std::min<std::size_t>(block * 2, std::size_t(16) << 20);
    }
    // The first line start: `begin` when byte begin - 1 is LF (or begin is 0), else after the first LF.
    std::size_t skip = 0;
    if (begin) {
      const void* nl = std::memchr(out.data(), '\n', out.size());
      skip = nl ? std::size_t(static_cast<const char*>(nl) - out.data()) + 1 : out.size();
    }
    if (skip) {
      std::memmove(out.data(), out.data() + skip, out.size() - skip);
      out.truncate(out.size() - skip);
    }
  }
};

// What a slice's write found.
struct SliceCounts {
  std::uint64_t failed = 0, matched = 0, mismatched = 0;
  std::uint64_t lines = 0;
  LineStages stages;
};

// Seconds since `t0`, added to `total`; t0 moves to now.
void lap(std::chrono::steady_clock::time_point& t0, double& total) {
  const auto now = std::chrono::steady_clock::now();
  total += std::chrono::duration<double>(now - t0).count();
  t0 = now;
}

// Runs the input's slices through three stages (four with a reader):
//   a reader      where the input reads ahead (Impl::reads_ahead): reads slice i from the input
//                 (and locates its lines) while slice i - 1 is filled;
//   this thread   takes slice i from the input (or the reader) and fills it -- fill(slice) makes
//                 the jobs of its lines on all cores: split the lines, draw salts -- and starts
//                 compute(slice) on a thread of its own;
//   the engine    up to in_engine slices at once, each on its own thread; compute sets slice.done
//                 as jobs finish (progress);
//   a writer      waits for the slices in input order; write(slice) makes its output text on all
//                 cores, reports its failed lines, hands the text to the input and returns its
//                 counts; then the slice's input bytes are wiped.
// `Slice` has `in` (SliceInput), done (atomic) and running (a future) and whatever its functions
// need; the ring of slices is reused, so a slice's vectors keep their memory for the next one.
template <class Slice, class Fill, class Compute, class Write>
SliceCounts run_pipeline(LineInput::Impl& input, std::size_t in_engine, Fill fill, Compute compute, Write write) {
  in_engine = std::clamp<std::size_t>(in_engine, 1, 64);
  const bool reader_thread = input.reads_ahead();
  // + one being built, one being written, and one being read ahead.
  const std::size_t ring_size = in_engine + (reader_thread ? 3 : 2);
  auto start = [&](Slice& sl) {
    nvtx::Range r("prepare", nvtx::Color::compute, std::int64_t(sl.in.chunk.begin));
    fill(sl);
    sl.done = 0;
    sl.running = std::async(std::launch::async, [&compute, &sl] { compute(sl); });
  };

  SliceCounts total;
  LineStages& stages = total.stages;
  auto finish = [&](Slice& sl) {
    auto t0 = std::chrono::steady_clock::now();
    // Progress comes from the oldest slice's counter while it computes.
    while (sl.running.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
      input.computing(sl.in, std::min(sl.done.load(), sl.in.size()));
    sl.running.get();
    lap(t0, stages.writer_wait_s);
    nvtx::Range r("write", nvtx::Color::io, std::int64_t(sl.in.chunk.begin));
    const SliceCounts c = write(sl);
    lap(t0, stages.write_s);
    total.failed += c.failed;
    total.matched += c.matched;
    total.mismatched += c.mismatched;
    total.lines += sl.in.size();
    input.written(sl.in);
    sl.in.text.reset();  // the slice's passwords, wiped as soon as its output is made
  };

  const std::unique_ptr<Slice[]> ring(new Slice[ring_size]);  // slice i in ring[i % ring_size]
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t launched = 0, written = 0;
  std::size_t read = 0;       // slices the reader has read
  bool input_ended = false;   // the reader found no more
  bool all_launched = false;
  bool stop = false;  // set by either side on an exception
  std::exception_ptr writer_error;
  std::thread writer([&] {
    try {
      for (std::size_t w = 0;; ++w) {
        {
          std::unique_lock lock(mutex);
          changed.wait(lock, [&] { return stop || all_launched || launched > w; });
          if (launched <= w) return;
        }
        finish(ring[w % ring_size]);
        {
          std::lock_guard lock(mutex);
          written = w + 1;
        }
        changed.notify_all();
      }
    } catch (...) {
      writer_error = std::current_exception();
      std::lock_guard lock(mutex);
      stop = true;
      changed.notify_all();
    }
  });
  std::exception_ptr reader_error;
  std::thread reader;
  if (reader_thread)
    reader = std::thread([&] {
      try {
        for (std::size_t i = 0;; ++i) {
          {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return stop || i < written + ring_size; });  // its slot written out
            if (stop) return;
          }
          auto t0 = std::chrono::steady_clock::now();
          const bool more = input.next(ring[i % ring_size].in);
          {
            std::lock_guard lock(mutex);
            lap(t0, stages.read_s);
            if (more) read = i + 1;
            else input_ended = true;
          }
          changed.notify_all();
          if (!more) return;
        }
      } catch (...) {
        reader_error = std::current_exception();
        std::lock_guard lock(mutex);
        stop = true;
        changed.notify_all();
      }
    });
  // Whatever happens here, the reader and the writer end and are joined before the ring goes
  // (each slice's future then waits for its engine thread when destroyed).
  struct Join {
    std::thread& t;
    std::mutex& m;
    std::condition_variable& cv;
    bool& stop;
    ~Join() {
      {
        std::lock_guard lock(m);
        stop = true;
      }
      cv.notify_all();
      if (t.joinable()) t.join();
    }
  };
  {
    Join join{writer, mutex, changed, stop};
    Join join_reader{reader, mutex, changed, stop};
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0;; ++i) {
      bool more = true;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] {
          return stop || (i < written + in_engine + 1 && (!reader_thread || i < read || input_ended));
        });
        if (stop) break;
        more = !reader_thread || i < read;
      }
      lap(t0, stages.builder_wait_s);
      Slice& sl = ring[i % ring_size];
      if (!reader_thread) {
        more = input.next(sl.in);
        lap(t0, stages.read_s);
      }
      if (!more) break;
      start(sl);
      lap(t0, stages.prepare_s);
      {
        std::lock_guard lock(mutex);
        launched = i + 1;
      }
      changed.notify_all();
    }
    // Let the writer finish every launched slice (the Join sets `stop` only afterwards).
    std::unique_lock lock(mutex);
    all_launched = true;
    changed.notify_all();
    changed.wait(lock, [&] { return stop || written == launched; });
  }
  if (reader_error) std::rethrow_exception(reader_error);
  if (writer_error) std::rethrow_exception(writer_error);
  return total;
}

void append_number(std::string& text, std::size_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  text.append(buf, r.ptr);
}

// The output of a line when the caller gives no LineFormat.
void default_format(LineTask task, const LineResult& r, std::string& text) {
  if (!r.error.empty()) return;
  if (task == LineTask::verify) {
    text.append("line ");
    append_number(text, r.line);
    text.append(r.match ? ": OK\n" : ": MISMATCH\n");
    return;
  }
  if (!r.user.empty()) text.append(r.user).push_back(':');
  text.append(r.hash).push_back('\n');
}

// ---- one CryptJob per line: crypt, verify, and hash's reference path ----------------------------

// One input line turned into a crypt job, or the reason it could not be.
struct LineJob {
  std::size_t line = 0;       // 1-based
  std::string user;           // hash with users
  std::string setting;        // owned: hash generates it
  std::string_view password;  // into the slice's input bytes
  std::string error;          // malformed line
};

// Fills the LineJobs of `text` (lines of one chunk of a slice, on one core).
using BuildFn = std::function<void(std::span<const std::string_view> text, std::span<LineJob> jobs)>;

// Lines "A<TAB>PASSWORD": the setting or hash, then the password.
BuildFn tab_lines(const char* first_field) {
  return [first_field](std::span<const std::string_view> text, std::span<LineJob> jobs) {
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      LineJob& lj = jobs[k];
      const std::string_view l = text[k];
      if (std::string why = check_line(l); !why.empty()) {
        lj.error = std::move(why);
        continue;
      }
      const std::size_t tab = l.find('\t');
      if (tab == std::string_view::npos) {
        lj.error = std::string("expected ") + first_field + "<TAB>PASSWORD (no TAB on the line)";
        continue;
      }
      lj.setting = std::string(l.substr(0, tab));
      lj.password = l.substr(tab + 1);
      if (lj.setting.empty()) lj.error = std::string("the ") + first_field + " before the TAB is empty";
    }
  };
}

// Password lines (user:password with users) and fresh settings, drawn in bulk per chunk.
BuildFn password_lines(const HashOptions& opt, bool users) {
  return [opt, users](std::span<const std::string_view> text, std::span<LineJob> jobs) {
    std::vector<std::string> settings = generate_settings(opt, jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      LineJob& lj = jobs[k];
      std::string_view pw = text[k];
      if (std::string why = check_line(pw); !why.empty()) {
        lj.error = std::move(why);
        continue;
      }
      if (users) {
        const std::size_t colon = pw.find(':');
        if (colon == std::string_view::npos || colon == 0) {
          lj.error = kNoUserError;
          continue;
        }
        lj.user = std::string(pw.substr(0, colon));
        pw = pw.substr(colon + 1);
      }
      lj.password = pw;
      if (std::string why = check_password(pw); !why.empty()) lj.error = std::move(why);
      else lj.setting = std::move(settings[k]);
    }
  };
}

SliceCounts run_line_jobs(LineInput::Impl& input, LineSink& sink, const EngineAccess& engine, const LineJobOptions& job,
                          std::size_t in_engine) {
  const BuildFn build = job.task == LineTask::hash     ? password_lines(job.hash, job.users)
                        : job.task == LineTask::crypt ? tab_lines("SETTING")
                                                      : tab_lines("HASH");
  const char* what = job.task == LineTask::hash ? "hash" : job.task == LineTask::crypt ? "crypt" : "verify";
  const bool verify = job.task == LineTask::verify;
  struct Slice {
    SliceInput in;
    std::vector<LineJob> lines;
    std::vector<CryptJob> jobs;
    std::vector<std::size_t> index;  // line (within the slice) of each job
    std::vector<CryptOutcome> outcomes;
    std::vector<std::string> text;  // per chunk of lines
    std::atomic<std::size_t> done{0};  // jobs the engine finished (progress)
    std::future<void> running;
  };
  auto fill = [&](Slice& sl) {
    // The slot's previous LineJobs are reset on all cores (resize only when the count changes).
    sl.lines.resize(sl.in.size());
    parallel_for(sl.lines.size(), kLineGrain, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        sl.lines[i] = LineJob{};
        sl.lines[i].line = sl.in.chunk.begin + i + 1;
      }
      build(std::span<const std::string_view>(sl.in.lines).subspan(b, e - b), std::span<LineJob>(sl.lines).subspan(b, e - b));
    });
    sl.jobs.clear();
    sl.index.clear();
    for (std::size_t i = 0; i < sl.lines.size(); ++i)
      if (sl.lines[i].error.empty()) {
        sl.jobs.push_back({sl.lines[i].setting, sl.lines[i].password});
        sl.index.push_back(i);
      }
    sl.outcomes.resize(sl.jobs.size());  // the engine resets every outcome itself, in parallel
  };
  auto compute = [&engine, what](Slice& sl) {
    nvtx::Range r(what, nvtx::Color::compute, std::int64_t(sl.in.chunk.begin));
    engine().crypt(sl.jobs, sl.outcomes, [&](std::size_t done) { sl.done = done; });
  };
  auto write = [&](Slice& sl) {
    const std::size_t n = sl.lines.size();
    sl.text.resize((n + kLineGrain - 1) / kLineGrain);
    std::atomic<std::uint64_t> matched{0}, mismatched{0};
    parallel_for(n, kLineGrain, [&](std::size_t b, std::size_t e) {
      // Job k of the slice is line sl.index[k] (ascending): this chunk's first job.
      std::size_t k = std::size_t(std::lower_bound(sl.index.begin(), sl.index.end(), b) - sl.index.begin());
      std::string& t = sl.text[b / kLineGrain];
      t.clear();
      std::uint64_t ok = 0, bad = 0;
      for (std::size_t i = b; i < e; ++i) {
        LineJob& lj = sl.lines[i];
        const CryptOutcome* out = nullptr;
        if (k < sl.index.size() && sl.index[k] == i) out = &sl.outcomes[k++];
        if (out && !out->ok()) lj.error = out->error;
        LineResult r{lj.line, lj.user, {}, lj.error, false};
        if (lj.error.empty()) {
          r.hash = out->hash;
          // verify: the stored hash is the setting; a correct password reproduces it exactly.
          if (verify) {
            r.match = constant_time_equal(out->hash, lj.setting);
            ++(r.match ? ok : bad);
          }
        }
        if (job.format) job.format(r, t);
        else default_format(job.task, r, t);
      }
      matched += ok;
      mismatched += bad;
    });
    SliceCounts c{0, matched.load(), mismatched.load()};
    for (const LineJob& lj : sl.lines)
      if (!lj.error.empty()) {
        ++c.failed;
        sink.failed(lj.line, lj.error);
      }
    for (const std::string& t : sl.text)
      if (!t.empty()) input.write(t);
    // The slot keeps its jobs' memory for the slice that reuses it (no fresh pages to fault in):
    // the next fill resets them.
    return c;
  };
  return run_pipeline<Slice>(input, in_engine, fill, compute, write);
}

// ---- hash: fixed-size records ------------------------------------------------------------------

// A slice is a few flat arrays -- the passwords' and users' views, the fresh settings as
// fixed-size records drawn on all cores, the crypt strings as fixed-size records the engine
// writes (CryptEngine::crypt_fresh) -- and the output text is made from them on all cores. With
// the default format and no users, the output is the result records themselves, each record's
// last byte the newline: written as it is. Output byte-identical to run_line_jobs's.
SliceCounts run_fresh(LineInput::Impl& input, LineSink& sink, const EngineAccess& engine, const LineJobOptions& job,
                      std::size_t in_engine) {
  const HashOptions& opt = job.hash;
  const bool users = job.users;
  const std::size_t setting_bytes = generated_setting_bytes(opt);
  const std::size_t hash_bytes = crypt_string_bytes(opt);
  const bool plain = !users && !job.format;
  const std::size_t stride = plain ? hash_bytes + 1 : hash_bytes;  // plain: + the newline
  struct Slice {
    SliceInput in;                    // in.lines: the lines, split into user and password in place,
                                      // then the passwords per job (the failed lines taken out)
    std::vector<std::string_view> user;  // users: per line
    std::string settings;                // a record per line, then per job
    std::vector<std::uint32_t> bad;      // failed lines (within the slice), ascending
    std::vector<std::string> bad_why;    // and why
    std::size_t jobs = 0;
    std::string results;            // a record of `stride` bytes per job
    std::vector<std::string> text;  // per chunk of lines (not plain)
    std::atomic<std::size_t> done{0};
    std::future<void> running;
  };
  auto fill = [&](Slice& sl) {
    const std::size_t n = sl.in.size();
    std::vector<std::string_view>& passwords = sl.in.lines;
    if (users) sl.user.resize(n);
    sl.settings.resize(n * setting_bytes);
    const std::size_t chunks = (n + kLineGrain - 1) / kLineGrain;
    std::vector<std::vector<std::pair<std::uint32_t, std::string>>> chunk_bad(chunks);
    parallel_for(n, kLineGrain, [&](std::size_t b, std::size_t e) {
      auto& bad = chunk_bad[b / kLineGrain];
      for (std::size_t i = b; i < e; ++i) {
        std::string_view pw = passwords[i];
        if (pw.size() > kMaxLineBytes) {
          if (users) sl.user[i] = {};
          bad.emplace_back(std::uint32_t(i), check_line(pw));
          continue;
        }
        if (users) {
          const std::size_t colon = pw.find(':');
          if (colon == std::string_view::npos || colon == 0) {
            sl.user[i] = {};
            bad.emplace_back(std::uint32_t(i), kNoUserError);
            continue;
          }
          sl.user[i] = pw.substr(0, colon);
          pw = pw.substr(colon + 1);
        }
        passwords[i] = pw;
        // check_password's test, without making its (empty) string for every good line.
        if (pw.size() > 511 || std::memchr(pw.data(), '\0', pw.size()))
          if (std::string why = check_password(pw); !why.empty()) bad.emplace_back(std::uint32_t(i), std::move(why));
      }
      generate_settings_into(opt, e - b, sl.settings.data() + b * setting_bytes);
    });
    sl.bad.clear();
    sl.bad_why.clear();
    for (auto& chunk : chunk_bad)
      for (auto& [line, why] : chunk) {
        sl.bad.push_back(line);
        sl.bad_why.push_back(std::move(why));
      }
    sl.jobs = n - sl.bad.size();
    if (!sl.bad.empty()) {
      // Rare: take the failed lines out of the jobs (the settings of the others move up).
      std::size_t k = 0, next_bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (next_bad < sl.bad.size() && sl.bad[next_bad] == i) {
          ++next_bad;
          continue;
        }
        if (k != i) {
          passwords[k] = passwords[i];
          std::memmove(sl.settings.data() + k * setting_bytes, sl.settings.data() + i * setting_bytes, setting_bytes);
        }
        ++k;
      }
    }
    sl.results.resize(sl.jobs * stride);
    if (plain)
      parallel_for(sl.jobs, kLineGrain, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k) sl.results[k * stride + hash_bytes] = '\n';
      });
  };
  auto compute = [&](Slice& sl) {
    nvtx::Range r("hash", nvtx::Color::compute, std::int64_t(sl.in.chunk.begin));
    const FreshJobs jobs{opt, std::string_view(sl.settings).substr(0, sl.jobs * setting_bytes),
                         std::span<const std::string_view>(sl.in.lines).first(sl.jobs)};
    engine().crypt_fresh(jobs, sl.results.data(), stride, [&](std::size_t done) {
      sl.done = std::min(sl.in.size(), done + sl.bad.size());
    });
  };
  auto write = [&](Slice& sl) {
    const std::size_t n = sl.in.size();
    const SliceCounts c{sl.bad.size(), 0, 0};
    for (std::size_t k = 0; k < sl.bad.size(); ++k) sink.failed(sl.in.chunk.begin + sl.bad[k] + 1, sl.bad_why[k]);
    if (plain) {
      if (!sl.results.empty()) input.write(sl.results);  // the failed lines have no output line
      return c;
    }
    sl.text.resize((n + kLineGrain - 1) / kLineGrain);
    parallel_for(n, kLineGrain, [&](std::size_t b, std::size_t e) {
      std::string& t = sl.text[b / kLineGrain];
      t.clear();
      // The failed lines before this chunk's first: its first job is line b minus those.
      std::size_t f = std::size_t(std::lower_bound(sl.bad.begin(), sl.bad.end(), std::uint32_t(b)) - sl.bad.begin());
      for (std::size_t i = b; i < e; ++i) {
        LineResult r;
        r.line = sl.in.chunk.begin + i + 1;
        if (users) r.user = sl.user[i];
        if (f < sl.bad.size() && sl.bad[f] == i) r.error = sl.bad_why[f++];
        else r.hash = std::string_view(sl.results.data() + (i - f) * stride, hash_bytes);
        if (job.format) job.format(r, t);
        else default_format(LineTask::hash, r, t);
      }
    });
    for (const std::string& t : sl.text)
      if (!t.empty()) input.write(t);
    return c;
  };
  return run_pipeline<Slice>(input, in_engine, fill, compute, write);
}

}  // namespace

LineInput::LineInput(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LineInput::~LineInput() = default;
LineInput::LineInput(LineInput&&) noexcept = default;
LineInput& LineInput::operator=(LineInput&&) noexcept = default;

LineInput LineInput::stream(const std::filesystem::path& path) {
  return LineInput(std::make_unique<StreamInput>(std::make_unique<LineReader>(path)));
}
LineInput LineInput::stream(int fd, std::string name) {
  return LineInput(std::make_unique<StreamInput>(std::make_unique<LineReader>(fd, std::move(name))));
}
LineInput LineInput::dealt(const std::filesystem::path& path) { return LineInput(std::make_unique<RangedInput>(path)); }

std::optional<std::uint64_t> LineInput::size_bytes() const { return impl_->size_bytes(); }
std::optional<std::size_t> LineInput::line_count() const { return impl_->line_count(); }
std::uint64_t LineInput::bytes_read() const { return impl_->bytes_read(); }

LineCounts run_lines(LineInput& input, LineSink& sink, const EngineAccess& engine, const LineJobOptions& job,
                     const LineEngineOptions& options) {
  if (job.task == LineTask::hash) check_hash_options(job.hash);
  LineInput::Impl& in = *input.impl_;
  in.start(sink, options);
  const SliceCounts c = job.task == LineTask::hash && !job.per_line_jobs
                            ? run_fresh(in, sink, engine, job, options.in_engine)
                            : run_line_jobs(in, sink, engine, job, options.in_engine);
  std::vector<std::uint64_t> sums{c.lines, c.failed, c.matched, c.mismatched};
  in.finish(sums);
  return {sums[0], sums[1], sums[2], sums[3], c.stages};
}

}  // namespace wk::hash
