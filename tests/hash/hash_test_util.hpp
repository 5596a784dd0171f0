#pragma once
// Shared by the hash tests: random passwords and settings that reach every boundary, the
// libxcrypt reference, and a pipe fed by a thread of its own.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "wk/hash/crypt.hpp"

namespace wk::hash::test {

// The lengths the issue names, plus their neighbours: block and padding boundaries of MD5/SHA-256
// (55/56/63/64), SHA-512 (111/112/127/128), bcrypt's 72-byte key, libxcrypt's 511 maximum.
inline const std::vector<int> kBoundaryLengths = {0,  1,  2,  3,   4,   7,   8,   12,  15,  16,  17,  23,  24,
                                                  31, 32, 33, 47,  48,  55,  56,  57,  63,  64,  65,  71,  72,
                                                  73, 95, 96, 111, 112, 127, 128, 129, 200, 255, 256, 510, 511};

// Any bytes except NUL.
inline std::string random_password(std::mt19937& rng, int length, bool ascii_only = false) {
  std::string pw(length, 'x');
  std::uniform_int_distribution<int> any(1, 255), printable(0x20, 0x7e);
  for (char& c : pw) c = char(ascii_only ? printable(rng) : any(rng));
  return pw;
}

// A length: a boundary one a third of the time, else short (realistic) or anywhere up to 511.
inline int random_length(std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, 8);
  const int p = pick(rng);
  if (p <= 2) return kBoundaryLengths[std::uniform_int_distribution<std::size_t>(0, kBoundaryLengths.size() - 1)(rng)];
  if (p <= 6) return std::uniform_int_distribution<int>(0, 40)(rng);
  return std::uniform_int_distribution<int>(0, 511)(rng);
}

// Salt characters libxcrypt takes in md5crypt / sha-crypt salts: printable ASCII except the
// characters it never accepts in a setting and '$' (which ends the salt).
inline std::string random_salt(std::mt19937& rng, int length) {
  static const std::string alphabet = [] {
    std::string a;
    for (int c = 0x21; c < 0x7f; ++c)
      if (c != '$' && c != '*' && c != ':' && c != ';' && c != '\\' && c != '!') a.push_back(char(c));
    return a;
  }();
  std::string s(length, '.');
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (char& c : s) c = alphabet[pick(rng)];
  return s;
}

inline std::string random_bcrypt_salt(std::mt19937& rng) {
  static const std::string alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(22, '.');
  std::uniform_int_distribution<std::size_t> pick(0, 63);
  for (char& c : s) c = alphabet[pick(rng)];
  return s;
}

// A pipe that a thread of its own fills with `bytes`, `piece` bytes per write, and then closes:
// input as a program reads it from another one. `before(at)`, when given, runs on that thread
// before each write (`at`: the bytes written so far), e.g. to wait until the reader got somewhere.
class FedPipe {
 public:
  explicit FedPipe(std::string bytes, std::size_t piece = SIZE_MAX, std::function<void(std::size_t)> before = {})
      : bytes_(std::move(bytes)) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    read_fd_ = fds[0];
    writer_ = std::thread([this, fd = fds[1], piece, before = std::move(before)] {
      sigset_t pipe_signal;  // a reader that gave up: EPIPE for this thread, no SIGPIPE for the process
      sigemptyset(&pipe_signal);
      sigaddset(&pipe_signal, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
      for (std::size_t at = 0; at < bytes_.size();) {
        if (before) before(at);
        const std::size_t end = bytes_.size() - at < piece ? bytes_.size() : at + piece;
        while (at < end) {
          const ssize_t n = ::write(fd, bytes_.data() + at, end - at);
          if (n <= 0) {  // the reader gave up (EPIPE)
            ::close(fd);
            return;
          }
          at += std::size_t(n);
        }
      }
      ::close(fd);
    });
  }
  // Closes the read end (a writer still blocked gets EPIPE) and joins the thread.
  ~FedPipe() {
    ::close(read_fd_);
    writer_.join();
  }
  FedPipe(const FedPipe&) = delete;
  FedPipe& operator=(const FedPipe&) = delete;
  int fd() const { return read_fd_; }
  // The read end by name, for what opens its input by path.
  std::string path() const { return "/proc/self/fd/" + std::to_string(read_fd_); }

 private:
  std::string bytes_;
  int read_fd_ = -1;
  std::thread writer_;
};

}  // namespace wk::hash::test
