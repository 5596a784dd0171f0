#pragma once
// The one error idiom of warpkit: host code throws wk::Error, apps catch it in main and map the
// category to an exit code. Kernels never print.
#include <stdexcept>
#include <string>

namespace wk {

enum class ErrorCategory {
  usage,        // bad arguments or option values: the caller must change the call
  io,           // a file or folder could not be read or written
  decode,       // input bytes are not a valid image / hash / ciphertext
  unsupported,  // valid input that this build or backend cannot handle
  cuda,         // a CUDA runtime error (no device, out of memory, launch failure, ...)
  internal,     // a bug in warpkit
};

const char* to_string(ErrorCategory c) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& message)
      : std::runtime_error(message), category_(category) {}
  ErrorCategory category() const noexcept { return category_; }

 private:
  ErrorCategory category_;
};

[[noreturn]] void throw_error(ErrorCategory category, const std::string& message);

}  // namespace wk
