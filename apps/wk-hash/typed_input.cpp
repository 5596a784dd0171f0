// wk-hash at a terminal: a person types one password (hash, crypt: twice, as passwd and mkpasswd
// ask) with the echo off; the fields become the one line the subcommand reads.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "wk/core/error.hpp"
#include "wk/hash/secret_input.hpp"
#include "wk_hash.hpp"

namespace wk::hash_app {

TypedLine::~TypedLine() {
  if (fd_ >= 0) ::close(fd_);
}

TypedLine& TypedLine::operator=(TypedLine&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

namespace {

// One field typed after `prompt`; an end of input there ends the run (exit status 1).
hash::SecretBuffer ask(std::string_view prompt, hash::Echo echo, const char* nothing_done) {
  auto typed = hash::read_typed_line(STDIN_FILENO, STDERR_FILENO, prompt, echo);
  if (!typed) throw Error(ErrorCategory::io, std::string("end of input at the terminal: ") + nothing_done);
  return std::move(*typed);
}

// A field shown as typed (a user name, a setting, a hash) that must not hold the byte the line
// is split at.
hash::SecretBuffer ask_field(std::string_view prompt, char split, const char* what, const char* nothing_done) {
  hash::SecretBuffer field = ask(prompt, hash::Echo::on, nothing_done);
  if (field.view().find(split) != std::string_view::npos)
    throw Error(ErrorCategory::decode, std::string(what) + (split == '\t' ? " cannot hold a TAB" : " cannot hold a ':'"));
  return field;
}

}  // namespace

TypedLine read_typed_line(hash::LineTask task, bool users) {
  const char* nothing_done = task == hash::LineTask::verify ? "nothing verified" : "nothing hashed";
  hash::SecretBuffer line;
  if (task == hash::LineTask::hash && users) {
    line = ask_field("User: ", ':', "a user name", nothing_done);
    line.append(":", 1);
  } else if (task == hash::LineTask::crypt) {
    line = ask_field("Setting: ", '\t', "the setting", nothing_done);
    line.append("\t", 1);
  } else if (task == hash::LineTask::verify) {
    line = ask_field("Hash: ", '\t', "the hash", nothing_done);
    line.append("\t", 1);
  }
  const hash::SecretBuffer password = ask("Password: ", hash::Echo::off, nothing_done);
  if (task != hash::LineTask::verify) {  // a typo would be hashed and stored: asked twice
    const hash::SecretBuffer again = ask("Retype password: ", hash::Echo::off, nothing_done);
    if (!hash::constant_time_equal(password.view(), again.view()))
      throw Error(ErrorCategory::decode, "the passwords typed differ: nothing hashed");
  }
  line.append(password.data(), password.size());
  line.append("\n", 1);

  // The line engine reads descriptors: the line goes through a pipe (at most 3 fields of
  // kMaxTypedBytes, far below a pipe's 64 KiB, so the write never waits for a reader).
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorCategory::io, std::string("pipe: ") + std::strerror(errno));
  TypedLine typed(fds[0]);
  std::string_view rest = line.view();
  while (!rest.empty()) {
    const ssize_t n = ::write(fds[1], rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fds[1]);
      throw Error(ErrorCategory::io, std::string("pipe: ") + std::strerror(err));
    }
    rest.remove_prefix(std::size_t(n));
  }
  ::close(fds[1]);
  return typed;
}

}  // namespace wk::hash_app
