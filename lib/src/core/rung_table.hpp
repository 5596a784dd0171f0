#pragma once
// An operation's rung table (the dispatch layer between an op's entry point and its kernels):
// each rung is a name, a line of help and a try_run that launches the rung's kernel and returns
// true, or returns false, launching nothing, when the rung does not apply to the call (a colour
// image on a 1-channel kernel, unaligned rows, a kernel size it was not built for). The default
// comes from a tuning table of plain data per GPU architecture (tuning.hpp): a preference order
// of rung names, the first that applies runs.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tuning.hpp"
#include "wk/core/error.hpp"
#include "wk/core/rung.hpp"

namespace wk::detail {

template <class Call>
struct Rung {
  RungInfo info;
  bool (*try_run)(const Call& call);
};

// The public view of a table: its names and lines, in ladder order.
template <class Call>
std::vector<RungInfo> rung_infos(std::span<const Rung<Call>> table) {
  std::vector<RungInfo> out;
  for (const auto& r : table) out.push_back(r.info);
  return out;
}

// Runs `requested` (empty: none) when it applies, else the first rung of `preference` that
// applies. Returns the name of the rung that ran. Throws wk::Error{usage} for an unknown
// requested name and {internal} when no rung of the preference applies (its last rung must
// apply to every call that reaches it).
template <class Call>
const char* run_ladder(std::string_view op, std::span<const Rung<Call>> table, std::string_view requested,
                       std::span<const char* const> preference, const Call& call) {
  auto find = [&](std::string_view name) -> const Rung<Call>* {
    for (const auto& r : table)
      if (name == r.info.name) return &r;
    return nullptr;
  };
  if (!requested.empty()) {
    const Rung<Call>* r = find(requested);
    if (!r) check_rung_name(op, rung_infos(table), requested);  // throws, naming the choices
    if (r->try_run(call)) return r->info.name;
  }
  for (const char* name : preference) {
    const Rung<Call>* r = find(name);
    if (!r) throw Error(ErrorCategory::internal, std::string(op) + ": tuning names no rung '" + name + "'");
    if (r->try_run(call)) return r->info.name;
  }
  throw Error(ErrorCategory::internal, std::string(op) + ": no rung of the tuning applies to this call");
}

// An op's ladder: its rung table and its tuning, under the op's name (for messages).
template <class Call>
class Ladder {
 public:
  Ladder(const char* op, std::span<const Rung<Call>> rungs, std::span<const ArchOrder> tuning)
      : op_(op), rungs_(rungs), tuning_(tuning), infos_(rung_infos(rungs)) {}
  std::span<const RungInfo> infos() const { return infos_; }
  // The tuning's order for the current device.
  std::span<const char* const> order() const { return tuning_for<std::span<const char* const>>(tuning_); }
  // Runs `requested` or the tuned order (run_ladder); returns the name of the rung that ran.
  const char* run(std::string_view requested, const Call& call) const { return run_ladder(op_, rungs_, requested, order(), call); }
  // A call with nothing to run (an empty image): checks `requested` as run() would, returns "".
  const char* none(std::string_view requested) const {
    if (!requested.empty()) check_rung_name(op_, infos_, requested);
    return "";
  }
  // As run(), with the order given (ops whose order depends on the call).
  const char* run(std::string_view requested, std::span<const char* const> order, const Call& call) const {
    return run_ladder(op_, rungs_, requested, order, call);
  }

 private:
  const char* op_;
  std::span<const Rung<Call>> rungs_;
  std::span<const ArchOrder> tuning_;
  std::vector<RungInfo> infos_;
};

}  // namespace wk::detail
