#pragma once
// The rung tables of the image operations as the tests see them: the names an operation's
// declaration lists (wk/image/op.hpp), the table checks every operation shares, and the check
// that an unknown name is refused with a usage error naming the known ones.
#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wk/core/error.hpp"
#include "wk/core/rung.hpp"
#include "wk/image/op.hpp"

namespace wk::test {

// The rungs of `op`'s ladder, in ladder order.
inline std::span<const RungInfo> rungs_of(std::string_view op) {
  const image::OpInfo* info = image::find_operation(op);
  REQUIRE(info != nullptr);
  REQUIRE(info->rungs != nullptr);
  return info->rungs();
}

inline std::vector<std::string> rung_names_of(std::string_view op) {
  std::vector<std::string> names;
  for (const RungInfo& r : rungs_of(op)) names.emplace_back(r.name);
  return names;
}

inline bool is_rung_of(std::string_view op, std::string_view name) {
  for (const RungInfo& r : rungs_of(op))
    if (name == r.name) return true;
  return false;
}

// "a, b, c": the known names as the usage error lists them.
inline std::string joined_rung_names(std::string_view op) {
  std::string out;
  for (const std::string& n : rung_names_of(op)) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// fn() must throw wk::Error{usage} "OP: unknown rung 'NAME' (known: a, b, ...)", every rung of
// `op` named in ladder order.
template <class Fn>
void check_unknown_rung(std::string_view op, std::string_view name, Fn&& fn) {
  const std::string op_s(op), name_s(name);
  CAPTURE(op_s, name_s);
  try {
    fn();
    FAIL("the unknown rung was accepted");
  } catch (const Error& e) {
    CHECK(e.category() == ErrorCategory::usage);
    CHECK_THAT(e.what(), Catch::Contains(op_s + ": unknown rung '" + name_s + "'") &&
                             Catch::Contains("(known: " + joined_rung_names(op) + ")"));
  }
}

// A rung name: lower-case words (letters and digits) joined by single '_'.
inline bool well_formed_rung_name(std::string_view name) {
  if (name.empty() || name.front() == '_' || name.back() == '_' || name.find("__") != std::string_view::npos) return false;
  if (!std::islower(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// `op`'s table lists exactly `names` in ladder order, each with a line of help; every name passes
// wk::check_rung_name, and names that are not in the table are refused with a usage error:
// "fastest", the first name capitalised (names match exactly) and those of `unknown` (another
// op's rungs, say).
inline void check_rung_table(std::string_view op, const std::vector<std::string>& names,
                             std::vector<std::string> unknown = {}) {
  const std::string op_s(op);
  CAPTURE(op_s);
  const auto rungs = rungs_of(op);
  CHECK(rung_names_of(op) == names);
  CHECK(rung_names(rungs) == joined_rung_names(op));
  std::set<std::string> seen;
  for (const RungInfo& r : rungs) {
    const std::string name = r.name;
    CAPTURE(name);
    CHECK(well_formed_rung_name(name));
    CHECK(seen.insert(name).second);
    REQUIRE(r.summary != nullptr);
    CHECK(std::string(r.summary).size() > 10);
    CHECK_NOTHROW(check_rung_name(op, rungs, name));
  }
  unknown.push_back("fastest");
  if (!names.empty()) {
    std::string capitalised = names.front();
    capitalised.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(capitalised.front())));
    unknown.push_back(capitalised);
  }
  for (const std::string& bad : unknown) check_unknown_rung(op, bad, [&] { check_rung_name(op, rungs, bad); });
}

}  // namespace wk::test
