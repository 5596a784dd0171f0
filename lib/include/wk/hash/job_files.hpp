#pragma once
// The files a wk-hash job reads (-i, --hashes, --wordlist) and writes (-o), checked apart before
// any work: writing the hashes over the password list (or over /etc/shadow) would lose it.
#include <span>

#include "wk/io/output_file.hpp"

namespace wk::hash {

// wk::io::check_writes_apart over what can be lost: throws wk::Error{usage} ("OUT: the output
// would overwrite the input ...") when an output is a regular file that an input also names --
// the same name, a symbolic link to it or a hard link (device and inode compare). An empty path or
// "-" as an input is standard input, checked when redirected from a regular file; outputs that
// are written in place (standard output, a FIFO, a character device such as /dev/null) and
// inputs that are no regular file cannot be overwritten and are passed over.
void check_job_files(std::span<const io::JobFile> reads, std::span<const io::JobFile> writes);

}  // namespace wk::hash
