#pragma once
// The image operations, each declared once (lib/src/image/<op>/<op>_op.cpp): its name, its
// arguments with their rules and defaults, a line of help, and the rungs of its ladder. wk-image's
// operation parser and --help, wk-bench --ladder and the tests read these declarations.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/rung.hpp"

namespace wk::image {

enum class ArgKind {
  integer,  // a whole number in [min, max] (odd_only: odd)
  number,   // a finite number in [min, max]
  choice,   // one word of `choices` ("dx|dy")
  kernel,   // conv's kernel: an inline [a b; c d] or a file name (the rest of the text, ':' included)
  text,     // the rest of the text, ':' included, which the op reads itself (crop's region)
};

struct OpArg {
  const char* name;  // "K", as the syntax line shows it
  ArgKind kind;
  const char* rule;  // what a valid value is, as messages and help say it: "an odd number from 1 to 31"
  const char* fallback = nullptr;  // the value when omitted; nullptr: required; "": optional, no value
  double min = 0, max = 0;         // integer, number
  bool odd_only = false;           // integer
  const char* choices = nullptr;   // choice
};

struct OpInfo {
  const char* name;
  const char* alias;    // another name it answers to, nullptr: none
  const char* summary;  // one line: what it computes, and the OpenCV function it matches
  std::span<const OpArg> args;
  std::span<const RungInfo> (*rungs)();  // the ladder, slowest to fastest as built
};

// Every operation, in --help order.
std::vector<const OpInfo*> operations();
// The operation called `name` (or by its alias); nullptr when none is.
const OpInfo* find_operation(std::string_view name);
// The names (aliases excluded), for messages.
std::vector<std::string> known_operations();

// "gauss:K[:SIGMA]": the syntax line of an operation.
std::string op_syntax(const OpInfo& op);
// One entry per operation (its syntax, summary, and each argument's rule and default), for --help.
std::string operations_help();

}  // namespace wk::image
