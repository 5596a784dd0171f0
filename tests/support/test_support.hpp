#pragma once
// Helpers shared by the tests: scratch folders, random images, running the apps.
#include <opencv2/core.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wk/core/image_view.hpp"

namespace wk::test {

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Uniformly random 8-bit image (deterministic for a seed).
cv::Mat random_image(int width, int height, int channels, unsigned seed);

// Every 24-bit triple once: 4096 x 4096 3-channel pixels, channels (i, i >> 8, i >> 16) of the
// pixel index i, for exhaustive checks of per-pixel colour formulas.
cv::Mat all_colour_triples();

inline ConstImageView const_view(const cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }
inline ImageView view(cv::Mat& m) { return {m.data, m.cols, m.rows, m.step[0], m.channels()}; }

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command line, capturing stdout+stderr; stdin is /dev/null.
CommandResult run(const std::string& command_line);
// Quotes one argument for the shell.
std::string sh_quote(const std::string& arg);

// Runs `body` in a forked child as user and group "nobody" (65534) when the tests run as root,
// as the test's own user otherwise, and returns its result (the child's exit status; -1 when it
// did not exit normally). For checks that permissions stop an unprivileged user (unreadable
// folders): root reads every folder. The child must not use Catch2's assertions.
int run_unprivileged(const std::function<int()>& body);
// The shell words that run a command as "nobody" when the tests run as root ("" otherwise).
std::string unprivileged_prefix();

void write_bytes(const std::filesystem::path& path, const std::string& bytes);
// The regular files below `dir` (recursively; temporary files included), relative to it, sorted;
// empty when `dir` does not exist.
std::vector<std::string> files_below(const std::filesystem::path& dir);
std::string read_bytes(const std::filesystem::path& path);

// One environment variable changed for a scope: what it was (set or not) comes back at scope exit.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v;
  }
  ScopedEnv(const char* name, const char* value) : ScopedEnv(name) { set(value); }
  ~ScopedEnv() {
    if (saved_) ::setenv(name_, saved_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void set(const char* value) { ::setenv(name_, value, 1); }
  void unset() { ::unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// True under tests/sanitize/run_sanitizer.sh (it sets WK_SANITIZER_RUN): tests whose workload
// is only a longer run of the same code paths shrink it there; the plain run checks it all.
inline bool sanitizer_run() { return std::getenv("WK_SANITIZER_RUN") != nullptr; }

}  // namespace wk::test
