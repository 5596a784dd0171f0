// Secrets typed at the terminal (wk/core/terminal.hpp).
#include "wk/core/terminal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wk/core/error.hpp"

namespace wk {

namespace {

// The terminal state to restore if a signal ends the read (the handler may only use these).
volatile sig_atomic_t g_tty_fd = -1;
struct termios g_saved {};
struct sigaction g_previous[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void restore_and_reraise(int sig) {
  if (g_tty_fd >= 0) ::tcsetattr(g_tty_fd, TCSAFLUSH, &g_saved);
  for (int i = 0; i < 3; ++i)
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  ::raise(sig);  // the previous disposition now handles it
}

struct Tty {
  int fd = -1;
  ~Tty() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool has_terminal() {
  const int fd = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::optional<std::string> read_hidden_line(const std::string& prompt) {
  Tty tty;
  tty.fd = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty.fd < 0) return std::nullopt;
  (void)!::write(tty.fd, prompt.data(), prompt.size());
  struct termios saved {};
  const bool is_tty = ::tcgetattr(tty.fd, &saved) == 0;
  if (is_tty) {
    g_saved = saved;
    struct sigaction sa {};
    sa.sa_handler = restore_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &g_previous[i]);
    g_tty_fd = tty.fd;
    struct termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ICANON | ECHONL;
    ::tcsetattr(tty.fd, TCSAFLUSH, &quiet);
  }
  std::string line;
  line.reserve(1024);  // no reallocation leaves copies of a typed secret behind
  int err = 0;
  bool eof = false;
  for (;;) {
    char c = 0;
    const ssize_t r = ::read(tty.fd, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = errno;
      break;
    }
    if (r == 0) {
      eof = true;
      break;
    }
    if (c == '\n') break;
    line += c;
  }
  if (is_tty) {
    ::tcsetattr(tty.fd, TCSAFLUSH, &saved);
    g_tty_fd = -1;
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (err) throw Error(ErrorCategory::io, std::string("cannot read from the terminal: ") + std::strerror(err));
  if (eof && line.empty()) throw Error(ErrorCategory::usage, "no input at the prompt (end of input)");
  return line;
}

}  // namespace wk
