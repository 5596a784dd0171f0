#include "wk/hash/job_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace wk::hash {

void check_job_files(std::span<const io::JobFile> reads, std::span<const io::JobFile> writes) {
  // io::check_writes_apart passes over "-", FIFOs and devices itself; what it cannot see is
  // standard input redirected from a file (`-o F < F`): then /dev/stdin names F.
  std::vector<io::JobFile> r(reads.begin(), reads.end());
  for (io::JobFile& f : r)
    if (f.path.empty() || f.path == "-") {
      struct stat st {};
      f = ::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) ? io::JobFile{"standard input", "/dev/stdin"}
                                                                  : io::JobFile{f.role, "-"};
    }
  io::check_writes_apart(r, writes);
}

}  // namespace wk::hash
