#include "wk/hash/job_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace wk::hash {

namespace {
bool is_stdio(const std::filesystem::path& p) { return p.empty() || p == "-"; }
bool regular(const std::filesystem::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
}  // namespace

void check_job_files(std::span<const io::JobFile> reads, std::span<const io::JobFile> writes) {
  std::vector<io::JobFile> r, w;
  for (const io::JobFile& f : reads) {
    if (is_stdio(f.path)) {
      struct stat st {};
      if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode))
        r.push_back({"standard input", "/dev/stdin"});  // `-o F < F`: what /dev/stdin names is F
      continue;
    }
    if (regular(f.path)) r.push_back(f);
  }
  for (const io::JobFile& f : writes) {
    if (is_stdio(f.path)) continue;
    struct stat st {};
    if (::stat(f.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) continue;  // a FIFO, a device: in place
    w.push_back(f);
  }
  io::check_writes_apart(r, w);
}

}  // namespace wk::hash
