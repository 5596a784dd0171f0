#pragma once
// A pseudo-terminal for the tests of what is typed at a terminal (wk-hash passwords, wk-crypt
// passphrases): a person typing at a terminal, played through its master
// side. posix_openpt and friends: no libutil needed.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace wk::test {

// A terminal pair: `master` is the keyboard and the screen, `slave` (also open here, so that its
// settings can be read while no one else has it open) what a program reads and writes.
class Pty {
 public:
  Pty() {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0) throw std::runtime_error("no pseudo-terminal");
    const char* name = ::ptsname(master_);
    if (!name) throw std::runtime_error("ptsname failed");
    slave_name_ = name;
    slave_ = ::open(slave_name_.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave_ < 0) throw std::runtime_error("cannot open " + slave_name_);
  }
  ~Pty() {
    ::close(slave_);
    ::close(master_);
  }
  Pty(const Pty&) = delete;
  Pty& operator=(const Pty&) = delete;

  int master() const { return master_; }
  int slave() const { return slave_; }
  const std::string& slave_name() const { return slave_name_; }

  // The terminal's echo flag, as the program's side sees it now.
  bool echo_on() const {
    termios t{};
    if (::tcgetattr(slave_, &t) != 0) throw std::runtime_error("tcgetattr failed");
    return (t.c_lflag & ECHO) != 0;
  }

  // Keys typed: the bytes go to the program's input (through the line discipline: echoed when
  // ECHO is on, ^C a SIGINT to the foreground process group).
  void type(std::string_view keys) const {
    while (!keys.empty()) {
      const ssize_t n = ::write(master_, keys.data(), keys.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("cannot write to the pseudo-terminal");
      keys.remove_prefix(std::size_t(n));
    }
  }

  // What the screen showed so far (everything read from the master side).
  const std::string& screen() const { return screen_; }

  // Reads the screen until `text` appears after `from` or `timeout` passes; true when it did.
  bool wait_for(std::string_view text, std::size_t from = 0,
                std::chrono::milliseconds timeout = std::chrono::milliseconds(20000)) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (screen_.find(text, from) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !read_some(int(left.count()))) return screen_.find(text, from) != std::string::npos;
    }
    return true;
  }
  // Reads what the screen has now, waiting at most `timeout_ms`; false when nothing came.
  bool read_some(int timeout_ms) {
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0 || !(p.revents & POLLIN)) return false;
    char buf[4096];
    const ssize_t n = ::read(master_, buf, sizeof buf);
    if (n <= 0) return false;
    screen_.append(buf, std::size_t(n));
    return true;
  }

 private:
  int master_ = -1, slave_ = -1;
  std::string slave_name_;
  std::string screen_;
};

// A program run with its standard input, output and error on the terminal `pty` (its controlling
// terminal, in a session of its own: ^C typed reaches it). Killed at destruction if still running.
class PtyProgram {
 public:
  PtyProgram(Pty& pty, const std::string& exe, const std::vector<std::string>& args) : pty_(pty) {
    std::vector<std::string> words{exe};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const std::string slave = pty.slave_name();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {  // async-signal-safe calls only until exec
      ::setsid();
      const int fd = ::open(slave.c_str(), O_RDWR);  // a session leader's first terminal: its controlling one
      if (fd < 0) ::_exit(127);
      ::ioctl(fd, TIOCSCTTY, 0);
      ::dup2(fd, 0);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      if (fd > 2) ::close(fd);
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(sig, &dfl, nullptr);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~PtyProgram() {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  PtyProgram(const PtyProgram&) = delete;
  PtyProgram& operator=(const PtyProgram&) = delete;
  pid_t pid() const { return pid_; }

  // Waits for the program's end, reading the screen meanwhile: its exit status (128 + N for a
  // signal N), or nullopt when it ran past `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000)) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!status_) {
      int st = 0;
      const pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        break;
      }
      if (std::chrono::steady_clock::now() > until) return std::nullopt;
      pty_.read_some(20);
    }
    while (pty_.read_some(50)) {  // what it wrote last
    }
    return status_;
  }

 private:
  Pty& pty_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace wk::test
