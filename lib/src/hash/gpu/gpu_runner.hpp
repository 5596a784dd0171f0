#pragma once
// The GPU side of CryptEngine (plain header: no CUDA types beyond the runtime API).
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "wk/hash/setting.hpp"

namespace wk::hash::gpu {

struct PreparedJob {
  const Setting* setting;     // parsed, method md5crypt / sha256crypt / sha512crypt / bcrypt
  std::string_view password;  // checked: <= 511 bytes, no NUL
};

class Runner {
 public:
  // Creates the stream and runs every format's known-answer self-check on the device.
  Runner();
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  // out[i] = the crypt string of jobs[i]. progress(n): n more jobs finished.
  void run(std::span<const PreparedJob> jobs, std::span<std::string> out, const std::function<void(std::size_t)>& progress);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wk::hash::gpu
