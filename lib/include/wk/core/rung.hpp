#pragma once
// The rungs of an operation's APOD ladder as callers see them: a name that selects the rung
// (wk-bench --ladder, the tests) and one line on what it does. The kernels behind the names and
// the choice of the default rung are the library's business (lib/src/core/rung_table.hpp).
#include <span>
#include <string>
#include <string_view>

namespace wk {

struct RungInfo {
  const char* name;     // lower case, words joined by '_'
  const char* summary;  // one line
};

// Throws wk::Error{usage} "OP: unknown rung 'NAME' (known: a, b, ...)" unless `name` is one of
// `rungs`.
void check_rung_name(std::string_view op, std::span<const RungInfo> rungs, std::string_view name);

// "a, b, c": the names, for messages and help.
std::string rung_names(std::span<const RungInfo> rungs);

}  // namespace wk
